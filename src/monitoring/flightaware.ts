import { DateTime } from 'luxon';
import { findAirline, findAirport, ICAO_OVERRIDES, normaliseFlightNumber } from '../reference/index.ts';
import {
  assignTime,
  closestTo,
  parseDesignator,
  ProviderBeyondHistory,
  ProviderError,
  ProviderRejected,
  sameDesignator,
  toDate,
  type FetchOptions,
  type FlightQuery,
  type FlightStatus,
  type FlightStatusProvider,
  type ProviderHistory,
} from './flight-status.ts';
import { excerpt, getJson } from './http.ts';

/**
 * FlightAware AeroAPI v4 adapter: `GET {baseUrl}/flights/{ident}?ident_type=designator&start=…&end=…`
 * with the `x-apikey` header (operation `get_flight` of the AeroAPI 4.17.1 OpenAPI document).
 * Mapping and rules: docs/monitoring.md#flightaware-aeroapi-v4.
 */

export const AEROAPI_DEFAULT_BASE_URL = 'https://aeroapi.flightaware.com/aeroapi';

export interface FlightAwareOptions {
  apiKey: string;
  /** Default `https://aeroapi.flightaware.com/aeroapi`. */
  baseUrl?: string;
  /** Per-request timeout (connection, headers and body). Default 10 s. */
  timeoutMs?: number;
  /**
   * Which ident to send. AeroAPI recommends ICAO idents ("AFR6") to avoid ambiguity: 'icao' (the
   * default) sends one when the airline's ICAO code is known, else the IATA one; 'iata' always
   * sends the IATA designator ("AF6"). When the ICAO ident finds no flight of ours, the IATA one is
   * asked once more. Answers are matched on `ident_iata`/`codeshares_iata`, else on
   * `operator_iata` + `flight_number`, else on the ICAO `ident_icao`/`codeshares`, either way.
   */
  ident?: 'icao' | 'iata';
  fetch?: typeof fetch;
  now?: () => Date;
  /** Where a truncated answer (more pages than AEROAPI_MAX_PAGES) is reported. Default: nowhere. */
  log?: { warn(o: object, m: string): void };
}

/** The fields of an AeroAPI flight this adapter reads (the document's `BaseFlight`; most are nullable). */
export interface AeroApiFlight {
  ident: string;
  ident_icao?: string | null;
  ident_iata?: string | null;
  /** ICAO code of the operator if it has one, else its IATA code (required, nullable). */
  operator?: string | null;
  /** IATA code of the operator (required, nullable). */
  operator_iata?: string | null;
  /** The bare flight number, "6" (required, nullable). */
  flight_number?: string | null;
  fa_flight_id: string;
  codeshares?: string[] | null;
  codeshares_iata?: string[] | null;
  cancelled: boolean;
  diverted: boolean;
  origin: AeroApiAirportRef | null;
  destination: AeroApiAirportRef | null;
  status: string;
  arrival_delay: number | null;
  scheduled_out: string | null;
  estimated_out: string | null;
  actual_out: string | null;
  scheduled_off: string | null;
  actual_off: string | null;
  scheduled_on: string | null;
  actual_on: string | null;
  scheduled_in: string | null;
  estimated_in: string | null;
  actual_in: string | null;
  [other: string]: unknown;
}

export interface AeroApiAirportRef {
  code: string | null;
  code_icao?: string | null;
  code_iata?: string | null;
  timezone?: string | null;
  [other: string]: unknown;
}

