import { audit } from '../../platform/audit.ts';
import { decrypt, encrypt, type Keyring } from '../../platform/crypto.ts';
import type { Environment } from '../../platform/db-schema.ts';
import type { Db, Executor } from '../../platform/db.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import type { QuietHours } from '../../platform/config.ts';
import { clampRetryAfter } from '../../platform/retry-after.ts';
import { messageKind } from './claim-messages.ts';
import { MAX_SMS_ATTEMPTS } from './model.ts';
import { applyEarlyReceipts, recordSendPlatformFailure, type OnUndelivered } from './delivery.ts';
import { giveUpStaleMessages } from '../give-up-stale.ts';
import { skipDeadLinkMessage } from '../link-messages-repo.ts';
import { holdForQuietHours } from '../quiet-hold.ts';
import * as repo from './sms-repo.ts';
import { SmsPlatformTemporaryError, SmsRejectedError, SmsRetryableError, type SmsProvider } from './sms.ts';

/**
 * Production SMS: the message is written in the transaction of the change that causes it (to and
 * body encrypted: the body carries the customer's link) with its send job; the job sends it through
 * the configured provider after commit. A provider that cannot be reached is retried with back-off
 * a few times (`SMS_QUEUE_POLICY`); a message the provider refuses is marked `rejected` and left to
 * an operator. Twilio has no idempotency key: a send after an attempt whose outcome was not
 * recorded (a timeout, a lost answer, a crash between Twilio's acceptance and our update) first asks
 * the provider for the message that attempt may have sent (`SmsMessage.earlierAttemptSince`) and
 * records it instead of texting again; only a message Twilio does not list yet, or a look-up Twilio
 * refuses, can still go twice — at most MAX_SMS_ATTEMPTS sends, never more.
 */

/** 8 retries from 3 s (13 to 25 minutes in all); expiry 15 s: Twilio answers within 10 s or the adapter times out. */
export const SMS_QUEUE_POLICY = { retryLimit: 8, retryDelay: 3, retryBackoff: true, expireInSeconds: 15 } as const;

/**
 * A provider's `Retry-After` is obeyed (the Twilio adapter reads it on a 429, every 5xx and a 408): the send job does not throw (the
 * queue's back-off, 3 s then doubling, would call Twilio again before it asked) but queues the message's
 * next send job to start after it, and ends. The wait is at least the back-off the n-th deferral would
 * have had (3 s × 2ⁿ, so a `Retry-After: 1` repeated forever does not call Twilio every second), at
 * most SMS_RETRY_AFTER_MAX_MS (a Retry-After of a day would hold a claim's link that long: the message is
 * tried again, and gets a new Retry-After if still refused). Past SMS_MAX_DEFERRALS deferrals in a row
 * the job throws as before (the queue's back-off, then the `sms_requeue` sweep; given up after a day).
 * The attempt is not counted (`rate_limited`, `server_error` are NOT_SENT_RETRY_REASONS).
 */
export const SMS_RETRY_AFTER_MAX_MS = 15 * 60_000;
export const SMS_MAX_DEFERRALS = 8;

/** How long the n-th deferral (0-based) of a send waits, given the provider's Retry-After. */
export function deferralDelayMs(retryAfterMs: number, deferrals: number): number {
  const backOff = SMS_QUEUE_POLICY.retryDelay * 1000 * 2 ** Math.min(deferrals, 20);
  return clampRetryAfter(Math.max(retryAfterMs, backOff), SMS_RETRY_AFTER_MAX_MS);
}

/** A send deferred by the provider's Retry-After: its next send job is queued; the job ends without a retry. */
export class SmsDeferred extends Error {
  override readonly name = 'SmsDeferred';
  constructor(
    readonly reason: string,
    readonly delayMs: number,
  ) {
    super(`SMS send deferred by the provider's Retry-After (${reason}): next try in ${Math.round(delayMs / 1000)} s`);
  }
}

export class SmsProviderMissing extends Error {
  constructor(environment: string) {
    super(
      `No SMS provider is configured for ${environment} (set PARASOL_TWILIO_*): the message stays queued; the job is retried a few times, then fails.`,
    );
    this.name = 'SmsProviderMissing';
  }
}

