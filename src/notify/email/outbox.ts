import { sha256Hex } from '../../platform/crypto.ts';
import {
  EMAIL_ADDRESS,
  EmailRejectedError,
  type EmailMessage,
  type EmailProvider,
  type EmailSendResult,
} from './email.ts';

/**
 * The outbox provider: sends nothing. The message is already stored (the `emails` row the job
 * sends); marking it sent by `outbox` puts it in the outbox an operator reads (`/admin/emails`,
 * `parasol emails list`). Used for sandbox and preproduction messages, and for every message when
 * no SMTP server is configured (a development or demo deployment).
 */
export class OutboxEmailProvider implements EmailProvider {
  readonly name = 'outbox';

  async send(msg: EmailMessage): Promise<EmailSendResult> {
    // Same rules as the real provider, so a sandbox fails where production would.
    if (!EMAIL_ADDRESS.test(msg.to))
      throw new EmailRejectedError(this.name, 'recipient is not an email address', undefined, { recipient: true });
    return { providerMessageId: outboxEmailId(msg.dedupeKey) };
  }
}

export function outboxEmailId(dedupeKey: string): string {
  return `OE${sha256Hex(`parasol/email-outbox/v1:${dedupeKey}`).slice(0, 32)}`;
}
