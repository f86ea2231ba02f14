import { audit } from '../../platform/audit.ts';
import type { Environment } from '../../platform/db-schema.ts';
import { transaction, type Db, type Executor } from '../../platform/db.ts';
import { keyedJobId, type JobQueue } from '../../platform/jobs.ts';
import { messageKind } from './claim-messages.ts';
import { MAX_SMS_ATTEMPTS, SMS_DELIVERY_STATUSES, type SmsDeliveryStatus } from './model.ts';
import * as repo from './sms-repo.ts';

/**
 * Delivery receipts (docs/sms.md, "Delivery receipts"): what the carrier did with a message the
 * provider accepted. Twilio posts each status change to the status callback; the latest is kept on
 * the message, never going back (callbacks may arrive out of order: `delivered` then a late `sent`).
 * A message the carrier could not deliver (`undelivered`, `failed`) is audited and handed to
 * `onUndelivered` in the same transaction — a claim's customer the platform could not reach — unless
 * the provider's route read its error code as the platform's own failure (`platformFailure`; Twilio's:
 * `twilioFailureClass`), which would make every customer look unreachable: audited
 * (`platformFailure: true`) for the operator, the partner not told; a `temporary` one (Twilio's queue
 * overflow) queues the message again (`requeueFailedSms`, back-off `platformRetryDelayMs`) while it has
 * sends left (MAX_SMS_ATTEMPTS), with its `sms_send` job due at the hold's end in the same transaction
 * (`queuePlatformResend`; the `sms_requeue` sweep stays the fallback). A send the provider answered
 * with such a failure goes the same way (`recordSendPlatformFailure`): one path, `recordUndelivered`.
 * The audit row names the provider that answered. This file knows no provider's codes.
 */

export interface SmsDeliveryReport {
  /** The provider's message id (Twilio's `MessageSid`). */
  messageSid: string;
  status: SmsDeliveryStatus;
  /** Twilio's `ErrorCode` (e.g. 30003 unreachable handset, 30005 unknown number, 30006 landline). */
  errorCode: number | null;
  /**
   * Set by the provider's route from its own codes: the failure is the platform's (its account, sender,
   * content, throughput), not the customer's — `temporary` (worth sending again) or `lasting`.
   */
  platformFailure?: 'lasting' | 'temporary' | undefined;
}

/** How long a message the carrier failed for a passing platform reason waits to be sent again: 1, 2, 4, 8, then 15 minutes. */
export function platformRetryDelayMs(attempts: number): number {
  return Math.min(PLATFORM_RETRY_MAX_MS, 60_000 * 2 ** Math.max(0, attempts - 1));
}
/** The longest wait before a message failed for a passing platform reason is sent again. */
const PLATFORM_RETRY_MAX_MS = 15 * 60_000;

/** A message that did not reach its recipient: refused at send, or undelivered by the carrier. */
export interface UndeliveredSms {
  /** The production message (`sms_messages`); null for a sandbox message the outbox refused. */
  smsId: string | null;
  claimId: string | null;
  partnerId: string;
  environment: Environment;
  /** What the message was (opened, reminder, payment_failed, paid, resend). */
  kind: string;
  /** `rejected` (the provider refused it at send), or the carrier's `undelivered` / `failed`. */
  status: 'rejected' | 'undelivered' | 'failed';
  /** The provider's error code, when it gave one. */
  errorCode: number | null;
  /**
   * A later message of the same claim exists (a receipt arriving late, after the link was texted again
   * to a corrected phone or a reminder went out): that one's own fate tells whether the customer is reached.
   */
  superseded: boolean;
  /** When the platform learnt it: the clock of the use case that records the failure (the send, the report, the sweep). */
  at: Date;
}

/** Called in the transaction that records the failure (e.g. the claims domain tells the partner). */
export type OnUndelivered = (trx: Executor, sms: UndeliveredSms) => Promise<void>;

/** What recording a receipt needs: the database, the job queue (a resend's job), who is told of an undelivered message. */
export interface SmsDeliveryDeps {
  db: Db;
  /**
   * Queues the `sms_send` job of a message queued again for a passing platform failure, due at its
   * hold's end. Undefined (a test, a caller without a queue): the `sms_requeue` sweep sends it, 30 to 40
   * minutes after it was written.
   */
  jobs: JobQueue | undefined;
  onUndelivered?: OnUndelivered | undefined;
}

/**
 * The send job of a message queued again after a passing platform failure: due at the hold's end, in
 * the transaction of the requeue (a crash loses neither or both). One receipt queues one job: an early
 * receipt is taken by one transaction (`takeEarlyReceipts`), and the requeue acts only on a `sent`
 * message. Its id, the message's and the attempt's (`keyedJobId`), is a second guard — and the send
 * takes the message under a lease, only while it is queued, so a second job finds it sent and skips it.
 */
async function queuePlatformResend(
  trx: Executor,
  jobs: JobQueue | undefined,
  smsId: string,
  attempts: number,
  startAfter: Date,
): Promise<void> {
  if (!jobs) return;
  await jobs.send('sms_send', { smsId }, { trx, startAfter, id: platformResendJobId(smsId, attempts) });
}

