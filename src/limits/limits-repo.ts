import { sql } from 'kysely';
import type { Environment } from '../platform/db-schema.ts';
import { alongWrites, type AlongWrites, type Executor } from '../platform/db.ts';
import {
  currencyExponentExceptions,
  DEFAULT_CAP_MAJOR_UNITS,
  defaultCap,
  flightKeyString,
  type FlightKey,
  type LegToCheck,
  type StopSaleScope,
} from './limits.ts';

/** SQL for exposure per flight, caps and stop-sales (docs/limits.md). */

export interface Cap {
  environment: Environment;
  currency: string;
  amount: number;
  /** false: the documented default, no row. */
  set: boolean;
  updatedBy: string | null;
  updatedAt: Date | null;
}

export async function findCap(
  db: Executor,
  environment: Environment,
  currency: string,
  defaultMajor?: number,
): Promise<number> {
  const row = await db
    .selectFrom('exposure_caps')
    .select('amount')
    .where('environment', '=', environment)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return row?.amount ?? defaultCap(currency, defaultMajor);
}

export async function listCapRows(db: Executor): Promise<Cap[]> {
  const rows = await db.selectFrom('exposure_caps').selectAll().orderBy('environment').orderBy('currency').execute();
  return rows.map((r) => ({
    environment: r.environment,
    currency: r.currency,
    amount: r.amount,
    set: true,
    updatedBy: r.updated_by,
    updatedAt: r.updated_at,
  }));
}

export async function upsertCap(
  db: Executor,
  environment: Environment,
  currency: string,
  amount: number,
  by: string,
): Promise<void> {
  await db
    .insertInto('exposure_caps')
    .values({ environment, currency, amount, updated_by: by })
    .onConflict((oc) =>
      oc.columns(['environment', 'currency']).doUpdateSet({ amount, updated_by: by, updated_at: sql`now()` }),
    )
    .execute();
}

/** Currencies partners sell in, each with the highest compensation an agreement (any version of it) allows in it. */
export async function agreementCurrencies(db: Executor): Promise<{ currency: string; compensationMax: number }[]> {
  const rows = await db
    .selectFrom('agreements')
    .select(['currency', 'compensation_max'])
    .unionAll(db.selectFrom('agreement_versions').select(['currency', 'compensation_max']))
    .execute();
  const max = new Map<string, number>();
  for (const r of rows) {
    const currency = r.currency.trim();
    max.set(currency, Math.max(max.get(currency) ?? 0, Number(r.compensation_max)));
  }
  return [...max].map(([currency, compensationMax]) => ({ currency, compensationMax }));
}

const keyColumns = (k: FlightKey) => ({
  environment: k.environment,
  currency: k.currency,
  airline: k.airline,
  departure_airport: k.departureAirport,
  arrival_airport: k.arrivalAirport,
  departure_local: k.departureLocal,
});

/**
 * Adds `amount` to the flight's exposure unless that would pass `cap`, atomically: one conditional
 * upsert. On PostgreSQL a concurrent transaction adding to the same flight waits on the row lock,
 * then re-evaluates the condition on the committed amount. Returns the new amount, or undefined
 * when the cap refuses it (nothing written).
 */
export async function addExposure(
  db: Executor,
  key: FlightKey,
  departureAt: Date,
  amount: number,
  cap: number,
): Promise<number | undefined> {
  if (amount > cap) return undefined;
  const row = await db
    .insertInto('flight_exposure')
    .values({ ...keyColumns(key), departure_at: departureAt, amount, legs: 1 })
    .onConflict((oc) =>
      oc
        .columns(['environment', 'currency', 'airline', 'departure_airport', 'arrival_airport', 'departure_local'])
        .doUpdateSet({
          amount: sql`flight_exposure.amount + excluded.amount`,
          legs: sql`flight_exposure.legs + 1`,
          updated_at: sql`now()`,
        })
        .where(sql<boolean>`flight_exposure.amount + excluded.amount <= ${cap}`),
    )
    .returning('amount')
    .executeTakeFirst();
  return row?.amount;
}

/** The columns naming one flight's exposure row. */
const flightColumns = (key: FlightKey) => ({
  environment: key.environment,
  currency: key.currency,
  airline: key.airline,
  departure_airport: key.departureAirport,
  arrival_airport: key.arrivalAirport,
  departure_local: key.departureLocal,
});

