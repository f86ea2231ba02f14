import { DateTime } from 'luxon';
import { findAirport } from '../reference/airports.ts';
import {
  normaliseFlightNumber,
  parseDesignator,
  type FetchOptions,
  type FlightQuery,
  type FlightStatus,
  type FlightStatusProvider,
} from './flight-status.ts';

/**
 * The flight-data provider of sandbox and preproduction: flights do what the platform says they
 * do (`setFlightEvent`, called by `POST /claims` and the CLI), and answers have the same shape as a
 * real provider's, so the monitoring path is exercised end to end. One instance per environment.
 *
 * Events live in memory (a Map) for now; persistence comes with the job wiring. Times are
 * synthetic: the schedule is the query's `scheduledDeparture` hint, else 12:00 local at the origin
 * on the departure date, and a `blockMinutes` flight time.
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
}

export class SimulatorProvider implements FlightStatusProvider {
  readonly name = 'simulator';
  private readonly events = new Map<string, SimulatedFlightEvent>();

  constructor(private readonly options: SimulatorOptions = {}) {}

  /** Sets (or replaces) what happens to a flight. Validates like `POST /claims` does. */
  setFlightEvent(event: SimulatedFlightEvent): void {
    const key = flightKey(event.flightNumber, event.departureDate);
    if (event.status === 'delayed') {
      const minutes = event.arrivalDelayMinutes;
      if (minutes === undefined || !Number.isInteger(minutes) || minutes < 0) {
        throw new RangeError('A delayed flight needs arrivalDelayMinutes, a whole number of minutes ≥ 0.');
      }
    }
    this.events.set(key, { ...event, flightNumber: normaliseFlightNumber(event.flightNumber) });
  }

  getFlightEvent(flightNumber: string, departureDate: string): SimulatedFlightEvent | undefined {
    return this.events.get(flightKey(flightNumber, departureDate));
  }

  clearFlightEvent(flightNumber: string, departureDate: string): boolean {
    return this.events.delete(flightKey(flightNumber, departureDate));
  }

  async fetchStatus(query: FlightQuery, options: FetchOptions = {}): Promise<FlightStatus | undefined> {
    options.signal?.throwIfAborted();
    const event = this.events.get(flightKey(query.flightNumber, query.departureDate));
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
        return landed(base, new Date(scheduledDeparture.getTime() + delay), new Date(scheduledArrival.getTime() + delay), event.status);
      }
      case 'cancelled':
        return { ...base, cancelled: true, final: true, providerStatus: 'cancelled' };
      case 'diverted': {
        const touchdown = new Date(scheduledArrival.getTime() - minutes(5));
        const status: FlightStatus = { ...base, actualDeparture: scheduledDeparture, runwayArrival: touchdown, diverted: true, final: true, providerStatus: 'diverted' };
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

/** One key per flight: "AF006" and "AF6" on the same date are the same flight. */
function flightKey(flightNumber: string, departureDate: string): string {
  const d = parseDesignator(flightNumber);
  if (!d) throw new RangeError(`Not an IATA flight designator: "${flightNumber}"`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(departureDate)) throw new RangeError(`Not a date: "${departureDate}"`);
  return `${d.airline}${d.number}${d.suffix}|${departureDate}`;
}

function noonAt(date: string, airport: string): Date {
  const zone = findAirport(airport)?.timeZone ?? 'utc';
  const noon = DateTime.fromISO(`${date}T12:00`, { zone });
  if (!noon.isValid) throw new RangeError(`Not a date: "${date}"`);
  return noon.toJSDate();
}
