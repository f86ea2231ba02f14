import {
  OutboxSmsProvider,
  queueEmail,
  queueSms,
  renderClaimOpenedEmail,
  renderReceiptEmail,
  renderReminderEmail,
  renderClaimSms,
  renderPaidSms,
  renderPaymentFailedSms,
  renderReminderSms,
  renderVoidedSms,
  renderExpiredSms,
  messageKind,
  airportTimeZones,
  quietHoursHold,
  QUIET_HOURS_KINDS,
  smsExists,
  emailExists,
  SmsRejectedError,
  SqlOutboxStore,
  type ClaimEvent,
} from '../notify/index.ts';
import { audit } from '../platform/audit.ts';
import { decrypt, randomToken, sha256Hex, type Keyring } from '../platform/crypto.ts';
import type { Db, Executor } from '../platform/db.ts';
import type { Insurer, QuietHours } from '../platform/config.ts';
import type { JobQueue } from '../platform/jobs.ts';
import * as repo from './claims-repo.ts';
import { tellPartnerCustomerUnreachable } from './customer-unreachable.ts';
import { waitsForBankDetails } from './model.ts';

/**
 * A claims_notify job: the first message of a claim, the one after a rejected payment, the reminder
 * before its due date, the receipt once it is paid, or the word that the claim desk voided it.
 */
export interface NotifyJob {
  claimId: string;
  /** Default `opened`. */
  kind?: 'opened' | 'payment_failed' | 'reminder' | 'paid' | 'voided' | 'expired';
  /**
   * For `payment_failed`: the payout attempt that failed (one message per failed attempt); for
   * `paid`: the attempt paid (a receipt per attempt: a transfer returned, then paid again on new
   * details, gets its own).
   */
  attempt?: number;
}

export interface NotifyDeps {
  db: Db;
  jobs: JobQueue;
  keys: Keyring;
  publicUrl: string;
  bankDetailsDays: number;
  /** Named in every message (config.insurer). */
  insurer: Insurer;
  /**
   * The customer's local hours when a reminder or the expiry notice waits (config.smsQuietHours);
   * absent or null: sent at any hour.
   */
  quietHours?: QuietHours | null | undefined;
  now: () => Date;
  /**
   * Who the message's audit row names (a resend names its own `actor`): `system` for the jobs (the
   * default), the operator for `parasol claims remind` (`operator:<name>`, as every command they run).
   */
  actor?: string | undefined;
}

type NotifyKind = NonNullable<NotifyJob['kind']> | 'resend';
type ClaimToNotify = NonNullable<Awaited<ReturnType<typeof repo.findClaimToNotify>>>;

/** The audit action of each message. */
const ACTIONS: Record<NotifyKind, string> = {
  opened: 'awaiting_bank_details',
  payment_failed: 'new_bank_details_requested',
  reminder: 'bank_details_reminded',
  paid: 'payment_receipt_sent',
  resend: 'bank_details_link_resent',
  voided: 'claim_voided_sent',
  expired: 'claim_expired_sent',
};

/**
 * The job run for each claim opened, after each rejected payment, for a claim about to expire
 * (`remindClaims`) and for a claim paid (`markClaimPaid`). Each message is sent once whatever the
 * retries: the claim row is locked first, and a message already written (its idempotency key in the
 * outbox or `sms_messages`), or a claim that has moved on, makes the job do nothing.
 *
 * - `opened`: a bank-details link (a 256-bit token, stored as its SHA-256, valid while the claim
 *   waits for bank details), the claim → `awaiting_bank_details`, the SMS;
 * - `payment_failed`: a new link (the old one takes no more details), a new due date, the SMS;
 * - `reminder`: a claim still waiting a few days before its due date, not reminded of that due date
 *   yet: a new link (the old one takes no more details) until the same due date, `reminded_due_at`, the SMS;
 * - `paid`: the receipt (the amount, the account's last four digits), no link;
 * - `voided`: the claim desk voided a claim whose customer had been texted a link (`markClaimVoided`):
 *   it is withdrawn and will not be paid, no link, never the desk's reason (internal free text);
 * - `expired`: the claim expired without bank details (`expireClaims`): not paid, the seller to ask;
 *   no link, SMS only, once (`claim:<id>:expired`).
 *
 * One transaction, so a retry after a crash finds either nothing done or everything done. Sandbox and
 * preproduction messages go to the SQL outbox the partner can read; production messages are queued
 * for the SMS provider, sent by their own job after commit.
 */
export async function notifyClaim(deps: NotifyDeps, job: NotifyJob | ResendRequest): Promise<'sent' | 'skipped'> {
  return deps.db.transaction().execute((trx) => notifyClaimIn(trx, deps, job));
}

