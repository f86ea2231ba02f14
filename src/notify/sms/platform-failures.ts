import { decrypt, type EncryptionKeys } from '../../platform/crypto.ts';
import type { Executor } from '../../platform/db.ts';
import { maskPhone, messageKind, messageStatusText } from './claim-messages.ts';
import { listPlatformFailures } from './sms-repo.ts';
import { twilioFailureClass } from './twilio.ts';

/**
 * The SMS that failed on the platform's side, not the customer's number (docs/OPERATOR.md, "The SMS
 * provider fails"): for `parasol sms failures`. Read from the audit log, newest first.
 */
export interface SmsPlatformFailure {
  at: Date;
  claimId: string | null;
  claimNumber: string | null;
  partner: string;
  environment: string;
  /** What the message was (opened, reminder, paid, …). */
  kind: string;
  /**
   * `receipt` (the carrier failed it, by a delivery receipt), `send` (the provider refused the send, or
   * answered it with a passing failure: 30001), `given_up` (queued a day, never sent).
   */
  event: 'receipt' | 'send' | 'given_up';
  /**
   * The provider that answered (`twilio`), as the audit row recorded it; on a row audited before it did,
   * the message's provider now (a later send by another would show that one). Null for a message given
   * up: none sent it (the provider its attempts tried, if any, never answered them with a message).
   */
  provider: string | null;
  /** The provider's error code (Twilio's), when it gave one. */
  providerCode: number | null;
  /**
   * `platform_temporary` or `platform` (as the receipt's route classed it; on a row audited before
   * receipts named it, by Twilio's code for a Twilio message, else by whether it was queued again);
   * `unauthorized` (credentials); null for a message given up.
   */
  failureClass: 'platform_temporary' | 'platform' | 'unauthorized' | null;
  /** What the platform did then: `requeued` (sent again after a back-off) or `given_up` (left to the operator). */
  outcome: 'requeued' | 'given_up';
  /** Sends of the message so far (at most MAX_SMS_ATTEMPTS). */
  attempts: number;
  /** The message's status now, as the claim page shows it (`sent → delivered`, `queued`, `rejected: …`). */
  now: string;
  /** The number it went to, masked (`+33 •••• 78`): never in clear. */
  to: string;
}

/**
 * The class of a platform failure audited before receipts named it: by Twilio's code for a message
 * Twilio carried (the one provider whose codes Parasol classes); for another provider's, whether the
 * platform queued it again (it did only for a passing failure).
 */
function unnamedClass(
  provider: string | null,
  code: number | null,
  queuedAgain: boolean,
): 'platform_temporary' | 'platform' {
  if (provider === 'twilio')
    return twilioFailureClass(code) === 'platform_temporary' ? 'platform_temporary' : 'platform';
  return queuedAgain ? 'platform_temporary' : 'platform';
}

export async function smsPlatformFailures(
  db: Executor,
  key: EncryptionKeys,
  filter: { since?: Date | undefined; partnerId?: string | undefined; limit: number },
): Promise<SmsPlatformFailure[]> {
  const rows = await listPlatformFailures(db, filter);
  return rows.map((r) => {
    const data = r.data;
    const code = typeof data.providerCode === 'number' ? data.providerCode : null;
    const given = r.action === 'sms_rejected' && data.reason === 'given_up';
    // a passing failure answered at send is audited as a receipt's is (one path), marked `source: 'send'`
    const event = r.action === 'sms_undelivered' && data.source !== 'send' ? 'receipt' : given ? 'given_up' : 'send';
    // a message given up was never sent: the message's provider is only the one its last attempt tried
    const provider = given ? null : typeof data.provider === 'string' ? data.provider : r.provider;
    return {
      at: r.at,
      claimId: r.claim_id,
      claimNumber: r.claim_number,
      partner: r.partner_slug,
      environment: r.environment,
      kind: messageKind(r.idempotency_key),
      event,
      provider,
      providerCode: code,
      failureClass: given
        ? null
        : data.reason === 'unauthorized'
          ? 'unauthorized'
          : // audited since receipts name it; before, read from the row itself
            data.failureClass === 'temporary'
            ? 'platform_temporary'
            : data.failureClass === 'lasting'
              ? 'platform'
              : unnamedClass(provider, code, data.queuedAgain === true),
      outcome: data.queuedAgain === true ? 'requeued' : 'given_up',
      attempts: Number(r.attempts),
      now: messageStatusText({
        status: r.status,
        lastError: r.last_error,
        delivery: r.delivery_status ? { status: r.delivery_status, errorCode: r.delivery_error } : null,
      }),
      to: maskPhone(decrypt(key, r.to_enc)),
    } satisfies SmsPlatformFailure;
  });
}
