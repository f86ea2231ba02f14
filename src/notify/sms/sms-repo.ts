import { expressionBuilder, sql, type Insertable } from 'kysely';
import type { Database, SmsMessagesTable, SmsOutboxTable } from '../../platform/db-schema.ts';
import { STATUS_MESSAGE_WORDS, type SmsDeliveryStatus } from './model.ts';
import type { Executor } from '../../platform/db.ts';

/** SQL for text messages: the production queue (`sms_messages`) and the sandbox/preproduction outbox (`sms_outbox`). */

/** Queues a production message once per idempotency key; answers its id, or undefined when it was already queued. */
export async function insertQueuedSms(trx: Executor, row: Insertable<SmsMessagesTable>): Promise<string | undefined> {
  const inserted = await trx
    .insertInto('sms_messages')
    .values(row)
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}

/** Whether a message with this idempotency key was already written (queued or in the outbox). */
export async function smsExists(db: Executor, idempotencyKey: string): Promise<boolean> {
  const row = await sql<{ one: number }>`
    SELECT 1 AS one FROM sms_messages WHERE idempotency_key = ${idempotencyKey}
    UNION ALL SELECT 1 FROM sms_outbox WHERE idempotency_key = ${idempotencyKey} LIMIT 1`.execute(db);
  return row.rows.length > 0;
}

export async function findSmsState(db: Executor, smsId: string) {
  return db.selectFrom('sms_messages').select(['status', 'environment']).where('id', '=', smsId).executeTakeFirst();
}

/**
 * Takes a queued message for a send: one more attempt, a lease of `leaseSeconds` (two jobs never
 * send it at once). Undefined when it is sent, refused, out of attempts or leased by another job.
 */
export async function leaseQueuedSms(
  db: Executor,
  smsId: string,
  o: { provider: string; leaseSeconds: number; maxAttempts: number },
) {
  return db
    .updateTable('sms_messages')
    .set({
      attempts: sql`attempts + 1`,
      provider: o.provider,
      locked_until: sql`now() + make_interval(secs => ${o.leaseSeconds})`,
    })
    .where('id', '=', smsId)
    .where('status', '=', 'queued')
    .where('attempts', '<', o.maxAttempts)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', sql<Date>`now()`)]))
    .returningAll()
    .executeTakeFirst();
}

export async function markSmsSent(
  db: Executor,
  smsId: string,
  providerMessageId: string | null,
  at: Date,
): Promise<void> {
  await db
    .updateTable('sms_messages')
    .set({ status: 'sent', provider_message_id: providerMessageId, sent_at: at, last_error: null, locked_until: null })
    .where('id', '=', smsId)
    .execute();
}

export async function markSmsRejected(db: Executor, smsId: string, error: string): Promise<void> {
  await db
    .updateTable('sms_messages')
    .set({ status: 'rejected', last_error: error, locked_until: null })
    .where('id', '=', smsId)
    .execute();
}

/**
 * A send failed and may be retried: the error kept, the lease released; `notSent`: the customer was
 * not texted (the provider answered an error, or was never reached), the attempt is given back.
 */
export async function releaseSms(
  db: Executor,
  smsId: string,
  error: string,
  o: { notSent: boolean; holdUntil?: Date | undefined },
): Promise<void> {
  await db
    .updateTable('sms_messages')
    .set({
      last_error: error,
      // a send deferred by the provider's Retry-After stays leased until its next job starts: neither
      // another job nor the sms_requeue sweep takes it meanwhile (a second chain of retries)
      locked_until: o.holdUntil ?? null,
      ...(o.notSent ? { attempts: sql<number>`greatest(attempts - 1, 0)` } : {}),
    })
    .where('id', '=', smsId)
    .execute();
}

/**
 * The trip's ends, for quiet hours of a number of no country: the contract's first departure airport
 * (`trip_departure_airport`) and last arrival airport (`trip_arrival_airport`) — not a claim's leg, a
 * connection maybe. Two subqueries to select, on the contract whose id `contractId` refers to (e.g. `c.id`).
 */
export function tripEndAirports(contractId: string) {
  const eb = expressionBuilder<Database, never>();
  return [
    eb
      .selectFrom('contract_legs as first')
      .select('first.departure_airport')
      .where('first.contract_id', '=', sql.ref<string>(contractId))
      .orderBy('first.leg_index', 'asc')
      .limit(1)
      .as('trip_departure_airport'),
    eb
      .selectFrom('contract_legs as last')
      .select('last.arrival_airport')
      .where('last.contract_id', '=', sql.ref<string>(contractId))
      .orderBy('last.leg_index', 'desc')
      .limit(1)
      .as('trip_arrival_airport'),
  ] as const;
}

