import { sql, type Insertable, type RawBuilder } from 'kysely';
import type { Environment, LeftOutCode, PayoutStatus, SepaBatchesTable } from '../platform/db-schema.ts';
import type { Keyset } from '../platform/cursor.ts';
import type { Executor } from '../platform/db.ts';
import { achEndToEndIdForPayout, endToEndIdForPayout } from './end-to-end-id.ts';
import type { Rail } from './model.ts';

/** SQL for payouts: one row per claim (unique claim_id), its attempts, and SEPA batches. */

/** A payout no batch leaves out any more (filed, settled, cancelled, a new attempt, its BIC set): migration 0058's mark cleared. */
const NOT_LEFT_OUT = { left_out_at: null, left_out_code: null, left_out_reason: null } as const;

export type { Rail };

/**
 * The rule of a payout a batch left out of its file and still waiting (migration 0058), over `payouts
 * as p` joined to `claims as cl`: a pending payout of a batched rail (SEPA or ACH, read through
 * index payouts_pending) with its `left_out_at`, not one of a claim held for review (no batch tries
 * it until approved; its mark is kept, and it is left out again from the approval on). The one
 * definition the operators' list (`listPayouts`' `leftOut`), the console's cards and the gauges
 * parasol_payouts_left_out* read.
 */
export const LEFT_OUT_PAYOUT = sql<boolean>`p.rail in ('sepa', 'ach') and p.status = 'pending' and p.left_out_at is not null and cl.manual_review_at is null`;

export interface PayoutRow {
  id: string;
  claim_id: string;
  partner_id: string;
  environment: Environment;
  rail: Rail;
  status: PayoutStatus;
  attempt: number;
  end_to_end_id: string;
  amount: number;
  currency: string;
}

const PAYOUT_COLUMNS = [
  'id',
  'claim_id',
  'partner_id',
  'environment',
  'rail',
  'status',
  'attempt',
  'end_to_end_id',
  'amount',
  'currency',
] as const;

/**
 * The claim's payout, ready to be paid: created on the first bank details, or — after a failed
 * payment — the same payout with its attempt raised and a new end-to-end id. Returns undefined when
 * the payout is already pending, instructed or paid (a retried call): never a second payout.
 * `at` (the requesting use case's clock) dates the attempt, and the payout on its first one.
 */
export async function upsertPendingPayout(
  db: Executor,
  p: {
    claimId: string;
    partnerId: string;
    environment: Environment;
    rail: Rail;
    amount: number;
    currency: string;
    /** `us`: a US account, paid by ACH, whose end-to-end id is 15 characters (a NACHA individual id). */
    accountKind: 'iban' | 'us';
    at: Date;
  },
): Promise<PayoutRow | undefined> {
  const idFor = p.accountKind === 'us' ? achEndToEndIdForPayout : endToEndIdForPayout;
  const existing = await db
    .selectFrom('payouts')
    .select(PAYOUT_COLUMNS)
    .where('claim_id', '=', p.claimId)
    .forUpdate()
    .executeTakeFirst();
  // failed, or returned after being paid: the customer's new details pay a new attempt
  if (existing && existing.status !== 'failed' && existing.status !== 'returned') return undefined;
  if (existing) {
    const attempt = existing.attempt + 1;
    const endToEndId = idFor({ payoutId: existing.id, attempt });
    await db
      .insertInto('payout_attempts')
      .values({ end_to_end_id: endToEndId, payout_id: existing.id, attempt, created_at: p.at })
      .execute();
    return db
      .updateTable('payouts')
      .set({
        status: 'pending',
        attempt,
        end_to_end_id: endToEndId,
        // the claim's compensation as it stands (the claim desk may have corrected it since the failure)
        amount: p.amount,
        rail: p.rail,
        batch_id: null,
        instructed_at: null,
        settled_at: null,
        returned_at: null,
        failure_reason: null,
        ...NOT_LEFT_OUT,
        updated_at: sql`now()`,
      })
      .where('id', '=', existing.id)
      .returning(PAYOUT_COLUMNS)
      .executeTakeFirstOrThrow();
  }
  // The id is chosen here so the end-to-end id derives from it in the same statement.
  const { id } = await sql<{ id: string }>`SELECT gen_random_uuid()::text AS id`.execute(db).then((r) => r.rows[0]!);
  const endToEndId = idFor({ payoutId: id, attempt: 1 });
  const row = await db
    .insertInto('payouts')
    .values({
      id,
      claim_id: p.claimId,
      partner_id: p.partnerId,
      environment: p.environment,
      rail: p.rail,
      status: 'pending',
      end_to_end_id: endToEndId,
      amount: p.amount,
      currency: p.currency,
      created_at: p.at,
    })
    .onConflict((oc) => oc.column('claim_id').doNothing())
    .returning(PAYOUT_COLUMNS)
    .executeTakeFirst();
  if (row)
    await db
      .insertInto('payout_attempts')
      .values({ end_to_end_id: endToEndId, payout_id: id, attempt: 1, created_at: p.at })
      .execute();
  return row;
}

