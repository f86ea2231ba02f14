import { DomainError, type FieldError } from '../platform/errors.ts';

/** A flight designator as the platform spells it: no spaces, upper case ('af 6' is not one: 'AF 006' → 'AF006'). */
export function normaliseFlightNumber(value: string): string {
  return value.replace(/\s+/g, '').toUpperCase();
}

/**
 * The flight numbers a quote request names, per leg (outbound, then return), checked against the
 * trip: each must start with the trip's airline, and a return flight number needs a return. The
 * schema has already checked their form; undefined where the request names none.
 */
export function quotedFlightNumbers(
  input: {
    flightNumber?: string | undefined;
    returnFlightNumber?: string | undefined;
    returnDepartureDateTime?: string | undefined;
  },
  airline: string,
): [string | undefined, string | undefined] {
  const errors: FieldError[] = [];
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
  if (errors.length)
    throw new DomainError('validation_failed', 'The flight numbers do not match the trip.', { errors });
  return [outbound, back];
}