export class FlightAwareProvider implements FlightStatusProvider {
  readonly name = 'flightaware';
  /** AeroAPI's `/flights/{ident}` answers 10 days back: a flight that departed before is not asked. */
  readonly history: ProviderHistory = {
    days: AEROAPI_HISTORY_DAYS,
    beyond: (query, now) => beyondAeroApiHistory(query, now),
  };
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: FlightAwareOptions) {
    if (!options.apiKey) throw new ProviderRejected('flightaware', 'flightaware: no API key configured');
    this.baseUrl = (options.baseUrl ?? AEROAPI_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async fetchStatus(query: FlightQuery, fetchOptions: FetchOptions = {}): Promise<FlightStatus | undefined> {
    const designator = parseDesignator(query.flightNumber);
    if (!designator) throw new RangeError(`Not an IATA flight designator: "${query.flightNumber}"`);
    const iata = `${designator.airline}${designator.number}${designator.suffix}`;
    const icao = this.options.ident === 'iata' ? undefined : icaoIdent(query.flightNumber);

    const originZone = findAirport(query.origin)?.timeZone;
    const now = this.options.now?.() ?? new Date();
    if (beyondAeroApiHistory(query, now)) throw this.beyond(query);
    const window = askedWindow(query, originZone, now);
    try {
      const flights = await this.flights(icao ?? iata, window, query, fetchOptions);
      const status = toFlightStatus(this.name, query, flights, originZone, now);
      if (status || !icao) return status;
      // The ICAO code comes from reference data that can be stale (an airline that took over the IATA
      // code, one IATA code flown under several ICAO codes): ask once more under the IATA ident.
      const again = await this.flights(iata, window, query, fetchOptions);
      return toFlightStatus(this.name, query, again, originZone, now);
    } catch (error) {
      // A 400 for a start a day or less inside the limit: AeroAPI's clock or its count of the 10 days
      // differs from ours by more than the hour kept (AEROAPI_HISTORY_MARGIN_MS) — the same answer,
      // "no data that old", not a rejected request.
      if (
        error instanceof ProviderRejected &&
        error.status === 400 &&
        Date.parse(window.start) < now.getTime() - (AEROAPI_HISTORY_DAYS - 1) * DAY_MS
      )
        throw this.beyond(query);
      throw error;
    }
  }

  private beyond(query: FlightQuery): ProviderBeyondHistory {
    return new ProviderBeyondHistory(
      this.name,
      AEROAPI_HISTORY_DAYS,
      `${this.name}: ${query.flightNumber} ${query.departureDate} departed more than ${AEROAPI_HISTORY_DAYS} days ago, beyond AeroAPI's flight history (decide it with parasol flights event)`,
    );
  }

  /** Every flight AeroAPI lists under `ident` in the window, page after page (at most AEROAPI_MAX_PAGES). */
  private async flights(
    ident: string,
    window: { start: string; end: string },
    query: FlightQuery,
    fetchOptions: FetchOptions,
  ): Promise<AeroApiFlight[]> {
    const flights: AeroApiFlight[] = [];
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const url = new URL(`${this.baseUrl}/flights/${encodeURIComponent(ident)}`);
      url.searchParams.set('ident_type', 'designator');
      url.searchParams.set('start', window.start);
      url.searchParams.set('end', window.end);
      if (cursor) url.searchParams.set('cursor', cursor);
      const { body } = await getJson(
        {
          provider: this.name,
          url,
          headers: { 'x-apikey': this.options.apiKey },
          timeoutMs: this.timeoutMs,
          signal: fetchOptions.signal,
          fetch: this.options.fetch,
          ...(this.options.now ? { now: this.options.now } : {}),
        },
        aeroApiErrorDetail,
      );
      flights.push(...readFlights(this.name, url, body));
      cursor = nextCursor(body);
      if (!cursor) break;
      if (page >= AEROAPI_MAX_PAGES) {
        // matched among the pages read; a flight of ours on a further page is "unknown" this time
        this.options.log?.warn(
          { provider: this.name, ident, flight: query.flightNumber, date: query.departureDate, pages: page },
          'AeroAPI listed more pages than AEROAPI_MAX_PAGES: the rest were not read',
        );
        break;
      }
    }
    return flights;
  }
}

const DAY_MS = 86_400_000;

/**
 * How far back AeroAPI's `/flights/{ident}` answers: "start … no further than 10 days in the past"
 * (get_flight in the AeroAPI document). An older flight is in `/history/flights/{ident}`, not used.
 */
export const AEROAPI_HISTORY_DAYS = 10;

/** How far inside AeroAPI's 10 days the earliest `start` sent stays: its clock may be ahead of ours. */
export const AEROAPI_HISTORY_MARGIN_MS = 3_600_000;

/** The earliest `start` sent to AeroAPI at `now`: 10 days ago, plus the margin. */
function historyBound(now: Date): number {
  return now.getTime() - AEROAPI_HISTORY_DAYS * DAY_MS + AEROAPI_HISTORY_MARGIN_MS;
}

/**
 * Whether AeroAPI's `/flights/{ident}` can no longer list the flight at `now`: its scheduled departure
 * (the window's end when the leg has none) is before the earliest `start` sent (historyBound). Judged
 * on the departure, not on the day's start: the flight is asked as long as AeroAPI holds it (older
 * ones are only in `/history/flights`, not used).
 */
export function beyondAeroApiHistory(query: FlightQuery, now: Date): boolean {
  const end = Date.parse(searchWindow(query.departureDate, findAirport(query.origin)?.timeZone).end);
  const departure = Math.min(query.scheduledDeparture?.getTime() ?? end, end);
  return departure < historyBound(now);
}

/**
 * The window asked at `now`: the flight's day (searchWindow), its start moved up to historyBound when
 * the day began more than 10 days ago (AeroAPI refuses such a `start`; it compares `scheduled_out`, and
 * the flight departs after the bound — else beyondAeroApiHistory).
 */