/**
 * Takes `amount` off the flight's exposure, and `legs` (1: a cancelled leg; 0: passengers leaving a
 * leg that stays insured) off its count of legs. Never below zero. Returns the new exposure.
 */
export async function releaseExposure(
  db: Executor,
  key: FlightKey,
  amount: number,
  legs: 0 | 1 = 1,
): Promise<number | undefined> {
  const row = await db
    .updateTable('flight_exposure')
    .set({
      amount: sql`GREATEST(amount - ${amount}, 0)`,
      legs: sql`GREATEST(legs - ${legs}::int, 0)`,
      updated_at: sql`now()`,
    })
    .where((eb) => eb.and(flightColumns(key)))
    .returning('amount')
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.amount);
}

export interface FlightExposure extends FlightKey {
  departureAt: Date;
  amount: number;
  legs: number;
}

const exposureOf = (r: {
  environment: Environment;
  currency: string;
  airline: string;
  departure_airport: string;
  arrival_airport: string;
  departure_local: string;
  departure_at: Date;
  amount: number;
  legs: number;
}): FlightExposure => ({
  environment: r.environment,
  currency: r.currency.trim(),
  airline: r.airline,
  departureAirport: r.departure_airport,
  arrivalAirport: r.arrival_airport,
  departureLocal: r.departure_local,
  departureAt: r.departure_at,
  amount: r.amount,
  legs: r.legs,
});

export async function findExposure(db: Executor, key: FlightKey): Promise<FlightExposure | undefined> {
  const row = await db
    .selectFrom('flight_exposure')
    .selectAll()
    .where((eb) => eb.and(flightColumns(key)))
    .executeTakeFirst();
  return row && exposureOf(row);
}

/** One currency's exposure on a flight, with its cap. */
export interface CurrencyExposure {
  currency: string;
  amount: number;
  legs: number;
  cap: number;
}

/** A flight of the top list: every currency's exposure on it, the most used share of a cap first. */
export interface FlightExposureLine {
  environment: Environment;
  airline: string;
  departureAirport: string;
  arrivalAirport: string;
  departureLocal: string;
  departureAt: Date;
  currencies: CurrencyExposure[];
}

/**
 * Where a page of the top list ends: the last flight's sort key, `[rank, departure instant,
 * environment, airline, departure airport, arrival airport, local departure]` — its rank is
 * floor(amount × 10^30 ÷ cap) of its most used currency, an exact integer (two different shares of
 * caps up to 10^13 differ by more than 10^-26), so the order is total and a page never repeats nor
 * skips a flight whose exposure did not change.
 */
export type ExposureCursor = [string, string, Environment, string, string, string, string];

export interface TopExposureFilter {
  after: Date;
  environment?: Environment | undefined;
  currency?: string | undefined;
  /** The exposure's airline: the operating carrier. */
  airline?: string | undefined;
  /** Local departure dates 'YYYY-MM-DD', both included. */
  fromDate?: string | undefined;
  toDate?: string | undefined;
  defaultCapMajor?: number | undefined;
}

/**
 * Upcoming flights (departing after `after`) by the share of their cap they use, highest first —
 * one line per flight with every currency's exposure on it (contracts of two currencies on one
 * flight are two exposures, each against its own cap: the line's share is the higher). Amounts in
 * different currencies (JPY minor units, EUR cents) compare only as shares of their own caps. The cap
 * of the flight's environment and currency, else the default (`defaultCap`, computed in SQL from
 * `defaultCapMajor` and the currency's minor unit). Keyset pages: `limit` lines after `cursor`, and
 * the cursor of the next page when there is one. One statement.
 */
