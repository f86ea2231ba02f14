import { DateTime } from 'luxon';
import { findAirport, normaliseFlightNumber } from '../reference/index.ts';
import {
  isLocalDate,
  parseDesignator,
  type FetchOptions,
  type FlightQuery,
  type FlightStatus,
  type FlightStatusProvider,
} from './flight-status.ts';

/**
 * The flight-data provider of sandbox and preproduction: flights do what the platform says they
 * do (events stored by `parasol flights simulate`, read through a store), and answers have the same shape as a
 * real provider's, so the monitoring path is exercised end to end. One instance per environment.
 *
 * Events come from a `SimulatedFlightStore`: the platform's is the `simulated_flight_events` table
 * (simulated-events-repo.ts: shared by every process, kept across restarts); the default, an
 * in-memory store, serves unit tests and is the only one `setFlightEvent` & co. write to. Times
 * are synthetic: the schedule is the query's `scheduledDeparture` hint, else 12:00 local at the
 * origin on the departure date, and a `blockMinutes` flight time.
 */

export type SimulatedOutcome = 'on_time' | 'delayed' | 'cancelled' | 'diverted';

export interface SimulatedFlightEvent {
  flightNumber: string;
  /** Local departure date at the origin, 'YYYY-MM-DD'. */
  departureDate: string;
  status: SimulatedOutcome;
  /** Arrival delay at the gate, whole minutes ≥ 0; required for `delayed`. */
  arrivalDelayMinutes?: number;
  /** For `diverted`: where the flight landed (IATA), when the platform wants to say. */
  divertedTo?: string;
}

export interface SimulatorOptions {
  /**
   * The answer for a flight nobody set an event for: 'on_time' (the default: it lands on time,
   * and is reported pending until its synthetic arrival time has passed), 'pending' (never final:
   * the monitoring job ends up sending it to manual review) or 'unknown' (no such flight).
   */
  whenUnset?: 'on_time' | 'pending' | 'unknown';
  /** Synthetic gate-to-gate time. Default 120 min. */
  blockMinutes?: number;
  now?: () => Date;
  /** Where events are read from. Default: a new in-memory store. */
  store?: SimulatedFlightStore;
}

/** Where the simulator reads what happens to a flight. `flightKey` is `simulatedFlightKey(…)` (AF6). */
export interface SimulatedFlightStore {
  find(
    flightKey: string,
    departureDate: string,
  ): SimulatedFlightEvent | undefined | Promise<SimulatedFlightEvent | undefined>;
}

/** Events in a Map: one process, gone at exit (unit tests). */
export class MemorySimulatedFlightStore implements SimulatedFlightStore {
  private readonly events = new Map<string, SimulatedFlightEvent>();

  find(flightKey: string, departureDate: string): SimulatedFlightEvent | undefined {
    return this.events.get(`${flightKey}|${departureDate}`);
  }

  set(event: SimulatedFlightEvent): void {
    checkSimulatedFlightEvent(event);
    this.events.set(`${simulatedFlightKey(event.flightNumber)}|${event.departureDate}`, {
      ...event,
      flightNumber: normaliseFlightNumber(event.flightNumber),
    });
  }

  delete(flightNumber: string, departureDate: string): boolean {
    checkDate(departureDate);
    return this.events.delete(`${simulatedFlightKey(flightNumber)}|${departureDate}`);
  }
}

export class SimulatorProvider implements FlightStatusProvider {
  readonly name = 'simulator';
  private readonly store: SimulatedFlightStore;

  constructor(private readonly options: SimulatorOptions = {}) {
    this.store = options.store ?? new MemorySimulatedFlightStore();
  }

  /** Sets (or replaces) what happens to a flight. Validates like `POST /claims` does. In-memory store only. */
  setFlightEvent(event: SimulatedFlightEvent): void {
    this.memory().set(event);
  }

  /** In-memory store only. */
  getFlightEvent(flightNumber: string, departureDate: string): SimulatedFlightEvent | undefined {
    checkDate(departureDate);
    return this.memory().find(simulatedFlightKey(flightNumber), departureDate);
  }

  /** In-memory store only. */
  clearFlightEvent(flightNumber: string, departureDate: string): boolean {
    return this.memory().delete(flightNumber, departureDate);
  }

  private memory(): MemorySimulatedFlightStore {
    if (!(this.store instanceof MemorySimulatedFlightStore)) {
      throw new TypeError(
        'This simulator reads its events from the database: set them with saveSimulatedFlightEvent (parasol flights simulate).',
      );
    }
    return this.store;
  }

