import { DomainError, type FieldError } from '../platform/errors.ts';
import { findAirline, normaliseFlightNumber } from '../reference/index.ts';

/**
 * The flight numbers a quote request names, per leg (outbound, then return), checked against the
 * trip: each must start with the trip's airline, and a return flight number needs a return; a
 * codeshare's operating flight needs its marketing flight and a known airline. The schema has already
 * checked their form; undefined where the request names none.
 */
export function quotedFlightNumbers(
  input: {
    flightNumber?: string | undefined;
    returnFlightNumber?: string | undefined;
    returnDepartureDateTime?: string | undefined;
    operatingFlightNumber?: string | undefined;
    returnOperatingFlightNumber?: string | undefined;
  },
  airline: string,
): [QuotedFlight | undefined, QuotedFlight | undefined] {
  const errors: FieldError[] = [];
  const airlineErrors: FieldError[] = [];
  const read = (value: string | undefined, field: string): string | undefined => {
    if (value === undefined) return undefined;
    const flightNumber = normaliseFlightNumber(value);
    if (!flightNumber.startsWith(airline))
      errors.push({ field, code: 'invalid', message: `must start with the airline ${airline}` });
    return flightNumber;
  };
  const outbound = read(input.flightNumber, '/flightNumber');
  const back = read(input.returnFlightNumber, '/returnFlightNumber');
  if (back !== undefined && input.returnDepartureDateTime === undefined) {
    errors.push({
      field: '/returnFlightNumber',
      code: 'not_allowed',
      message: 'needs returnDepartureDateTime (a one-way trip has no return flight)',
    });
  }
  const operating = (value: string | undefined, marketing: string | undefined, field: string, needs: string) => {
    if (value === undefined) return undefined;
    if (marketing === undefined) {
      errors.push({ field, code: 'required', message: `needs ${needs} (the marketing flight it operates)` });
      return undefined;
    }
    return operatingFlight(value, marketing, field, airlineErrors);
  };
  const outboundOperating = operating(input.operatingFlightNumber, outbound, '/operatingFlightNumber', 'flightNumber');
  const backOperating = operating(
    input.returnOperatingFlightNumber,
    back,
    '/returnOperatingFlightNumber',
    'returnFlightNumber',
  );
  throwFlightErrors(errors, airlineErrors, 'The flight numbers do not match the trip.');
  const flight = (flightNumber: string | undefined, operatingFlightNumber: string | undefined) =>
    flightNumber === undefined ? undefined : { flightNumber, operatingFlightNumber };
  return [flight(outbound, outboundOperating), flight(back, backOperating)];
}

/** A flight a request names: the marketing designator and, for a codeshare, the operating one. */
export interface QuotedFlight {
  flightNumber: string;
  operatingFlightNumber: string | undefined;
}

/**
 * A codeshare's operating flight as a request names it (docs/monitoring.md#codeshares): normalised,
 * any active airline's designator; undefined when it is the marketing flight itself (the leg flies
 * under its own number). An unknown airline is added to `airlineErrors`.
 */
export function operatingFlight(
  value: string,
  marketing: string,
  field: string,
  airlineErrors: FieldError[],
): string | undefined {
  const flightNumber = normaliseFlightNumber(value);
  if (flightNumber === marketing) return undefined;
  if (!findAirline(carrierOf(flightNumber)))
    airlineErrors.push({
      field,
      code: 'invalid',
      message: `${carrierOf(flightNumber)} is not a known active IATA airline code`,
    });
  return flightNumber;
}

/** 422 validation_failed for `errors` (with any airline error), else unknown_airline (as for the trip's airline). */
export function throwFlightErrors(errors: FieldError[], airlineErrors: FieldError[], detail: string): void {
  if (errors.length) throw new DomainError('validation_failed', detail, { errors: [...errors, ...airlineErrors] });
  if (airlineErrors.length)
    throw new DomainError('unknown_airline', 'An operating flight names an unknown or inactive airline.', {
      errors: airlineErrors,
    });
}

/** The airline of a normalised designator (its first two characters: DL264 → DL). */
export const carrierOf = (flightNumber: string): string => flightNumber.slice(0, 2);

/**
 * The airline that flies a leg: a codeshare's operating carrier, else the leg's (marketing) airline.
 * Pricing, exposure and stop-sales count on it (docs/limits.md).
 */
export const flyingAirline = (leg: { airline: string; operatingFlightNumber?: string | null | undefined }): string =>
  leg.operatingFlightNumber ? carrierOf(leg.operatingFlightNumber) : leg.airline;

/** A leg row as the limits count it: a codeshare leg's exposure is its operating carrier's flight (docs/limits.md). */
export const exposureLeg = (l: {
  airline: string;
  operating_flight_number: string | null;
  departure_airport: string;
  arrival_airport: string;
  departure_local: string;
  departure_at: Date;
}) => ({
  airline: flyingAirline({ airline: l.airline, operatingFlightNumber: l.operating_flight_number }),
  departureAirport: l.departure_airport,
  arrivalAirport: l.arrival_airport,
  departureLocal: l.departure_local,
  departureAt: l.departure_at,
});
