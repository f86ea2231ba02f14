import { sql } from 'kysely';
import type { Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import type { LedgerKind, Movement } from './model.ts';

/** SQL of the ledger: append (never update), backfill, and the report queries every report is made of. */

export interface Period {
  from: Date;
  /** Exclusive. */
  to: Date;
}

export interface Scope {
  partnerId: string;
  environment: Environment;
}

/** Appends movements; an (eventKey, kind) already recorded is skipped. Returns how many were written. */
export async function insertEntries(db: Executor, movements: readonly Movement[]): Promise<number> {
  if (!movements.length) return 0;
  const rows = await entriesInsert(db, movements).returning('id').execute();
  return rows.length;
}

/** The insert of `movements`, built and not sent (insertEntries sends it; writeTogether or alongWrites batch it). */
export function entriesInsert(db: Executor, movements: readonly Movement[]) {
  return db
    .insertInto('ledger_entries')
    .values(
      movements.map((m) => ({
        partner_id: m.partnerId,
        environment: m.environment,
        kind: m.kind,
        amount: m.amount,
        currency: m.currency,
        contract_id: m.contractId,
        claim_id: m.claimId ?? null,
        payout_id: m.payoutId ?? null,
        event_key: m.eventKey,
        occurred_at: m.occurredAt,
        corrects: m.corrects ?? null,
        recorded_by: m.recordedBy,
      })),
    )
    .onConflict((oc) => oc.columns(['event_key', 'kind']).doNothing());
}

/** The id of the entry recorded for (eventKey, kind), if any: what a correcting entry names in `corrects`. */
export async function findEntryId(db: Executor, eventKey: string, kind: LedgerKind): Promise<number | undefined> {
  const row = await db
    .selectFrom('ledger_entries')
    .select('id')
    .where('event_key', '=', eventKey)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

/**
 * Writes the entries the flows would have written for contracts and payouts that existed before the
 * ledger (migration 0023): premiums of every contract (as sold), the differences of its changes
 * (contract_versions), refunds of cancelled ones, the tax part of every refund recorded without it
 * (`tax_refunded`, migration 0038), compensations of paid payouts (at their settlement) and the payment
 * of every return recorded without it (paid before the ledger, returned after). Same event
 * keys and amounts as the flows, so it is idempotent and never duplicates what a flow wrote. Failed attempts of the past are not recoverable (a failed payout
 * retried keeps only its last state): only a payout whose current state is failed gets its entry.
 */
export async function backfill(db: Executor): Promise<number> {
  const statements = [
    // the sale as sold: version 1 once the contract changed (written by its first change), else the contract
    sql`INSERT INTO ledger_entries (partner_id, environment, kind, amount, currency, contract_id, event_key, occurred_at, recorded_by)
        SELECT c.partner_id, c.environment, k.kind, k.amount, c.currency, c.id, 'contract:' || c.id || ':written', c.created_at, 'backfill'
        FROM contracts c
        LEFT JOIN contract_versions v1 ON v1.contract_id = c.id AND v1.version = 1
        CROSS JOIN LATERAL (VALUES ('premium_written', coalesce(v1.premium_net, c.premium_net)),
                                   ('tax', coalesce(v1.premium_tax, c.premium_tax)),
                                   ('commission', coalesce(v1.premium_commission, c.premium_commission))) AS k(kind, amount)
        ON CONFLICT (event_key, kind) DO NOTHING`,
    // each change by the difference of its version with the one before, as changeMovements writes it:
    // lower, a refund of what the total fell; higher or equal, the net and tax written; the commission's difference
    sql`INSERT INTO ledger_entries (partner_id, environment, kind, amount, currency, contract_id, event_key, occurred_at, recorded_by)
        SELECT c.partner_id, c.environment, k.kind, k.amount, c.currency, c.id,
               'contract:' || c.id || ':' || v.change || ':' || v.version, v.created_at, 'backfill'
        FROM contract_versions v
        JOIN contract_versions p ON p.contract_id = v.contract_id AND p.version = v.version - 1
        JOIN contracts c ON c.id = v.contract_id
        CROSS JOIN LATERAL (VALUES
          ('premium_written', CASE WHEN v.premium_total >= p.premium_total THEN v.premium_net - p.premium_net ELSE 0 END),
          ('tax', CASE WHEN v.premium_total >= p.premium_total THEN v.premium_tax - p.premium_tax ELSE 0 END),
          ('refund', CASE WHEN v.premium_total < p.premium_total THEN p.premium_total - v.premium_total ELSE 0 END),
          ('commission', v.premium_commission - p.premium_commission)) AS k(kind, amount)
        WHERE v.version > 1 AND k.amount <> 0
        ON CONFLICT (event_key, kind) DO NOTHING`,
    sql`INSERT INTO ledger_entries (partner_id, environment, kind, amount, currency, contract_id, event_key, occurred_at, recorded_by)
        SELECT c.partner_id, c.environment, k.kind, k.amount, c.currency, c.id, 'contract:' || c.id || ':cancelled', c.cancelled_at, 'backfill'
        FROM contracts c
        CROSS JOIN LATERAL (VALUES ('refund', coalesce(c.refund_amount, c.premium_total)), ('commission', -c.premium_commission)) AS k(kind, amount)
        WHERE c.status = 'cancelled' AND c.cancelled_at IS NOT NULL
        ON CONFLICT (event_key, kind) DO NOTHING`,
    // the tax part of every refund recorded without it (before migration 0038, or just above): a
    // cancellation returns the contract's tax as it stands (cancelled, it changes no more); a change
    // the tax its version took off the one before (contract_versions) — the amounts the flows write
    sql`INSERT INTO ledger_entries (partner_id, environment, kind, amount, currency, contract_id, event_key, occurred_at, recorded_by)
        SELECT r.partner_id, r.environment, 'tax_refunded', t.amount, r.currency, r.contract_id, r.event_key, r.occurred_at, 'backfill'
        FROM ledger_entries r
        JOIN contracts c ON c.id = r.contract_id
        CROSS JOIN LATERAL (
          SELECT CASE
            WHEN r.event_key = 'contract:' || c.id || ':cancelled' THEN c.premium_tax
            WHEN split_part(r.event_key, ':', 4) ~ '^[0-9]+$' THEN (
              SELECT p.premium_tax - v.premium_tax
              FROM contract_versions v
              JOIN contract_versions p ON p.contract_id = v.contract_id AND p.version = v.version - 1
              WHERE v.contract_id = c.id
                AND r.event_key = 'contract:' || c.id || ':' || v.change || ':' || v.version
                AND v.version = CASE WHEN split_part(r.event_key, ':', 4) ~ '^[0-9]+$' THEN split_part(r.event_key, ':', 4)::integer END)
          END AS amount
        ) t
        WHERE r.kind = 'refund' AND t.amount IS NOT NULL AND t.amount <> 0
        ON CONFLICT (event_key, kind) DO NOTHING`,
    sql`INSERT INTO ledger_entries (partner_id, environment, kind, amount, currency, contract_id, claim_id, payout_id, event_key, occurred_at, recorded_by)
        SELECT p.partner_id, p.environment, CASE p.status WHEN 'paid' THEN 'compensation_paid' ELSE 'payout_failed' END,
               p.amount, p.currency, cl.contract_id, cl.id, p.id,
               'payout:' || p.id || ':' || p.attempt || ':' || p.status, coalesce(p.settled_at, p.updated_at), 'backfill'
        FROM payouts p JOIN claims cl ON cl.id = p.claim_id
        WHERE p.status IN ('paid', 'failed')
        ON CONFLICT (event_key, kind) DO NOTHING`,
    // a transfer's return in the ledger without its payment (paid before the ledger, returned after it):
    // the payment it reverses, or the claim's paid compensation would stay negative — at the claim's
    // `paid` audit row of that transfer (its end-to-end id), else the payout's settlement if it is
    // still that attempt, else the return's time
    sql`INSERT INTO ledger_entries (partner_id, environment, kind, amount, currency, contract_id, claim_id, payout_id, event_key, occurred_at, recorded_by)
        SELECT r.partner_id, r.environment, 'compensation_paid', -r.amount, r.currency, r.contract_id, r.claim_id, r.payout_id,
               'payout:' || r.payout_id || ':' || a.attempt || ':paid',
               coalesce(paid.at, CASE WHEN p.attempt = a.attempt THEN p.settled_at END, r.occurred_at), 'backfill'
        FROM ledger_entries r
        JOIN payouts p ON p.id = r.payout_id
        JOIN claims cl ON cl.id = p.claim_id
        JOIN payout_attempts a ON a.payout_id = p.id
          AND r.event_key = 'payout:' || p.id || ':' || a.attempt || ':returned'
        LEFT JOIN LATERAL (
          SELECT g.at FROM audit_log g
          WHERE g.entity = 'claim' AND g.entity_id = cl.claim_number AND g.action = 'paid'
            AND g.data->>'endToEndId' = a.end_to_end_id
          ORDER BY g.id DESC LIMIT 1) paid ON true
        WHERE r.kind = 'compensation_paid' AND r.amount < 0
        ON CONFLICT (event_key, kind) DO NOTHING`,
  ];
  let written = 0;
  for (const statement of statements) {
    const result = await statement.execute(db);
    written += Number(result.numAffectedRows ?? 0);
  }
  return written;
}

export interface PremiumRow {
  contract_number: string;
  /** 'written', 'cancelled', or the change's name (the event key's third part). */
  movement: string;
  occurred_at: Date;
  created_at: Date;
  cancelled_at: Date | null;
  first_departure_at: Date;
  formula: string;
  passengers: number;
  flights: string;
  currency: string;
  premium_net: number;
  premium_tax: number;
  commission: number;
  refund: number;
  /** The tax part of `refund` (memorandum: inside it, not added to it). */
  tax_refunded: number;
}

/**
 * One row per contract and event (sale, cancellation, change) with movements in the period, the
 * contract described as that event left it: a change by the version its event key names, the sale
 * by version 1 (written by the first change; a contract never changed is as sold), a cancellation by
 * the contract as it stands (cancelled, it changes no more). So a closed month's bordereau reads the
 * same later: a sale's row keeps the passengers and flights sold, whatever changed since, and its
 * `cancelled_at` is empty when the cancellation came after the period's end.
 */
export async function premiumRows(db: Executor, scope: Scope, period: Period): Promise<PremiumRow[]> {
  const result = await sql<PremiumRow>`
    WITH moves AS (
      SELECT le.contract_id, le.event_key, le.currency, min(le.occurred_at) AS occurred_at,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'premium_written'), 0)::bigint AS premium_net,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'tax'), 0)::bigint AS premium_tax,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'commission'), 0)::bigint AS commission,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'refund'), 0)::bigint AS refund,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'tax_refunded'), 0)::bigint AS tax_refunded
      FROM ledger_entries le
      WHERE le.partner_id = ${scope.partnerId} AND le.environment = ${scope.environment}
        AND le.occurred_at >= ${period.from} AND le.occurred_at < ${period.to}
        AND le.kind IN ('premium_written', 'tax', 'commission', 'refund', 'tax_refunded')
      GROUP BY le.contract_id, le.event_key, le.currency
    )
    SELECT c.contract_number,
           split_part(m.event_key, ':', 3) AS movement,
           m.occurred_at,
           -- cancelled as at the period's end: a sale row of a month closed before the cancellation reads as it did
           c.created_at, CASE WHEN c.cancelled_at < ${period.to} THEN c.cancelled_at END AS cancelled_at,
           coalesce(v.first_departure_at, c.first_departure_at) AS first_departure_at,
           c.formula,
           coalesce(v.passengers, c.passengers)::integer AS passengers,
           coalesce(v.flights,
             (SELECT string_agg(l.flight_number || ' ' || l.departure_airport || '-' || l.arrival_airport || ' ' || l.departure_local, '; ' ORDER BY l.leg_index)
                FROM contract_legs l WHERE l.contract_id = c.id)) AS flights,
           m.currency, m.premium_net, m.premium_tax, m.commission, m.refund, m.tax_refunded
    FROM moves m JOIN contracts c ON c.id = m.contract_id
    LEFT JOIN LATERAL (
      SELECT v.passengers,
             (SELECT string_agg((f->>'flightNumber') || ' ' || (f->>'departureAirport') || '-' || (f->>'arrivalAirport') || ' ' || (f->>'departureLocal'), '; ' ORDER BY (f->>'leg')::integer)
                FROM jsonb_array_elements(v.flights) f) AS flights,
             (SELECT min((f->>'departureAt')::timestamptz) FROM jsonb_array_elements(v.flights) f) AS first_departure_at
      FROM contract_versions v
      WHERE v.contract_id = c.id
        AND v.version = CASE
          WHEN split_part(m.event_key, ':', 3) = 'written' THEN 1
          WHEN split_part(m.event_key, ':', 4) ~ '^[0-9]+$' THEN split_part(m.event_key, ':', 4)::integer
        END
    ) v ON true
    ORDER BY m.occurred_at, c.contract_number, m.event_key`.execute(db);
  return result.rows;
}

export interface ClaimRow {
  claim_number: string;
  contract_number: string;
  flight_number: string;
  departure_date: string;
  reason: string;
  event: string;
  delay_minutes: number | null;
  evidence: Record<string, unknown>;
  compensation_amount: number;
  currency: string;
  status: string;
  opened_at: Date;
  paid_at: Date | null;
  paid_in_period: number;
  failed_attempts_in_period: number;
}

/**
 * The claim statuses as the audit trail records their changes (audit_log, entity `claim`, entity id
 * the claim number; every change of `claims.status` writes one in its transaction, under the claim's
 * row lock, dated by the use case's clock `deps.now()` — the clock of its ledger entries and `paid_at`):
 * the action → the status it leaves. `claims_opened` has no row of its own per claim (its `opened_at`
 * is when it was `opened`). An expiry writes one `claim_expired` row per claim (entity `claim`, for the
 * desk's trail) and one row for its batch (entity `claims`, id `expiry`, `data.claims` the numbers);
 * the bordereau reads the batch rows (`expiries` below), not the per-claim ones, which is why
 * `claim_expired` is not in this map. Writers: notify-claim.ts (`awaiting_bank_details`),
 * payouts/bank-details.ts (`bank_details_received`), payouts/payouts.ts (`paid`, `payment_failed`,
 * `payment_returned`), payouts/void-claim.ts (`claim_voided`), claims/expire-claims.ts (expiry).
 */
const CLAIM_STATUS_BY_AUDIT_ACTION = {
  awaiting_bank_details: 'awaiting_bank_details',
  bank_details_received: 'payment_pending',
  paid: 'paid',
  payment_failed: 'failed',
  payment_returned: 'failed',
  claim_voided: 'voided',
} as const;

/**
 * One row per claim opened in the period or with a payment movement in it. Its `status`,
 * `compensation_amount` and `paid_at` are as they stood at the period's end, so a closed month's
 * bordereau reads the same when produced again later: the status of the claim's last status change
 * before the end in its audit trail (`opened` when none), the compensation its desk corrections
 * (`compensation_corrected`, from → to) left at the end, `paid_at` its last payment in the ledger
 * before the end while that status is `paid`. "Before the end" reads the rows' `at` (the application's clock, as the ledger's
 * `occurred_at`); "last" reads their ids: each is inserted under the claim's row lock, so its id
 * follows the real order of the claim's changes, where `at` need not (two overlapping transactions).
 * Only the expiry batches that can name one of the claims are unpacked: those at or after the
 * earliest `opened_at` of the claims that are `expired` now (an expired claim stays expired).
 * The claims are found from the period's range of two indexes, each entered at the partner and the
 * period — claims opened in it (claims_listing, on partner, environment and opened_at), claims with a
 * ledger entry in it (ledger_entries_period) — so a month's bordereau reads that month's claims of the
 * partner and its entries, neither every claim the partner ever had nor every partner's claims of the
 * month. Which claims index serves the first is the planner's choice, from the table's statistics: with
 * the claims of several partners it takes claims_listing over claims_operators (opened_at alone, which
 * would read every partner's claims of the month); test/ledger/reports-plan.db.test.ts checks it on such
 * a table. Each claim found is checked against the scope again.
 */
export async function claimRows(db: Executor, scope: Scope, period: Period): Promise<ClaimRow[]> {
  const statusOf = sql.join(
    Object.entries(CLAIM_STATUS_BY_AUDIT_ACTION).map(([action, status]) => sql`(${action}, ${status})`),
  );
  const result = await sql<ClaimRow>`
    WITH in_period AS (
      -- the claims of the bordereau, each read from the partner's and period's range of an index, never
      -- from all the partner's claims: opened in the period (claims_listing), or with a ledger entry in it
      -- (ledger_entries_period; a payout's entries carry its claim's partner and environment)
      SELECT cl.id FROM claims cl
      WHERE cl.partner_id = ${scope.partnerId} AND cl.environment = ${scope.environment}
        AND cl.opened_at >= ${period.from} AND cl.opened_at < ${period.to}
      UNION
      SELECT le.claim_id FROM ledger_entries le
      WHERE le.partner_id = ${scope.partnerId} AND le.environment = ${scope.environment}
        AND le.occurred_at >= ${period.from} AND le.occurred_at < ${period.to} AND le.claim_id IS NOT NULL
    ), claim_rows AS (
      SELECT cl.id, cl.claim_number, c.contract_number, l.flight_number, l.departure_date::text AS departure_date,
             cl.reason, cl.event, cl.delay_minutes, cl.evidence, cl.compensation_amount, cl.currency, cl.opened_at,
             cl.status AS status_now,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'compensation_paid'), 0)::bigint AS paid_in_period,
             count(le.id) FILTER (WHERE le.kind = 'payout_failed')::integer AS failed_attempts_in_period
      FROM in_period i
      -- the scope checked again on the claim itself (read by its id): an entry of another scope naming
      -- this claim would otherwise bring another partner's claim into this partner's bordereau
      JOIN claims cl ON cl.id = i.id AND cl.partner_id = ${scope.partnerId} AND cl.environment = ${scope.environment}
      JOIN contracts c ON c.id = cl.contract_id
      JOIN contract_legs l ON l.id = cl.leg_id
      LEFT JOIN ledger_entries le ON le.claim_id = cl.id AND le.occurred_at >= ${period.from} AND le.occurred_at < ${period.to}
      GROUP BY cl.id, c.contract_number, l.flight_number, l.departure_date
    ), expired AS (
      -- of these claims, those expired now: only they can be in an expiry batch (expired is final)
      SELECT r.claim_number, r.opened_at FROM claim_rows r WHERE r.status_now = 'expired'
    ), expiries AS (
      -- the expiry batches before the end and not before the first of them opened, one row per claim named
      SELECT e.claim_number, a.id
      FROM audit_log a CROSS JOIN LATERAL jsonb_array_elements_text(a.data->'claims') AS e(claim_number)
      WHERE a.entity = 'claims' AND a.entity_id = 'expiry' AND a.action = 'claims_expired' AND a.at < ${period.to}
        AND a.at >= (SELECT min(opened_at) FROM expired)
        AND e.claim_number IN (SELECT claim_number FROM expired)
    ), at_end AS (
      -- one pass over each claim's audit rows (aggregates without GROUP BY: one row, nulls when none)
      SELECT r.id,
             -- its last status change before the end, unless an expiry batch with a higher id named it
             CASE WHEN x.id > coalesce(h.status_id, 0) THEN 'expired' ELSE coalesce(h.status, 'opened') END AS status,
             -- the compensation at the end: the last desk correction before it set it (data.to); with none,
             -- the first correction after it (data.from) says what it was; with no correction, as it is now
             coalesce(h.corrected_to, h.first_from, r.compensation_amount)::bigint AS compensation_amount
      FROM claim_rows r
      CROSS JOIN LATERAL (
        SELECT max(a.id) FILTER (WHERE m.status IS NOT NULL AND a.at < ${period.to}) AS status_id,
               (array_agg(m.status ORDER BY a.id DESC)
                  FILTER (WHERE m.status IS NOT NULL AND a.at < ${period.to}))[1] AS status,
               (array_agg((a.data->>'to')::bigint ORDER BY a.id DESC)
                  FILTER (WHERE a.action = 'compensation_corrected' AND a.at < ${period.to}))[1] AS corrected_to,
               (array_agg((a.data->>'from')::bigint ORDER BY a.id)
                  FILTER (WHERE a.action = 'compensation_corrected' AND a.at >= ${period.to}))[1] AS first_from
        FROM audit_log a LEFT JOIN (VALUES ${statusOf}) AS m(action, status) ON m.action = a.action
        WHERE a.entity = 'claim' AND a.entity_id = r.claim_number
      ) h
      LEFT JOIN (SELECT claim_number, max(id) AS id FROM expiries GROUP BY claim_number) x ON x.claim_number = r.claim_number
    )
    SELECT r.claim_number, r.contract_number, r.flight_number, r.departure_date, r.reason, r.event,
           r.delay_minutes, r.evidence, e.compensation_amount, r.currency, e.status, r.opened_at,
           CASE WHEN e.status = 'paid' THEN (
             SELECT max(p.occurred_at) FROM ledger_entries p
             WHERE p.claim_id = r.id AND p.kind = 'compensation_paid' AND p.amount > 0 AND p.occurred_at < ${period.to})
           END AS paid_at,
           r.paid_in_period, r.failed_attempts_in_period
    FROM claim_rows r JOIN at_end e ON e.id = r.id
    ORDER BY r.opened_at, r.claim_number`.execute(db);
  return result.rows;
}

export interface TotalsRow {
  currency: string;
  premium_net: number;
  premium_tax: number;
  commission: number;
  refund: number;
  tax_refunded: number;
  compensation_paid: number;
  payouts_failed: number;
}

/** Sums per currency of the scope's entries in the period (the partner statement). */
export async function totals(db: Executor, scope: Scope, period: Period): Promise<TotalsRow[]> {
  const result = await sql<TotalsRow>`
    SELECT currency,
           coalesce(sum(amount) FILTER (WHERE kind = 'premium_written'), 0)::bigint AS premium_net,
           coalesce(sum(amount) FILTER (WHERE kind = 'tax'), 0)::bigint AS premium_tax,
           coalesce(sum(amount) FILTER (WHERE kind = 'commission'), 0)::bigint AS commission,
           coalesce(sum(amount) FILTER (WHERE kind = 'refund'), 0)::bigint AS refund,
           coalesce(sum(amount) FILTER (WHERE kind = 'tax_refunded'), 0)::bigint AS tax_refunded,
           coalesce(sum(amount) FILTER (WHERE kind = 'compensation_paid'), 0)::bigint AS compensation_paid,
           count(*) FILTER (WHERE kind = 'payout_failed')::integer AS payouts_failed
    FROM ledger_entries
    WHERE partner_id = ${scope.partnerId} AND environment = ${scope.environment}
      AND occurred_at >= ${period.from} AND occurred_at < ${period.to}
    GROUP BY currency ORDER BY currency`.execute(db);
  return result.rows;
}

export interface EntryRow {
  id: number;
  kind: string;
  amount: number;
  currency: string;
  event_key: string;
  occurred_at: Date;
  recorded_by: string;
}

/** A contract's entries, oldest first (tests, the CLI). */
export async function entriesOfContract(db: Executor, contractNumber: string): Promise<EntryRow[]> {
  return db
    .selectFrom('ledger_entries as le')
    .innerJoin('contracts as c', 'c.id', 'le.contract_id')
    .where('c.contract_number', '=', contractNumber)
    .select(['le.id', 'le.kind', 'le.amount', 'le.currency', 'le.event_key', 'le.occurred_at', 'le.recorded_by'])
    .orderBy('le.id')
    .execute();
}
