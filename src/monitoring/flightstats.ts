import { DateTime } from 'luxon';
import { findAirport, normaliseFlightNumber } from '../reference/index.ts';
import {
  assignTime,
  closestTo,
  parseDesignator,
  ProviderError,
  ProviderRejected,
  sameDesignator,
  toDate,
  type FetchOptions,
  type FlightQuery,
  type FlightStatus,
  type FlightStatusProvider,
} from './flight-status.ts';
import { excerpt, getJson, providerFailure } from './http.ts';

/**
 * Cirium FlightStats Flex "Flight Status by flight, departing on date" adapter:
 * `GET {baseUrl}/flex/flightstatus/rest/v2/json/flight/status/{carrier}/{flight}/dep/{y}/{m}/{d}?appId=…&appKey=…&utc=false`
 * (with utc=false the date is the local departure date at the origin, as Parasol stores it).
 * FlightStats identifies airlines and airports by "FS codes", equal to the IATA codes except for
 * a few duplicated or missing ones; `carrierCodes` maps those. Mapping: docs/monitoring.md.
 */

export const FLIGHTSTATS_DEFAULT_BASE_URL = 'https://api.flightstats.com';

export interface FlightStatsOptions {
  appId: string;
  appKey: string;
  /** Default `https://api.flightstats.com`. */
  baseUrl?: string;
  /** Per-request timeout (connection, headers and body). Default 10 s. */
  timeoutMs?: number;
  /** IATA airline code → FlightStats FS code, for the airlines where they differ. */
  carrierCodes?: Record<string, string>;
  fetch?: typeof fetch;
  now?: () => Date;
}

/** FlightStats status codes. */
export type FlightStatsStatusCode = 'S' | 'A' | 'L' | 'C' | 'D' | 'R' | 'U' | 'DN' | 'NO';

export interface FlightStatsDate {
  dateUtc?: string;
  dateLocal?: string;
}

/** The fields of a FlightStats `flightStatus` this adapter reads. */
export interface FlightStatsFlightStatus {
  flightId: number;
  carrierFsCode: string;
  flightNumber: string;
  departureAirportFsCode: string;
  arrivalAirportFsCode: string;
  divertedAirportFsCode?: string;
  departureDate: FlightStatsDate;
  arrivalDate?: FlightStatsDate;
  status: FlightStatsStatusCode | string;
  operationalTimes?: Partial<
    Record<
      | 'publishedDeparture'
      | 'publishedArrival'
      | 'scheduledGateDeparture'
      | 'estimatedGateDeparture'
      | 'actualGateDeparture'
      | 'actualRunwayDeparture'
      | 'scheduledGateArrival'
      | 'estimatedGateArrival'
      | 'actualGateArrival'
      | 'estimatedRunwayArrival'
      | 'actualRunwayArrival',
      FlightStatsDate
    >
  >;
  codeshares?: { fsCode: string; flightNumber: string; relationship?: string }[];
  delays?: Record<string, number>;
  [other: string]: unknown;
}