/** The id of the send job queued when the send numbered `attempts` of a message failed for a passing platform reason. */
export function platformResendJobId(smsId: string, attempts: number): string {
  return keyedJobId(`sms_send:platform-resend:${smsId}:${attempts}`);
}

/** How far along a message is; a report only ever moves it forward. Final states share a rank: the first wins. */
const RANK: Record<SmsDeliveryStatus, number> = {
  accepted: 1,
  scheduled: 1,
  queued: 2,
  sending: 3,
  sent: 4,
  delivered: 5,
  undelivered: 5,
  failed: 5,
  partially_delivered: 5,
  canceled: 5,
  read: 6,
};

export function isSmsDeliveryStatus(value: string): value is SmsDeliveryStatus {
  return (SMS_DELIVERY_STATUSES as readonly string[]).includes(value);
}

/**
 * Records one report: `recorded` (the message moved forward), `stale` (it already knows as much or
 * more), `early` (no message has this id yet: kept, and applied when the send records it — a failure
 * reported before the send job has stored Twilio's answer; a receipt never matched, such as another
 * application's on the same account, or the first send of a message whose job stopped before storing
 * the answer and sent it again under a new id, is forgotten after a day).
 */
export async function recordSmsDelivery(
  deps: SmsDeliveryDeps,
  provider: string,
  report: SmsDeliveryReport,
  at: Date,
): Promise<'recorded' | 'stale' | 'early'> {
  return transaction(deps.db, async (trx) => {
    const outcome = await applyReport(trx, deps, provider, report, at);
    if (outcome !== 'unknown') return outcome;
    await repo.keepEarlyReceipt(trx, provider, report);
    return 'early';
  });
}

/**
 * Applies the receipts kept for a message before its provider id was recorded (`recordSmsDelivery`'s
 * `early`), in the order they came, then forgets them: called by the send once it records the id, and
 * by the `sms_requeue` sweep for any the send could not apply. Answers how many were applied.
 */
export async function applyEarlyReceipts(
  deps: SmsDeliveryDeps,
  provider: string,
  messageSid: string,
  at: Date,
): Promise<number> {
  return transaction(deps.db, async (trx) => {
    let applied = 0;
    for (const r of await repo.takeEarlyReceipts(trx, provider, messageSid))
      if (
        (await applyReport(
          trx,
          deps,
          provider,
          { messageSid, status: r.status, errorCode: r.error, platformFailure: r.platform_failure ?? undefined },
          at,
        )) === 'recorded'
      )
        applied += 1;
    return applied;
  });
}

/** The sweep of early receipts: applies those whose message is known now, forgets those older than a day. */
export async function sweepEarlyReceipts(deps: SmsDeliveryDeps, now: Date): Promise<number> {
  let applied = 0;
  for (const m of await repo.matchedEarlyReceipts(deps.db))
    applied += await applyEarlyReceipts(deps, m.provider, m.message_sid, now);
  await repo.purgeEarlyReceipts(deps.db, new Date(now.getTime() - 86_400_000));
  return applied;
}

async function applyReport(
  trx: Executor,
  deps: Pick<SmsDeliveryDeps, 'jobs' | 'onUndelivered'>,
  provider: string,
  report: SmsDeliveryReport,
  at: Date,
): Promise<'recorded' | 'stale' | 'unknown'> {
  const before = SMS_DELIVERY_STATUSES.filter((s) => RANK[s] < RANK[report.status]);
  const row = await repo.recordDelivery(trx, provider, report, before);
  if (!row) return (await repo.providerMessageExists(trx, provider, report.messageSid)) ? 'stale' : 'unknown';
  if (report.status === 'undelivered' || report.status === 'failed')
    await recordUndelivered(
      trx,
      deps,
      row,
      { ...report, status: report.status, provider, source: 'receipt', from: 'sent' },
      at,
    );
  return 'recorded';
}

/** The message a failure is recorded on. */
type FailedSms = NonNullable<Awaited<ReturnType<typeof repo.recordDelivery>>>;

/**
 * A message that did not reach its recipient, told by a delivery receipt (`source` `receipt`) or by
 * the provider's answer to its send (`send`: a passing failure of the platform's,
 * `recordSendPlatformFailure`) — one path for both. A passing failure of the platform's (`temporary`)
 * queues the message again (`requeueFailedSms` from `from`: `sent` — the provider created it —, or
 * `queued` under the send's lease — an error answer, none created —; back-off `platformRetryDelayMs`
 * by its sends so far) while it has sends left (MAX_SMS_ATTEMPTS), with its send job due at the hold's
 * end (`queuePlatformResend`). Audited `sms_undelivered` (the status, the provider that answered and
 * its code, the message's kind, `source` for a send; never the number); the partner told
 * (`onUndelivered`) unless the failure is the platform's own. Answers whether it was queued again.
 */