/**
 * "Resend the link": a new link (the old one takes no more details) until the same due date — the claim's
 * first message again (or the one after a rejected payment), once per `actionToken`, audited as the
 * actor's. An operator's from the claim desk (claims/desk.ts, texted in the operator's transaction),
 * or a `claims_notify` job queued when the partner changes the customer's phone
 * (`resendLinks`, `phone`).
 */
export interface ResendRequest {
  claimId: string;
  kind: 'resend';
  actionToken: string;
  actor: string;
  reason: string;
  /**
   * The customer's email changed, not their phone (`resendLinks`, `email`): the new link is texted as
   * any resend and emailed to the new address too — one live link per claim, carried by both channels
   * (texting nothing would leave the customer's phone a dead link). Without it: SMS only.
   */
  alsoEmail?: boolean;
}

/** `notifyClaim` in the caller's transaction (which may hold the claim's lock already). */
export async function notifyClaimIn(
  trx: Executor,
  deps: Omit<NotifyDeps, 'db'>,
  job: NotifyJob | ResendRequest,
): Promise<'sent' | 'skipped'> {
  const kind = job.kind ?? 'opened';
  const row = await repo.findClaimToNotify(trx, job.claimId);
  if (!row) return 'skipped';
  const now = deps.now();
  // already notified (a retried job), or the claim has moved on
  if (kind === 'opened' && row.status !== 'opened') return 'skipped';
  if (kind === 'payment_failed' && row.status !== 'failed') return 'skipped';
  if (kind === 'paid' && row.status !== 'paid') return 'skipped';
  if (kind === 'voided' && row.status !== 'voided') return 'skipped';
  if (kind === 'expired' && row.status !== 'expired') return 'skipped';
  if (kind === 'reminder' && !isDueForReminder(row, now)) return 'skipped';
  // a resend queued by a contact change finds a claim past due (about to expire; under manual review
  // its clock stands still and its link works: sent): no link for it
  if (kind === 'resend' && !waitsForBankDetails(row, now)) return 'skipped';
  const idempotencyKey = idempotencyKeyOf(kind, row, job);
  const alsoEmail = job.kind === 'resend' && job.alsoEmail === true;
  // a resend for a new email, with no address on the contract (removed meanwhile): nothing asked for —
  // before a link is issued, which would kill the one the customer has
  if (alsoEmail && !row.customer_email_enc) return 'skipped';
  // already sent (a retried job): either channel's message under the key — before a new link is issued,
  // which would kill the one just sent
  if (kind !== 'opened' && (await smsExists(trx, idempotencyKey))) return 'skipped';
  if (alsoEmail && (await emailExists(trx, idempotencyKey))) return 'skipped';
  // what can wait waits for the customer's morning (quiet hours): the reminder's scan skips the claim
  // until then, the expiry notice's job runs again then; nothing written, no link replaced meanwhile.
  // Production only: a sandbox or preproduction message texts no one, it goes to the partner's outbox
  // at once (docs/DECISIONS.md, "Quiet hours: the send job applies them too…", "Sandbox and
  // preproduction are not held"). The kind first: the other kinds' phone is not decrypted for nothing
  if (row.environment === 'production' && QUIET_HOURS_KINDS.includes(kind)) {
    const later = quietHoursHold({
      kind,
      phone: decrypt(deps.keys.encryption, row.customer_phone_enc),
      now,
      quiet: deps.quietHours,
      // a number of no country (+800, +882, satellite…): the trip's ends (the contract's first
      // departure and last arrival), whichever leg the claim is on — a connection is nobody's home
      fallbackZones: airportTimeZones(row.trip_departure_airport, row.trip_arrival_airport),
      dueAt: kind === 'reminder' ? row.bank_details_due_at : null,
    });
    if (later) {
      if (kind === 'reminder') await repo.deferReminder(trx, row.id, later);
      else
        await deps.jobs.send(
          'claims_notify',
          { claimId: row.id, kind: 'expired' },
          // pg-boss reads the real clock: the same wait from it
          { trx, startAfter: new Date(Date.now() + (later.getTime() - now.getTime())) },
        );
      return 'skipped';
    }
  }

  let body: string;
  let link: string | null = null;
  let segments: number;
  let dueAt: Date | null = null;
  let token: string | null = null;
  if (kind === 'paid') {
    const sms = renderPaidSms({ ...wordsOf(row, deps), ibanLast4: row.iban_last4 ?? '????' });
    ({ body, segments } = sms);
  } else if (kind === 'voided') {
    ({ body, segments } = renderVoidedSms(wordsOf(row, deps)));
  } else if (kind === 'expired') {
    ({ body, segments } = renderExpiredSms(wordsOf(row, deps)));
  } else {
    dueAt =
      kind === 'opened' || !row.bank_details_due_at
        ? new Date(now.getTime() + deps.bankDetailsDays * 86_400_000)
        : row.bank_details_due_at;
    // a new link replaces the one the claim had: the old token takes no more details (its page, 410,
    // shows none of the claim's, only its status and the newest message to use: claim_tokens_replaced)
    token = randomToken(32);
    await repo.issueClaimToken(trx, row.id, sha256Hex(token), dueAt);
    const input = { ...wordsOf(row, deps), publicUrl: deps.publicUrl, token };
    if (kind === 'reminder') {
      await repo.markClaimReminded(trx, row.id, dueAt, now);
    } else if (kind !== 'resend') {
      await repo.markClaimAwaitingBankDetails(
        trx,
        row.id,
        kind === 'opened' ? 'awaiting_bank_details' : 'failed',
        dueAt,
        now,
      );
    }
    const sms =
      kind === 'opened' || (kind === 'resend' && row.status === 'awaiting_bank_details')
        ? renderClaimSms({ ...input, event: eventOf(row) })
        : kind === 'payment_failed' || kind === 'resend'
          ? renderPaymentFailedSms(input)
          : renderReminderSms({ ...input, dueAt });
    ({ body, link, segments } = sms);
  }

  const provider = await textCustomer(trx, deps, row, { idempotencyKey, body, link }, now);
  const emailed = await emailCustomer(trx, deps, row, { kind, idempotencyKey, token, dueAt, alsoEmail });
  await audit(trx, {
    actor: job.kind === 'resend' ? job.actor : (deps.actor ?? 'system'),
    partnerId: row.partner_id,
    environment: row.environment,
    entity: 'claim',
    entityId: row.claim_number,
    action: ACTIONS[kind],
    at: now,
    data: {
      ...(job.kind === 'resend' ? { reason: job.reason } : {}),
      sms: { segments, provider },
      ...(emailed ? { email: true } : {}),
      ...(dueAt ? { bankDetailsDueAt: dueAt.toISOString() } : {}),
    },
  });
  return 'sent';
}