/** The kind word of a claim message's idempotency key (`claim:<id>:<word>[:…]`). */
const keyWord = sql<string>`split_part(m.idempotency_key, ':', 3)`;

/**
 * Queued messages older than `olderThanMinutes`, not leased, with attempts left, still worth sending
 * by their kind — a link message while its claim waits for bank details, the receipt while it is
 * paid, the withdrawal while it is voided, a message of no claim always — and the newest of their
 * claim; oldest first.
 */
export async function findStaleQueuedSms(
  db: Executor,
  o: { olderThanMinutes: number; maxAttempts: number; limit: number },
): Promise<string[]> {
  const rows = await db
    .selectFrom('sms_messages as m')
    .leftJoin('claims as cl', 'cl.id', 'm.claim_id')
    .select('m.id')
    .where('m.status', '=', 'queued')
    .where('m.attempts', '<', o.maxAttempts)
    .where('m.created_at', '<', sql<Date>`now() - make_interval(mins => ${o.olderThanMinutes})`)
    .where((eb) => eb.or([eb('m.locked_until', 'is', null), eb('m.locked_until', '<', sql<Date>`now()`)]))
    .where((eb) =>
      eb.or([
        eb('m.claim_id', 'is', null),
        eb.and([
          eb(keyWord, 'not in', [...STATUS_MESSAGE_WORDS]),
          eb('cl.status', 'in', ['awaiting_bank_details', 'failed']),
        ]),
        eb.and([eb(keyWord, 'in', [...STATUS_MESSAGE_WORDS]), eb(sql<string>`cl.status`, '=', keyWord)]),
      ]),
    )
    // the newest message of a claim only: an older one carries a link that no longer works
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('sms_messages as newer')
            .select('newer.id')
            .whereRef('newer.claim_id', '=', 'm.claim_id')
            .whereRef('newer.created_at', '>', 'm.created_at'),
        ),
      ),
    )
    .orderBy('m.created_at')
    .limit(o.limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Stores an outbox message once per idempotency key (a retried job adds nothing). */
export async function insertOutboxMessage(db: Executor, row: Insertable<SmsOutboxTable>): Promise<void> {
  await db
    .insertInto('sms_outbox')
    .values(row)
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .execute();
}

/** A contract's outbox messages, oldest first. */
export async function listOutboxMessages(db: Executor, partnerId: string, contractId: string) {
  return db
    .selectFrom('sms_outbox')
    .select(['to_enc', 'body', 'link', 'body_enc', 'link_enc', 'sent_at'])
    .where('contract_id', '=', contractId)
    .where('partner_id', '=', partnerId)
    .orderBy('sent_at')
    .orderBy('id')
    .execute();
}

/** Every message of a claim, production queue and outbox alike, oldest first (phone numbers sealed). */
export async function listClaimMessages(db: Executor, claimId: string) {
  const result = await sql<{
    idempotency_key: string;
    channel: 'sms' | 'outbox';
    status: string;
    provider: string | null;
    provider_message_id: string | null;
    attempts: number;
    last_error: string | null;
    to_enc: string;
    created_at: Date;
    sent_at: Date | null;
    delivery_status: string | null;
    delivery_error: number | null;
  }>`
    SELECT idempotency_key, 'sms' AS channel, status, provider, provider_message_id, attempts, last_error, to_enc,
           created_at, sent_at, delivery_status, delivery_error
    FROM sms_messages WHERE claim_id = ${claimId}
    UNION ALL
    SELECT idempotency_key, 'outbox', 'sent', 'outbox', id, 1, NULL, to_enc, sent_at, sent_at, NULL, NULL
    FROM sms_outbox WHERE claim_id = ${claimId}
    ORDER BY created_at, idempotency_key`.execute(db);
  return result.rows;
}

/**
 * A delivery report moves the message forward: only from a status in `before` (or none yet). The
 * message whose provider id it is, or undefined when it is unknown or already as far along.
 */
export async function recordDelivery(
  db: Executor,
  provider: string,
  report: { messageSid: string; status: SmsDeliveryStatus; errorCode: number | null },
  before: readonly SmsDeliveryStatus[],
) {
  return db
    .updateTable('sms_messages')
    .set({ delivery_status: report.status, delivery_error: report.errorCode, delivery_updated_at: sql`now()` })
    .where('provider', '=', provider)
    .where('provider_message_id', '=', report.messageSid)
    .where((eb) =>
      before.length
        ? eb.or([eb('delivery_status', 'is', null), eb('delivery_status', 'in', before)])
        : eb('delivery_status', 'is', null),
    )
    .returning(['id', 'claim_id', 'partner_id', 'environment', 'idempotency_key', 'attempts'])
    .executeTakeFirst();
}

/**
 * A message failed for a passing reason of the platform's (Twilio's 30001 queue overflow), by the
 * carrier or in the answer to its send: `queued` again, its provider id and delivery forgotten (the
 * next send's receipts are its own), held until `holdUntil` (the `sms_requeue` sweep takes it after) —
 * while it has attempts left (`maxAttempts`, not given back: it was sent). Only from `from`: `sent`
 * (a receipt, or a send the provider answered with a message created already failed), or `queued` —
 * the send's own leased message after an error answer, none created. Answers whether it was.
 */
export async function requeueFailedSms(
  db: Executor,
  smsId: string,
  o: { from: 'sent' | 'queued'; error: string; holdUntil: Date; maxAttempts: number },
): Promise<boolean> {
  const row = await db
    .updateTable('sms_messages')
    .set({
      status: 'queued',
      // a late or repeated receipt of the failed send no longer finds it (kept early, forgotten in a day)
      provider_message_id: null,
      last_error: o.error,
      locked_until: o.holdUntil,
      delivery_status: null,
      delivery_error: null,
      delivery_updated_at: null,
    })
    .where('id', '=', smsId)
    .where('status', '=', o.from)
    .where('attempts', '<', o.maxAttempts)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** A message as a failure is recorded on it (`recordDelivery`'s row), by its id. */
export async function findFailedSms(db: Executor, smsId: string) {
  return db
    .selectFrom('sms_messages')
    .select(['id', 'claim_id', 'partner_id', 'environment', 'idempotency_key', 'attempts'])
    .where('id', '=', smsId)
    .executeTakeFirst();
}

/** The claim a provider's message belongs to (its id and number: never the phone), for a log line. */
export async function claimOfProviderMessage(
  db: Executor,
  provider: string,
  messageSid: string,
): Promise<{ claimId: string; claimNumber: string } | undefined> {
  const row = await db
    .selectFrom('sms_messages as m')
    .innerJoin('claims as cl', 'cl.id', 'm.claim_id')
    .select(['cl.id', 'cl.claim_number'])
    .where('m.provider', '=', provider)
    .where('m.provider_message_id', '=', messageSid)
    .executeTakeFirst();
  return row && { claimId: row.id, claimNumber: row.claim_number };
}

/**
 * The message a send queued again after the provider answered it with a passing failure under this id
 * (Twilio's 30001, a message created already failed: its audit row `sms_undelivered`, `source: 'send'`,
 * `queuedAgain`, names the id), audited since `since`: the requeue forgot the id, so that message's own
 * receipt, posted later, finds none. Its claim (id and number, never the phone), for a log line.
 */
export async function messageRequeuedAtSend(
  db: Executor,
  provider: string,
  messageSid: string,
  since: Date,
): Promise<{ smsId: string; claimId: string | null; claimNumber: string | null } | undefined> {
  // read by the partial index of the failures' audit rows (migration 0097) by time: a day of them
  const result = await sql<{ id: string; claim_id: string | null; claim_number: string | null }>`
    SELECT m.id, m.claim_id, cl.claim_number
    FROM audit_log a
    JOIN sms_messages m ON m.id = a.entity_id::uuid
    LEFT JOIN claims cl ON cl.id = m.claim_id
    WHERE a.entity = 'sms' AND a.action IN ('sms_undelivered', 'sms_rejected')
      AND a.action = 'sms_undelivered' AND a.at >= ${since}
      AND a.data->>'source' = 'send' AND a.data->>'queuedAgain' = 'true'
      AND a.data->>'provider' = ${provider} AND a.data->>'providerMessageId' = ${messageSid}
    LIMIT 1`.execute(db);
  const row = result.rows[0];
  return row && { smsId: row.id, claimId: row.claim_id, claimNumber: row.claim_number };
}

export async function providerMessageExists(db: Executor, provider: string, messageSid: string): Promise<boolean> {
  const row = await db
    .selectFrom('sms_messages')
    .select('id')
    .where('provider', '=', provider)
    .where('provider_message_id', '=', messageSid)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a provider's message id is recorded on a message other than `smsId`. */
export async function providerMessageRecordedElsewhere(
  db: Executor,
  provider: string,
  messageSid: string,
  smsId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('sms_messages')
    .select('id')
    .where('provider', '=', provider)
    .where('provider_message_id', '=', messageSid)
    .where('id', '!=', smsId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a later message was written for the same claim (a resend to a corrected phone, a reminder). */
export async function hasLaterClaimMessage(db: Executor, smsId: string): Promise<boolean> {
  const result = await sql<{ later: boolean }>`
    SELECT EXISTS (
      SELECT 1 FROM sms_messages m JOIN sms_messages l ON l.claim_id = m.claim_id AND l.created_at > m.created_at
      WHERE m.id = ${smsId}
    ) AS later`.execute(db);
  return result.rows[0]?.later === true;
}

/** Keeps a receipt whose message is not known yet (applied when the send records the provider's id). */
export async function keepEarlyReceipt(
  db: Executor,
  provider: string,
  report: {
    messageSid: string;
    status: SmsDeliveryStatus;
    errorCode: number | null;
    platformFailure?: 'lasting' | 'temporary' | undefined;
  },
): Promise<void> {
  await db
    .insertInto('sms_delivery_early')
    .values({
      provider,
      message_sid: report.messageSid,
      status: report.status,
      error: report.errorCode,
      platform_failure: report.platformFailure ?? null,
    })
    .execute();
}

/** Takes (deletes and answers) the early receipts of one message, in the order they arrived. */
export async function takeEarlyReceipts(db: Executor, provider: string, messageSid: string) {
  const rows = await db
    .deleteFrom('sms_delivery_early')
    .where('provider', '=', provider)
    .where('message_sid', '=', messageSid)
    .returning(['id', 'status', 'error', 'platform_failure'])
    .execute();
  return rows.sort((a, b) => Number(a.id) - Number(b.id));
}

/** The message ids of early receipts whose message is known now (a send recorded it after they came). */
export async function matchedEarlyReceipts(db: Executor): Promise<{ provider: string; message_sid: string }[]> {
  return db
    .selectFrom('sms_delivery_early as e')
    .innerJoin('sms_messages as m', (join) =>
      join.onRef('m.provider', '=', 'e.provider').onRef('m.provider_message_id', '=', 'e.message_sid'),
    )
    .select(['e.provider', 'e.message_sid'])
    .distinct()
    .execute();
}

/** Forgets early receipts never matched (another application's messages, a send whose commit was lost). */
export async function purgeEarlyReceipts(db: Executor, receivedBefore: Date): Promise<number> {
  const rows = await db
    .deleteFrom('sms_delivery_early')
    .where('received_at', '<', receivedBefore)
    .returning('id')
    .execute();
  return rows.length;
}

/**
 * The failures of the platform's side, newest first: a carrier failure a receipt read as the
 * platform's, or a send answered with a passing one (`sms_undelivered` audited `platformFailure`), a
 * send the provider refused for the platform's credentials, sender or content (`sms_rejected`, reason
 * `rejected` or `unauthorized`), a message given up still queued a day on (`given_up`) — never the
 * customer's number. Each with its message's state now and its claim (the phone sealed). Read from
 * the partial index of those audit rows by (at, id) (audit_log_sms_failures_at_id, migration 0097):
 * its predicate is repeated in the WHERE, the order is the index's (backwards: no sort), and --since
 * is a plain bound on `at`, so the planner enters the index there and stops at the limit.
 */
export async function listPlatformFailures(
  db: Executor,
  o: { since?: Date | undefined; partnerId?: string | undefined; limit: number },
) {
  const result = await sql<{
    audit_id: string;
    at: Date;
    action: string;
    data: Record<string, unknown>;
    sms_id: string;
    idempotency_key: string;
    provider: string | null;
    status: string;
    attempts: number;
    last_error: string | null;
    delivery_status: string | null;
    delivery_error: number | null;
    to_enc: string;
    claim_id: string | null;
    claim_number: string | null;
    partner_slug: string;
    environment: string;
  }>`
    SELECT a.id AS audit_id, a.at, a.action, a.data, m.id AS sms_id, m.idempotency_key, m.provider, m.status,
           m.attempts, m.last_error, m.delivery_status, m.delivery_error, m.to_enc, m.claim_id, cl.claim_number,
           p.slug AS partner_slug, m.environment
    FROM audit_log a
    JOIN sms_messages m ON m.id = a.entity_id::uuid
    JOIN partners p ON p.id = m.partner_id
    LEFT JOIN claims cl ON cl.id = m.claim_id
    WHERE a.entity = 'sms' AND a.action IN ('sms_undelivered', 'sms_rejected')
      AND ((a.action = 'sms_undelivered' AND a.data->>'platformFailure' = 'true')
        OR (a.action = 'sms_rejected' AND a.data->>'reason' IN ('rejected', 'unauthorized', 'given_up')))
      ${o.since ? sql`AND a.at >= ${o.since}` : sql``}
      ${o.partnerId ? sql`AND m.partner_id = ${o.partnerId}` : sql``}
    ORDER BY a.at DESC, a.id DESC
    LIMIT ${o.limit}`.execute(db);
  return result.rows;
}