  async fetchStatus(query: FlightQuery, options: FetchOptions = {}): Promise<FlightStatus | undefined> {
    options.signal?.throwIfAborted();
    checkDate(query.departureDate);
    const event = await this.store.find(simulatedFlightKey(query.flightNumber), query.departureDate);
    options.signal?.throwIfAborted();
    const now = this.options.now?.() ?? new Date();
    if (!event && this.options.whenUnset === 'unknown') return undefined;

    const scheduledDeparture = query.scheduledDeparture ?? noonAt(query.departureDate, query.origin);
    const scheduledArrival = new Date(scheduledDeparture.getTime() + (this.options.blockMinutes ?? 120) * 60_000);
    const base: FlightStatus = {
      provider: this.name,
      flightNumber: normaliseFlightNumber(query.flightNumber),
      departureDate: query.departureDate,
      origin: query.origin.toUpperCase(),
      destination: query.destination.toUpperCase(),
      scheduledDeparture,
      scheduledArrival,
      cancelled: false,
      diverted: false,
      final: false,
      observedAt: now,
      raw: { simulator: true, event: event ?? null },
    };
    const minutes = (n: number) => n * 60_000;

    if (!event) {
      if (this.options.whenUnset === 'pending' || now < scheduledArrival) {
        return { ...base, estimatedArrival: scheduledArrival, providerStatus: 'scheduled' };
      }
      return landed(base, scheduledDeparture, scheduledArrival, 'on_time');
    }
    switch (event.status) {
      case 'on_time':
        return landed(base, scheduledDeparture, scheduledArrival, event.status);
      case 'delayed': {
        const delay = minutes(event.arrivalDelayMinutes!);
        return landed(
          base,
          new Date(scheduledDeparture.getTime() + delay),
          new Date(scheduledArrival.getTime() + delay),
          event.status,
        );
      }
      case 'cancelled':
        return { ...base, cancelled: true, final: true, providerStatus: 'cancelled' };
      case 'diverted': {
        const touchdown = new Date(scheduledArrival.getTime() - minutes(5));
        const status: FlightStatus = {
          ...base,
          actualDeparture: scheduledDeparture,
          runwayArrival: touchdown,
          diverted: true,
          final: true,
          providerStatus: 'diverted',
        };
        if (event.divertedTo) status.divertedTo = event.divertedTo.toUpperCase();
        return status;
      }
    }
  }
}

function landed(base: FlightStatus, departure: Date, arrival: Date, providerStatus: string): FlightStatus {
  return {
    ...base,
    actualDeparture: departure,
    runwayArrival: new Date(arrival.getTime() - 5 * 60_000),
    actualArrival: arrival,
    final: true,
    providerStatus,
  };
}

/** One key per flight designator: "AF006" and "AF6" are the same flight ("AF6"). */
export function simulatedFlightKey(flightNumber: string): string {
  const d = parseDesignator(flightNumber);
  if (!d) throw new RangeError(`Not an IATA flight designator: "${flightNumber}"`);
  return `${d.airline}${d.number}${d.suffix}`;
}

function checkDate(departureDate: string): void {
  if (!isLocalDate(departureDate)) {
    throw new RangeError(`Not a date: "${departureDate}"`);
  }
}

/** Throws a RangeError naming what is wrong with an event (designator, date, delay, diversion airport). */
export function checkSimulatedFlightEvent(event: SimulatedFlightEvent): void {
  simulatedFlightKey(event.flightNumber);
  checkDate(event.departureDate);
  if (event.status === 'delayed') {
    const minutes = event.arrivalDelayMinutes;
    if (minutes === undefined || !Number.isInteger(minutes) || minutes < 0) {
      throw new RangeError('A delayed flight needs arrivalDelayMinutes, a whole number of minutes ≥ 0.');
    }
  } else if (event.arrivalDelayMinutes !== undefined) {
    throw new RangeError(`A ${event.status} flight has no arrival delay.`);
  }
  if (event.divertedTo !== undefined && (event.status !== 'diverted' || !/^[A-Za-z]{3}$/.test(event.divertedTo))) {
    throw new RangeError('divertedTo is the IATA code of the airport a diverted flight landed at.');
  }
}

function noonAt(date: string, airport: string): Date {
  const zone = findAirport(airport)?.timeZone ?? 'utc';
  const noon = DateTime.fromISO(`${date}T12:00`, { zone });
  if (!noon.isValid) throw new RangeError(`Not a date: "${date}"`);
  return noon.toJSDate();
}