/** Still waiting for (new) bank details, due after now and within the reminder window's scan, not reminded of this due date. */
function isDueForReminder(row: ClaimToNotify, now: Date): boolean {
  const due = row.bank_details_due_at;
  if (!due || (row.status !== 'awaiting_bank_details' && row.status !== 'failed')) return false;
  // under the desk's manual review the due date stands still (and moves when the review ends): no reminder of it
  if (row.manual_review_at !== null) return false;
  if (due.getTime() <= now.getTime()) return false;
  return row.reminded_due_at === null || row.reminded_due_at.getTime() !== due.getTime();
}

/** Stable across retries of one logical message: the outbox and `sms_messages` are unique on it. */
function idempotencyKeyOf(kind: NotifyKind, row: ClaimToNotify, job: NotifyJob | ResendRequest): string {
  switch (kind) {
    case 'resend':
      return `claim:${row.id}:resend:${job.kind === 'resend' ? job.actionToken : ''}`;
    case 'opened':
      return `claim:${row.id}:bank-details`;
    case 'payment_failed':
      return `claim:${row.id}:payment-failed:${'attempt' in job ? (job.attempt ?? 1) : 1}`;
    case 'reminder':
      return `claim:${row.id}:reminder:${row.bank_details_due_at?.getTime() ?? 0}`;
    case 'voided':
      return `claim:${row.id}:voided`;
    case 'expired':
      return `claim:${row.id}:expired`;
    case 'paid': {
      // the first attempt keeps the key it always had (receipts queued before attempts were counted)
      const attempt = 'attempt' in job ? (job.attempt ?? 1) : 1;
      return attempt > 1 ? `claim:${row.id}:paid:${attempt}` : `claim:${row.id}:paid`;
    }
  }
}

/** What happened to the flight, as the messages tell it. */
function eventOf(row: ClaimToNotify): ClaimEvent {
  return row.event === 'delayed'
    ? { kind: 'delayed', arrivalDelayMinutes: row.delay_minutes ?? 0 }
    : { kind: row.event };
}

function wordsOf(row: ClaimToNotify, deps: Pick<NotifyDeps, 'insurer'>) {
  return {
    language: row.customer_language,
    brand: row.brand,
    insurer: deps.insurer.shortName,
    flightNumber: row.flight_number,
    departureDate: row.departure_date,
    amount: Number(row.compensation_amount),
    currency: row.currency,
  };
}

