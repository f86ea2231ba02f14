import { sql } from 'kysely';
import { audit } from '../platform/audit.ts';
import type { Db, Executor } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { normaliseFlightNumber } from '../reference/index.ts';
import { flightSpellings } from './claims-under-spellings.ts';
import { parseDesignator, sameDesignator } from './flight-status.ts';
import { insertMissingWatches } from './watches-repo.ts';
import {
  checkSimulatedFlightEvent,
  simulatedFlightKey,
  type SimulatedFlightEvent,
  type SimulatedFlightStore,
} from './simulator.ts';

/**
 * The flight simulator's events in the database (`simulated_flight_events`): what sandbox and
 * preproduction flights do, shared by the API and worker processes and kept across restarts.
 */

export type SimulatedEnvironment = 'sandbox' | 'preproduction';

/** The simulator's store for one environment. */
export class SqlSimulatedFlightStore implements SimulatedFlightStore {
  constructor(
    private readonly db: Executor,
    private readonly environment: SimulatedEnvironment,
  ) {}

  async find(flightKey: string, departureDate: string): Promise<SimulatedFlightEvent | undefined> {
    const row = await this.db
      .selectFrom('simulated_flight_events')
      .selectAll()
      .where('environment', '=', this.environment)
      .where('flight_number', '=', flightKey)
      .where('departure_date', '=', departureDate)
      .executeTakeFirst();
    if (!row) return undefined;
    const event: SimulatedFlightEvent = {
      flightNumber: row.flight_number,
      departureDate: row.departure_date,
      status: row.status,
    };
    if (row.arrival_delay_minutes !== null) event.arrivalDelayMinutes = row.arrival_delay_minutes;
    if (row.diverted_to !== null) event.divertedTo = row.diverted_to;
    return event;
  }
}

export interface SavedSimulatedEvent {
  environment: SimulatedEnvironment;
  /** The designator as given (upper case, no spaces: AF006 stays AF006, stored under the key AF6). */
  flightNumber: string;
  /**
   * The flight as the contracts hold it: every spelling its legs of that date use (AF006 and AF6 if
   * both exist), or the designator as given when no leg has it — what `flights event` names too.
   */
  flightNumbers: string[];
  departureDate: string;
  status: SimulatedFlightEvent['status'];
  arrivalDelayMinutes: number | null;
  divertedTo: string | null;
  setAt: Date;
  setBy: string;
  /** Watches of the flight created (or reopened) for this event: its legs depart beyond the planner's 48 h. */
  watchesCreated: number;
  /** Watches of the flight still watching, whose next check was brought forward to now. */
  watchesDue: number;
}

/**
 * Sets (or replaces) what a simulated flight does, with its audit row; creates the flight's watch
 * when its active legs have none yet (the planner creates watches 48 h before departure only: a
 * simulated outcome is the truth at once, whenever the flight departs), and brings the next check of
 * the flight's watch (if it is still watching) forward to `now`, so the monitoring decides — and the
 * claims open — within a dispatch cycle. Sandbox and preproduction only: production watches follow
 * the planner and the schedule. Invalid events are `validation_failed`.
 */
export async function saveSimulatedFlightEvent(
  db: Db,
  input: { environment: SimulatedEnvironment; event: SimulatedFlightEvent; actor: string; now: Date },
): Promise<SavedSimulatedEvent> {
  const { environment, event, actor, now } = input;
  if ((environment as string) !== 'sandbox' && (environment as string) !== 'preproduction') {
    throw new DomainError('validation_failed', 'The flight simulator serves sandbox and preproduction only.', {
      errors: [{ field: '/environment', code: 'not_allowed', message: 'must be sandbox or preproduction' }],
    });
  }
  try {
    checkSimulatedFlightEvent(event);
  } catch (error) {
    if (error instanceof RangeError)
      throw new DomainError('validation_failed', error.message, {
        errors: [{ field: fieldOf(error.message), code: 'invalid', message: error.message }],
      });
    throw error;
  }
  const flightNumber = simulatedFlightKey(event.flightNumber);
  const divertedTo = event.divertedTo?.toUpperCase() ?? null;
  const delay = event.status === 'delayed' ? event.arrivalDelayMinutes! : null;
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('simulated_flight_events')
      .values({
        environment,
        flight_number: flightNumber,
        departure_date: event.departureDate,
        status: event.status,
        arrival_delay_minutes: delay,
        diverted_to: divertedTo,
        set_at: now,
        set_by: actor,
      })
      .onConflict((oc) =>
        oc.columns(['environment', 'flight_number', 'departure_date']).doUpdateSet({
          status: event.status,
          arrival_delay_minutes: delay,
          diverted_to: divertedTo,
          set_at: now,
          set_by: actor,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    // the legs' spellings (else the flight as typed, which no leg holds: no watch to plan)
    const flightNumbers = await flightSpellings(trx, environment, event.flightNumber, event.departureDate);
    const planned = await insertMissingWatches(trx, {
      flight: { environment, flightNumbers, departureDate: event.departureDate },
    });
    const watchesDue = await bringForward(trx, environment, flightNumber, event.departureDate, now);
    await audit(trx, {
      actor,
      environment,
      entity: 'flight',
      entityId: `${flightNumber}/${event.departureDate}`,
      action: 'flight_simulated',
      at: now,
      data: { status: event.status, arrivalDelayMinutes: delay, divertedTo },
    });
    return {
      environment,
      flightNumber: normaliseFlightNumber(event.flightNumber),
      flightNumbers,
      departureDate: row.departure_date,
      status: row.status,
      arrivalDelayMinutes: row.arrival_delay_minutes,
      divertedTo: row.diverted_to,
      setAt: row.set_at,
      setBy: row.set_by,
      watchesCreated: planned.created + planned.reopened,
      watchesDue,
    };
  });
}

/** The simulated event of a flight, if one was set. */
export async function findSimulatedFlightEvent(
  db: Executor,
  environment: SimulatedEnvironment,
  flightNumber: string,
  departureDate: string,
) {
  return db
    .selectFrom('simulated_flight_events')
    .selectAll()
    .where('environment', '=', environment)
    .where('flight_number', '=', simulatedFlightKey(flightNumber))
    .where('departure_date', '=', departureDate)
    .executeTakeFirst();
}

/** Watching watches of the flight (any spelling of the designator) become due now. */
async function bringForward(
  trx: Executor,
  environment: SimulatedEnvironment,
  flightKey: string,
  departureDate: string,
  now: Date,
): Promise<number> {
  const airline = parseDesignator(flightKey)!.airline;
  const candidates = await trx
    .selectFrom('flight_watches')
    .select(['id', 'flight_number'])
    .where('environment', '=', environment)
    .where('departure_date', '=', departureDate)
    .where('state', '=', 'watching')
    .where('flight_number', 'like', `${airline}%`)
    .execute();
  const ids = candidates.filter((w) => sameDesignator(w.flight_number, flightKey)).map((w) => w.id);
  if (ids.length === 0) return 0;
  await trx
    .updateTable('flight_watches')
    .set({ next_check_at: now, updated_at: sql`now()` })
    .where('id', 'in', ids)
    .where('state', '=', 'watching')
    .execute();
  return ids.length;
}

function fieldOf(message: string): string {
  if (message.includes('designator')) return '/flightNumber';
  if (message.includes('date')) return '/departureDate';
  if (message.includes('divertedTo')) return '/divertedTo';
  return '/arrivalDelayMinutes';
}
