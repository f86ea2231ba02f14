/**
 * Limits on accumulation, the pure part (docs/limits.md): what one leg can cost at most, how a
 * flight is identified, the default cap, and which stop-sales a leg falls under. No I/O.
 */
import { coversCancellation, coversDelay, type Coverage } from '../partners/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import { currencyExponent, formatMoney, knownCurrencies } from '../platform/money.ts';

/**
 * The most one passenger can be paid for one leg under this coverage: the cancellation amount when
 * cancellation is covered, the highest delay tier when delay is covered, whichever is higher (a
 * diversion pays one of the two, so it never pays more). Minor units.
 */
export function maxPayoutPerPassenger(
  coverage: Pick<Coverage, 'formula' | 'delayTiers' | 'cancellationAmount'>,
): number {
  let max = coversCancellation(coverage.formula) ? coverage.cancellationAmount : 0;
  if (coversDelay(coverage.formula)) for (const tier of coverage.delayTiers) if (tier.amount > max) max = tier.amount;
  return max;
}

/** The default cap per flight when the operator set none: 100,000 in the currency's major unit (€100,000). */
export const DEFAULT_CAP_MAJOR_UNITS = 100_000;

/** `majorUnits` is PARASOL_FLIGHT_CAP_DEFAULT (config.flightCapDefault). */
export function defaultCap(currency: string, majorUnits: number = DEFAULT_CAP_MAJOR_UNITS): number {
  return majorUnits * 10 ** currencyExponent(currency);
}

let exponentExceptions: { currency: string; exponent: number }[] | undefined;

/**
 * The currencies whose minor unit is not the hundredth (JPY 0, KWD 3…) with their exponent, as
 * `currencyExponent` knows them: what SQL needs to compute `defaultCap` per row (every other
 * currency has 2).
 */
export function currencyExponentExceptions(): readonly { currency: string; exponent: number }[] {
  exponentExceptions ??= knownCurrencies()
    .map((currency) => ({ currency, exponent: currencyExponent(currency) }))
    .filter((c) => c.exponent !== 2);
  return exponentExceptions;
}

/**
 * A flight as a quote can name it: environment and currency (exposure is kept apart for each), the
 * airline, the route and the scheduled local departure. The subscribe's flight number is checked
 * against the airline, and one airline does not fly two flights on one route at the same minute.
 */
export interface FlightKey {
  environment: Environment;
  currency: string;
  airline: string;
  departureAirport: string;
  arrivalAirport: string;
  /** 'YYYY-MM-DDTHH:mm', local to the departure airport. */
  departureLocal: string;
}

export const flightKeyString = (k: FlightKey): string =>
  `${k.environment}|${k.currency}|${k.airline}|${k.departureAirport}|${k.arrivalAirport}|${k.departureLocal}`;

/** How a leg is named in a problem detail: "AF CDG→JFK 2026-12-01T10:30". */
export const legName = (leg: {
  airline: string;
  departureAirport: string;
  arrivalAirport: string;
  departureLocal: string;
}): string => `${leg.airline} ${leg.departureAirport}→${leg.arrivalAirport} ${leg.departureLocal}`;

export interface LegToCheck {
  airline: string;
  departureAirport: string;
  arrivalAirport: string;
  departureLocal: string;
  departureAt: Date;
}

/** A stop-sale as the matcher needs it: a NULL scope column matches any leg. */
export interface StopSaleScope {
  id: string;
  environment: Environment | null;
  airline: string | null;
  /** Either end of the leg. */
  airport: string | null;
  departureAirport: string | null;
  arrivalAirport: string | null;
  /** The departures it covers: [startsAt, endsAt); endsAt null: every departure from startsAt on, until sales resume. */
  startsAt: Date;
  endsAt: Date | null;
  reason: string;
  /** Orders stop-sales starting at the same instant (the first created answers), as the SQL does. */
  createdAt: Date;
}

/**
 * Which of two stop-sales covering a leg answers for it: the one starting first, then the one created
 * first, then by id — the order of the SQL (`coveringStopSales`: starts_at, created_at, id), so a quote
 * (this index) and a subscription (the SQL) name the same stop-sale and reason.
 */
export const answersBefore = (a: StopSaleScope, b: StopSaleScope): boolean =>
  a.startsAt.getTime() !== b.startsAt.getTime()
    ? a.startsAt < b.startsAt
    : a.createdAt.getTime() !== b.createdAt.getTime()
      ? a.createdAt < b.createdAt
      : a.id < b.id;

export function stopSaleMatches(stop: StopSaleScope, environment: Environment, leg: LegToCheck): boolean {
  const at = leg.departureAt.getTime();
  return (
    (stop.environment === null || stop.environment === environment) &&
    (stop.airline === null || stop.airline === leg.airline) &&
    (stop.airport === null || stop.airport === leg.departureAirport || stop.airport === leg.arrivalAirport) &&
    (stop.departureAirport === null ||
      (stop.departureAirport === leg.departureAirport && stop.arrivalAirport === leg.arrivalAirport)) &&
    at >= stop.startsAt.getTime() &&
    (stop.endsAt === null || at < stop.endsAt.getTime())
  );
}

/** What a stop-sale covers, in words: "airline AF, airport CDG". */
export function stopSaleScopeText(
  stop: Pick<StopSaleScope, 'airline' | 'airport' | 'departureAirport' | 'arrivalAirport'>,
): string {
  const parts: string[] = [];
  if (stop.airline) parts.push(`airline ${stop.airline}`);
  if (stop.airport) parts.push(`airport ${stop.airport}`);
  if (stop.departureAirport) parts.push(`route ${stop.departureAirport}→${stop.arrivalAirport}`);
  return parts.join(', ');
}