/**
 * The email beside the SMS, for the messages that have one (claim opened, reminder, receipt), to the
 * address the contract keeps, in the customer's language, under the SMS's idempotency key (unique in
 * `emails` too): written in this transaction, sent by its own job after commit, once whatever retries
 * happen. The other messages (a rejected payment, an operator's resend) go by SMS only.
 */
async function emailCustomer(
  trx: Executor,
  deps: Omit<NotifyDeps, 'db'>,
  row: ClaimToNotify,
  message: {
    kind: NotifyKind;
    idempotencyKey: string;
    token: string | null;
    dueAt: Date | null;
    /** A resend to a new address (`ResendRequest.alsoEmail`): the link's email, as the first one or a reminder. */
    alsoEmail?: boolean;
  },
): Promise<boolean> {
  if (!row.customer_email_enc) return false;
  // the SMS's facts, with the insurer's whole identity (an email's footer) and the first name
  const base = {
    ...wordsOf(row, deps),
    insurer: deps.insurer,
    firstName: row.customer_first_name_enc ? decrypt(deps.keys.encryption, row.customer_first_name_enc) : null,
  };
  const linked =
    message.token && message.dueAt ? { publicUrl: deps.publicUrl, token: message.token, dueAt: message.dueAt } : null;
  const email =
    message.kind === 'paid'
      ? renderReceiptEmail({ ...base, ibanLast4: row.iban_last4 ?? '????' })
      : message.kind === 'opened' && linked
        ? renderClaimOpenedEmail({
            ...base,
            ...linked,
            passengers: row.passengers,
            event: eventOf(row),
          })
        : message.kind === 'reminder' && linked
          ? renderReminderEmail({ ...base, ...linked, now: deps.now() })
          : message.kind === 'resend' && message.alsoEmail && linked
            ? // the first email again while the claim awaits its first details; after a rejected payment, the reminder's words (the link, the due date)
              row.status === 'awaiting_bank_details'
              ? renderClaimOpenedEmail({ ...base, ...linked, passengers: row.passengers, event: eventOf(row) })
              : renderReminderEmail({ ...base, ...linked, now: deps.now() })
            : undefined;
  if (!email) return false;
  return queueEmail(trx, deps, {
    kind: `claim_${message.kind}`,
    dedupeKey: message.idempotencyKey,
    to: decrypt(deps.keys.encryption, row.customer_email_enc),
    subject: email.subject,
    text: email.text,
    html: email.html,
    partnerId: row.partner_id,
    environment: row.environment,
  });
}

/**
 * The SMS, in this transaction: production queues it for the provider (`sms_messages` + its send
 * job), sandbox and preproduction write it to the outbox the partner reads. Answers the channel.
 */
async function textCustomer(
  trx: Executor,
  deps: Omit<NotifyDeps, 'db'>,
  row: ClaimToNotify,
  sms: { idempotencyKey: string; body: string; link: string | null },
  now: Date,
): Promise<string> {
  const to = decrypt(deps.keys.encryption, row.customer_phone_enc);
  if (row.environment === 'production') {
    await queueSms(trx, deps, {
      idempotencyKey: sms.idempotencyKey,
      partnerId: row.partner_id,
      environment: row.environment,
      claimId: row.id,
      to,
      body: sms.body,
    });
    return 'queued';
  }
  const outbox = new OutboxSmsProvider({
    store: new SqlOutboxStore(
      trx,
      { partnerId: row.partner_id, environment: row.environment, contractId: row.contract_id, claimId: row.id },
      deps.keys.encryption,
    ),
    now: deps.now,
  });
  try {
    await outbox.send({
      to,
      body: sms.body,
      ...(sms.link ? { link: sms.link } : {}),
      idempotencyKey: sms.idempotencyKey,
    });
  } catch (error) {
    // Twilio's test numbers of a refused recipient: refused as production would, the partner told
    if (!(error instanceof SmsRejectedError)) throw error;
    await audit(trx, {
      actor: 'system',
      partnerId: row.partner_id,
      environment: row.environment,
      entity: 'claim',
      entityId: row.claim_number,
      action: 'sms_rejected',
      at: now,
      data: { reason: error.reason, providerCode: error.providerCode ?? null },
    });
    await tellPartnerCustomerUnreachable(deps.jobs)(trx, {
      smsId: null,
      claimId: row.id,
      partnerId: row.partner_id,
      environment: row.environment,
      kind: messageKind(sms.idempotencyKey),
      status: 'rejected',
      errorCode: error.providerCode ?? null,
      superseded: false,
      at: now,
    });
    return `${outbox.name} (refused)`;
  }
  return outbox.name;
}