export async function queueSms(
  trx: Executor,
  deps: { jobs: JobQueue; keys: Keyring },
  m: {
    idempotencyKey: string;
    partnerId: string;
    environment: Environment;
    claimId: string | null;
    to: string;
    body: string;
  },
): Promise<void> {
  const smsId = await repo.insertQueuedSms(trx, {
    idempotency_key: m.idempotencyKey,
    partner_id: m.partnerId,
    environment: m.environment,
    claim_id: m.claimId,
    to_enc: encrypt(deps.keys.encryption, m.to),
    body_enc: encrypt(deps.keys.encryption, m.body),
    status: 'queued',
  });
  if (smsId) await deps.jobs.send('sms_send', { smsId }, { trx });
}

/** Whether a message with this idempotency key was already written (sent or not). */
export const smsExists = repo.smsExists;

/** How long a send may hold its message: the job's own expiry (Twilio answers within 10 s, or the adapter times out). */
const SEND_LEASE_SECONDS = SMS_QUEUE_POLICY.expireInSeconds;
export { MAX_SMS_ATTEMPTS };

/**
 * The send job. Takes the message with a lease (two jobs for one message never send it at once),
 * sends it, records the outcome. Returns what happened; throws to have the queue retry. A link
 * message whose link no longer works or is no longer wanted by the time it is sent (the provider down
 * meanwhile; `skipDeadLinkMessage`) is not sent: its claim in `linkUselessClaimStatuses` (the claims
 * domain's: voided, paid, expired, or bank details given — payment pending), a newer link of the
 * claim (a later reminder, resend, rejected payment's), or the link used or past its due date (`now`,
 * the application's clock, as the link page reads it). Marked `rejected`, `skipped: …` its error
 * (why), and `skipped` answered — the customer never gets a dead link, nor a request for details
 * already given. The email job does the same.
 *
 * A send the provider answers with a passing failure of the platform's (Twilio's 30001 queue overflow:
 * `SmsPlatformTemporaryError`) goes the way a delivery receipt with that code goes
 * (`recordSendPlatformFailure`): queued again, held 1, 2, 4, 8 then 15 minutes by its sends so far, its
 * send job due when the hold ends, in one transaction — `requeued` answered — while it has sends left
 * (then `rejected`); audited `sms_undelivered` (`source: 'send'`), the partner not told.
 *
 * Quiet hours (`quietHours`, config.smsQuietHours) apply here as when the claim job wrote the message
 * (`quietHoursHold`): a reminder or an expiry notice that an outage kept queued (the job's retries, a
 * Retry-After, the `sms_requeue` sweep) and that comes out at night where the customer lives is not
 * texted then — it is held (`locked_until`, no attempt used) and its send job queued for the morning;
 * `held` answered — unless that morning comes within an hour of its give-up (`SMS_GIVE_UP_HOURS`
 * after it was written): then it is sent now. The messages sent at any hour the first time (the claim's first message, a
 * rejected payment's, a resend, the receipt, the withdrawal) are sent at any hour after an outage too.
 */
