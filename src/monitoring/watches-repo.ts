import { sql, type RawBuilder, type Selectable } from 'kysely';
import type {
  ContractVersionFlight,
  Environment,
  FlightWatchesTable,
  FlightWatchState,
} from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import { payoutLaterals } from '../claims/index.ts';
import { parseDesignator, sameDesignator } from './flight-status.ts';

/**
 * SQL for flight watches (one per flight: environment + designator as the legs store it + local date).
 * Legs are found by the flight that flies, `monitored_flight_number` (the operating flight of a
 * codeshare, else the flight number: migration 0026).
 */

export interface FlightWatch {
  id: string;
  environment: Environment;
  flightNumber: string;
  departureDate: string;
  origin: string;
  destination: string;
  scheduledDeparture: Date;
  scheduledArrival: Date | null;
  state: FlightWatchState;
  nextCheckAt: Date | null;
  checks: number;
  consecutiveErrors: number;
  lastCheckedAt: Date | null;
  lastOutcome: string | null;
  lastStatus: unknown;
  lastError: string | null;
  decision: unknown;
  reviewReason: string | null;
  decidedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

function toWatch(r: Selectable<FlightWatchesTable>): FlightWatch {
  return {
    id: r.id,
    environment: r.environment,
    flightNumber: r.flight_number,
    departureDate: r.departure_date,
    origin: r.origin,
    destination: r.destination,
    scheduledDeparture: r.scheduled_departure,
    scheduledArrival: r.scheduled_arrival,
    state: r.state,
    nextCheckAt: r.next_check_at,
    checks: r.checks,
    consecutiveErrors: r.consecutive_errors,
    lastCheckedAt: r.last_checked_at,
    lastOutcome: r.last_outcome,
    lastStatus: r.last_status,
    lastError: r.last_error,
    decision: r.decision,
    reviewReason: r.review_reason,
    decidedAt: r.decided_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Active legs of a flight: the `l`/`c` aliases of contract_legs and contracts. */
const activeLegsOf = (w: { environment: string; flightNumber: string; departureDate: string }) => sql`
  l.environment = ${w.environment} AND l.monitored_flight_number = ${w.flightNumber} AND l.departure_date = ${w.departureDate}::date AND c.status = 'active'`;

/**
 * Creates the missing watches of the active legs departing in [from, to), one per flight, in one
 * statement; a watch closed because its contracts were all cancelled is reopened when an active
 * contract appears on the flight again. The first check is the earliest leg's departure.
 * With `flight` instead of a window: the watches of that one flight (under the designators given, as
 * the legs spell them), whenever it departs — the simulator's (saveSimulatedFlightEvent) and an operator's
 * event (recordOperatorFlightEvent).
 */
export async function insertMissingWatches(
  db: Executor,
  scope:
    | { from: Date; to: Date }
    | { flight: { environment: Environment; flightNumbers: readonly string[]; departureDate: string } },
): Promise<{ created: number; reopened: number }> {
  if ('flight' in scope && scope.flight.flightNumbers.length === 0) return { created: 0, reopened: 0 };
  const where =
    'flight' in scope
      ? sql`l.environment = ${scope.flight.environment}
      AND l.monitored_flight_number = ANY(${[...scope.flight.flightNumbers]}::text[])
      AND l.departure_date = ${scope.flight.departureDate}::date`
      : sql`l.departure_at >= ${scope.from}
      AND l.departure_at < ${scope.to}`;
  const result = await sql<{ inserted: boolean }>`
    INSERT INTO flight_watches (environment, flight_number, departure_date, origin, destination, scheduled_departure, state, next_check_at)
    SELECT DISTINCT ON (l.environment, l.monitored_flight_number, l.departure_date)
           l.environment, l.monitored_flight_number, l.departure_date, l.departure_airport, l.arrival_airport, l.departure_at, 'watching', l.departure_at
    FROM contract_legs l
    JOIN contracts c ON c.id = l.contract_id
    WHERE c.status = 'active'
      AND ${where}
    ORDER BY l.environment, l.monitored_flight_number, l.departure_date, l.departure_at
    ON CONFLICT (environment, flight_number, departure_date) DO UPDATE
      SET state = 'watching', next_check_at = EXCLUDED.next_check_at, review_reason = NULL, updated_at = now()
      WHERE flight_watches.state = 'closed'
    RETURNING (xmax = 0) AS inserted`.execute(db);
  const created = result.rows.filter((r) => r.inserted).length;
  return { created, reopened: result.rows.length - created };
}

/**
 * When the flight is scheduled to depart, as the platform records it — an operator's on_time, delay or
 * diversion is refused before it (recordOperatorFlightEvent). Each record that may be out of date
 * counts at its latest: refusing a little too long is harmless (a cancellation can always be stated),
 * deciding a flight before it departs is not (earlyDecisionsOwingClaims then pays the legs sold since).
 * - Its insured legs (under the designators given: the legs of every contract not cancelled, active or
 *   completed — a contract completed ahead, by a cancellation paid before departure, still has a
 *   flight that has not flown): the earliest of them, or its watches' scheduled departure when later.
 *   A watch's scheduled departure is its earliest active leg's when it was made or last checked
 *   (insertMissingWatches, check-flight.ts), never the provider's; refusing until it has passed keeps
 *   an operator's decision from ever counting as taken before departure (decided_at < scheduled_departure).
 * - Else (every contract on it cancelled, or moved off it by a flight change or a leg's cancellation):
 *   the latest of its watches' scheduled departure and its cancelled contracts' legs (a contract's
 *   legs as its last version left them).
 * - Else the latest departure of the flight in the versions of changed contracts (contract_versions,
 *   found by containment through its GIN index, migration 0064; any spelling, AF6 ≡ AF006), an earlier
 *   version of a contract moved off it.
 * Undefined only for a flight the platform never insured in that environment.
 */
export async function scheduledDepartureOf(
  db: Executor,
  flight: { environment: Environment; flightNumber: string; flightNumbers: readonly string[]; departureDate: string },
): Promise<Date | undefined> {
  const latest = (dates: readonly (Date | undefined)[]) => {
    const known = dates.filter((at): at is Date => at !== undefined && !Number.isNaN(at.getTime()));
    return known.length ? new Date(Math.max(...known.map((at) => at.getTime()))) : undefined;
  };
  const watched = (await findWatchesOfFlight(db, flight.environment, flight.flightNumber, flight.departureDate)).map(
    (w) => w.scheduledDeparture,
  );
  const insured = await legDeparture(db, flight, sql`c.status <> 'cancelled'`, 'min');
  if (insured) return latest([insured, ...watched]);
  const recorded = latest([...watched, await legDeparture(db, flight, sql`c.status = 'cancelled'`, 'max')]);
  return recorded ?? latestVersionDeparture(db, flight);
}

/**
 * The latest departure of the flight (its designator in any spelling, the operating flight of a
 * codeshare) on its local date in the versions of the environment's changed contracts. The
 * containment (`@>`) on a few spellings uses contract_versions_flights (GIN, jsonb_path_ops); the
 * date and the flight that flies are checked on the rows found.
 */
async function latestVersionDeparture(
  db: Executor,
  flight: { environment: Environment; flightNumber: string; departureDate: string },
): Promise<Date | undefined> {
  const designator = parseDesignator(flight.flightNumber);
  if (!designator) return undefined;
  const digits = String(designator.number);
  const spellings = [];
  for (let width = digits.length; width <= 4; width++)
    spellings.push(`${designator.airline}${digits.padStart(width, '0')}${designator.suffix}`);
  const contains = spellings.flatMap((spelling) =>
    ['flightNumber', 'operatingFlightNumber'].map(
      (key) => sql`v.flights @> ${JSON.stringify([{ [key]: spelling }])}::jsonb`,
    ),
  );
  const rows = await sql<{ flights: ContractVersionFlight[] }>`
    SELECT v.flights
    FROM contract_versions v
    JOIN contracts c ON c.id = v.contract_id
    WHERE (${sql.join(contains, sql` OR `)})
      AND c.environment = ${flight.environment}`.execute(db);
  let latest: number | undefined;
  for (const f of rows.rows.flatMap((r) => r.flights)) {
    if (f.departureLocal.slice(0, 10) !== flight.departureDate) continue;
    if (!sameDesignator(f.operatingFlightNumber ?? f.flightNumber, flight.flightNumber)) continue;
    const at = new Date(f.departureAt).getTime();
    if (!Number.isNaN(at) && (latest === undefined || at > latest)) latest = at;
  }
  return latest === undefined ? undefined : new Date(latest);
}

/** The earliest (`min`) or latest (`max`) scheduled departure of the flight's legs whose contract is as `status` says. */
async function legDeparture(
  db: Executor,
  flight: { environment: Environment; flightNumbers: readonly string[]; departureDate: string },
  status: RawBuilder<unknown>,
  which: 'min' | 'max',
): Promise<Date | undefined> {
  if (flight.flightNumbers.length === 0) return undefined;
  const row = await sql<{ at: Date | null }>`
    SELECT ${sql.raw(which)}(l.departure_at) AS at
    FROM contract_legs l
    JOIN contracts c ON c.id = l.contract_id
    WHERE ${status}
      AND l.environment = ${flight.environment}
      AND l.monitored_flight_number = ANY(${[...flight.flightNumbers]}::text[])
      AND l.departure_date = ${flight.departureDate}::date`.execute(db);
  const at = row.rows[0]?.at;
  return at ? new Date(at) : undefined;
}

/** A flight decided before its scheduled departure, one of whose active legs that decision pays has no claim. */
export interface EarlyDecisionOwingClaims {
  id: string;
  environment: Environment;
  flightNumber: string;
  departureDate: string;
  decision: {
    kind: 'delayed' | 'cancelled' | 'diverted';
    arrivalDelayMinutes?: number;
    source?: string;
    /** The operator who stated the event (an operator's decision, recorded since it was kept). */
    reportedBy?: string;
  };
  /** The status record the monitoring decided on (the evidence format of flight-event.ts); null for an operator's. */
  lastStatus: Record<string, unknown> | null;
}

/**
 * Flights decided before their scheduled departure (an operator's or a simulated event, a cancellation
 * known ahead) that departed since `since` or are still to depart, with an active leg the decision pays
 * (the payout rule on the leg's contract) and no claim: a leg sold, or moved onto the flight, after the
 * decision. The partial index flight_watches_decided_early (migration 0040) holds only such watches.
 */
export async function earlyDecisionsOwingClaims(
  db: Executor,
  since: Date,
  limit: number,
): Promise<EarlyDecisionOwingClaims[]> {
  const rows = await sql<{
    id: string;
    environment: Environment;
    flight_number: string;
    departure_date: string;
    decision: EarlyDecisionOwingClaims['decision'];
    last_status: Record<string, unknown> | null;
  }>`
    SELECT w.id, w.environment, w.flight_number, to_char(w.departure_date, 'YYYY-MM-DD') AS departure_date,
           w.decision, w.last_status
    FROM flight_watches w
    WHERE w.state = 'decided' AND w.decided_at < w.scheduled_departure
      AND w.scheduled_departure >= ${since}
      AND w.decision->>'kind' IN ('delayed', 'cancelled', 'diverted')
      AND EXISTS (
        SELECT 1 FROM contract_legs l JOIN contracts c ON c.id = l.contract_id
        ${payoutLaterals(sql<string>`(w.decision->>'kind')`, sql<number>`coalesce((w.decision->>'arrivalDelayMinutes')::int, 0)`)}
        WHERE l.environment = w.environment AND l.monitored_flight_number = w.flight_number
          AND l.departure_date = w.departure_date AND c.status = 'active'
          AND coalesce(pay.amount, 0) > 0
          AND NOT EXISTS (SELECT 1 FROM claims cl WHERE cl.leg_id = l.id))
    ORDER BY w.scheduled_departure
    LIMIT ${limit}`.execute(db);
  return rows.rows.map((r) => ({
    id: r.id,
    environment: r.environment,
    flightNumber: r.flight_number,
    departureDate: r.departure_date,
    decision: r.decision,
    lastStatus: r.last_status,
  }));
}

/** Watching watches with no active contract leg left become `closed`, each with its audit row. One statement. */
export async function closeWatchesWithoutContracts(db: Executor, actor: string): Promise<number> {
  const result = await sql<{ id: string }>`
    WITH closed AS (
      UPDATE flight_watches w SET state = 'closed', next_check_at = NULL, last_outcome = 'no_active_contract', updated_at = now()
      WHERE w.state = 'watching'
        AND NOT EXISTS (
          SELECT 1 FROM contract_legs l JOIN contracts c ON c.id = l.contract_id
          WHERE l.environment = w.environment AND l.monitored_flight_number = w.flight_number AND l.departure_date = w.departure_date AND c.status = 'active')
      RETURNING w.id, w.environment, w.flight_number, w.departure_date
    )
    INSERT INTO audit_log (actor, environment, entity, entity_id, action, data)
    SELECT ${actor}, environment, 'flight_watch', id::text, 'flight_watch_closed',
           jsonb_build_object('flightNumber', flight_number, 'departureDate', departure_date, 'reason', 'no_active_contract')
    FROM closed
    RETURNING entity_id AS id`.execute(db);
  return result.rows.length;
}

/**
 * Claims up to `limit` due watches (FOR UPDATE SKIP LOCKED: concurrent dispatchers never get the same
 * one) and leases them: next_check_at moves to `leaseUntil`, so a watch whose check job is lost
 * comes due again. Returns the claimed ids. `only` restricts to some watches (tests, operators).
 */
export async function leaseDueWatches(
  db: Executor,
  q: { now: Date; leaseUntil: Date; limit: number; only?: readonly string[] | undefined },
): Promise<string[]> {
  if (q.only && q.only.length === 0) return [];
  const only = q.only ? sql`AND id = ANY(${[...q.only]}::uuid[])` : sql``;
  const result = await sql<{ id: string }>`
    UPDATE flight_watches w SET next_check_at = ${q.leaseUntil}, updated_at = now()
    FROM (
      SELECT id FROM flight_watches
      WHERE state = 'watching' AND next_check_at <= ${q.now} ${only}
      ORDER BY next_check_at
      LIMIT ${q.limit}
      FOR UPDATE SKIP LOCKED
    ) due
    WHERE w.id = due.id
    RETURNING w.id`.execute(db);
  return result.rows.map((r) => r.id);
}

export async function findWatch(db: Executor, id: string): Promise<FlightWatch | undefined> {
  const row = await db.selectFrom('flight_watches').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toWatch(row) : undefined;
}

/** The watches of a flight, whatever the spelling of its designator (AF6 finds AF006's watch). */
export async function findWatchesOfFlight(
  db: Executor,
  environment: Environment,
  flightNumber: string,
  departureDate: string,
): Promise<FlightWatch[]> {
  const designator = parseDesignator(flightNumber);
  if (!designator) return [];
  const rows = await db
    .selectFrom('flight_watches')
    .selectAll()
    .where('environment', '=', environment)
    .where('departure_date', '=', departureDate)
    .where('flight_number', 'like', `${designator.airline}%`)
    .execute();
  return rows.filter((r) => sameDesignator(r.flight_number, flightNumber)).map(toWatch);
}

/**
 * The spellings of a designator on the legs of a date, whatever their contract's status (AF6 → AF006
 * and AF6 if both exist): the flights that fly (operating flights of codeshares, migration 0026).
 */
export async function legSpellings(
  db: Executor,
  environment: Environment,
  flightNumber: string,
  departureDate: string,
): Promise<string[]> {
  const designator = parseDesignator(flightNumber);
  if (!designator) return [];
  const rows = await db
    .selectFrom('contract_legs')
    .select('monitored_flight_number')
    .distinct()
    .where('environment', '=', environment)
    .where('departure_date', '=', departureDate)
    .where('monitored_flight_number', 'like', `${designator.airline}%`)
    .execute();
  return rows.map((r) => r.monitored_flight_number).filter((f) => sameDesignator(f, flightNumber));
}

/**
 * The operating flights of a codeshare's marketing designator on a date (AF1234 operated as KL0123 →
 * KL0123), from its legs whatever their contract's status: the flights that fly and are watched, as
 * an operator who names the marketing flight is told (`parasol flights simulate`).
 */
export async function operatingFlightsOf(
  db: Executor,
  environment: Environment,
  flightNumber: string,
  departureDate: string,
): Promise<string[]> {
  const designator = parseDesignator(flightNumber);
  if (!designator) return [];
  const rows = await db
    .selectFrom('contract_legs')
    .select(['flight_number', 'monitored_flight_number'])
    .distinct()
    .where('environment', '=', environment)
    .where('departure_date', '=', departureDate)
    .where('flight_number', 'like', `${designator.airline}%`)
    .where('operating_flight_number', 'is not', null)
    .execute();
  const operating = rows
    .filter(
      (r) => sameDesignator(r.flight_number, flightNumber) && !sameDesignator(r.monitored_flight_number, flightNumber),
    )
    .map((r) => r.monitored_flight_number);
  return [...new Set(operating)].sort();
}

export interface ActiveRoute {
  origin: string;
  destination: string;
  /** Earliest departure of the route's active legs. */
  departureAt: Date;
  legs: number;
  contracts: number;
}

/** The routes of the flight's active legs (one, except for a through flight insured on two segments). */
export async function activeRoutes(db: Executor, w: FlightWatch): Promise<ActiveRoute[]> {
  const result = await sql<{
    origin: string;
    destination: string;
    departure_at: Date;
    legs: number;
    contracts: number;
  }>`
    SELECT l.departure_airport AS origin, l.arrival_airport AS destination, min(l.departure_at) AS departure_at,
           count(*)::int AS legs, count(DISTINCT l.contract_id)::int AS contracts
    FROM contract_legs l JOIN contracts c ON c.id = l.contract_id
    WHERE ${activeLegsOf(w)}
    GROUP BY l.departure_airport, l.arrival_airport
    ORDER BY count(*) DESC, l.departure_airport, l.arrival_airport`.execute(db);
  return result.rows.map((r) => ({
    origin: r.origin,
    destination: r.destination,
    departureAt: new Date(r.departure_at),
    legs: r.legs,
    contracts: r.contracts,
  }));
}

export interface WatchPatch {
  state?: FlightWatchState;
  nextCheckAt?: Date | null;
  /** Adds one to `checks` (a provider was asked). */
  counted?: boolean;
  consecutiveErrors?: number;
  lastCheckedAt?: Date;
  lastOutcome?: string;
  lastStatus?: unknown;
  lastError?: string | null;
  decision?: unknown;
  reviewReason?: string | null;
  decidedAt?: Date;
  scheduledArrival?: Date | null;
  origin?: string;
  destination?: string;
  scheduledDeparture?: Date;
}

/**
 * Applies a check's outcome if the watch is still in one of `from` (another check or an operator
 * may have decided it meanwhile). Returns whether it was applied.
 */
/** Locks the watch for the caller's transaction if it is still in one of the `from` states. */
export async function lockWatch(db: Executor, id: string, from: readonly FlightWatchState[]): Promise<boolean> {
  const row = await db
    .selectFrom('flight_watches')
    .select('id')
    .where('id', '=', id)
    .where('state', 'in', [...from])
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

export async function updateWatch(
  db: Executor,
  id: string,
  from: readonly FlightWatchState[],
  p: WatchPatch,
): Promise<boolean> {
  const result = await db
    .updateTable('flight_watches')
    .set((eb) => ({
      updated_at: sql`now()`,
      ...(p.state !== undefined ? { state: p.state } : {}),
      ...(p.nextCheckAt !== undefined ? { next_check_at: p.nextCheckAt } : {}),
      ...(p.counted ? { checks: eb('checks', '+', 1) } : {}),
      ...(p.consecutiveErrors !== undefined ? { consecutive_errors: p.consecutiveErrors } : {}),
      ...(p.lastCheckedAt !== undefined ? { last_checked_at: p.lastCheckedAt } : {}),
      ...(p.lastOutcome !== undefined ? { last_outcome: p.lastOutcome } : {}),
      ...(p.lastStatus !== undefined ? { last_status: JSON.stringify(p.lastStatus) } : {}),
      ...(p.lastError !== undefined ? { last_error: p.lastError } : {}),
      ...(p.decision !== undefined ? { decision: JSON.stringify(p.decision) } : {}),
      ...(p.reviewReason !== undefined ? { review_reason: p.reviewReason } : {}),
      ...(p.decidedAt !== undefined ? { decided_at: p.decidedAt } : {}),
      ...(p.scheduledArrival !== undefined ? { scheduled_arrival: p.scheduledArrival } : {}),
      ...(p.origin !== undefined ? { origin: p.origin } : {}),
      ...(p.destination !== undefined ? { destination: p.destination } : {}),
      ...(p.scheduledDeparture !== undefined ? { scheduled_departure: p.scheduledDeparture } : {}),
    }))
    .where('id', '=', id)
    .where('state', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface WatchListItem extends FlightWatch {
  /** Active contracts with a leg on the flight. */
  contracts: number;
}

/** Watches for operators, due first, with the number of active contracts on each. */
export async function listWatches(
  db: Executor,
  q: {
    environment?: Environment | undefined;
    state?: FlightWatchState | undefined;
    departureDate?: string | undefined;
    limit: number;
    offset?: number | undefined;
  },
): Promise<WatchListItem[]> {
  let query = db
    .selectFrom('flight_watches as w')
    .selectAll('w')
    .select(
      sql<number>`(SELECT count(DISTINCT l.contract_id)::int FROM contract_legs l JOIN contracts c ON c.id = l.contract_id
                   WHERE l.environment = w.environment AND l.monitored_flight_number = w.flight_number AND l.departure_date = w.departure_date AND c.status = 'active')`.as(
        'contracts',
      ),
    );
  if (q.environment) query = query.where('w.environment', '=', q.environment);
  if (q.state) query = query.where('w.state', '=', q.state);
  if (q.departureDate) query = query.where('w.departure_date', '=', q.departureDate);
  const rows = await query
    .orderBy(sql`w.next_check_at NULLS LAST`)
    .orderBy('w.departure_date')
    .orderBy('w.flight_number')
    .orderBy('w.id')
    .offset(q.offset ?? 0)
    .limit(q.limit)
    .execute();
  return rows.map((r) => ({ ...toWatch(r), contracts: r.contracts }));
}