export async function topExposures(
  db: Executor,
  options: TopExposureFilter & { limit: number; cursor?: ExposureCursor | undefined },
): Promise<{ flights: FlightExposureLine[]; next: ExposureCursor | undefined }> {
  const exceptions = currencyExponentExceptions();
  const exponents = sql`(VALUES ${sql.join(exceptions.map((c) => sql`(${c.currency}, ${c.exponent}::int)`))}) AS x (currency, exponent)`;
  const major = options.defaultCapMajor ?? DEFAULT_CAP_MAJOR_UNITS;
  const text = (value: string | undefined) => sql`${value ?? null}::text`;
  const c = options.cursor;
  const after = c
    ? sql`AND (f.rank < ${c[0]}::numeric OR (f.rank = ${c[0]}::numeric AND
        (f.departure_at, f.environment, f.airline, f.departure_airport, f.arrival_airport, f.departure_local)
          > (${new Date(c[1])}::timestamptz, ${c[2]}::text, ${c[3]}::text, ${c[4]}::text, ${c[5]}::text, ${c[6]}::text)))`
    : sql``;
  const rows = await sql<{
    environment: Environment;
    airline: string;
    departure_airport: string;
    arrival_airport: string;
    departure_local: string;
    departure_at: Date;
    rank_text: string;
    currencies: [string, number | string, number, number | string][];
  }>`
    WITH e AS (
      SELECT e.*, coalesce(c.amount, (${major}::numeric * power(10::numeric, coalesce(x.exponent, 2)))::bigint) AS cap
      FROM flight_exposure e
      LEFT JOIN exposure_caps c ON c.environment = e.environment AND c.currency = e.currency
      LEFT JOIN ${exponents} ON x.currency = e.currency
      WHERE e.departure_at > ${options.after} AND e.amount > 0
        AND (${text(options.environment)} IS NULL OR e.environment = ${text(options.environment)})
        AND (${text(options.currency)} IS NULL OR e.currency = ${text(options.currency)})
        AND (${text(options.airline)} IS NULL OR e.airline = ${text(options.airline)})
        AND (${text(options.fromDate)} IS NULL OR e.departure_local >= ${text(options.fromDate)})
        AND (${text(options.toDate)} IS NULL OR e.departure_local < (${text(options.toDate)} || 'U'))
    ), ranked AS (
      SELECT e.*, div(e.amount::numeric * 1e30, e.cap::numeric) AS rank FROM e
    ), f AS (
      SELECT environment, airline, departure_airport, arrival_airport, departure_local,
        min(departure_at) AS departure_at, max(rank) AS rank,
        json_agg(json_build_array(currency, amount, legs, cap) ORDER BY rank DESC, currency) AS currencies
      FROM ranked
      GROUP BY environment, airline, departure_airport, arrival_airport, departure_local
    )
    SELECT f.*, f.rank::text AS rank_text FROM f WHERE true ${after}
    ORDER BY f.rank DESC, f.departure_at, f.environment, f.airline, f.departure_airport, f.arrival_airport, f.departure_local
    LIMIT ${options.limit + 1}`.execute(db);
  const flights = rows.rows.slice(0, options.limit);
  const last = flights.at(-1);
  return {
    flights: flights.map((r) => ({
      environment: r.environment,
      airline: r.airline,
      departureAirport: r.departure_airport,
      arrivalAirport: r.arrival_airport,
      departureLocal: r.departure_local,
      departureAt: r.departure_at,
      currencies: r.currencies.map(([currency, amount, legs, cap]) => ({
        currency: currency.trim(),
        amount: Number(amount),
        legs,
        cap: Number(cap),
      })),
    })),
    next:
      rows.rows.length > options.limit && last
        ? [
            last.rank_text,
            last.departure_at.toISOString(),
            last.environment,
            last.airline,
            last.departure_airport,
            last.arrival_airport,
            last.departure_local,
          ]
        : undefined,
  };
}

/**
 * Upcoming flights whose exposure is at least the threshold of their environment and currency (the
 * quote snapshot's near-full flights): each pair has its own cap, so its own threshold.
 */
export async function exposuresAtLeast(
  db: Executor,
  after: Date,
  thresholds: readonly { environment: Environment; currency: string; atLeast: number }[],
  limit: number,
): Promise<FlightExposure[]> {
  if (thresholds.length === 0) return [];
  const rows = await db
    .selectFrom('flight_exposure')
    .selectAll()
    .where('departure_at', '>', after)
    .where((eb) =>
      eb.or(
        thresholds.map((t) =>
          eb.and([
            eb('environment', '=', t.environment),
            eb('currency', '=', t.currency),
            eb('amount', '>=', Math.max(1, t.atLeast)),
          ]),
        ),
      ),
    )
    .limit(limit)
    .execute();
  return rows.map(exposureOf);
}

export interface StopSale extends StopSaleScope {
  createdBy: string;
  resumedAt: Date | null;
  resumedBy: string | null;
}

