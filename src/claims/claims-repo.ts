import { sql, type Expression, type RawBuilder } from 'kysely';
import type { ClaimStatus, ClaimVoidCause, Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import { tripEndAirports } from '../notify/index.ts';
import { SETTLED_CLAIM_STATUSES, type ClaimEventKind, type ClaimReason } from './model.ts';

/** SQL for claims. Opening is set-wise: one statement for every affected leg of a flight. */

export type FlightEventType = ClaimEventKind;

export interface OpenedClaim {
  id: string;
  claimNumber: string;
  partnerId: string;
  contractId: string;
  legId: string;
  reason: ClaimReason;
  compensationAmount: number;
  currency: string;
  /**
   * The voided claim of the leg this one replaces (an operator's event on a leg whose claim the desk
   * voided for wrong flight data: `replaceVoided`), its latest; null for a leg's first claim.
   */
  replaces: string | null;
}

/**
 * The payout rule of DESIGN.md in SQL, for a contract `c` (its coverage snapshot, per passenger):
 * two lateral joins that give `pay.reason` and `pay.amount` (null or 0: nothing to pay). The same
 * rule as `payoutFor` (flight/pricing.ts), which prices it; test/claims/payout-rule.db.test.ts runs
 * both on random coverages and events. The event and the delay are values, or SQL expressions of the
 * enclosing query (a decided flight watch's decision: monitoring's `earlyDecisionsOwingClaims`).
 */
export function payoutLaterals(event: FlightEventType | RawBuilder<string>, delayMinutes: number | RawBuilder<number>) {
  return sql`CROSS JOIN LATERAL (
    SELECT (c.coverage->>'cancellationAmount')::bigint AS cancellation,
           (SELECT max((t->>'amount')::bigint) FROM jsonb_array_elements(c.coverage->'delayTiers') t
             WHERE (t->>'minDelayMinutes')::int <= ${delayMinutes}) AS tier_reached,
           (SELECT max((t->>'amount')::bigint) FROM jsonb_array_elements(c.coverage->'delayTiers') t) AS top_tier
  ) cov
  CROSS JOIN LATERAL (
    SELECT CASE ${event}::text
             WHEN 'delayed' THEN 'delay'
             WHEN 'cancelled' THEN 'cancellation'
             ELSE CASE WHEN cov.cancellation > 0 THEN 'cancellation' ELSE 'delay' END
           END AS reason,
           CASE ${event}::text
             WHEN 'delayed' THEN cov.tier_reached
             WHEN 'cancelled' THEN cov.cancellation
             ELSE CASE WHEN cov.cancellation > 0 THEN cov.cancellation ELSE cov.top_tier END
           END AS amount
  ) pay`;
}

/**
 * Inserts one claim per affected active contract leg of the flight — the flight that flies: the legs'
 * `monitored_flight_number`, a codeshare's operating flight (migration 0026) — computing the
 * compensation from each contract's coverage snapshot (the trigger rules of DESIGN.md), and skips legs that already
 * have a claim not voided (unique among them, migration 0057: `ON CONFLICT` on that partial index):
 * duplicate events, reordered events and concurrent workers open nothing twice. A leg whose claim the
 * claim desk voided (`contract_legs.claim_voided_at`) gets none either — the monitoring, a partner's
 * report or a re-poll saying again what the desk voided — unless `replaceVoided` (only an operator's
 * explicit event: the flight's true outcome) and the desk voided it for wrong flight data
 * (`claim_void_cause = 'flight_data'`; fraud, sanctions, a duplicate: `other`, never replaced): then
 * its new claim names the voided one in its evidence (`replaces`). Legs whose coverage pays nothing
 * for this event get no claim.
 *
 * The void's mark is on the leg row this statement share-locks, not read from the voided claim: a
 * void committing while this statement runs holds the leg (it updates it, after the contract's lock:
 * `markLegClaimVoided`), so the lock waits for it and the leg is re-read with its mark — a NOT EXISTS
 * on voided claims would read the statement's snapshot, miss that void, and find the claim gone from
 * the unique index (no conflict): a second live claim on the voided leg.
 *
 * With the claims, their `opened_at` (null when none opened): the transaction's start on the
 * database's clock, to the millisecond — their listing's key, which their audit rows and `claim.opened`
 * events repeat — read by the insert itself, no round trip of its own.
 */
export async function insertClaimsForFlight(
  db: Executor,
  e: {
    environment: Environment;
    flightNumber: string;
    departureDate: string;
    event: FlightEventType;
    delayMinutes: number | null;
    evidence: unknown;
    partnerId?: string | undefined;
    /** An operator's correction: legs of contracts completed as flown with nothing to pay get their claim too. */
    includeCompleted?: boolean | undefined;
    /** An operator's explicit event: a leg whose claim was voided for wrong flight data (`flight_data`) gets a new one. */
    replaceVoided?: boolean | undefined;
  },
): Promise<{ claims: OpenedClaim[]; openedAt: Date | null }> {
  const delay = e.delayMinutes ?? 0;
  const statuses = e.includeCompleted ? ['active', 'completed'] : ['active'];
  // the leg's latest voided claim, which a new one replaces (the unique index leaves only voided ones
  // besides the live claim, and a leg with a live claim gets nothing: ON CONFLICT); read in the
  // statement's snapshot — a void committed while the statement waited is linked after it
  // (`linkVoidedMeanwhile`); the latest by claim number (a sequence, zero-padded), not by opened_at (the
  // use case's clock, which a simulation may set back)
  const replaced = e.replaceVoided
    ? sql`(SELECT v.claim_number FROM claims v WHERE v.leg_id = l.id AND v.status = 'voided' ORDER BY v.claim_number DESC LIMIT 1)`
    : sql`NULL::text`;
  const result = await sql<{
    /** The claims opened, column by column (the arrays in the same order). */
    opened: { [K in keyof OpenedClaim]: OpenedClaim[K][] };
    /** Their `opened_at`, one for all: the transaction's start. */
    opened_at: Date;
  }>`
    WITH insured AS (
      -- the legs of active contracts on the flight and what each claim pays, the contracts and legs
      -- share-locked: a cancellation committing meanwhile is waited for and its contract re-checked
      -- (dropped once cancelled, its claim computed as it now is otherwise), and a leg a partial
      -- cancellation or a flight change removed meanwhile is dropped (locked, it is found deleted: no
      -- claim on it, and no foreign-key failure), so a contract or a leg is never both refunded and
      -- paid. The leg's lock is the one the claim's foreign-key check takes anyway (it then finds it
      -- held). Narrow rows (no coverage carried along): 10,000 of them stay within work_mem, no temp file.
      SELECT l.id AS leg_id, c.id AS contract_id, c.partner_id, c.environment, pay.reason, pay.amount * c.passengers AS amount, c.currency,
             ${replaced} AS replaces
      FROM contract_legs l JOIN contracts c ON c.id = l.contract_id
      ${payoutLaterals(e.event, delay)}
      WHERE l.monitored_flight_number = ${e.flightNumber}
        AND l.departure_date = ${e.departureDate}::date
        AND l.environment = ${e.environment}
        AND (${e.partnerId ?? null}::uuid IS NULL OR l.partner_id = ${e.partnerId ?? null}::uuid)
        AND c.status = ANY(${statuses}::text[])
        AND coalesce(pay.amount, 0) > 0
        -- a leg whose claim the desk voided: only an operator's explicit event opens it a new one, and
        -- only when the claim was voided for wrong flight data (re-checked on the locked leg row)
        AND ${e.replaceVoided ? sql`(l.claim_voided_at IS NULL OR l.claim_void_cause = 'flight_data')` : sql`l.claim_voided_at IS NULL`}
      -- a correction updates the contracts it reopens: locked for that now (two corrections sharing a
      -- contract wait for each other instead of both upgrading a share lock into a deadlock;
      -- test/monitoring/correction-race.http.test.ts, PostgreSQL only)
      ${e.includeCompleted ? sql`FOR NO KEY UPDATE OF c FOR SHARE OF l` : sql`FOR SHARE OF c, l`}
    ), opened AS (
      INSERT INTO claims (claim_number, partner_id, environment, contract_id, leg_id, reason, event, status, delay_minutes, compensation_amount, currency, evidence, opened_at, updated_at)
      SELECT 'CLM-' || lpad(nextval('claim_number_seq')::text, 8, '0'), partner_id, environment, contract_id, leg_id,
             reason, ${e.event}, 'opened', ${e.delayMinutes}, amount, currency,
             ${JSON.stringify(e.evidence)}::jsonb || CASE WHEN replaces IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('replaces', replaces) END,
             -- the transaction's start, the database's clock, to the millisecond as the column's default and
             -- the cursors: the claims listing's key (opened_at, id) pages behind a commit horizon of
             -- transaction starts (platform/cursor.ts commitHorizon), which a key from another clock would
             -- break (a claim committed behind a cursor handed out)
             date_trunc('milliseconds', now()), date_trunc('milliseconds', now())
      FROM insured
      ORDER BY leg_id
      -- at most one claim not voided per leg (migration 0057): concurrent events wait for each other here
      ON CONFLICT (leg_id) WHERE status <> 'voided' DO NOTHING
      RETURNING id, claim_number, partner_id, contract_id, leg_id, reason, compensation_amount, currency, evidence->>'replaces' AS replaces, opened_at
    )
    -- one JSON value of arrays rather than a row per claim (no row when nothing opened): PGlite's driver
    -- reads 10,000 rows of these eight columns in about 115 ms, this in 25 (pg: 13 and 23 ms). The
    -- aggregates read the same rows in one pass, so the arrays line up; in no particular order
    -- (RETURNING promises none): those who print the claims opened sort them by claim number
    -- (recordOperatorFlightEvent; POST /claims reads them back with findClaims, in that order)
    SELECT json_build_object('id', array_agg(id), 'claimNumber', array_agg(claim_number), 'partnerId', array_agg(partner_id),
             'contractId', array_agg(contract_id), 'legId', array_agg(leg_id), 'reason', array_agg(reason),
             'compensationAmount', array_agg(compensation_amount), 'currency', array_agg(currency),
             'replaces', array_agg(replaces)) AS opened,
           min(opened_at) AS opened_at
    FROM opened HAVING count(*) > 0`.execute(db);
  const row = result.rows[0];
  if (!row) return { claims: [], openedAt: null };
  const o = row.opened;
  const opened = o.id.map((id, i) => ({
    id,
    claimNumber: o.claimNumber[i]!,
    partnerId: o.partnerId[i]!,
    contractId: o.contractId[i]!,
    legId: o.legId[i]!,
    reason: o.reason[i]!,
    compensationAmount: o.compensationAmount[i]!,
    currency: o.currency[i]!,
    replaces: o.replaces[i] ?? null,
  }));
  return { claims: e.replaceVoided ? await linkVoidedMeanwhile(db, opened) : opened, openedAt: row.opened_at };
}

/**
 * A void committed while the operator's event waited for the leg (the leg re-read marked, the claim
 * opened) is not in the statement's snapshot, where `replaces` was looked up: looked up again now (a
 * new statement, a new snapshot), and the new claim's evidence completed.
 */
async function linkVoidedMeanwhile(db: Executor, opened: OpenedClaim[]): Promise<OpenedClaim[]> {
  const unlinked = opened.filter((c) => c.replaces === null);
  if (unlinked.length === 0) return opened;
  const linked = await sql<{ id: string; replaces: string }>`
    UPDATE claims n SET evidence = n.evidence || jsonb_build_object('replaces', v.claim_number)
    FROM (SELECT DISTINCT ON (leg_id) leg_id, claim_number FROM claims
          WHERE leg_id = ANY(${unlinked.map((c) => c.legId)}::uuid[]) AND status = 'voided'
          ORDER BY leg_id, claim_number DESC) v
    WHERE n.id = ANY(${unlinked.map((c) => c.id)}::uuid[]) AND v.leg_id = n.leg_id
    RETURNING n.id, v.claim_number AS replaces`.execute(db);
  const by = new Map(linked.rows.map((r) => [r.id, r.replaces]));
  return opened.map((c) => (by.has(c.id) ? { ...c, replaces: by.get(c.id)! } : c));
}

export interface ClaimListRow {
  id: string;
  claim_number: string;
  contract_number: string;
  status: ClaimStatus;
  reason: ClaimReason;
  event: FlightEventType;
  /** The marketing flight the customer booked (what claims show). */
  flight_number: string;
  /** The flight that flew when it is another one (a codeshare); null otherwise. */
  operating_flight_number: string | null;
  departure_date: string;
  delay_minutes: number | null;
  compensation_amount: number;
  currency: string;
  opened_at: Date;
  paid_at: Date | null;
  /** What the claim stored when it opened, and the contract's coverage: the claim's evidence (evidence.ts). */
  evidence: unknown;
  coverage: { delayTiers: { minDelayMinutes: number; amount: number }[]; cancellationAmount: number };
  passengers: number;
  configuration_version: number;
  /** The agreement version the contract was sold under (null: an unsigned draft, sandbox). */
  agreement_version: number | null;
}

/**
 * The join every read of a claim with its contract (`c`) and insured leg (`l`) starts from: claims
 * are `cl`. Add the columns, filters and locks.
 */
export function claimsWithContractAndLeg(db: Executor) {
  return db
    .selectFrom('claims as cl')
    .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
    .innerJoin('contract_legs as l', 'l.id', 'cl.leg_id');
}

/**
 * The claim a claims_notify job works on, with the customer's phone and language; row-locked (the
 * claim row is the lock every writer of a claim takes first).
 */
export async function findClaimToNotify(trx: Executor, claimId: string) {
  return claimsWithContractAndLeg(trx)
    .innerJoin('partners as p', 'p.id', 'cl.partner_id')
    .leftJoin('claim_bank_details as b', 'b.claim_id', 'cl.id')
    .select([
      'cl.id',
      'cl.status',
      'cl.event',
      'cl.delay_minutes',
      'cl.compensation_amount',
      'cl.currency',
      'cl.partner_id',
      'cl.environment',
      'cl.claim_number',
      'cl.bank_details_due_at',
      'cl.reminded_due_at',
      'cl.manual_review_at',
      'b.iban_last4',
      'c.id as contract_id',
      'c.customer_phone_enc',
      'c.customer_email_enc',
      'c.customer_first_name_enc',
      'c.customer_language',
      'c.passengers',
      'l.flight_number',
      'l.departure_date',
      // the trip's ends (quiet hours of a number of no country): not the claim's leg, a connection maybe
      ...tripEndAirports('c.id'),
      (eb) => eb.fn.coalesce('p.brand_name', 'p.name').as('brand'),
    ])
    .where('cl.id', '=', claimId)
    .forUpdate('cl')
    .executeTakeFirst();
}

/**
 * Claims still waiting for (new) bank details whose due date falls after `now` and by `until`, not
 * yet reminded of that due date and not under the desk's manual review (their due date stands still
 * until the review ends): the reminder job's candidates (each is re-read under its lock).
 */
export async function findClaimsToRemind(db: Executor, now: Date, until: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('claims')
    .select('id')
    .where('status', 'in', ['awaiting_bank_details', 'failed'])
    .where('bank_details_due_at', '>', now)
    .where('bank_details_due_at', '<=', until)
    .where('manual_review_at', 'is', null)
    .where((eb) =>
      eb.or([eb('reminded_due_at', 'is', null), eb('reminded_due_at', '!=', eb.ref('bank_details_due_at'))]),
    )
    // held by the customer's quiet hours until then (deferReminder)
    .where((eb) => eb.or([eb('remind_not_before', 'is', null), eb('remind_not_before', '<=', now)]))
    .orderBy('bank_details_due_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Claims whose reminder is due but held by the customer's quiet hours at `now` (deferReminder). */
export async function countHeldReminders(db: Executor, now: Date): Promise<number> {
  const row = await db
    .selectFrom('claims')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('status', 'in', ['awaiting_bank_details', 'failed'])
    .where('bank_details_due_at', '>', now)
    .where((eb) =>
      eb.or([eb('reminded_due_at', 'is', null), eb('reminded_due_at', '!=', eb.ref('bank_details_due_at'))]),
    )
    .where('remind_not_before', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The reminder waits for the customer's morning: the scan skips the claim until `until`. */
export async function deferReminder(trx: Executor, claimId: string, until: Date): Promise<void> {
  await trx.updateTable('claims').set({ remind_not_before: until }).where('id', '=', claimId).execute();
}

/** The customer has been reminded of this due date (under the claim's lock, with the new link and the SMS) at `at`. */
export async function markClaimReminded(trx: Executor, claimId: string, dueAt: Date, at: Date): Promise<void> {
  await trx.updateTable('claims').set({ reminded_due_at: dueAt, updated_at: at }).where('id', '=', claimId).execute();
}

/**
 * Gives the claim a new bank-details link (its token's SHA-256), replacing the one it had, whose hash
 * is kept in `claim_tokens_replaced`: an earlier message's link still finds its claim (its page shows
 * none of the claim's details, only its status, and takes no details).
 */
export async function issueClaimToken(
  trx: Executor,
  claimId: string,
  tokenHash: string,
  expiresAt: Date,
): Promise<void> {
  await trx
    .insertInto('claim_tokens_replaced')
    .columns(['token_hash', 'claim_id'])
    .expression((eb) =>
      eb
        .selectFrom('claim_tokens')
        .select(['token_hash', 'claim_id'])
        .where('claim_id', '=', claimId)
        .where('token_hash', '!=', tokenHash),
    )
    .onConflict((oc) => oc.column('token_hash').doNothing())
    .execute();
  await trx
    .insertInto('claim_tokens')
    .values({ claim_id: claimId, token_hash: tokenHash, expires_at: expiresAt })
    .onConflict((oc) =>
      oc
        .column('claim_id')
        .doUpdateSet({ token_hash: tokenHash, expires_at: expiresAt, used_at: null, created_at: sql`now()` }),
    )
    .execute();
}

/** The claim waits for bank details until `dueAt`: `awaiting_bank_details` (first ones) or still `failed` (new ones after a rejected payment). */
export async function markClaimAwaitingBankDetails(
  trx: Executor,
  claimId: string,
  status: 'awaiting_bank_details' | 'failed',
  dueAt: Date,
  at: Date,
): Promise<void> {
  await trx
    .updateTable('claims')
    .set({ status, bank_details_due_at: dueAt, updated_at: at })
    .where('id', '=', claimId)
    .execute();
}

/**
 * The claim behind a link, by the SHA-256 of its token — its current link, or an earlier one a newer
 * link replaced (`replaced`) — with its current link's use and due date and its bank details' last
 * four digits; `lock` takes the claim row and its link row.
 */
export async function findClaimByTokenHash(db: Executor, tokenHash: string, lock: boolean) {
  let query = claimsWithContractAndLeg(db)
    .innerJoin('partners as p', 'p.id', 'cl.partner_id')
    // the claim's current link, whichever link was opened
    .innerJoin('claim_tokens as t', 't.claim_id', 'cl.id')
    .leftJoin('claim_bank_details as b', 'b.claim_id', 'cl.id')
    .select([
      'cl.id',
      'cl.claim_number',
      'cl.environment',
      'cl.status',
      'cl.event',
      'cl.delay_minutes',
      'cl.compensation_amount',
      'cl.currency',
      'l.flight_number',
      'l.departure_date',
      'c.customer_language',
      't.used_at',
      't.expires_at',
      'b.iban_last4',
      'l.departure_airport',
      'l.arrival_airport',
      'cl.reason',
      'cl.opened_at',
      'cl.paid_at',
      'cl.evidence',
      'cl.manual_review_at',
      'cl.bank_details_due_at',
      'c.coverage',
      'c.passengers',
      'c.configuration_version',
      (eb) => eb.fn.coalesce('p.brand_name', 'p.name').as('brand'),
      (eb) => eb('t.token_hash', '!=', tokenHash).as('replaced'),
    ])
    .where('cl.id', 'in', (eb) =>
      eb
        .selectFrom('claim_tokens')
        .select('claim_id')
        .where('token_hash', '=', tokenHash)
        .unionAll(eb.selectFrom('claim_tokens_replaced').select('claim_id').where('token_hash', '=', tokenHash)),
    );
  // the link row too: a POST waiting on the claim's lock while a reminder or a resend swaps the link
  // re-reads it once that commits (PostgreSQL re-reads only the rows it locks), so it sees `replaced`
  if (lock) query = query.forUpdate(['cl', 't']);
  return query.executeTakeFirst();
}

/** Stores a claim's bank account (holder and IBAN encrypted), replacing the one it had. */
export async function saveBankDetails(
  trx: Executor,
  d: {
    claimId: string;
    accountHolderEnc: string;
    /** The last four characters of the account (IBAN or US account number). */
    ibanLast4: string;
    country: string;
    account:
      | { kind: 'iban'; ibanEnc: string; bic: string | null }
      | { kind: 'us'; routingNumber: string; accountEnc: string; accountType: 'checking' | 'savings' };
    /** The use case's clock (`claim.bank_details_received`'s receivedAt). */
    receivedAt: Date;
  },
): Promise<void> {
  await trx
    .insertInto('claim_bank_details')
    .values({
      claim_id: d.claimId,
      account_holder_enc: d.accountHolderEnc,
      account_holder: null,
      account_kind: d.account.kind,
      iban_enc: d.account.kind === 'iban' ? d.account.ibanEnc : null,
      iban_last4: d.ibanLast4,
      bic: d.account.kind === 'iban' ? d.account.bic : null,
      country: d.country,
      routing_number: d.account.kind === 'us' ? d.account.routingNumber : null,
      us_account_enc: d.account.kind === 'us' ? d.account.accountEnc : null,
      us_account_type: d.account.kind === 'us' ? d.account.accountType : null,
      received_at: d.receivedAt,
    })
    .onConflict((oc) =>
      oc.column('claim_id').doUpdateSet((eb) => ({
        account_holder_enc: eb.ref('excluded.account_holder_enc'),
        account_holder: null,
        account_kind: eb.ref('excluded.account_kind'),
        iban_enc: eb.ref('excluded.iban_enc'),
        iban_last4: eb.ref('excluded.iban_last4'),
        bic: eb.ref('excluded.bic'),
        country: eb.ref('excluded.country'),
        routing_number: eb.ref('excluded.routing_number'),
        us_account_enc: eb.ref('excluded.us_account_enc'),
        us_account_type: eb.ref('excluded.us_account_type'),
        received_at: eb.ref('excluded.received_at'),
      })),
    )
    .execute();
}

/** The claim's link is used up. */
export async function useClaimToken(trx: Executor, claimId: string, at: Date): Promise<void> {
  await trx.updateTable('claim_tokens').set({ used_at: at }).where('claim_id', '=', claimId).execute();
}

/** Bank details received at `at`: `payment_pending`; answers what the payout needs. */
export async function markClaimPaymentPending(
  trx: Executor,
  claimId: string,
  at: Date,
): Promise<{ partner_id: string; compensation_amount: number; currency: string }> {
  return trx
    .updateTable('claims')
    .set({ status: 'payment_pending', failure_reason: null, updated_at: at })
    .where('id', '=', claimId)
    .returning(['partner_id', 'compensation_amount', 'currency'])
    .executeTakeFirstOrThrow();
}

/** A partner's claims with their contract and flight, as partners see them (every partner's for operators: no scope). */
function claimRows(db: Executor, scope: { partnerId: string; environment: Environment } | undefined) {
  const query = claimsWithContractAndLeg(db).select([
    'cl.id',
    'cl.claim_number',
    'c.contract_number',
    'cl.status',
    'cl.reason',
    'cl.event',
    'l.flight_number',
    'l.operating_flight_number',
    'l.departure_date',
    'cl.delay_minutes',
    'cl.compensation_amount',
    'cl.currency',
    'cl.opened_at',
    'cl.paid_at',
    'cl.evidence',
    'c.coverage',
    'c.passengers',
    'c.configuration_version',
    'c.agreement_version',
  ]);
  return scope
    ? query.where('cl.partner_id', '=', scope.partnerId).where('cl.environment', '=', scope.environment)
    : query;
}

export interface OperatorClaimRow extends ClaimListRow {
  partner_slug: string;
  environment: Environment;
  bank_details_due_at: Date | null;
  failure_reason: string | null;
}

/**
 * For operators (CLI and console): every partner's claims, newest first, optionally filtered,
 * keyset-paginated on (opened_at, id) — `before`: the last row of the previous page — so claims
 * opened meanwhile neither repeat nor push rows past a page (migration 0045's indexes serve it).
 */
export async function listClaimsForOperators(
  db: Executor,
  q: {
    status?: ClaimStatus | undefined;
    environment?: Environment | undefined;
    partnerSlug?: string | undefined;
    before?: { at: Date; id: string } | undefined;
    limit: number;
  },
): Promise<OperatorClaimRow[]> {
  let query = claimRows(db, undefined)
    .innerJoin('partners as p', 'p.id', 'cl.partner_id')
    .select(['p.slug as partner_slug', 'cl.environment', 'cl.bank_details_due_at', 'cl.failure_reason']);
  if (q.status) query = query.where('cl.status', '=', q.status);
  if (q.environment) query = query.where('cl.environment', '=', q.environment);
  if (q.partnerSlug) query = query.where('p.slug', '=', q.partnerSlug);
  if (q.before) {
    const { at, id } = q.before;
    // a row comparison, so the index bounds the scan (an OR of the two cases would read every newer row)
    query = query.where((eb) => eb(eb.refTuple('cl.opened_at', 'cl.id'), '<', eb.tuple(at, id)));
  }
  return query.orderBy('cl.opened_at', 'desc').orderBy('cl.id', 'desc').limit(q.limit).execute();
}

/** Claims opened in [from, toExclusive) (either bound optional), in some statuses, keyset-paginated on (opened_at, id). */
export async function listClaims(
  db: Executor,
  q: {
    partnerId: string;
    environment: Environment;
    from?: Date | undefined;
    toExclusive?: Date | undefined;
    contractId?: string | undefined;
    statuses?: readonly ClaimStatus[] | undefined;
    after?: { openedAt: Date; id: string } | undefined;
    limit: number;
  },
): Promise<ClaimListRow[]> {
  let query = claimRows(db, q);
  if (q.from) query = query.where('cl.opened_at', '>=', q.from);
  if (q.toExclusive) query = query.where('cl.opened_at', '<', q.toExclusive);
  if (q.contractId) query = query.where('cl.contract_id', '=', q.contractId);
  if (q.statuses?.length) query = query.where('cl.status', 'in', q.statuses);
  if (q.after) {
    const { openedAt, id } = q.after;
    query = query.where((eb) => eb(eb.refTuple('cl.opened_at', 'cl.id'), '>', eb.tuple(openedAt, id)));
  }
  return query.orderBy('cl.opened_at').orderBy('cl.id').limit(q.limit).execute();
}

/** One of a partner's claims by its number (undefined when not the partner's, or not in this environment). */
export async function findClaimByNumber(
  db: Executor,
  scope: { partnerId: string; environment: Environment } | undefined,
  claimNumber: string,
): Promise<ClaimListRow | undefined> {
  return claimRows(db, scope).where('cl.claim_number', '=', claimNumber).executeTakeFirst();
}

/** Some of a partner's claims, by id, in claim-number order. */
export async function findClaims(
  db: Executor,
  scope: { partnerId: string; environment: Environment } | undefined,
  ids: string[],
): Promise<ClaimListRow[]> {
  if (ids.length === 0) return [];
  return claimRows(db, scope).where('cl.id', 'in', ids).orderBy('cl.claim_number').execute();
}

/** A claim's payment went through: `paid`, with the instant the bank reported. */
export async function markClaimPaid(db: Executor, claimId: string, at: Date): Promise<void> {
  await db
    .updateTable('claims')
    .set({ status: 'paid', paid_at: at, failure_reason: null, updated_at: at })
    .where('id', '=', claimId)
    .execute();
}

/**
 * A claim's payment was rejected: `failed`, with the bank's reason; the customer has until `dueAt`
 * to give new bank details (through a new link), else the claim expires.
 */
export async function markClaimFailed(
  db: Executor,
  claimId: string,
  reason: string,
  dueAt: Date,
  at: Date,
): Promise<void> {
  await db
    .updateTable('claims')
    .set({ status: 'failed', failure_reason: reason, bank_details_due_at: dueAt, updated_at: at })
    .where('id', '=', claimId)
    .execute();
}

/**
 * A paid claim's transfer came back (returned by the customer's bank): `failed` as after a rejected
 * payment — the bank's reason, a new due date for new details — and no longer paid (`paid_at` null).
 */
export async function markClaimReturned(
  db: Executor,
  claimId: string,
  reason: string,
  dueAt: Date,
  at: Date,
): Promise<void> {
  await db
    .updateTable('claims')
    .set({
      status: 'failed',
      failure_reason: reason,
      bank_details_due_at: dueAt,
      paid_at: null,
      updated_at: at,
    })
    .where('id', '=', claimId)
    .where('status', '=', 'paid')
    .execute();
}

/**
 * The claim desk voids a claim of the leg: first the claim's contract locked (`FOR NO KEY UPDATE`),
 * then the leg marked voided with the cause (migration 0057) — the order claims' opening takes them
 * (contract, leg, then the claim inserted), so the two wait for each other instead of deadlocking:
 * an opening that share-locked them first commits first (the claim being voided is only row-locked
 * yet, which its unique check does not wait for: it opens nothing on the leg), and one that comes
 * after waits for the void's commit and re-reads the leg, now marked (`insertClaimsForFlight`). The
 * caller holds the claim's lock (taken first by every writer of a claim); the claim's own update
 * (`markClaimVoided`) comes after this.
 */
export async function markLegClaimVoided(
  db: Executor,
  claim: { contractId: string; legId: string },
  cause: ClaimVoidCause,
  at: Date,
): Promise<void> {
  await db.selectFrom('contracts').select('id').where('id', '=', claim.contractId).forNoKeyUpdate().execute();
  await db
    .updateTable('contract_legs')
    .set({ claim_voided_at: at, claim_void_cause: cause })
    .where('id', '=', claim.legId)
    .execute();
}

/**
 * The claim that replaced a voided one: the first claim of its leg after it (claim numbers grow, and a
 * leg has at most one claim not voided), null when none.
 */
const replacedBy = (legId: Expression<unknown>, claimNumber: Expression<unknown>) =>
  sql<
    string | null
  >`(SELECT min(n.claim_number) FROM claims n WHERE n.leg_id = ${legId} AND n.claim_number > ${claimNumber})`;

/**
 * The leg of a voided claim, for correcting its void's cause (claims/void-cause.ts): the claim's
 * contract locked first (`FOR NO KEY UPDATE`), then the leg — the order the void takes them
 * (`markLegClaimVoided`), which an opening's share locks wait on — then read in a statement of its own,
 * so an opening that committed while this waited is seen: the leg's cause (the latest void's) and the
 * first claim of the leg after this one (`replacedBy`: the claim that replaced it), null when none;
 * and the contract's status, read under its lock (a cancelled contract's legs are never opened).
 */
export async function lockLegOfVoidedClaim(
  db: Executor,
  claim: { contractId: string; legId: string; claimNumber: string },
): Promise<{ contractStatus: string; cause: ClaimVoidCause | null; replacedBy: string | null }> {
  const contract = await db
    .selectFrom('contracts')
    .select('status')
    .where('id', '=', claim.contractId)
    .forNoKeyUpdate()
    .executeTakeFirstOrThrow();
  const leg = await db
    .selectFrom('contract_legs as l')
    .select(['l.claim_void_cause', replacedBy(sql.ref('l.id'), sql.val(claim.claimNumber)).as('replaced_by')])
    .where('l.id', '=', claim.legId)
    .forNoKeyUpdate('l')
    .executeTakeFirstOrThrow();
  return { contractStatus: contract.status, cause: leg.claim_void_cause, replacedBy: leg.replaced_by ?? null };
}

/** The leg's void cause as the desk corrects it (its void's time stays). */
export async function setLegClaimVoidCause(db: Executor, legId: string, cause: ClaimVoidCause): Promise<void> {
  await db.updateTable('contract_legs').set({ claim_void_cause: cause }).where('id', '=', legId).execute();
}

/**
 * The claim desk voided the claim (payouts/void-claim.ts decides when): `voided`, and its link stops
 * working now (a customer opening it sees the claim withdrawn). Its due date stays, for the record:
 * reminders and expiry look only at claims waiting for bank details.
 */
export async function markClaimVoided(db: Executor, claimId: string, at: Date): Promise<void> {
  await db.updateTable('claims').set({ status: 'voided', updated_at: at }).where('id', '=', claimId).execute();
  await db
    .updateTable('claim_tokens')
    .set({ expires_at: at })
    .where('claim_id', '=', claimId)
    .where('expires_at', '>', at)
    .execute();
}

/** The audit actions of the sweep of claims whose first message was lost (`requeueNeverNotified`), under the claim's number. */
export const NOTIFICATION_REQUEUED = 'claim_notification_requeued';
export const NOTIFICATION_ABANDONED = 'claim_notification_abandoned';
/**
 * The desk's "resend the link" on a claim still `opened` (claims/desk.ts): its first message queued
 * again by an operator. Not counted among the sweep's re-queues, nor does it end the desk's hand-off.
 */
export const NOTIFICATION_REQUEUED_BY_DESK = 'claim_notification_requeued_by_desk';

/** Marks the claim written at `at` (its `updated_at`), nothing else. */
export async function touchClaim(db: Executor, claimId: string, at: Date): Promise<void> {
  await db.updateTable('claims').set({ updated_at: at }).where('id', '=', claimId).execute();
}

export interface NeverNotifiedClaim {
  id: string;
  claimNumber: string;
  partnerId: string;
  environment: Environment;
  openedAt: Date;
  /** How many times its first message was queued again already (its `claim_notification_requeued` rows). */
  requeues: number;
}

/**
 * Claims still `opened` — their first message (the bank-details link) never written — opened before
 * `before`, not touched since `before` (`updated_at`, which this sets to `now`) and not left for the
 * desk yet (no `claim_notification_abandoned` row): at most `limit`, oldest first, each with the number
 * of times its message was queued again. One statement; rows another transaction holds (the job
 * itself, running; another sweep) are skipped, and a row another sweep touched meanwhile no longer
 * matches: each claim is answered to one sweep per `before`.
 */
export async function touchClaimsNeverNotified(
  db: Executor,
  q: { before: Date; now: Date; limit: number },
): Promise<NeverNotifiedClaim[]> {
  const result = await sql<{
    id: string;
    claim_number: string;
    partner_id: string;
    environment: Environment;
    opened_at: Date;
    requeues: number;
  }>`
    UPDATE claims SET updated_at = ${q.now}
    WHERE id IN (
      SELECT cl.id FROM claims cl
      WHERE cl.status = 'opened' AND cl.opened_at < ${q.before} AND cl.updated_at < ${q.before}
        AND NOT EXISTS (
          SELECT 1 FROM audit_log a
          WHERE a.entity = 'claim' AND a.entity_id = cl.claim_number AND a.action = ${NOTIFICATION_ABANDONED})
      ORDER BY cl.opened_at LIMIT ${q.limit}
      FOR UPDATE OF cl SKIP LOCKED)
    RETURNING id, claim_number, partner_id, environment, opened_at,
      (SELECT count(*) FROM audit_log a
       WHERE a.entity = 'claim' AND a.entity_id = claims.claim_number AND a.action = ${NOTIFICATION_REQUEUED})::integer AS requeues`.execute(
    db,
  );
  return result.rows.map((r) => ({
    id: r.id,
    claimNumber: r.claim_number,
    partnerId: r.partner_id,
    environment: r.environment,
    openedAt: new Date(r.opened_at),
    requeues: Number(r.requeues),
  }));
}

export interface ExpiredClaim {
  id: string;
  claimNumber: string;
  partnerId: string;
  environment: Environment;
  contractId: string;
  /** The due date it passed (its audit row says it). */
  bankDetailsDueAt: Date;
}

/**
 * Set-wise expiry: every claim still waiting for bank details (first ones, or new ones after a
 * failed payment) past its due date becomes `expired`, and its link stops working. A claim under
 * the desk's manual review does not expire: its due date's clock stops while the insurer reviews
 * it (`releaseManualReview`). One statement for the claims, one for their links.
 */
export async function expireOverdueClaims(db: Executor, now: Date, limit = 5_000): Promise<ExpiredClaim[]> {
  const result = await sql<{
    id: string;
    claim_number: string;
    partner_id: string;
    environment: Environment;
    contract_id: string;
    bank_details_due_at: Date;
  }>`
    UPDATE claims SET status = 'expired', updated_at = ${now}
    WHERE id IN (
      SELECT id FROM claims
      WHERE status IN ('awaiting_bank_details', 'failed') AND bank_details_due_at <= ${now}
        AND manual_review_at IS NULL
      ORDER BY bank_details_due_at LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING id, claim_number, partner_id, environment, contract_id, bank_details_due_at`.execute(db);
  const ids = result.rows.map((r) => r.id);
  if (ids.length > 0)
    await db
      .updateTable('claim_tokens')
      .set({ expires_at: now })
      .where('claim_id', 'in', ids)
      .where('expires_at', '>', now)
      .execute();
  return result.rows.map((r) => ({
    id: r.id,
    claimNumber: r.claim_number,
    partnerId: r.partner_id,
    environment: r.environment,
    contractId: r.contract_id,
    bankDetailsDueAt: new Date(r.bank_details_due_at),
  }));
}

// ---------------------------------------------------------------------------------------------
// contract completion (claims/contract-completion.ts)

/**
 * Completes, with their audit rows dated `at` and naming `actor` (`system`, or the operator whose command did it),
 * the active contracts among these whose every insured leg is over; answers their ids.
 */
export async function completeContractsOver(
  db: Executor,
  contractIds: readonly string[],
  at: Date,
  actor = 'system',
): Promise<string[]> {
  const result = await sql<{ id: string }>`
    WITH completed AS (
      UPDATE contracts c SET status = 'completed'
      WHERE c.id = ANY(${[...contractIds]}::uuid[]) AND c.status = 'active' AND ${over(sql`c.id`, at)}
      RETURNING c.id, c.contract_number, c.partner_id, c.environment
    ), audited AS (
      INSERT INTO audit_log (actor, partner_id, environment, entity, entity_id, action, at)
      SELECT ${actor}, partner_id, environment, 'contract', contract_number, 'completed', ${at}::timestamptz FROM completed
    )
    SELECT id FROM completed`.execute(db);
  return result.rows.map((r) => r.id);
}

/**
 * Contracts `completed` that are not over any more — an operator's correction gave a leg a claim, or a
 * paid claim's transfer came back — `active` again until that claim settles (then completed again, as
 * any contract), each with an audit row `reopened` naming the actor, with `data` saying why, dated
 * `at`. Returns their numbers.
 */
export async function reopenCompletedContracts(
  db: Executor,
  contractIds: readonly string[],
  actor: string,
  data: Record<string, unknown>,
  at: Date,
): Promise<string[]> {
  if (contractIds.length === 0) return [];
  const result = await sql<{ contract_number: string }>`
    WITH reopened AS (
      UPDATE contracts c SET status = 'active'
      WHERE c.id = ANY(${[...new Set(contractIds)]}::uuid[]) AND c.status = 'completed'
      RETURNING c.contract_number, c.partner_id, c.environment
    ), audited AS (
      INSERT INTO audit_log (actor, partner_id, environment, entity, entity_id, action, data, at)
      SELECT ${actor}, partner_id, environment, 'contract', contract_number, 'reopened', ${JSON.stringify(data)}::jsonb, ${at}::timestamptz FROM reopened
    )
    SELECT contract_number FROM reopened ORDER BY contract_number`.execute(db);
  return result.rows.map((r) => r.contract_number);
}

/**
 * The claims already open on the flight's legs that an event would pay differently (another reason or
 * amount): an operator's correction never changes them, it reports them for the claim desk. Voided
 * claims are not among them: there is nothing left to change on them (the event opens the leg a new
 * claim instead).
 */
export async function claimsPaidDifferently(
  db: Executor,
  e: {
    environment: Environment;
    flightNumber: string;
    departureDate: string;
    event: FlightEventType;
    delayMinutes: number | null;
  },
): Promise<DifferentClaim[]> {
  // one JSON value (numbers as JSON numbers: bigint columns read the same on pg and PGlite)
  const result = await sql<{ claims: DifferentClaim[] | null }>`
    SELECT json_agg(json_build_object('claimNumber', cl.claim_number, 'status', cl.status,
             'compensation', json_build_object('amount', cl.compensation_amount, 'currency', cl.currency),
             'eventWouldPay', json_build_object('amount', coalesce(pay.amount * c.passengers, 0), 'currency', cl.currency))
             ORDER BY cl.claim_number) AS claims
    FROM contract_legs l JOIN contracts c ON c.id = l.contract_id JOIN claims cl ON cl.leg_id = l.id
    ${payoutLaterals(e.event, e.delayMinutes ?? 0)}
    WHERE l.monitored_flight_number = ${e.flightNumber}
      AND l.departure_date = ${e.departureDate}::date
      AND l.environment = ${e.environment}
      AND cl.status <> 'voided'
      AND coalesce(pay.amount * c.passengers, 0) <> cl.compensation_amount`.execute(db);
  return result.rows[0]?.claims ?? [];
}

export interface DifferentClaim {
  claimNumber: string;
  status: ClaimStatus;
  /** What the claim pays. */
  compensation: { amount: number; currency: string };
  /** What the corrected event would pay (amount 0: nothing). */
  eventWouldPay: { amount: number; currency: string };
}

/**
 * Every insured leg of the contract is over: each of its claims settled (paid, expired or voided: a
 * leg whose voided claim an operator's event replaced waits for the new one) or flown without a
 * claim. A leg whose claim was voided is not over before its departure: the void undid what decided
 * it ahead, and the contract stays active until it flies (and cancellable for its premium before its first
 * departure when the claim was voided because the flight data was wrong, not for another cause:
 * flight/contracts-repo's hasClaims). A leg without a claim is
 * a row whose status is NULL: the test says so explicitly, as `NOT (NULL OR false)` would be NULL and
 * count a leg still to fly as over.
 */
const over = (contractId: ReturnType<typeof sql>, at: Date) => sql`NOT EXISTS (
  SELECT 1 FROM contract_legs l
  LEFT JOIN claims cl ON cl.leg_id = l.id
  WHERE l.contract_id = ${contractId}
    AND NOT CASE WHEN cl.id IS NULL THEN ${legFlown(at)}
                 ELSE cl.status = ANY(${[...SETTLED_CLAIM_STATUSES]}::text[])
                      AND (cl.status <> 'voided' OR l.departure_at <= ${at}::timestamptz) END)`;

/**
 * A leg flown with nothing to pay at `at`: it has departed and its flight's watch reached a decision
 * (see src/monitoring). Never before its departure, whatever was decided (a simulated outcome, a
 * cancellation known ahead that its cover does not pay): the contract stays active, and cancellable
 * with its full refund, until its first departure; the sweep completes it afterwards.
 */
const legFlown = (at: Date) => sql`(l.departure_at <= ${at}::timestamptz AND EXISTS (
  SELECT 1 FROM flight_watches w
  WHERE w.environment = l.environment AND w.flight_number = l.monitored_flight_number AND w.departure_date = l.departure_date AND w.state = 'decided'))`;

/** The active contracts with a leg on the flight (the flight that flies: `monitored_flight_number`). */
export async function activeContractIdsOnFlight(
  db: Executor,
  flight: { environment: Environment; flightNumber: string; departureDate: string },
): Promise<string[]> {
  const rows = await db
    .selectFrom('contract_legs as l')
    .innerJoin('contracts as c', 'c.id', 'l.contract_id')
    .select('c.id')
    .distinct()
    .where('l.environment', '=', flight.environment)
    .where('l.monitored_flight_number', '=', flight.flightNumber)
    .where('l.departure_date', '=', flight.departureDate)
    .where('c.status', '=', 'active')
    .execute();
  return rows.map((r) => r.id);
}

/** Active contracts whose last departure is before `lastDepartureBefore` and that are over, earliest first. */
export async function finishedContractIdsOver(
  db: Executor,
  lastDepartureBefore: Date,
  limit: number,
): Promise<string[]> {
  // only contracts that are over: the batch never fills up with ones still waiting for bank details
  const rows = await sql<{ id: string }>`
    SELECT c.id FROM contracts c
    WHERE c.status = 'active'
      AND (SELECT max(l.departure_at) FROM contract_legs l WHERE l.contract_id = c.id) < ${lastDepartureBefore}
      AND ${over(sql`c.id`, lastDepartureBefore)}
    ORDER BY c.first_departure_at LIMIT ${limit}`.execute(db);
  return rows.rows.map((r) => r.id);
}

// ---------------------------------------------------------------------------------------------
// the operator's claim desk (claims/desk.ts)

/** One claim as the operator's desk shows it and acts on it; `lock` takes the claim row (first, as every writer). */
export async function findClaimForDesk(db: Executor, claimNumber: string, lock = false) {
  let query = claimsWithContractAndLeg(db)
    .innerJoin('partners as p', 'p.id', 'cl.partner_id')
    .leftJoin('claim_bank_details as b', 'b.claim_id', 'cl.id')
    .select([
      'cl.id',
      'cl.claim_number',
      'cl.partner_id',
      'p.slug as partner_slug',
      'cl.environment',
      'cl.status',
      'cl.reason',
      'cl.event',
      'cl.delay_minutes',
      'cl.compensation_amount',
      'cl.currency',
      'cl.opened_at',
      'cl.paid_at',
      'cl.bank_details_due_at',
      'cl.failure_reason',
      'cl.evidence',
      'cl.manual_review_at',
      'cl.manual_review_by',
      'cl.manual_review_reason',
      'cl.leg_id',
      'c.id as contract_id',
      'c.contract_number',
      'c.status as contract_status',
      'c.coverage',
      'c.passengers',
      'c.configuration_version',
      'c.agreement_version',
      'c.customer_language',
      'c.customer_phone_enc',
      'l.flight_number',
      'l.operating_flight_number',
      'l.departure_date',
      // the latest void's cause: this claim's when it is voided and not replaced (`replaced_by` null)
      'l.claim_void_cause',
      replacedBy(sql.ref('cl.leg_id'), sql.ref('cl.claim_number')).as('replaced_by'),
      'b.iban_last4',
      'b.bic',
    ])
    .where('cl.claim_number', '=', claimNumber);
  if (lock) query = query.forUpdate('cl');
  return query.executeTakeFirst();
}

export type DeskClaimRow = NonNullable<Awaited<ReturnType<typeof findClaimForDesk>>>;

/** The claim's own account as sealed (IBAN, or US account number), for the desk to mask it in a reason; none without bank details. */
export async function findClaimSealedAccount(
  db: Executor,
  claimId: string,
): Promise<{ iban_enc: string | null; us_account_enc: string | null } | undefined> {
  return db
    .selectFrom('claim_bank_details')
    .select(['iban_enc', 'us_account_enc'])
    .where('claim_id', '=', claimId)
    .executeTakeFirst();
}

/**
 * Records a desk action by its one-time token: `recorded`, or — the token used already (a double
 * submit) — what it was used for, on which claim.
 */
export async function recordDeskAction(
  trx: Executor,
  a: { actionToken: string; claimId: string; action: string; actor: string },
): Promise<'recorded' | { claimId: string; action: string }> {
  const row = await trx
    .insertInto('claim_desk_actions')
    .values({ action_token: a.actionToken, claim_id: a.claimId, action: a.action, actor: a.actor })
    .onConflict((oc) => oc.column('action_token').doNothing())
    .returning('action_token')
    .executeTakeFirst();
  if (row) return 'recorded';
  const used = await trx
    .selectFrom('claim_desk_actions')
    .select(['claim_id', 'action'])
    .where('action_token', '=', a.actionToken)
    .executeTakeFirstOrThrow();
  return { claimId: used.claim_id, action: used.action };
}

/** The customer's phone of the claim's contract, sealed (messages read it when they are sent). */
export async function updateContractPhone(trx: Executor, contractId: string, phoneEnc: string): Promise<void> {
  await trx.updateTable('contracts').set({ customer_phone_enc: phoneEnc }).where('id', '=', contractId).execute();
}

/** Puts the claim under manual review: who, why, when. */
/** The claim's compensation as the claim desk corrects it (payouts/correct-compensation.ts decides when). */
export async function setCompensation(trx: Executor, claimId: string, amount: number, at: Date): Promise<void> {
  await trx
    .updateTable('claims')
    .set({ compensation_amount: amount, updated_at: at })
    .where('id', '=', claimId)
    .execute();
}

export async function setManualReview(
  trx: Executor,
  claimId: string,
  review: { at: Date; by: string; reason: string },
): Promise<void> {
  await trx
    .updateTable('claims')
    .set({
      manual_review_at: review.at,
      manual_review_by: review.by,
      manual_review_reason: review.reason,
      updated_at: review.at,
    })
    .where('id', '=', claimId)
    .execute();
}

/**
 * Ends the claim's manual review at `at`. A claim still waiting for (new) bank details gets back the
 * time the review took: its due date, and its unused link's expiry, move later by that time (the
 * clock stopped while the insurer reviewed). Answers the due date after the release.
 */
export async function releaseManualReview(trx: Executor, claimId: string, at: Date): Promise<Date | null> {
  const row = await sql<{ bank_details_due_at: Date | null; moved: boolean }>`
    UPDATE claims SET
      bank_details_due_at = CASE WHEN status IN ('awaiting_bank_details', 'failed') AND manual_review_at < ${at}
                                 THEN bank_details_due_at + (${at}::timestamptz - manual_review_at)
                                 ELSE bank_details_due_at END,
      manual_review_at = NULL, manual_review_by = NULL, manual_review_reason = NULL, updated_at = ${at}
    WHERE id = ${claimId}
    RETURNING bank_details_due_at,
      (status IN ('awaiting_bank_details', 'failed') AND bank_details_due_at IS NOT NULL) AS moved`.execute(trx);
  const due = row.rows[0]?.bank_details_due_at ?? null;
  if (due && row.rows[0]!.moved)
    await trx
      .updateTable('claim_tokens')
      .set({ expires_at: due })
      .where('claim_id', '=', claimId)
      .where('used_at', 'is', null)
      .execute();
  return due;
}

/** A claim's status, or undefined when there is no such claim. */
export async function claimStatusOf(db: Executor, claimId: string): Promise<ClaimStatus | undefined> {
  const row = await db.selectFrom('claims').select('status').where('id', '=', claimId).executeTakeFirst();
  return row?.status;
}

/** The claims of a contract still waiting for (new) bank details whose link works: due after `now`, or under manual review. */
export async function claimsAwaitingBankDetailsOf(db: Executor, contractId: string, now: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('claims')
    .select('id')
    .where('contract_id', '=', contractId)
    .where('status', 'in', ['awaiting_bank_details', 'failed'])
    // model.ts `waitsForBankDetails`: before its due date, or past it under manual review (its link works)
    .where((eb) => eb.or([eb('bank_details_due_at', '>', now), eb('manual_review_at', 'is not', null)]))
    .orderBy('opened_at')
    .execute();
  return rows.map((r) => r.id);
}