export function askedWindow(query: FlightQuery, zone: string | undefined, now: Date): { start: string; end: string } {
  const window = searchWindow(query.departureDate, zone);
  const bound = historyBound(now);
  if (Date.parse(window.start) >= bound) return window;
  return { start: new Date(bound).toISOString().replace(/\.\d{3}Z$/, 'Z'), end: window.end };
}

/**
 * Pages read at most for one flight. AeroAPI pages by 15 flights (`links.next` carries the `cursor`
 * of the next page, `null` on the last); one designator over one local day is a handful of flights,
 * so a second page is rare, and each page read is billed.
 */
export const AEROAPI_MAX_PAGES = 5;

/** The `cursor` of `links.next` (a URI reference, relative to the API's base), or undefined on the last page. */
function nextCursor(body: unknown): string | undefined {
  const next = (body as { links?: { next?: unknown } | null } | null)?.links?.next;
  if (typeof next !== 'string' || next === '') return undefined;
  try {
    return new URL(next, 'http://aeroapi.invalid/').searchParams.get('cursor') || undefined;
  } catch {
    return undefined;
  }
}

/** The ICAO form of an IATA designator ("AF006" → "AFR6"), when the airline's ICAO code is known. */
function icaoIdent(flightNumber: string): string | undefined {
  const designator = parseDesignator(flightNumber);
  const override = designator ? ICAO_OVERRIDES[designator.airline] : undefined;
  const icao = override !== undefined ? override : designator && findAirline(designator.airline)?.icao;
  return designator && icao && /^[A-Z]{3}$/.test(icao) ? `${icao}${designator.number}${designator.suffix}` : undefined;
}

/** "AFR6" ≡ "AFR006"; false for anything that is not an ICAO designator. */
function sameIcaoIdent(a: string | null | undefined, b: string | undefined): boolean {
  const parse = (v: string) => /^([A-Z]{3})(\d{1,4})([A-Z]?)$/.exec(v.replace(/\s+/g, '').toUpperCase());
  const x = a ? parse(a) : null;
  const y = b ? parse(b) : null;
  return Boolean(x && y && x[1] === y[1] && Number(x[2]) === Number(y[2]) && x[3] === y[3]);
}

/**
 * The [start, end) range of scheduled departures to ask for: the local day at the origin, in UTC
 * (AeroAPI filters on `scheduled_out`, start inclusive, end exclusive). An origin unknown to the
 * reference data gets every time zone's version of that day; the flights are filtered afterwards.
 */
export function searchWindow(departureDate: string, zone: string | undefined): { start: string; end: string } {
  const iso = (d: DateTime) => d.toUTC().toISO({ suppressMilliseconds: true })!;
  if (zone) {
    const day = DateTime.fromISO(departureDate, { zone }).startOf('day');
    if (day.isValid) return { start: iso(day), end: iso(day.plus({ days: 1 })) };
  }
  const day = DateTime.fromISO(departureDate, { zone: 'utc' });
  if (!day.isValid) throw new RangeError(`Not a date: "${departureDate}"`);
  return { start: iso(day.minus({ hours: 14 })), end: iso(day.plus({ hours: 36 })) };
}

function aeroApiErrorDetail(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { title, detail } = body as { title?: unknown; detail?: unknown };
  return excerpt([title, detail].filter((v) => typeof v === 'string' && v).join(': '));
}

function readFlights(provider: string, url: URL, body: unknown): AeroApiFlight[] {
  const flights = (body as { flights?: unknown } | null)?.flights;
  if (!Array.isArray(flights)) {
    throw new ProviderError(
      provider,
      'bad_response',
      `${provider} GET ${url.pathname}: 200 without a "flights" array`,
      { status: 200 },
    );
  }
  return flights.filter(
    (f): f is AeroApiFlight =>
      Boolean(f) && typeof f === 'object' && typeof (f as AeroApiFlight).fa_flight_id === 'string',
  );
}

function iataOf(ref: AeroApiAirportRef | null | undefined): string | undefined {
  return ref?.code_iata ?? undefined;
}

/**
 * The flight is ours under the leg's designator: its IATA ident or one of its IATA codeshares. Where
 * `ident_iata` is missing or null (optional in the document; `operator`, `operator_iata` and
 * `flight_number` are required but nullable), the IATA designator made of `operator_iata` and
 * `flight_number`, else its ICAO ident (`ident_icao`, else `ident`) in the designator's ICAO form —
 * the last resort, as that form comes from reference data that can be stale. Where
 * `codeshares_iata` is missing or null, the ICAO `codeshares` (required, nullable).
 */