type StopSaleRow = {
  id: string;
  environment: Environment | null;
  airline: string | null;
  airport: string | null;
  departure_airport: string | null;
  arrival_airport: string | null;
  starts_at: Date;
  ends_at: Date | null;
  reason: string;
  created_by: string;
  created_at: Date;
  resumed_at: Date | null;
  resumed_by: string | null;
};

const stopSaleOf = (r: StopSaleRow): StopSale => ({
  id: r.id,
  environment: r.environment,
  airline: r.airline,
  airport: r.airport,
  departureAirport: r.departure_airport,
  arrivalAirport: r.arrival_airport,
  startsAt: r.starts_at,
  endsAt: r.ends_at,
  reason: r.reason,
  createdBy: r.created_by,
  createdAt: r.created_at,
  resumedAt: r.resumed_at,
  resumedBy: r.resumed_by,
});

/** What makes two stop-sales the same one: a stop-sale without its id. */
type StopSaleIdentity = Omit<StopSaleScope, 'id' | 'createdAt'>;

export async function insertStopSale(
  db: Executor,
  values: StopSaleIdentity & { createdBy: string },
): Promise<StopSale> {
  const row = await db
    .insertInto('stop_sales')
    .values({
      environment: values.environment,
      airline: values.airline,
      airport: values.airport,
      departure_airport: values.departureAirport,
      arrival_airport: values.arrivalAirport,
      starts_at: values.startsAt,
      ends_at: values.endsAt,
      reason: values.reason,
      created_by: values.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return stopSaleOf(row);
}

/**
 * Takes, until the transaction ends, a lock on a stop-sale's identity (scope, period and reason): two
 * identical suspends at once run their check and insert one after the other (findSameStopSale).
 */
export async function lockStopSaleIdentity(db: Executor, values: StopSaleIdentity): Promise<void> {
  const identity = JSON.stringify([
    values.environment,
    values.airline,
    values.airport,
    values.departureAirport,
    values.arrivalAirport,
    values.startsAt.toISOString(),
    values.endsAt?.toISOString() ?? null,
    values.reason,
  ]);
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`stop-sale/${identity}`}, 0))`.execute(db);
}

/** A stop-sale not resumed with exactly this scope, period and reason (a repeated suspend), if any. */
export async function findSameStopSale(db: Executor, values: StopSaleIdentity): Promise<StopSale | undefined> {
  const same = (
    column: 'environment' | 'airline' | 'airport' | 'departure_airport' | 'arrival_airport',
    value: string | null,
  ) => sql<boolean>`${sql.ref(column)} IS NOT DISTINCT FROM ${value}::text`;
  const row = await db
    .selectFrom('stop_sales')
    .selectAll()
    .where('resumed_at', 'is', null)
    .where(same('environment', values.environment))
    .where(same('airline', values.airline))
    .where(same('airport', values.airport))
    .where(same('departure_airport', values.departureAirport))
    .where(same('arrival_airport', values.arrivalAirport))
    .where('starts_at', '=', values.startsAt)
    .where(sql<boolean>`ends_at IS NOT DISTINCT FROM ${values.endsAt}::timestamptz`)
    .where('reason', '=', values.reason)
    .orderBy('created_at')
    .executeTakeFirst();
  return row && stopSaleOf(row);
}

/**
 * Which stop-sales a listing shows at `after` (now): `inForce` — not resumed, not ended (current and
 * future, what is enforced); `current` — in force and covering departures from now (started);
 * `future` — in force from a later start; `past` — resumed or ended; `all`.
 */
export type StopSaleListing = 'inForce' | 'current' | 'future' | 'past' | 'all';

const inForce = (after: Date) =>
  sql<boolean>`resumed_at IS NULL AND (ends_at IS NULL OR ends_at > ${after}::timestamptz)`;

/** The condition of a listing's stop-sales at `after`. */
function listed(state: StopSaleListing, after: Date) {
  switch (state) {
    case 'inForce':
      return inForce(after);
    case 'current':
      return sql<boolean>`${inForce(after)} AND starts_at <= ${after}::timestamptz`;
    case 'future':
      return sql<boolean>`${inForce(after)} AND starts_at > ${after}::timestamptz`;
    case 'past':
      return sql<boolean>`NOT (${inForce(after)})`;
    case 'all':
      return sql<boolean>`true`;
  }
}

/**
 * Stop-sales of a listing (`state`, default in force) — with `startingBefore`, only those starting
 * before it (the quote snapshot: departures a quote can name). By start. At most `limit` (a listing
 * for people: those starting first; past or all, the latest, past ones being the history); without,
 * every one (what enforces them: none may be left out).
 */
export async function listStopSales(
  db: Executor,
  options: { after: Date; startingBefore?: Date | undefined; state?: StopSaleListing; limit?: number | undefined },
): Promise<StopSale[]> {
  const state = options.state ?? 'inForce';
  let query = db.selectFrom('stop_sales').selectAll().where(listed(state, options.after));
  if (options.startingBefore) query = query.where('starts_at', '<', options.startingBefore);
  const direction = (state === 'all' || state === 'past') && options.limit !== undefined ? 'desc' : 'asc';
  query = query.orderBy('starts_at', direction).orderBy('created_at', direction);
  const rows = await (options.limit === undefined ? query : query.limit(options.limit)).execute();
  if (direction === 'desc') rows.reverse();
  return rows.map(stopSaleOf);
}

/** How many stop-sales listStopSales would list without a limit. */
export async function countStopSales(db: Executor, options: { after: Date; state?: StopSaleListing }): Promise<number> {
  const query = db
    .selectFrom('stop_sales')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(listed(options.state ?? 'inForce', options.after));
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/**
 * For each leg, the stop-sale in force covering it that starts first, if any: a statement narrowed
 * by the leg's environment, airline, airports and departure, stopping at the first match (what a
 * subscription reads in its transaction: a handful of rows, however many stop-sales there are).
 */
const coveringStopSales = (after: Date, environment: Environment, legs: readonly LegToCheck[]) => sql`
  SELECT st.* FROM (VALUES ${sql.join(
    legs.map(
      (leg, n) =>
        sql`(${n}::int, ${leg.airline}::text, ${leg.departureAirport}::text, ${leg.arrivalAirport}::text, ${leg.departureAt}::timestamptz)`,
    ),
  )}) AS leg (n, airline, departure_airport, arrival_airport, departure_at)
  CROSS JOIN LATERAL (
    SELECT * FROM stop_sales s
    WHERE s.resumed_at IS NULL AND (s.ends_at IS NULL OR s.ends_at > ${after})
      AND (s.environment IS NULL OR s.environment = ${environment})
      AND (s.airline IS NULL OR s.airline = leg.airline)
      AND (s.airport IS NULL OR s.airport = leg.departure_airport OR s.airport = leg.arrival_airport)
      AND (s.departure_airport IS NULL
        OR (s.departure_airport = leg.departure_airport AND s.arrival_airport = leg.arrival_airport))
      AND s.starts_at <= leg.departure_at AND (s.ends_at IS NULL OR s.ends_at > leg.departure_at)
    ORDER BY s.starts_at, s.created_at, s.id
    LIMIT 1
  ) AS st`;

/**
 * What reserving exposure reads first, in one statement (one round trip): for each leg the
 * stop-sale in force covering it, if any (coveringStopSales), and the cap of the environment and
 * currency (as findCap).
 */
export async function stopSalesAndCap(
  db: Executor,
  options: {
    after: Date;
    environment: Environment;
    currency: string;
    defaultMajor?: number | undefined;
    legs: readonly LegToCheck[];
  },
): Promise<{ stops: StopSale[]; cap: number }> {
  const result = await sql<Omit<StopSaleRow, 'id'> & { id: string | null; cap: number | string | null }>`
    SELECT (SELECT amount FROM exposure_caps WHERE environment = ${options.environment} AND currency = ${options.currency}) AS cap, s.*
    FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (${coveringStopSales(options.after, options.environment, options.legs)}) AS s ON true
    ORDER BY s.starts_at, s.created_at, s.id`.execute(db);
  const cap = result.rows[0]?.cap;
  return {
    stops: result.rows.filter((r): r is typeof r & { id: string } => r.id !== null).map((r) => stopSaleOf(r)),
    cap: cap === null || cap === undefined ? defaultCap(options.currency, options.defaultMajor) : Number(cap),
  };
}

/**
 * Reserving exposure in one statement (one round trip): reads, for each leg, the stop-sale in force
 * covering it if any (coveringStopSales) and the cap of the environment and currency (as findCap), and adds `amount` to
 * each flight's exposure unless that would pass the cap (as addExposure, each flight: in the order
 * given — callers pass them in key order, so two subscriptions over the same flights never
 * deadlock — keys distinct). The caller checks the stop-sales after the fact and, if one covers a leg, throws: its
 * transaction rolls the additions back. `writes` are sent along, in the same statement (platform/db.ts).
 */
export async function reserveInOneStatement(
  db: Executor,
  options: {
    after: Date;
    environment: Environment;
    currency: string;
    defaultMajor?: number | undefined;
    legs: readonly LegToCheck[];
  },
  flights: readonly { key: FlightKey; departureAt: Date }[],
  amount: number,
  writes: AlongWrites = [],
): Promise<{ stops: StopSale[]; cap: number; added: Map<string, number> }> {
  const fallback = defaultCap(options.currency, options.defaultMajor);
  const along = alongWrites(writes);
  const values = sql.join(
    flights.map(
      ({ key, departureAt }) =>
        sql`(${key.environment}, ${key.currency}, ${key.airline}, ${key.departureAirport}, ${key.arrivalAirport}, ${key.departureLocal}, ${departureAt}::timestamptz, ${amount}::bigint)`,
    ),
  );
  const result = await sql<
    Omit<StopSaleRow, 'id'> & {
      id: string | null;
      cap: number | string;
      added: [string, string, string, string, string, string, number | string][] | null;
    }
  >`
    WITH ${along.withPrefix}cap AS (
      SELECT COALESCE(
        (SELECT amount FROM exposure_caps WHERE environment = ${options.environment} AND currency = ${options.currency}),
        ${fallback}::bigint) AS amount
    ),
    added AS (
      INSERT INTO flight_exposure
        (environment, currency, airline, departure_airport, arrival_airport, departure_local, departure_at, amount, legs)
      SELECT v.*, 1 FROM (VALUES ${values})
        AS v(environment, currency, airline, departure_airport, arrival_airport, departure_local, departure_at, amount)
      WHERE v.amount <= (SELECT amount FROM cap)
      ON CONFLICT (environment, currency, airline, departure_airport, arrival_airport, departure_local) DO UPDATE
        SET amount = flight_exposure.amount + excluded.amount, legs = flight_exposure.legs + 1, updated_at = now()
        WHERE flight_exposure.amount + excluded.amount <= (SELECT amount FROM cap)
      RETURNING environment, currency, airline, departure_airport, arrival_airport, departure_local, amount
    )
    SELECT (SELECT amount FROM cap) AS cap,
      (SELECT json_agg(json_build_array(a.environment, a.currency, a.airline, a.departure_airport,
        a.arrival_airport, a.departure_local, a.amount)) FROM added a) AS added,
      ${along.selectPrefix}s.*
    FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (${coveringStopSales(options.after, options.environment, options.legs)}) AS s ON true
    ORDER BY s.starts_at, s.created_at, s.id`.execute(db);
  const first = result.rows[0]!;
  along.report(first);
  const added = new Map(
    (first.added ?? []).map(
      ([environment, currency, airline, departureAirport, arrivalAirport, departureLocal, total]) => [
        flightKeyString({
          environment: environment as Environment,
          currency: currency.trim(),
          airline,
          departureAirport,
          arrivalAirport,
          departureLocal,
        }),
        Number(total),
      ],
    ),
  );
  return {
    stops: result.rows.filter((r): r is typeof r & { id: string } => r.id !== null).map((r) => stopSaleOf(r)),
    cap: Number(first.cap),
    added,
  };
}

export async function markStopSaleResumed(
  db: Executor,
  id: string,
  at: Date,
  by: string,
): Promise<StopSale | undefined> {
  const row = await db
    .updateTable('stop_sales')
    .set({ resumed_at: at, resumed_by: by })
    .where('id', '=', id)
    .where('resumed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row && stopSaleOf(row);
}

export async function findStopSale(db: Executor, id: string): Promise<StopSale | undefined> {
  const row = await db.selectFrom('stop_sales').selectAll().where('id', '=', id).executeTakeFirst();
  return row && stopSaleOf(row);
}