export async function sendQueuedSms(
  deps: {
    db: Db;
    keys: Keyring;
    provider: SmsProvider | undefined;
    onUndelivered?: OnUndelivered | undefined;
    linkUselessClaimStatuses: readonly string[];
    now?: () => Date;
    /**
     * To defer a send by the provider's Retry-After (SmsDeferred), or a held one to the morning, and to
     * queue the resend of a message an early receipt re-queues (`applyEarlyReceipts`); without it the job
     * throws for the queue's back-off, and a held or re-queued message waits for the `sms_requeue` sweep.
     */
    jobs?: JobQueue | undefined;
    /** The customer's night, when a reminder or an expiry notice waits (config.smsQuietHours); absent: any hour. */
    quietHours?: QuietHours | null | undefined;
  },
  smsId: string,
  /** How many times in a row this message's send was deferred by a Retry-After (the job's payload). */
  deferrals = 0,
): Promise<'sent' | 'rejected' | 'skipped' | 'held' | 'requeued'> {
  const { linkUselessClaimStatuses } = deps;
  const clock = deps.now ?? (() => new Date());
  const now = clock();
  if (await skipDeadLinkMessage(deps.db, 'sms', smsId, { linkUselessClaimStatuses, now })) return 'skipped';
  if (!deps.provider) {
    const row = await repo.findSmsState(deps.db, smsId);
    if (!row || row.status !== 'queued') return 'skipped';
    throw new SmsProviderMissing(row.environment);
  }
  if (deps.quietHours) {
    const jobs = deps.jobs;
    // the reminder and the expiry notice wait for the customer's morning (the hold both channels share)
    const held = await holdForQuietHours(deps, 'sms', smsId, {
      now,
      quiet: deps.quietHours,
      giveUpHours: SMS_GIVE_UP_HOURS,
      queueSend: async (trx, startAfter) => {
        if (jobs) await jobs.send('sms_send', { smsId }, { trx, startAfter });
      },
    });
    if (held) return held;
  }
  const row = await repo.leaseQueuedSms(deps.db, smsId, {
    provider: deps.provider.name,
    leaseSeconds: SEND_LEASE_SECONDS,
    maxAttempts: MAX_SMS_ATTEMPTS,
  });
  if (!row) return 'skipped'; // sent, refused, or being sent by another job
  let providerMessageId: string | null;
  const providerName = deps.provider.name;
  try {
    const sent = await deps.provider.send({
      to: decrypt(deps.keys.encryption, row.to_enc),
      body: decrypt(deps.keys.encryption, row.body_enc),
      idempotencyKey: row.idempotency_key,
      // an earlier attempt ended without a recorded outcome (a timeout, a lost answer, a worker that
      // stopped; or an error answer): the provider looks for the message it may have accepted first
      ...(Number(row.attempts) > 1 || row.last_error !== null ? { earlierAttemptSince: row.created_at } : {}),
      // a sid another message recorded is that message's, however alike the texts (two claims' receipts)
      isRecordedElsewhere: (sid) => repo.providerMessageRecordedElsewhere(deps.db, providerName, sid, smsId),
    });
    // the application's clock, as every other time of the claim (its page shows when the SMS went)
    await repo.markSmsSent(deps.db, smsId, sent.providerMessageId, clock());
    providerMessageId = sent.providerMessageId;
  } catch (error) {
    if (error instanceof SmsPlatformTemporaryError) {
      // a passing failure of the platform's answered at send (Twilio's 30001): what a receipt with that
      // code does, by the same path — queued again after a back-off with its send job, while sends are left
      return recordSendPlatformFailure(
        { db: deps.db, jobs: deps.jobs, onUndelivered: deps.onUndelivered },
        smsId,
        {
          provider: providerName,
          providerMessageId: error.providerMessageId,
          status: error.status,
          errorCode: error.providerCode ?? null,
          error: error.message,
        },
        // the clock after the send, as a success records it: the hold, the audit and sent_at start from the answer
        clock(),
      );
    }
    if (error instanceof SmsRejectedError) {
      await deps.db.transaction().execute(async (trx) => {
        await repo.markSmsRejected(trx, smsId, error.message);
        await audit(trx, {
          actor: 'system',
          partnerId: row.partner_id,
          environment: row.environment,
          entity: 'sms',
          entityId: smsId,
          action: 'sms_rejected',
          // the provider that answered (the message's own may change with a later send)
          data: { reason: error.reason, provider: providerName, providerCode: error.providerCode ?? null },
        });
        // the recipient refused (a wrong number, unsubscribed), not the platform's credentials, sender or
        // content — those would make every customer look unreachable: someone can fix the contact
        if (error.reason === 'invalid_number' || error.reason === 'recipient_refused')
          await deps.onUndelivered?.(trx, {
            smsId,
            claimId: row.claim_id,
            partnerId: row.partner_id,
            environment: row.environment,
            kind: messageKind(row.idempotency_key),
            status: 'rejected',
            errorCode: error.providerCode ?? null,
            superseded: false,
            at: now,
          });
      });
      return 'rejected';
    }
    const message = error instanceof SmsRetryableError ? error.message : 'unexpected error';
    const notSent = error instanceof SmsRetryableError && error.notSent;
    const retryAfterMs = error instanceof SmsRetryableError ? error.retryAfterMs : undefined;
    const jobs = deps.jobs;
    if (jobs && retryAfterMs !== undefined && deferrals < SMS_MAX_DEFERRALS) {
      // the provider said when: the next send starts then, in the transaction that gives the lease back
      // the message is held (its lease) until then, the same instant by the same clock, so the
      // sms_requeue sweep does not start a second chain of sends meanwhile
      const delayMs = deferralDelayMs(retryAfterMs, deferrals);
      const startAfter = new Date(Date.now() + delayMs);
      await deps.db.transaction().execute(async (trx) => {
        await repo.releaseSms(trx, smsId, message, { notSent, holdUntil: startAfter });
        await jobs.send('sms_send', { smsId, deferrals: deferrals + 1 }, { trx, startAfter });
      });
      throw new SmsDeferred((error as SmsRetryableError).reason, delayMs);
    }
    await repo.releaseSms(deps.db, smsId, message, { notSent });
    throw error;
  }
  // receipts Twilio sent before the id was recorded (a failure reported at once); the sweep retries them
  // (one that re-queues it for a passing platform failure queues its next send job with it)
  if (providerMessageId)
    await applyEarlyReceipts(
      { db: deps.db, jobs: deps.jobs, onUndelivered: deps.onUndelivered },
      deps.provider.name,
      providerMessageId,
      now,
    );
  return 'sent';
}