function isOurDesignator(f: AeroApiFlight, flightNumber: string): boolean {
  const icao = icaoIdent(flightNumber);
  const ident = f.ident_iata
    ? sameDesignator(f.ident_iata, flightNumber)
    : f.operator_iata && f.flight_number
      ? sameDesignator(`${f.operator_iata}${f.flight_number}`, flightNumber)
      : sameIcaoIdent(f.ident_icao ?? f.ident, icao);
  const codeshare = f.codeshares_iata
    ? f.codeshares_iata.some((c) => sameDesignator(c, flightNumber))
    : (f.codeshares ?? []).some((c) => sameIcaoIdent(c, icao));
  return ident || codeshare;
}

/** Local date at the origin of the flight's scheduled gate (else runway) departure. */
function localDepartureDate(f: AeroApiFlight, zone: string | undefined): string | undefined {
  const at = toDate(f.scheduled_out ?? f.scheduled_off);
  const tz = zone ?? f.origin?.timezone ?? undefined;
  if (!at || !tz) return undefined;
  return DateTime.fromJSDate(at, { zone: tz }).toISODate() ?? undefined;
}

/**
 * Picks our flight among the answers and maps it. AeroAPI gives a diverted flight's new leg the same
 * `fa_flight_id` as the original: depending on how the diversion was recorded that is a record to
 * the diversion airport, or the continuation from it; either tells where the flight landed, and
 * only records leaving our origin give the insured leg's times.
 */
export function toFlightStatus(
  provider: string,
  query: FlightQuery,
  flights: AeroApiFlight[],
  originZone: string | undefined,
  observedAt: Date,
): FlightStatus | undefined {
  const origin = query.origin.toUpperCase();
  const destination = query.destination.toUpperCase();
  const candidates = flights.filter(
    (f) =>
      isOurDesignator(f, query.flightNumber) &&
      iataOf(f.origin) === origin &&
      localDepartureDate(f, originZone) === query.departureDate,
  );
  const toDestination = candidates.filter((f) => iataOf(f.destination) === destination);
  const pool = toDestination.length > 0 ? toDestination : candidates.filter((f) => f.diverted);
  const primary = closestTo(pool, query.scheduledDeparture, (f) => toDate(f.scheduled_out ?? f.scheduled_off));
  if (!primary) return undefined;

  // every record of this fa_flight_id (evidence); those leaving our origin are the insured leg, one
  // leaving elsewhere is the continuation from the diversion airport
  const sameId = flights.filter((f) => f.fa_flight_id === primary.fa_flight_id);
  const group = candidates.filter((f) => f.fa_flight_id === primary.fa_flight_id);
  const diverted = group.some((f) => f.diverted);
  const diversionLeg = diverted ? group.find((f) => iataOf(f.destination) !== destination) : undefined;
  const continuation = diverted ? sameId.find((f) => iataOf(f.origin) !== origin) : undefined;
  const divertedTo = diversionLeg
    ? (iataOf(diversionLeg.destination) ?? diversionLeg.destination?.code ?? undefined)
    : (iataOf(continuation?.origin) ?? undefined);
  // the record that tells where and when a diverted flight landed: the diversion leg, else the
  // original record itself (when AeroAPI rewrote its destination)
  const landed = diversionLeg ?? primary;

  // `cancelled` means "no longer tracked", which is usually but not always an airline cancellation:
  // a flight with airborne times was not cancelled — it is left pending (then manual review).
  const airborne = Boolean(primary.actual_off || primary.actual_on || primary.actual_in);
  const cancelled = primary.cancelled && !airborne && !diverted;

  const status: FlightStatus = {
    provider,
    flightNumber: normaliseFlightNumber(query.flightNumber),
    departureDate: query.departureDate,
    origin,
    destination,
    cancelled,
    diverted,
    final: cancelled || (diverted ? Boolean(landed.actual_on || landed.actual_in) : Boolean(primary.actual_in)),
    providerStatus: primary.status,
    providerFlightId: primary.fa_flight_id,
    observedAt,
    raw: { flights: sameId },
  };
  assignTime(status, 'scheduledDeparture', toDate(primary.scheduled_out ?? primary.scheduled_off));
  assignTime(status, 'actualDeparture', toDate(primary.actual_out ?? primary.actual_off));
  assignTime(status, 'scheduledArrival', toDate(primary.scheduled_in));
  assignTime(status, 'estimatedArrival', toDate(primary.estimated_in));
  if (!diverted) {
    assignTime(status, 'actualArrival', toDate(primary.actual_in));
    assignTime(status, 'runwayArrival', toDate(primary.actual_on));
  } else {
    assignTime(status, 'actualArrival', toDate(landed.actual_in));
    assignTime(status, 'runwayArrival', toDate(landed.actual_on));
    if (divertedTo) status.divertedTo = divertedTo;
  }
  return status;
}
