import { DateTime } from 'luxon';
import { findAirline } from '../reference/airlines.ts';
import { findAirport } from '../reference/airports.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { Memo } from '../platform/memo.ts';

/**
 * A leg as the platform understands it: codes checked against the reference data, and the
 * departure both as the local wall-clock time at the departure airport and as an instant.
 */
export interface Leg {
  departureAirport: string;
  arrivalAirport: string;
  airline: string;
  /** 'YYYY-MM-DDTHH:mm', local to the departure airport. */
  departureLocal: string;
  /** 'YYYY-MM-DD', local to the departure airport: how flights are identified. */
  departureDate: string;
  departureAt: Date;
}

/** Business rules on departure times (documented in docs/ARCHITECTURE.md#quotes). */
export const TIME_RULES = {
  /** A departure closer than this cannot be quoted or subscribed. */
  minLeadMinutes: 3 * 60,
  /** A quote always expires this long before the first departure, whatever its TTL. */
  safetyMarginMinutes: 2 * 60,
  /** How far ahead a departure can be insured. */
  maxAheadDays: 365,
  /** The return departs at least this long after the outbound departure. */
  minReturnGapMinutes: 60,
} as const;

const LOCAL_FORMAT = "yyyy-MM-dd'T'HH:mm";
const DATE_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2})?(Z|[+-]\d{2}:\d{2})?$/;

export function requireAirport(code: string, field: string): string {
  const airport = findAirport(code);
  if (!airport) throw new DomainError('unknown_airport', `${field.slice(1)} "${code}" is not a known IATA airport code.`, { errors: [{ field, message: 'unknown IATA airport code' }] });
  return airport.iata;
}

export function requireAirline(code: string, field: string): string {
  const airline = findAirline(code);
  if (!airline) throw new DomainError('unknown_airline', `${field.slice(1)} "${code}" is not a known active IATA airline code.`, { errors: [{ field, message: 'unknown or inactive IATA airline code' }] });
  return airline.iata;
}

/**
 * Reads a departure time given as local wall-clock time ('YYYY-MM-DDTHH:mm') or with an explicit
 * offset, at an airport. Local times that do not exist (the hour skipped when clocks go forward)
 * are refused rather than silently shifted.
 */
export function parseDeparture(value: string, airportCode: string, field: string): { local: string; date: string; at: Date } {
  // Time-zone arithmetic is the costliest step of a quote and a pure function of its inputs.
  const parsed = departures.get(`${airportCode}|${value}`, () => {
    try {
      return readDeparture(value, airportCode);
    } catch (error) {
      return error as DomainError;
    }
  });
  if (parsed instanceof DomainError) {
    const message = parsed.extra.errors?.[0]?.message ?? parsed.detail;
    throw invalidTime(field, message);
  }
  return { local: parsed.local, date: parsed.date, at: new Date(parsed.at) };
}

const departures = new Memo<{ local: string; date: string; at: number } | DomainError>(20_000);

function readDeparture(value: string, airportCode: string): { local: string; date: string; at: number } {
  const field = '/departureDateTime';
  const airport = findAirport(airportCode);
  const match = DATE_TIME.exec(value);
  if (!airport || !match) throw invalidTime(field, 'must be YYYY-MM-DDTHH:mm, local to the departure airport (or with an explicit offset)');
  let dt: DateTime;
  if (match[3]) {
    dt = DateTime.fromISO(value, { setZone: true }).setZone(airport.timeZone);
  } else {
    dt = DateTime.fromISO(value, { zone: airport.timeZone });
    if (dt.isValid && dt.toFormat(LOCAL_FORMAT) !== match[1]) {
      throw invalidTime(field, `${match[1]} does not exist in ${airport.timeZone} (clocks go forward then)`);
    }
  }
  if (!dt.isValid) throw invalidTime(field, 'is not a valid date and time');
  return { local: dt.toFormat(LOCAL_FORMAT), date: dt.toFormat('yyyy-MM-dd'), at: dt.toUTC().startOf('minute').toMillis() };
}

function invalidTime(field: string, message: string): DomainError {
  return new DomainError('invalid_departure_time', `${field.slice(1)} ${message}.`, { errors: [{ field, message }] });
}

export interface TripInput {
  departureAirport: string;
  arrivalAirport: string;
  airline: string;
  departureDateTime: string;
  returnDepartureDateTime?: string | undefined;
}

/** Builds the insured legs of a trip and checks they can be insured now. */
export function resolveTrip(input: TripInput, now: Date): Leg[] {
  const legs = resolveLegs(input);
  checkDepartureWindows(legs, now);
  return legs;
}

/**
 * The insured legs of a trip (outbound, then the return flying the same route backwards): codes
 * checked against the reference data, times read in the departure airport's zone. Independent of
 * the clock, so it can be memoised; `checkDepartureWindows` applies the clock.
 */
export function resolveLegs(input: TripInput): Leg[] {
  const departureAirport = requireAirport(input.departureAirport, '/departureAirport');
  const arrivalAirport = requireAirport(input.arrivalAirport, '/arrivalAirport');
  const airline = requireAirline(input.airline, '/airline');
  if (departureAirport === arrivalAirport) {
    throw new DomainError('validation_failed', 'Departure and arrival airports must differ.', { errors: [{ field: '/arrivalAirport', message: 'must differ from departureAirport' }] });
  }
  const outbound = parseDeparture(input.departureDateTime, departureAirport, '/departureDateTime');
  const legs: Leg[] = [{ departureAirport, arrivalAirport, airline, departureLocal: outbound.local, departureDate: outbound.date, departureAt: outbound.at }];
  if (input.returnDepartureDateTime !== undefined) {
    const back = parseDeparture(input.returnDepartureDateTime, arrivalAirport, '/returnDepartureDateTime');
    if (back.at.getTime() < outbound.at.getTime() + TIME_RULES.minReturnGapMinutes * 60_000) {
      const message = `must be at least ${TIME_RULES.minReturnGapMinutes} minutes after the outbound departure`;
      throw new DomainError('validation_failed', `returnDepartureDateTime ${message}.`, { errors: [{ field: '/returnDepartureDateTime', message }] });
    }
    legs.push({ departureAirport: arrivalAirport, arrivalAirport: departureAirport, airline, departureLocal: back.local, departureDate: back.date, departureAt: back.at });
  }
  return legs;
}

/** Every departure must be at least the minimum lead time away, and not too far ahead. */
export function checkDepartureWindows(legs: readonly Leg[], now: Date): void {
  legs.forEach((leg, i) => checkWindow(leg.departureAt, now, i === 0 ? '/departureDateTime' : '/returnDepartureDateTime'));
}

function checkWindow(at: Date, now: Date, field: string): void {
  const minutesAhead = (at.getTime() - now.getTime()) / 60_000;
  if (minutesAhead < TIME_RULES.minLeadMinutes) {
    const message = minutesAhead < 0 ? 'is in the past' : `is less than ${TIME_RULES.minLeadMinutes / 60} hours away`;
    throw new DomainError('departure_too_soon', `${field.slice(1)} ${message}: it can no longer be insured.`, { errors: [{ field, message }] });
  }
  if (minutesAhead > TIME_RULES.maxAheadDays * 24 * 60) {
    const message = `is more than ${TIME_RULES.maxAheadDays} days ahead`;
    throw new DomainError('departure_too_far', `${field.slice(1)} ${message}.`, { errors: [{ field, message }] });
  }
}

export type { FieldError };