/**
 * Whether the payout's transfer went out in a written file: it is in a batch (its current attempt:
 * a new attempt leaves its batch) whose file was written (`file_path`). Not so for a payout still
 * pending, nor one of a batch committed without its file (the process stopped before writing it).
 */
export async function payoutInWrittenFile(db: Executor, payoutId: string): Promise<boolean> {
  const row = await db
    .selectFrom('payouts as p')
    .innerJoin('sepa_batches as b', 'b.id', 'p.batch_id')
    .select('b.id')
    .where('p.id', '=', payoutId)
    .where('b.file_path', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** The payouts joined to their attempts, one of which had this end-to-end id. */
const payoutOfAttempt = (db: Executor, endToEndId: string) =>
  db
    .selectFrom('payout_attempts as a')
    .innerJoin('payouts as p', 'p.id', 'a.payout_id')
    .where('a.end_to_end_id', '=', endToEndId);

/** The payout an end-to-end id belongs to (any of its attempts), locked, with the attempt that id was. */
export async function findPayoutByEndToEndId(
  db: Executor,
  endToEndId: string,
  lock = false,
): Promise<(PayoutRow & { reported_attempt: number }) | undefined> {
  let query = payoutOfAttempt(db, endToEndId)
    .select(PAYOUT_COLUMNS.map((c) => `p.${c}` as const))
    .select('a.attempt as reported_attempt');
  if (lock) query = query.forUpdate('p');
  return query.executeTakeFirst();
}

export async function findPayout(db: Executor, id: string, lock = false): Promise<PayoutRow | undefined> {
  let query = db.selectFrom('payouts').select(PAYOUT_COLUMNS).where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function markPayoutPaid(db: Executor, id: string, at: Date): Promise<void> {
  await db
    .updateTable('payouts')
    .set({ status: 'paid', settled_at: at, failure_reason: null, ...NOT_LEFT_OUT, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

export async function markPayoutFailed(db: Executor, id: string, at: Date, reason: string): Promise<void> {
  await db
    .updateTable('payouts')
    .set({ status: 'failed', settled_at: at, failure_reason: reason, ...NOT_LEFT_OUT, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/** A paid transfer came back (an R-transaction): `returned` with the bank's (masked) reason; `settled_at` stays when it was paid. */
export async function markPayoutReturned(db: Executor, id: string, at: Date, reason: string): Promise<void> {
  await db
    .updateTable('payouts')
    .set({ status: 'returned', returned_at: at, failure_reason: reason, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/** What a SEPA transfer needs of a pending payout: the account (IBAN still encrypted), the claim, the flight. */
export interface SepaPayoutSource {
  id: string;
  end_to_end_id: string;
  amount: number;
  currency: string;
  /** Sealed; account_holder is the plaintext of a row written before migration 0010 and not sealed yet. */
  account_holder_enc: string | null;
  account_holder: string | null;
  iban_enc: string;
  bic: string | null;
  claim_number: string;
  flight_number: string;
  departure_date: string;
  /** Since when an earlier batch has left it out of its file (migration 0058); null when never. */
  left_out_at: Date | null;
}

/**
 * Pending production payouts in one currency, oldest first — those an earlier batch left out of its
 * file last, so that left-out payouts never fill a `--limit` and starve the others —, locked for
 * that currency's batch (SKIP LOCKED: two batches never share one); not those of claims under manual
 * review, which wait for an operator's approval (migration 0031).
 * Their claims are locked too (the claim row is the lock every writer of a claim takes first): a
 * claim the desk is putting under review is skipped (the next batch sees the review), and a review
 * asked while the batch holds it waits for the batch, then finds the payout instructed (refused).
 */
export async function lockPendingSepaPayouts(
  db: Executor,
  currency: string,
  limit: number,
): Promise<SepaPayoutSource[]> {
  return (
    db
      .selectFrom('payouts as p')
      .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
      .innerJoin('contract_legs as l', 'l.id', 'cl.leg_id')
      .innerJoin('claim_bank_details as b', 'b.claim_id', 'p.claim_id')
      .select([
        'p.id',
        'p.end_to_end_id',
        'p.amount',
        'p.currency',
        'b.account_holder_enc',
        'b.account_holder',
        'b.iban_enc',
        'b.bic',
        'cl.claim_number',
        'l.flight_number',
        'l.departure_date',
        'p.left_out_at',
      ])
      .where('p.rail', '=', 'sepa')
      .where('b.account_kind', '=', 'iban')
      .$narrowType<{ iban_enc: string }>()
      .where('p.status', '=', 'pending')
      // one file per currency: EUR a SEPA credit transfer, another a cross-border one
      .where('p.currency', '=', currency)
      .where('cl.manual_review_at', 'is', null)
      .orderBy(sql`p.left_out_at IS NOT NULL`)
      .orderBy('p.created_at')
      .orderBy('p.id')
      .limit(limit)
      .forUpdate(['p', 'cl'])
      .skipLocked()
      .execute()
  );
}

/** What an ACH entry needs of a pending payout: the US account (its number still sealed), the holder. */
export interface AchPayoutSource {
  id: string;
  end_to_end_id: string;
  amount: number;
  currency: string;
  account_holder_enc: string | null;
  account_holder: string | null;
  routing_number: string;
  us_account_enc: string;
  us_account_type: 'checking' | 'savings';
  claim_number: string;
  left_out_at: Date | null;
}

/**
 * Pending production payouts to US accounts (rail `ach`), oldest first (those left out last), locked
 * with their claims as `lockPendingSepaPayouts` does; not those under manual review.
 */
export async function lockPendingAchPayouts(db: Executor, limit: number): Promise<AchPayoutSource[]> {
  return db
    .selectFrom('payouts as p')
    .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
    .innerJoin('claim_bank_details as b', 'b.claim_id', 'p.claim_id')
    .select([
      'p.id',
      'p.end_to_end_id',
      'p.amount',
      'p.currency',
      'b.account_holder_enc',
      'b.account_holder',
      'b.routing_number',
      'b.us_account_enc',
      'b.us_account_type',
      'cl.claim_number',
      'p.left_out_at',
    ])
    .where('p.rail', '=', 'ach')
    .where('b.account_kind', '=', 'us')
    .$narrowType<{ routing_number: string; us_account_enc: string; us_account_type: 'checking' | 'savings' }>()
    .where('p.status', '=', 'pending')
    .where('cl.manual_review_at', 'is', null)
    .orderBy(sql`p.left_out_at IS NOT NULL`)
    .orderBy('p.created_at')
    .orderBy('p.id')
    .limit(limit)
    .forUpdate(['p', 'cl'])
    .skipLocked()
    .execute();
}

/**
 * How many production payouts to US accounts wait for an ACH file (not those under review; with
 * `leftOut: false`, not those a file left out either).
 */
export async function countPendingAchPayouts(db: Executor, options: { leftOut?: boolean } = {}): Promise<number> {
  const row = await db
    .selectFrom('payouts as p')
    .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('p.rail', '=', 'ach')
    .where('p.status', '=', 'pending')
    .where('cl.manual_review_at', 'is', null)
    .$if(options.leftOut === false, (qb) => qb.where('p.left_out_at', 'is', null))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The currencies of the pending production payouts a batch would take now (not those held for
 * review), with how many wait in each: EUR first, then by code.
 */
export async function listPendingSepaCurrencies(db: Executor): Promise<{ currency: string; payouts: number }[]> {
  const rows = await db
    .selectFrom('payouts as p')
    .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
    .select(['p.currency', (eb) => eb.fn.countAll<number>().as('n')])
    .where('p.rail', '=', 'sepa')
    .where('p.status', '=', 'pending')
    .where('cl.manual_review_at', 'is', null)
    .groupBy('p.currency')
    .execute();
  return rows
    .map((r) => ({ currency: r.currency, payouts: Number(r.n) }))
    .sort((a, b) => (a.currency === 'EUR' ? -1 : b.currency === 'EUR' ? 1 : a.currency.localeCompare(b.currency)));
}

export async function markPayoutsInstructed(db: Executor, ids: string[], batchId: string, at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('payouts')
    .set({
      status: 'instructed',
      batch_id: batchId,
      instructed_at: at,
      ...NOT_LEFT_OUT,
      updated_at: sql`now()`,
    })
    .where('id', 'in', ids)
    .execute();
}

/**
 * Pending payouts a batch left out of its file: since when (kept from the first run that left each
 * out) and why (this run's reasons). `updated_at` stays: it is when the payout became pending.
 */
export async function markPayoutsLeftOut(
  db: Executor,
  payouts: { id: string; code: LeftOutCode; reason: string }[],
  at: Date,
): Promise<void> {
  if (payouts.length === 0) return;
  const values = sql.join(payouts.map((p) => sql`(${p.id}::uuid, ${p.code}, ${p.reason})`));
  await sql`
    UPDATE payouts AS p
    SET left_out_at = COALESCE(p.left_out_at, ${at}::timestamptz), left_out_code = v.code, left_out_reason = v.reason
    FROM (VALUES ${values}) AS v(id, code, reason)
    WHERE p.id = v.id AND p.status = 'pending'`.execute(db);
}

export interface PayoutListRow extends Omit<PayoutRow, 'claim_id' | 'partner_id'> {
  claim_number: string;
  partner_slug: string;
  created_at: Date;
  instructed_at: Date | null;
  settled_at: Date | null;
  failure_reason: string | null;
  message_id: string | null;
  left_out_at: Date | null;
  left_out_code: LeftOutCode | null;
  left_out_reason: string | null;
}

/**
 * When an ACH entry's return window has passed (settle-ach.ts, `achSettlementDue`): its file's
 * effective entry date is `entryDateUpTo` or earlier, and the file was written before `writtenBefore`
 * (a file written late reaches the bank late: its window counts from the write).
 */
export interface AchSettlementDue {
  entryDateUpTo: string;
  writtenBefore: Date;
}

/**
 * The one rule of an ACH payout whose return window has passed, over `payouts as p` joined to
 * `sepa_batches as b` (its batch): rail `ach`, its file's effective entry date `due.entryDateUpTo` or
 * earlier, and the file written (`file_path`, with `file_written_at`, migration 0076) before
 * `due.writtenBefore`. A batch committed without its file (the process stopped before writing it)
 * may never have reached the bank: never past its window (the batch job and
 * parasol_sepa_batches_without_file report it). The settlement job settles by it
 * (`listAchPayoutsPastReturnWindow`); the operators' list (`listPayouts`' `unreported`) and the gauge
 * parasol_production_payouts_unreported count by it, one Federal Reserve business day later.
 */
export function achReturnWindowPassed(due: AchSettlementDue): RawBuilder<boolean> {
  // a file recorded by a version before migration 0076 (no time): written right after its batch's commit
  return sql<boolean>`(p.rail = 'ach' and b.execution_date <= ${due.entryDateUpTo}::date and b.file_path is not null and coalesce(b.file_written_at, b.created_at) < ${due.writtenBefore}::timestamptz)`;
}

/** When an instructed payout is unreported (sepa-schedule.ts, `unreportedDue`). */
export interface UnreportedDue {
  /** A SEPA transfer put in a file before this instant. */
  instructedBefore: Date;
  /** An ACH entry past its return window by this rule (`achReturnWindowPassed`). */
  ach: AchSettlementDue;
}

/**
 * For operators (CLI and console): payouts, newest first, optionally by status, environment or partner;
 * `unreported`: only payouts still instructed that should have been settled by now — SEPA ones put in
 * a file before `instructedBefore` (no bank report), ACH ones past their return window by `ach`
 * (`achReturnWindowPassed`: the settlement job has not settled them).
 */
export async function listPayouts(
  db: Executor,
  q: {
    status?: PayoutStatus | undefined;
    environment?: Environment | undefined;
    unreported?: UnreportedDue | undefined;
    /**
     * Only payouts a batch left out of its file (LEFT_OUT_PAYOUT, as the gauge
     * parasol_payouts_left_out counts them), longest left out first.
     */
    leftOut?: boolean | undefined;
    /** Only this partner's payouts (by slug). */
    partnerSlug?: string | undefined;
    /**
     * Keyset paging (`operatorPayoutsPage`): the key of the previous page's last row — its
     * `left_out_at` with `leftOut`, else its `created_at` — and its id. Keys compare at the
     * millisecond, as a cursor carries them.
     */
    after?: Keyset | undefined;
    limit: number;
  },
): Promise<PayoutListRow[]> {
  let query = db
    .selectFrom('payouts as p')
    .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
    .innerJoin('partners as pa', 'pa.id', 'p.partner_id')
    .leftJoin('sepa_batches as b', 'b.id', 'p.batch_id')
    .select([
      'p.id',
      'cl.claim_number',
      'pa.slug as partner_slug',
      'p.environment',
      'p.rail',
      'p.status',
      'p.attempt',
      'p.end_to_end_id',
      'p.amount',
      'p.currency',
      'p.created_at',
      'p.instructed_at',
      'p.settled_at',
      'p.failure_reason',
      'b.message_id',
      'p.left_out_at',
      'p.left_out_code',
      'p.left_out_reason',
    ]);
  if (q.leftOut) query = query.where(LEFT_OUT_PAYOUT);
  if (q.status) query = query.where('p.status', '=', q.status);
  if (q.unreported) {
    const { instructedBefore, ach } = q.unreported;
    query = query
      .where('p.status', '=', 'instructed')
      .where((eb) =>
        eb.or([
          eb.and([eb('p.rail', '=', 'sepa'), eb('p.instructed_at', '<', instructedBefore)]),
          achReturnWindowPassed(ach),
        ]),
      );
  }
  if (q.environment) query = query.where('p.environment', '=', q.environment);
  if (q.partnerSlug !== undefined) query = query.where('pa.slug', '=', q.partnerSlug);
  // one total order, at the millisecond a cursor carries: longest left out first (`leftOut`), else
  // newest first; the id breaks ties, so a page never repeats nor skips a row of the previous one
  const leftOutKey = sql<Date>`date_trunc('milliseconds', p.left_out_at)`;
  const createdKey = sql<Date>`date_trunc('milliseconds', p.created_at)`;
  if (q.after) {
    const { at, id } = q.after;
    query = q.leftOut
      ? query.where(sql<boolean>`(${leftOutKey}, p.id) > (${at}::timestamptz, ${id}::uuid)`)
      : query.where(sql<boolean>`(${createdKey}, p.id) < (${at}::timestamptz, ${id}::uuid)`);
  }
  query = q.leftOut
    ? query.orderBy(leftOutKey).orderBy('p.id')
    : query.orderBy(createdKey, 'desc').orderBy('p.id', 'desc');
  return query.limit(q.limit).execute();
}

/** The claim being settled, row-locked: the claim row is the lock every writer of a claim takes first. */
export async function lockPayoutClaim(
  trx: Executor,
  claimId: string,
): Promise<{ id: string; claim_number: string; contract_id: string; manual_review_at: Date | null }> {
  return trx
    .selectFrom('claims')
    .select(['id', 'claim_number', 'contract_id', 'manual_review_at'])
    .where('id', '=', claimId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** The claim's bank details: the IBAN (its last four), the BIC, and the account holder (sealed, or its plaintext before migration 0010). */
export async function findPayoutAccount(
  db: Executor,
  claimId: string,
): Promise<{
  account_kind: 'iban' | 'us';
  iban_enc: string | null;
  iban_last4: string;
  bic: string | null;
  routing_number: string | null;
  us_account_enc: string | null;
  us_account_type: 'checking' | 'savings' | null;
  account_holder_enc: string | null;
  account_holder: string | null;
}> {
  return db
    .selectFrom('claim_bank_details')
    .select([
      'account_kind',
      'iban_enc',
      'iban_last4',
      'bic',
      'routing_number',
      'us_account_enc',
      'us_account_type',
      'account_holder_enc',
      'account_holder',
    ])
    .where('claim_id', '=', claimId)
    .executeTakeFirstOrThrow();
}

export async function insertSepaBatch(db: Executor, batch: Insertable<SepaBatchesTable>): Promise<{ id: string }> {
  return db.insertInto('sepa_batches').values(batch).returning('id').executeTakeFirstOrThrow();
}

/** A SEPA batch by id or by message id; `xml` is the plaintext of a batch written before it was sealed. */
export async function findSepaBatch(db: Executor, by: { id: string } | { messageId: string }) {
  return db
    .selectFrom('sepa_batches')
    .select(['id', 'message_id', 'xml', 'xml_enc', 'file_path', 'format'])
    .where('id' in by ? 'id' : 'message_id', '=', 'id' in by ? by.id : by.messageId)
    .executeTakeFirst();
}

/**
 * Batches created before `createdBefore` (their `created_at`: the batch's clock, read before its
 * transaction) whose file was never recorded as written, oldest first (migration 0047).
 */
export async function listSepaBatchesWithoutFile(
  db: Executor,
  createdBefore: Date,
): Promise<{ id: string; created_at: Date }[]> {
  return db
    .selectFrom('sepa_batches')
    .select(['id', 'created_at'])
    .where('file_path', 'is', null)
    .where('created_at', '<', createdBefore)
    .orderBy('created_at')
    .execute();
}

/**
 * Records the batch's file unless one is recorded already; answers whether it did. `writtenAt`: when
 * it was written (or found), kept as `file_written_at` unless the batch has one (migration 0076).
 */
export async function setSepaBatchFilePathIfNone(
  db: Executor,
  batchId: string,
  filePath: string,
  writtenAt: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('sepa_batches')
    .set({ file_path: filePath, file_written_at: sql<Date>`coalesce(file_written_at, ${writtenAt})` })
    .where('id', '=', batchId)
    .where('file_path', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Records the batch's file path; `file_written_at` keeps the first write (a file written again from the
 * database, after the first reached the bank, never restarts an ACH return window).
 */
export async function setSepaBatchFilePath(
  db: Executor,
  batchId: string,
  filePath: string,
  writtenAt: Date,
): Promise<void> {
  await db
    .updateTable('sepa_batches')
    .set({ file_path: filePath, file_written_at: sql<Date>`coalesce(file_written_at, ${writtenAt})` })
    .where('id', '=', batchId)
    .execute();
}

/** The claim's payout, if any (not locked: the caller holds the claim's lock). */
export async function findClaimPayout(
  db: Executor,
  claimId: string,
): Promise<(PayoutRow & Pick<PayoutListRow, 'left_out_code' | 'left_out_reason'>) | undefined> {
  return db
    .selectFrom('payouts')
    .select([...PAYOUT_COLUMNS, 'left_out_code', 'left_out_reason'])
    .where('claim_id', '=', claimId)
    .executeTakeFirst();
}

/**
 * A pending payout (not yet in a bank's hands) takes the claim's corrected compensation. Returns
 * whether it did (false: instructed or paid meanwhile). A failed or returned one keeps the amount it
 * failed with: its next attempt takes the claim's (`upsertPendingPayout`).
 */
export async function setPayoutAmountBeforeInstruction(
  db: Executor,
  payoutId: string,
  amount: number,
): Promise<boolean> {
  const result = await db
    .updateTable('payouts')
    // `updated_at` stays: it is when the payout became pending (the pending-age gauge reads it)
    .set({ amount })
    .where('id', '=', payoutId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * A pending payout (not yet in a bank's hands) of a claim the desk voids: `cancelled`, for good — no
 * SEPA batch and no simulated bank takes it, new bank details never retry it. Returns whether it was
 * (false: instructed or paid meanwhile).
 */
export async function cancelPendingPayout(db: Executor, payoutId: string): Promise<boolean> {
  const result = await db
    .updateTable('payouts')
    .set({ status: 'cancelled', ...NOT_LEFT_OUT, updated_at: sql`now()` })
    .where('id', '=', payoutId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** One attempt of a claim's payout as the operator's claim page shows it. */
export interface PayoutAttemptRow {
  attempt: number;
  end_to_end_id: string;
  rail: Rail;
  status: PayoutStatus;
  amount: number;
  currency: string;
  created_at: Date;
  settled_at: Date | null;
  failure_reason: string | null;
  /** The SEPA batch's message id (the bank's reference of the file), for the current attempt. */
  message_id: string | null;
  /** The current attempt, pending, left out of its file by a batch: since when and why (migration 0058). */
  left_out_at: Date | null;
  left_out_code: LeftOutCode | null;
  left_out_reason: string | null;
}

/**
 * Every attempt of a claim's payout, first first: the current one with the payout's state, the
 * earlier ones failed or returned (a payout is tried again only after a rejection or a return), with
 * the reason the bank gave (from the attempt's audit row: `payment_failed` or `payment_returned`).
 */
export async function listClaimPayoutAttempts(db: Executor, claimId: string): Promise<PayoutAttemptRow[]> {
  const result = await sql<PayoutAttemptRow>`
    SELECT a.attempt, a.end_to_end_id, p.rail,
           -- an earlier attempt's amount as it failed or came back (the desk may correct the claim's since)
           CASE WHEN a.attempt = p.attempt THEN p.amount ELSE coalesce((g.data->>'amount')::bigint, p.amount) END AS amount,
           p.currency, a.created_at,
           CASE WHEN a.attempt = p.attempt THEN p.status
                WHEN g.action = 'payment_returned' THEN 'returned' ELSE 'failed' END AS status,
           CASE WHEN a.attempt = p.attempt THEN p.settled_at END AS settled_at,
           CASE WHEN a.attempt = p.attempt THEN p.failure_reason ELSE g.data->>'reason' END AS failure_reason,
           CASE WHEN a.attempt = p.attempt THEN b.message_id END AS message_id,
           CASE WHEN a.attempt = p.attempt THEN p.left_out_at END AS left_out_at,
           CASE WHEN a.attempt = p.attempt THEN p.left_out_code END AS left_out_code,
           CASE WHEN a.attempt = p.attempt THEN p.left_out_reason END AS left_out_reason
    FROM payout_attempts a
    JOIN payouts p ON p.id = a.payout_id
    JOIN claims cl ON cl.id = p.claim_id
    LEFT JOIN sepa_batches b ON b.id = p.batch_id
    LEFT JOIN LATERAL (
      SELECT g.action, g.data FROM audit_log g
      WHERE g.entity = 'claim' AND g.entity_id = cl.claim_number AND g.action IN ('payment_failed', 'payment_returned')
        AND g.data->>'endToEndId' = a.end_to_end_id
      ORDER BY g.id DESC LIMIT 1) g ON a.attempt <> p.attempt
    WHERE p.claim_id = ${claimId}
    ORDER BY a.attempt`.execute(db);
  return result.rows.map((r) => ({ ...r, amount: Number(r.amount), attempt: Number(r.attempt) }));
}

/**
 * The BIC of a claim's account, set by an operator while its payout is pending (`setPayoutBic`).
 * `clearLeftOut` (the BIC was the payout's only fault): its left-out mark is cleared, the next batch
 * takes it (and marks it again, from then, if its file still cannot hold it); otherwise the mark, its
 * time and its reason stay — a change that does not fix the payout neither silences the gauge nor
 * restarts its age.
 */
export async function setPayoutAccountBic(
  db: Executor,
  p: { claimId: string; payoutId: string; bic: string; clearLeftOut: boolean },
): Promise<void> {
  await db.updateTable('claim_bank_details').set({ bic: p.bic }).where('claim_id', '=', p.claimId).execute();
  if (p.clearLeftOut) await db.updateTable('payouts').set(NOT_LEFT_OUT).where('id', '=', p.payoutId).execute();
}

/** The claim number of the payout one of whose attempts had this end-to-end id. */
export async function claimNumberOfPayout(db: Executor, endToEndId: string): Promise<string | undefined> {
  const row = await payoutOfAttempt(db, endToEndId)
    .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
    .select('cl.claim_number')
    .executeTakeFirst();
  return row?.claim_number;
}

/**
 * Production payouts to US accounts (rail `ach`) still `instructed` whose return window has passed by
 * `due` (`achReturnWindowPassed`: the file's effective entry date, and when it was written — a batch
 * committed without its file is never taken, its payouts not paid until an operator, having checked
 * with the bank, exports it), oldest first (settle-ach.ts). Unlocked: each is settled in its own
 * transaction, which locks it.
 */
export async function listAchPayoutsPastReturnWindow(
  db: Executor,
  due: AchSettlementDue,
  limit: number,
): Promise<{ end_to_end_id: string }[]> {
  return db
    .selectFrom('payouts as p')
    .innerJoin('sepa_batches as b', 'b.id', 'p.batch_id')
    .select('p.end_to_end_id')
    .where('p.rail', '=', 'ach')
    .where('p.status', '=', 'instructed')
    .where(achReturnWindowPassed(due))
    .orderBy('p.instructed_at')
    .orderBy('p.id')
    .limit(limit)
    .execute();
}

/** The File ID Modifiers of the NACHA files made on `fileDate` (UTC) for `origin`. */
/**
 * Waits for, then holds until commit, the lock of one origin's NACHA files of one day: two runs at once
 * choose their File ID Modifiers one after the other (a transaction-level advisory lock, keyed by a
 * hash of origin and date; PGlite's single connection takes it at once).
 */
export async function lockNachaFileDay(db: Executor, origin: string, fileDate: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`nacha-file-day/${origin}/${fileDate}`}))`.execute(db);
}

export async function listNachaFileIdModifiers(db: Executor, origin: string, fileDate: string): Promise<string[]> {
  const rows = await db
    .selectFrom('sepa_batches')
    .select('nacha_file_id_modifier')
    .where('format', '=', 'nacha')
    .where('nacha_origin', '=', origin)
    .where('nacha_file_date', '=', fileDate)
    .execute();
  return rows.flatMap((r) => (r.nacha_file_id_modifier ? [r.nacha_file_id_modifier] : []));
}