/**
 * Stop-sales indexed by what a leg can be looked up by: each under its environment (or all) and its
 * most selective scope — its airline, else its route, else its airport. A leg's look-up reads the
 * few buckets its environment, airline, route and airports name (8 map reads), never every stop-sale.
 */
export class StopSaleIndex {
  private readonly buckets = new Map<string, StopSaleScope[]>();
  readonly size: number;

  constructor(stops: readonly StopSaleScope[]) {
    this.size = stops.length;
    for (const stop of stops) {
      const scope = stop.airline
        ? `airline|${stop.airline}`
        : stop.departureAirport
          ? `route|${stop.departureAirport}|${stop.arrivalAirport}`
          : `airport|${stop.airport}`;
      const key = `${stop.environment ?? '*'}|${scope}`;
      const bucket = this.buckets.get(key);
      if (bucket) bucket.push(stop);
      else this.buckets.set(key, [stop]);
    }
  }

  /** The stop-sale covering this leg that answers for it (`answersBefore`: starting first), if any. */
  find(environment: Environment, leg: LegToCheck): StopSaleScope | undefined {
    if (this.size === 0) return undefined;
    let found: StopSaleScope | undefined;
    for (const env of [environment, '*']) {
      for (const scope of [
        `airline|${leg.airline}`,
        `route|${leg.departureAirport}|${leg.arrivalAirport}`,
        `airport|${leg.departureAirport}`,
        `airport|${leg.arrivalAirport}`,
      ]) {
        for (const stop of this.buckets.get(`${env}|${scope}`) ?? []) {
          if (stopSaleMatches(stop, environment, leg) && (!found || answersBefore(stop, found))) found = stop;
        }
      }
    }
    return found;
  }
}

/**
 * Throws 409 sales_suspended naming the leg when a stop-sale covers it: its pointer in the request,
 * `/flights/N` at /subscribe (as `capacityExceeded`), `/departureDateTime` or
 * `/returnDepartureDateTime` at /getPrice.
 */
export function checkStopSales(
  stops: StopSaleIndex,
  environment: Environment,
  legs: readonly LegToCheck[],
  detailField: '/flights' | '/departureDateTime' = '/departureDateTime',
  /** Each leg's index in the request, when `legs` are some of its legs (default: their position). */
  indexes?: readonly number[],
): void {
  if (stops.size === 0) return;
  legs.forEach((leg, position) => {
    const stop = stops.find(environment, leg);
    if (stop) {
      const index = indexes?.[position] ?? position;
      throw new DomainError(
        'sales_suspended',
        `Sales are suspended for flight ${legName(leg)} (${stopSaleScopeText(stop)}, ${stopSalePeriodText(stop)}): ${stop.reason}`,
        {
          errors: [
            {
              field: legField(index, detailField),
              code: 'invalid',
              message: 'sales are suspended for this flight',
            },
          ],
        },
      );
    }
  });
}

/**
 * The departures a stop-sale covers, in words: "departures 2026-12-03T00:00:00.000Z to
 * 2026-12-05T00:00:00.000Z", or "departures from 2026-12-03T00:00:00.000Z until sales resume".
 */
export const stopSalePeriodText = (stop: Pick<StopSaleScope, 'startsAt' | 'endsAt'>): string =>
  stop.endsAt === null
    ? `departures from ${stop.startsAt.toISOString()} until sales resume`
    : `departures ${stop.startsAt.toISOString()} to ${stop.endsAt.toISOString()}`;

/** Where a stop-sale stands at `now`: covering departures now (current), from a later start (future), or no more (past). */
export type StopSaleState = 'current' | 'future' | 'past';

export function stopSaleState(
  stop: Pick<StopSaleScope, 'startsAt' | 'endsAt'> & { resumedAt: Date | null },
  now: Date,
): StopSaleState {
  if (stop.resumedAt !== null || (stop.endsAt !== null && stop.endsAt.getTime() <= now.getTime())) return 'past';
  return stop.startsAt.getTime() > now.getTime() ? 'future' : 'current';
}

/** Where leg `index` is in the request: `/flights/N` (subscribe), else the quote's departure fields. */
const legField = (index: number, detailField: '/flights' | '/departureDateTime'): string =>
  detailField === '/flights' ? `/flights/${index}` : index === 0 ? '/departureDateTime' : '/returnDepartureDateTime';

export function capacityExceeded(
  leg: LegToCheck,
  index: number,
  currency: string,
  detailField: '/flights' | '/departureDateTime',
  /** What is refused: a quote (its subscription too), or a flight change. */
  refused: 'quote' | 'change' = 'quote',
): DomainError {
  const field = legField(index, detailField);
  return new DomainError(
    'capacity_exceeded',
    // true for a quote, a subscription and a flight change, one passenger or nine: "used up" would be
    // false when fewer passengers fit, "fewer may fit" false when the flight is full or for one
    // passenger; the amounts stay untold (every partner's contracts share the flight)
    `The platform cannot insure these passengers on flight ${legName(leg)}: what is left of its capacity (${currency}) is less than the most they could be paid on it. What is left is not disclosed: every partner's contracts share it.`,
    {
      errors: [{ field, code: 'invalid', message: `not enough capacity left on this flight for this ${refused}` }],
    },
  );
}

/** The largest exposure one policy may add to one leg: any passengers × the highest compensation an agreement allows. */
export function largestPolicyExposure(maxPassengers: number, compensationMax: number): number {
  return maxPassengers * compensationMax;
}

export { formatMoney };