async function recordUndelivered(
  trx: Executor,
  deps: Pick<SmsDeliveryDeps, 'jobs' | 'onUndelivered'>,
  row: FailedSms,
  failure: {
    /** The carrier's `undelivered` / `failed`; `rejected`: an error answer to the send (no message created). */
    status: 'undelivered' | 'failed' | 'rejected';
    errorCode: number | null;
    platformFailure?: 'lasting' | 'temporary' | undefined;
    /** The provider that answered (the message's own may change with its next send). */
    provider: string;
    /** The id the provider gave a message it created failed at send (audited: its receipt, later, is recognised). */
    providerMessageId?: string | undefined;
    source: 'receipt' | 'send';
    from: 'sent' | 'queued';
  },
  at: Date,
): Promise<boolean> {
  const platformFailure = failure.platformFailure !== undefined;
  // a passing failure of the platform's (a queue overflow): sent again, with back-off, while sends are left
  const holdUntil = new Date(at.getTime() + platformRetryDelayMs(Number(row.attempts)));
  const requeued =
    failure.platformFailure === 'temporary' &&
    (await repo.requeueFailedSms(trx, row.id, {
      from: failure.from,
      error: `${failure.source === 'send' ? 'send' : 'carrier'} failure ${failure.errorCode ?? ''} of the platform's, passing: queued again`,
      holdUntil,
      maxAttempts: MAX_SMS_ATTEMPTS,
    }));
  // its send at the hold's end, not at the sweep's next pass (30 to 40 minutes for a claim's link)
  if (requeued) await queuePlatformResend(trx, deps.jobs, row.id, Number(row.attempts), holdUntil);
  const sms: UndeliveredSms = {
    smsId: row.id,
    claimId: row.claim_id,
    partnerId: row.partner_id,
    environment: row.environment,
    kind: messageKind(row.idempotency_key),
    status: failure.status,
    errorCode: failure.errorCode,
    superseded: await repo.hasLaterClaimMessage(trx, row.id),
    at,
  };
  await audit(trx, {
    actor: 'system',
    partnerId: row.partner_id,
    environment: row.environment,
    entity: 'sms',
    entityId: row.id,
    action: 'sms_undelivered',
    at,
    data: {
      status: failure.status,
      provider: failure.provider,
      providerCode: failure.errorCode,
      kind: sms.kind,
      ...(failure.source === 'send' ? { source: 'send' } : {}),
      ...(failure.source === 'send' && failure.providerMessageId
        ? { providerMessageId: failure.providerMessageId }
        : {}),
      ...(platformFailure ? { platformFailure, failureClass: failure.platformFailure } : {}),
      ...(requeued ? { queuedAgain: true } : {}),
    },
  });
  if (!platformFailure) await deps.onUndelivered?.(trx, sms);
  return requeued;
}

/**
 * A send the provider answered with a passing failure of the platform's (`SmsPlatformTemporaryError`:
 * Twilio's 30001 — a message created already `failed` or `undelivered`, or an error answer naming it),
 * recorded in one transaction by the receipt's own path (`recordUndelivered`). A message the provider
 * created is first recorded `sent` with its id and that failure, as if its receipt had come at once;
 * then, while it has sends left, it is queued again with its send job due at the hold's end — the send
 * counted (the same MAX_SMS_ATTEMPTS, the same give-up a day after it was written) —, audited
 * `sms_undelivered` (`source: 'send'`, `platformFailure`, `failureClass` `temporary`, `queuedAgain`),
 * the partner not told. Out of sends: a message created stays `sent`, failed (as a receipt leaves it);
 * after an error answer (none created) it is marked `rejected` with the provider's error. The row is
 * the send's own (leased). Answers `requeued` or `rejected`.
 */
export async function recordSendPlatformFailure(
  deps: SmsDeliveryDeps,
  smsId: string,
  failure: {
    provider: string;
    providerMessageId: string | undefined;
    status: 'failed' | 'undelivered' | undefined;
    errorCode: number | null;
    /** The provider's error: the message's `last_error` when it is marked rejected (no personal data). */
    error: string;
  },
  at: Date,
): Promise<'requeued' | 'rejected'> {
  return transaction(deps.db, async (trx) => {
    const { providerMessageId: sid, status } = failure;
    const created = sid !== undefined && status !== undefined ? { sid, status } : undefined;
    let row: FailedSms | undefined;
    if (created) {
      await repo.markSmsSent(trx, smsId, created.sid, at);
      row = await repo.recordDelivery(
        trx,
        failure.provider,
        { messageSid: created.sid, status: created.status, errorCode: failure.errorCode },
        SMS_DELIVERY_STATUSES.filter((s) => RANK[s] < RANK[created.status]),
      );
    } else row = await repo.findFailedSms(trx, smsId);
    if (!row) throw new Error(`SMS ${smsId} not found to record its send's failure`);
    const requeued = await recordUndelivered(
      trx,
      deps,
      row,
      {
        status: created ? created.status : 'rejected',
        errorCode: failure.errorCode,
        platformFailure: 'temporary',
        provider: failure.provider,
        providerMessageId: created?.sid,
        source: 'send',
        from: created ? 'sent' : 'queued',
      },
      at,
    );
    if (requeued) return 'requeued';
    if (!created) await repo.markSmsRejected(trx, smsId, failure.error);
    return 'rejected';
  });
}