export class FlightStatsProvider implements FlightStatusProvider {
  readonly name = 'flightstats';
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: FlightStatsOptions) {
    if (!options.appId || !options.appKey)
      throw new ProviderRejected('flightstats', 'flightstats: appId and appKey must be configured');
    this.baseUrl = (options.baseUrl ?? FLIGHTSTATS_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async fetchStatus(query: FlightQuery, fetchOptions: FetchOptions = {}): Promise<FlightStatus | undefined> {
    const designator = parseDesignator(query.flightNumber);
    if (!designator) throw new RangeError(`Not an IATA flight designator: "${query.flightNumber}"`);
    const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(query.departureDate);
    if (!date) throw new RangeError(`Not a date: "${query.departureDate}"`);
    const carrier = this.options.carrierCodes?.[designator.airline] ?? designator.airline;
    const flight = `${designator.number}${designator.suffix}`;
    const [, y, m, d] = date;
    const url = new URL(
      `${this.baseUrl}/flex/flightstatus/rest/v2/json/flight/status/${encodeURIComponent(carrier)}/${encodeURIComponent(flight)}/dep/${Number(y)}/${Number(m)}/${Number(d)}`,
    );
    url.searchParams.set('appId', this.options.appId);
    url.searchParams.set('appKey', this.options.appKey);
    url.searchParams.set('utc', 'false');

    const { body, headers } = await getJson(
      {
        provider: this.name,
        url,
        timeoutMs: this.timeoutMs,
        signal: fetchOptions.signal,
        fetch: this.options.fetch,
        ...(this.options.now ? { now: this.options.now } : {}),
      },
      flightStatsErrorDetail,
    );
    // FlightStats may describe an error in a 200 body: { error: { httpStatusCode, errorMessage, … } },
    // classified as that status would be (a 429 there is a rate limit: back-off and circuit breaker,
    // with the answer's Retry-After if it has one)
    const embedded = (body as { error?: { httpStatusCode?: unknown } } | null)?.error;
    if (embedded && typeof embedded === 'object') {
      const status = typeof embedded.httpStatusCode === 'number' ? embedded.httpStatusCode : 500;
      const message = `${this.name} GET ${url.pathname}: ${status} ${flightStatsErrorDetail(body) ?? ''}`.trim();
      throw providerFailure(this.name, status, message, headers, this.options.now?.() ?? new Date());
    }
    const statuses = (body as { flightStatuses?: unknown } | null)?.flightStatuses;
    if (!Array.isArray(statuses)) {
      throw new ProviderError(
        this.name,
        'bad_response',
        `${this.name} GET ${url.pathname}: 200 without a "flightStatuses" array`,
        { status: 200 },
      );
    }
    const observedAt = this.options.now?.() ?? new Date();
    return toFlightStatus(
      this.name,
      query,
      statuses as FlightStatsFlightStatus[],
      this.options.carrierCodes ?? {},
      observedAt,
    );
  }
}

function flightStatsErrorDetail(body: unknown): string | undefined {
  const error = (body as { error?: { errorCode?: unknown; errorMessage?: unknown } } | null)?.error;
  if (!error || typeof error !== 'object') return undefined;
  return excerpt([error.errorCode, error.errorMessage].filter((v) => typeof v === 'string' && v).join(': '));
}

/** An instant from a FlightStats date: `dateUtc` when present, else `dateLocal` at the airport. */
function instant(value: FlightStatsDate | undefined, airport: string | undefined): Date | undefined {
  if (!value) return undefined;
  const utc = toDate(value.dateUtc);
  if (utc) return utc;
  const zone = airport ? findAirport(airport)?.timeZone : undefined;
  if (!value.dateLocal || !zone) return undefined;
  const local = DateTime.fromISO(value.dateLocal, { zone });
  return local.isValid ? local.toJSDate() : undefined;
}

/** Same FS airline + flight number as the query (operating or marketing through a codeshare). */
function isOurDesignator(
  s: FlightStatsFlightStatus,
  flightNumber: string,
  carrierCodes: Record<string, string>,
): boolean {
  const fsToIata = (fs: string) => Object.entries(carrierCodes).find(([, code]) => code === fs)?.[0] ?? fs;
  const same = (fs: string, number: string) => sameDesignator(`${fsToIata(fs)}${number}`, flightNumber);
  return same(s.carrierFsCode, s.flightNumber) || (s.codeshares ?? []).some((c) => same(c.fsCode, c.flightNumber));
}

export function toFlightStatus(
  provider: string,
  query: FlightQuery,
  statuses: FlightStatsFlightStatus[],
  carrierCodes: Record<string, string>,
  observedAt: Date,
): FlightStatus | undefined {
  const origin = query.origin.toUpperCase();
  const destination = query.destination.toUpperCase();
  const candidates = statuses.filter(
    (s) =>
      s &&
      typeof s === 'object' &&
      isOurDesignator(s, query.flightNumber, carrierCodes) &&
      s.departureAirportFsCode === origin &&
      s.arrivalAirportFsCode === destination &&
      (s.departureDate?.dateLocal ?? '').slice(0, 10) === query.departureDate,
  );
  const chosen = closestTo(candidates, query.scheduledDeparture, (s) =>
    instant(s.departureDate, s.departureAirportFsCode),
  );
  if (!chosen) return undefined;

  const times = chosen.operationalTimes ?? {};
  const code = chosen.status;
  const cancelled = code === 'C';
  // D: landed at an unscheduled airport. R (redirected: in the air towards another airport) turns
  // into D on landing — or back to A/L if the flight returns to its destination — so it is pending.
  const diverted = code === 'D';
  const actualGateArrival = instant(times.actualGateArrival, destination);
  const status: FlightStatus = {
    provider,
    flightNumber: normaliseFlightNumber(query.flightNumber),
    departureDate: query.departureDate,
    origin,
    destination,
    cancelled,
    diverted,
    final: cancelled || diverted || (code === 'L' && actualGateArrival !== undefined),
    providerStatus: code,
    providerFlightId: String(chosen.flightId),
    observedAt,
    raw: { flightStatus: chosen },
  };
  const arrivalAirport = diverted ? (chosen.divertedAirportFsCode ?? destination) : destination;
  assignTime(
    status,
    'scheduledDeparture',
    instant(times.scheduledGateDeparture ?? times.publishedDeparture ?? chosen.departureDate, origin),
  );
  assignTime(status, 'actualDeparture', instant(times.actualGateDeparture ?? times.actualRunwayDeparture, origin));
  assignTime(status, 'scheduledArrival', instant(times.scheduledGateArrival ?? times.publishedArrival, destination));
  assignTime(status, 'estimatedArrival', instant(times.estimatedGateArrival, destination));
  assignTime(status, 'actualArrival', diverted ? instant(times.actualGateArrival, arrivalAirport) : actualGateArrival);
  assignTime(status, 'runwayArrival', instant(times.actualRunwayArrival, arrivalAirport));
  if (diverted && chosen.divertedAirportFsCode) status.divertedTo = chosen.divertedAirportFsCode;
  return status;
}
