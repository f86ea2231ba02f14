import { sql } from 'kysely';
import { LEFT_OUT_PAYOUT } from '../payouts/index.ts';
import type { Executor } from '../platform/db.ts';

/** Read-only SQL behind the consoles' tables and dashboards. */

export interface Scope {
  partnerId: string;
  environment: 'sandbox' | 'preproduction' | 'production';
}

export interface DailyCount {
  day: string;
  count: number;
}

const day = (column: string) => sql<string>`to_char((${sql.ref(column)} AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`;

/** Contracts subscribed, contracts cancelled and claims opened per UTC day in [from, toExclusive). */
export async function dailyActivity(
  db: Executor,
  scope: Scope,
  from: Date,
  toExclusive: Date,
): Promise<{ subscriptions: DailyCount[]; cancellations: DailyCount[]; claims: DailyCount[] }> {
  const perDay = async (table: 'contracts' | 'claims', column: 'created_at' | 'cancelled_at' | 'opened_at') => {
    const rows = await db
      .selectFrom(table)
      .select([day(column).as('day'), sql<number>`count(*)::int`.as('count')])
      .where('partner_id', '=', scope.partnerId)
      .where('environment', '=', scope.environment)
      .where(sql.ref(column), '>=', from)
      .where(sql.ref(column), '<', toExclusive)
      .groupBy(sql`1`)
      .orderBy(sql`1`)
      .execute();
    return rows.map((r) => ({ day: r.day, count: Number(r.count) }));
  };
  const [subscriptions, cancellations, claims] = await Promise.all([
    perDay('contracts', 'created_at'),
    perDay('contracts', 'cancelled_at'),
    perDay('claims', 'opened_at'),
  ]);
  return { subscriptions, cancellations, claims };
}

/** Quotes per UTC day in [from, toExclusive), from the hourly counts the API processes write. */
export async function dailyQuotes(db: Executor, scope: Scope, from: Date, toExclusive: Date): Promise<DailyCount[]> {
  const rows = await db
    .selectFrom('quote_counts')
    .select([day('hour').as('day'), sql<string>`sum(quotes)::text`.as('count')])
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('hour', '>=', from)
    .where('hour', '<', toExclusive)
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute();
  return rows.map((r) => ({ day: r.day, count: Number(r.count) }));
}

/** Claims in one status: how many (every currency), and their compensation per currency. */
export interface ClaimStatusCount {
  status: string;
  count: number;
  /** The compensation of the status's claims, one sum per currency (never added across currencies), by currency. */
  amounts: { currency: string; amount: number }[];
}

/** Claims per status (a partner's in an environment, or every claim), each status's compensation per currency. */
export async function claimsByStatus(
  db: Executor,
  scope: Scope | { environment?: undefined; partnerId?: undefined },
): Promise<ClaimStatusCount[]> {
  let query = db
    .selectFrom('claims')
    .select([
      'status',
      'currency',
      sql<number>`count(*)::int`.as('count'),
      sql<string>`coalesce(sum(compensation_amount), 0)::text`.as('amount'),
    ]);
  if (scope.partnerId) query = query.where('partner_id', '=', scope.partnerId);
  if (scope.environment) query = query.where('environment', '=', scope.environment);
  const rows = await query.groupBy(['status', 'currency']).orderBy('status').orderBy('currency').execute();
  const byStatus = new Map<string, ClaimStatusCount>();
  for (const r of rows) {
    let entry = byStatus.get(r.status);
    if (!entry) byStatus.set(r.status, (entry = { status: r.status, count: 0, amounts: [] }));
    entry.count += Number(r.count);
    entry.amounts.push({ currency: r.currency, amount: Number(r.amount) });
  }
  return [...byStatus.values()];
}

export interface Page<T> {
  rows: T[];
  /** Offset of the next page, or null. */
  next: number | null;
  /**
   * A keyset-paginated listing instead (`next` null): the cursor of the next page (null: none), and
   * whether this page was asked with one (the pager then offers the first page again).
   */
  keyset?: { nextCursor: string | null; paged: boolean };
}

export const VIEW_PAGE = 50;

export async function paged<T>(rows: Promise<T[]>, offset: number): Promise<Page<T>> {
  const all = await rows;
  return { rows: all.slice(0, VIEW_PAGE), next: all.length > VIEW_PAGE ? offset + VIEW_PAGE : null };
}

export async function flightWatchesByState(db: Executor) {
  const rows = await db
    .selectFrom('flight_watches')
    .select(['state', sql<number>`count(*)::int`.as('count')])
    .groupBy('state')
    .orderBy('state')
    .execute();
  return rows.map((r) => ({ state: r.state as string, count: Number(r.count) }));
}

/**
 * The SMS outbox (sandbox and preproduction messages), newest first; phones stay encrypted, bodies
 * sealed (`body`: the plaintext of a row written before migration 0042 and not sealed yet).
 */
export async function listOutbox(db: Executor, offset: number) {
  const query = db
    .selectFrom('sms_outbox as o')
    .innerJoin('partners as p', 'p.id', 'o.partner_id')
    .innerJoin('contracts as c', 'c.id', 'o.contract_id')
    .select(['o.sent_at', 'p.slug', 'o.environment', 'c.contract_number', 'o.body', 'o.body_enc']);
  return paged(
    query
      .orderBy('o.sent_at', 'desc')
      .orderBy('o.id')
      .offset(offset)
      .limit(VIEW_PAGE + 1)
      .execute(),
    offset,
  );
}

/**
 * Payouts a batch left out of its file (LEFT_OUT_PAYOUT), per currency, with their amount: the
 * payouts page's cards; the rows the metric parasol_payouts_left_out counts.
 */
export async function leftOutPayoutsByCurrency(db: Executor) {
  const rows = await db
    .selectFrom('payouts as p')
    .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
    .select(['p.currency', sql<number>`count(*)::int`.as('count'), sql<string>`sum(p.amount)::text`.as('amount')])
    .where(LEFT_OUT_PAYOUT)
    .groupBy('p.currency')
    .orderBy('p.currency')
    .execute();
  return rows.map((r) => ({ currency: r.currency, count: Number(r.count), amount: Number(r.amount) }));
}

export async function payoutsByStatus(db: Executor) {
  const rows = await db
    .selectFrom('payouts')
    .select(['status', 'currency', sql<number>`count(*)::int`.as('count'), sql<string>`sum(amount)::text`.as('amount')])
    .groupBy(['status', 'currency'])
    .orderBy('status')
    .execute();
  return rows.map((r) => ({
    status: r.status,
    currency: r.currency,
    count: Number(r.count),
    amount: Number(r.amount),
  }));
}
