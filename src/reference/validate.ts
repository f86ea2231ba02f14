import { DateTime } from 'luxon';
import { DomainError, type FieldErrorCode } from '../platform/errors.ts';
import { Memo } from '../platform/memo.ts';
import { findAirline } from './airlines.ts';
import { findAirport } from './airports.ts';

/** Airport and airline codes and local departure times read from user input, with field errors (flights, stop-sales). */

const LOCAL_FORMAT = "yyyy-MM-dd'T'HH:mm";
// seconds and milliseconds (as Date.prototype.toISOString writes them) are accepted and dropped: a departure is to the minute
const DATE_TIME = /^(\d{4}-\d{2}-\d{2}T(\d{2}):(\d{2}))(:\d{2}(\.\d{1,3})?)?(Z|[+-](\d{2}):(\d{2}))?$/;
/** The UTC offsets in use, in minutes (-12:00 to +14:00): one outside them is a typo, not a zone. */
const OFFSET_MINUTES = { min: -12 * 60, max: 14 * 60 } as const;

export function requireAirport(code: string, field: string): string {
  const airport = findAirport(code);
  if (!airport)
    throw new DomainError('unknown_airport', `${field.slice(1)} "${code}" is not a known IATA airport code.`, {
      errors: [{ field, code: 'invalid', message: 'unknown IATA airport code' }],
    });
  return airport.iata;
}

export function requireAirline(code: string, field: string): string {
  const airline = findAirline(code);
  if (!airline)
    throw new DomainError('unknown_airline', `${field.slice(1)} "${code}" is not a known active IATA airline code.`, {
      errors: [{ field, code: 'invalid', message: 'unknown or inactive IATA airline code' }],
    });
  return airline.iata;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T(\d{2}):(\d{2})(:\d{2}(\.\d{1,3})?)?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Reads an instant given with its offset ('2026-12-01T06:00Z', '…T06:00+01:00'), with Luxon: a date or
 * time that does not exist (30 February, 24:00) and an offset outside -12:00 to +14:00 are refused,
 * not read as another instant. Undefined when it is none (the caller names the field and the format).
 */
export function parseInstant(value: string): Date | undefined {
  const match = INSTANT.exec(value);
  if (!match || Number(match[1]) > 23) return undefined;
  if (match[6] !== undefined) {
    const minutes = (match[6] === '-' ? -1 : 1) * (Number(match[7]) * 60 + Number(match[8]));
    if (Number(match[8]) > 59 || minutes < OFFSET_MINUTES.min || minutes > OFFSET_MINUTES.max) return undefined;
  }
  const dt = DateTime.fromISO(value, { setZone: true });
  return dt.isValid ? dt.toJSDate() : undefined;
}

/**
 * Reads a departure time given as local wall-clock time ('YYYY-MM-DDTHH:mm') or with an explicit
 * offset, at an airport. Local times that do not exist (the hour skipped when clocks go forward)
 * are refused rather than silently shifted.
 */
export function parseDeparture(
  value: string,
  airportCode: string,
  field: string,
): { local: string; date: string; at: Date } {
  // Time-zone arithmetic is the costliest step of a quote and a pure function of its inputs.
  const parsed = departures.get(`${airportCode}|${value}`, () => {
    try {
      return readDeparture(value, airportCode);
    } catch (error) {
      return error as DomainError;
    }
  });
  if (parsed instanceof DomainError) {
    const first = parsed.extra.errors?.[0];
    throw invalidTime(field, first?.message ?? parsed.detail, first?.code ?? 'invalid');
  }
  return { local: parsed.local, date: parsed.date, at: new Date(parsed.at) };
}

const departures = new Memo<{ local: string; date: string; at: number } | DomainError>(20_000);

function readDeparture(value: string, airportCode: string): { local: string; date: string; at: number } {
  const field = '/departureDateTime';
  const airport = findAirport(airportCode);
  const match = DATE_TIME.exec(value);
  if (!airport || !match)
    throw invalidTime(
      field,
      'must be YYYY-MM-DDTHH:mm, local to the departure airport (or with an explicit offset)',
      'invalid_format',
    );
  // ISO 8601's 24:00 (the next day's midnight) and out-of-range offsets are refused, not read as another time
  if (Number(match[2]) > 23 || Number(match[3]) > 59)
    throw invalidTime(field, 'is not a valid date and time', 'invalid');
  if (match[7] !== undefined) {
    const minutes = (match[6]!.startsWith('-') ? -1 : 1) * (Number(match[7]) * 60 + Number(match[8]));
    if (Number(match[8]) > 59 || minutes < OFFSET_MINUTES.min || minutes > OFFSET_MINUTES.max)
      throw invalidTime(field, `has the offset ${match[6]}, outside -12:00 to +14:00`, 'out_of_range');
  }
  let dt: DateTime;
  if (match[6]) {
    dt = DateTime.fromISO(value, { setZone: true }).setZone(airport.timeZone);
  } else {
    dt = DateTime.fromISO(value, { zone: airport.timeZone });
    if (dt.isValid && dt.toFormat(LOCAL_FORMAT) !== match[1]) {
      throw invalidTime(field, `${match[1]} does not exist in ${airport.timeZone} (clocks go forward then)`, 'invalid');
    }
    // a time that occurs twice (clocks go back) is its second occurrence, north and south alike (Luxon
    // alone picks by the zone's offsets, which gives the first one south of the equator)
    if (dt.isValid) dt = latest(dt.getPossibleOffsets()) ?? dt;
  }
  if (!dt.isValid) throw invalidTime(field, 'is not a valid date and time', 'invalid');
  return {
    local: dt.toFormat(LOCAL_FORMAT),
    date: dt.toFormat('yyyy-MM-dd'),
    at: dt.toUTC().startOf('minute').toMillis(),
  };
}

function latest(candidates: DateTime[]): DateTime | undefined {
  return candidates.reduce<DateTime | undefined>(
    (a, b) => (a === undefined || b.toMillis() > a.toMillis() ? b : a),
    undefined,
  );
}

function invalidTime(field: string, message: string, code: FieldErrorCode): DomainError {
  return new DomainError('invalid_departure_time', `${field.slice(1)} ${message}.`, {
    errors: [{ field, code, message }],
  });
}