/**
 * Production messages still queued after their send jobs gave up (the provider was down or not yet
 * configured longer than the retries last): queued again, a batch at a time, while they have
 * attempts left (MAX_SMS_ATTEMPTS) and are still worth a text by their kind — a link message while
 * its claim waits for the bank details it asks for (a link replaced since, a claim settled: not), the
 * receipt while the claim is paid, the withdrawal while it is voided. The worker runs
 * it every 10 minutes when an SMS provider is configured; each message is sent by one job at a time
 * (the lease above).
 */
export async function requeueStaleSms(
  deps: { db: Db; jobs: JobQueue },
  olderThanMinutes = 30,
  limit = 1_000,
): Promise<number> {
  const ids = await repo.findStaleQueuedSms(deps.db, { olderThanMinutes, maxAttempts: MAX_SMS_ATTEMPTS, limit });
  await deps.jobs.sendMany(
    'sms_send',
    ids.map((smsId) => ({ smsId })),
  );
  return ids.length;
}

/**
 * How long a production message may wait in the queue: past it, a message still `queued` (the
 * provider down or not configured that long, or its sends used up by timeouts) is given up — a claim
 * link a day late is a customer left waiting, and someone must know. Docs: docs/sms.md, OPERATOR.md.
 */
export const SMS_GIVE_UP_HOURS = 24;
/** `last_error` of a message given up: no personal data. */
export const SMS_GIVEN_UP = `given up: still queued ${SMS_GIVE_UP_HOURS} hours after it was written; not sent`;

/**
 * Marks `rejected` the messages still queued `SMS_GIVE_UP_HOURS` after they were written (all
 * production: `QUEUES.sms`, queued-messages-repo.ts) and not being sent (`SMS_GIVEN_UP` their error), each with an `sms_rejected` audit row (reason
 * `given_up`) and handed to `onUndelivered` — a claim's link message whose claim still waits for bank
 * details tells the partner (`claim.customer_unreachable`) unless a later message of the claim
 * superseded it. Run by the `sms_requeue` sweep, provider configured or not (`giveUpStaleMessages`,
 * the email's sweep too). Answers how many.
 */
export async function giveUpStaleSms(
  deps: { db: Db; onUndelivered?: OnUndelivered | undefined; now?: () => Date },
  o: { olderThanHours?: number; limit?: number } = {},
): Promise<number> {
  return giveUpStaleMessages(deps, 'sms', {
    olderThanHours: o.olderThanHours ?? SMS_GIVE_UP_HOURS,
    limit: o.limit ?? 1_000,
    error: SMS_GIVEN_UP,
    onGivenUp: async (trx, row, now) => {
      await audit(trx, {
        actor: 'system',
        partnerId: row.partner_id,
        environment: row.environment,
        entity: 'sms',
        entityId: row.id,
        action: 'sms_rejected',
        data: { reason: 'given_up', attempts: Number(row.attempts) },
      });
      await deps.onUndelivered?.(trx, {
        smsId: row.id,
        claimId: row.claim_id,
        partnerId: row.partner_id,
        environment: row.environment,
        kind: messageKind(row.idempotency_key),
        status: 'rejected',
        errorCode: null,
        superseded: await repo.hasLaterClaimMessage(trx, row.id),
        at: now,
      });
    },
  });
}

/** Why a send job failed and will be retried, for the metrics: the provider's reason, `no_provider`, or `unexpected`. */
export function smsRetryReason(error: unknown): string {
  if (error instanceof SmsRetryableError) return error.reason;
  if (error instanceof SmsDeferred) return error.reason;
  if (error instanceof SmsProviderMissing) return 'no_provider';
  return 'unexpected';
}
