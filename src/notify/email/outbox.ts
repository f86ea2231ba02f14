import { sha256Hex } from '../../platform/crypto.ts';
import {
  EMAIL_ADDRESS,
  EmailRejectedError,
  type EmailMessage,
  type EmailProvider,
  type EmailSendResult,
} from './email.ts';
import { classifySmtpError } from './smtp.ts';

/**
 * Test recipients that a mail server refuses: the outbox answers them as a real server answers that
 * reply at RCPT TO — read by the SMTP provider's own rules (`classifySmtpError`), so the message is
 * `rejected` with the same `last_error` (`outbox: SMTP 550 5.1.1 to RCPT`), and for the address (5.1.1
 * no such mailbox, 5.2.1 disabled) the claim's partner gets `claim.customer_unreachable` (channel
 * `email`, `errorCode` 550), as in production; a full mailbox (5.2.2) blames the message, nobody told.
 * Wherever the outbox sends: sandbox and preproduction, and every message when no SMTP server is
 * configured — harmless there too: the domain is reserved (RFC 2606 `.invalid`), no real mailbox has
 * these addresses. Compared without case. Docs: docs/sms.md ("Delivery receipts"), docs/webhooks.md.
 */
export const REFUSED_TEST_ADDRESSES: Readonly<Record<string, { responseCode: number; response: string }>> = {
  'unknown-mailbox@sandbox.parasol.invalid': {
    responseCode: 550,
    response: '550 5.1.1 mailbox unknown (test address)',
  },
  'disabled-mailbox@sandbox.parasol.invalid': {
    responseCode: 550,
    response: '550 5.2.1 mailbox disabled (test address)',
  },
  'full-mailbox@sandbox.parasol.invalid': { responseCode: 552, response: '552 5.2.2 mailbox full (test address)' },
};

/**
 * The outbox provider: sends nothing. The message is already stored (the `emails` row the job
 * sends); marking it sent by `outbox` puts it in the outbox an operator reads (`/admin/emails`,
 * `parasol emails list`). Used for sandbox and preproduction messages, and for every message when
 * no SMTP server is configured (a development or demo deployment). It refuses what a server would:
 * an address that is none, and the refused test recipients (`REFUSED_TEST_ADDRESSES`).
 */
export class OutboxEmailProvider implements EmailProvider {
  readonly name = 'outbox';

  async send(msg: EmailMessage): Promise<EmailSendResult> {
    // Same rules as the real provider, so a sandbox fails where production would.
    if (!EMAIL_ADDRESS.test(msg.to))
      throw new EmailRejectedError(this.name, 'recipient is not an email address', undefined, { recipient: true });
    const refused = REFUSED_TEST_ADDRESSES[msg.to.toLowerCase()];
    // the server's reply to RCPT TO, as nodemailer reports it
    if (refused) throw classifySmtpError(this.name, { ...refused, code: 'EENVELOPE', command: 'RCPT TO' });
    return { providerMessageId: outboxEmailId(msg.dedupeKey) };
  }
}

export function outboxEmailId(dedupeKey: string): string {
  return `OE${sha256Hex(`parasol/email-outbox/v1:${dedupeKey}`).slice(0, 32)}`;
}
