import { parseDeparture, requireAirline, requireAirport } from '../reference/index.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';

export { parseDeparture, requireAirline, requireAirport };

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

/** Business rules on departure times (documented in docs/DECISIONS.md, "Quote expiry rule"). */
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
    throw new DomainError('validation_failed', 'Departure and arrival airports must differ.', {
      errors: [{ field: '/arrivalAirport', code: 'invalid', message: 'must differ from departureAirport' }],
    });
  }
  const outbound = parseDeparture(input.departureDateTime, departureAirport, '/departureDateTime');
  const legs: Leg[] = [
    {
      departureAirport,
      arrivalAirport,
      airline,
      departureLocal: outbound.local,
      departureDate: outbound.date,
      departureAt: outbound.at,
    },
  ];
  if (input.returnDepartureDateTime !== undefined) {
    const back = parseDeparture(input.returnDepartureDateTime, arrivalAirport, '/returnDepartureDateTime');
    if (back.at.getTime() < outbound.at.getTime() + TIME_RULES.minReturnGapMinutes * 60_000) {
      const message = `must be at least ${TIME_RULES.minReturnGapMinutes} minutes after the outbound departure`;
      throw new DomainError('validation_failed', `returnDepartureDateTime ${message}.`, {
        errors: [{ field: '/returnDepartureDateTime', code: 'out_of_range', message }],
      });
    }
    legs.push({
      departureAirport: arrivalAirport,
      arrivalAirport: departureAirport,
      airline,
      departureLocal: back.local,
      departureDate: back.date,
      departureAt: back.at,
    });
  }
  return legs;
}

/** Every departure must be at least the minimum lead time away, and not too far ahead. */
export function checkDepartureWindows(legs: readonly Leg[], now: Date): void {
  legs.forEach((leg, i) =>
    checkWindow(leg.departureAt, now, i === 0 ? '/departureDateTime' : '/returnDepartureDateTime'),
  );
}

function checkWindow(at: Date, now: Date, field: string): void {
  const minutesAhead = (at.getTime() - now.getTime()) / 60_000;
  if (minutesAhead < TIME_RULES.minLeadMinutes) {
    const message = minutesAhead < 0 ? 'is in the past' : `is less than ${TIME_RULES.minLeadMinutes / 60} hours away`;
    throw new DomainError('departure_too_soon', `${field.slice(1)} ${message}: it can no longer be insured.`, {
      errors: [{ field, code: 'out_of_range', message }],
    });
  }
  if (minutesAhead > TIME_RULES.maxAheadDays * 24 * 60) {
    const message = `is more than ${TIME_RULES.maxAheadDays} days ahead`;
    throw new DomainError('departure_too_far', `${field.slice(1)} ${message}.`, {
      errors: [{ field, code: 'out_of_range', message }],
    });
  }
}

export type { FieldError };
