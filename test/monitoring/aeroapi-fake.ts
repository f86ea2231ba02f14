import type { TestContext } from 'node:test';
import { aeroApiSpec, describeErrors } from './aeroapi-spec.ts';
import { fakeApp, listen, type Override, type RecordedRequest } from './fake-server.ts';

/**
 * A fake FlightAware AeroAPI v4 serving GET /aeroapi/flights/{ident} like the real one: it checks
 * the `x-apikey` header (401 otherwise) and the query parameters against the OpenAPI document (400
 * otherwise), filters its flights by ident and by `scheduled_out` (else `scheduled_off`) in
 * [start, end), serves them by pages (`links.next` with a `cursor`), and every body it serves validates against the document's schemas (checked when
 * a test adds flights or an override, so a drifting fixture fails at once): a 200 against the flights
 * response, any other JSON answer — its own 400s and 401, a test's 429, 500 or 503 — against the
 * document's `Error`, its `status` the answer's. A text body is a proxy's or a captive portal's page
 * in front of AeroAPI, not AeroAPI's answer: allowed on a 200 or a 5xx only. `'trickle'` answers 200 at once, then a body that never
 * ends, a space at a time (a provider answering slowly in chunks).
 */

export type AeroFlight = Record<string, unknown> & { ident: string; fa_flight_id: string };

export interface AeroApiFake {
  baseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** Adds flights to what the fake knows (validated against the document). */
  addFlights(...flights: AeroFlight[]): void;
  /** Answers every request with this instead (validated: assertValidAnswer), stops answering, or trickles. */
  override(reply: Override | 'trickle' | undefined): void;
}

/** An answer a test makes the fake give: valid under the document (or a proxy's text page on a 5xx), else throws. */
export function assertValidAnswer(reply: { status: number; body?: unknown }): void {
  if (typeof reply.body === 'string') {
    // a proxy's or a captive portal's page in front of AeroAPI, not AeroAPI's answer
    if (reply.status === 200 || reply.status >= 500) return;
    throw new Error(`AeroAPI answers a ${reply.status} with its Error document, not a text body`);
  }
  if (reply.status === 200) return assertValidFlightsResponse(reply.body);
  const { errorResponse } = aeroApiSpec();
  if (!errorResponse(reply.body))
    throw new Error(`AeroAPI fake error does not match the document: ${describeErrors(errorResponse.errors)}`);
  if ((reply.body as { status: number }).status !== reply.status)
    throw new Error(
      `AeroAPI fake error: body status ${(reply.body as { status: number }).status}, answered ${reply.status}`,
    );
}

export function assertValidFlightsResponse(body: unknown): void {
  const { flightsResponse } = aeroApiSpec();
  if (!flightsResponse(body))
    throw new Error(
      `AeroAPI fake payload does not match the OpenAPI document: ${describeErrors(flightsResponse.errors)}`,
    );
}

function errorBody(status: number, title: string, reason: string, detail: string) {
  const body = { title, reason, detail, status };
  assertValidAnswer({ status, body });
  return body;
}

/** Date or date-time (AeroAPI: a date alone means 00:00:00Z). */
function bound(value: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
}

export async function startAeroApiFake(
  t: Pick<TestContext, 'after'>,
  options: { apiKey?: string; pageSize?: number; now?: () => Date } = {},
): Promise<AeroApiFake> {
  const spec = aeroApiSpec();
  const apiKey = options.apiKey ?? 'aeroapi-test-key';
  const flights: AeroFlight[] = [];
  const requests: RecordedRequest[] = [];
  let reply: Override | 'trickle' | undefined;

  const app = fakeApp();
  app.get<{ Params: { ident: string }; Querystring: Record<string, string> }>(
    '/aeroapi/flights/:ident',
    async (request, response) => {
      requests.push({ path: request.url.split('?')[0]!, query: { ...request.query }, headers: { ...request.headers } });
      if (reply === 'hang') return new Promise(() => {});
      if (reply === 'trickle') {
        response.hijack();
        const raw = response.raw;
        raw.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
        raw.write('{"links":null,"num_pages":1,"flights":[');
        const timer = setInterval(() => raw.write(' '), 20);
        raw.on('close', () => clearInterval(timer));
        return;
      }
      if (request.headers['x-apikey'] !== apiKey) {
        return response.code(401).send(errorBody(401, 'Unauthorized', 'UNAUTHORIZED', 'Invalid API key'));
      }
      for (const [name, value] of Object.entries(request.query)) {
        const validate = spec.queryParameters.get(name);
        const typed = name === 'max_pages' ? Number(value) : value;
        if (!validate)
          return response
            .code(400)
            .send(errorBody(400, 'Invalid argument', 'INVALID_ARGUMENT', `Unknown parameter ${name}`));
        if (!validate(typed))
          return response
            .code(400)
            .send(
              errorBody(400, 'Invalid argument', 'INVALID_ARGUMENT', `${name}: ${describeErrors(validate.errors)}`),
            );
      }
      const { start, end } = request.query;
      if (start && end && !(bound(start) < bound(end))) {
        return response
          .code(400)
          .send(errorBody(400, 'Invalid argument', 'INVALID_ARGUMENT', 'start must be before end'));
      }
      // the document: "start … no further than 10 days in the past" (checked when the fake has a clock)
      if (start && options.now && bound(start) < options.now().getTime() - 10 * 86_400_000) {
        return response
          .code(400)
          .send(errorBody(400, 'Invalid argument', 'INVALID_ARGUMENT', 'start is too far in the past'));
      }
      if (reply) {
        if (reply.headers) response.headers(reply.headers);
        return response.code(reply.status).send(reply.body);
      }
      const ident = request.params.ident;
      const from = start ? bound(start) : -Infinity;
      const to = end ? bound(end) : Infinity;
      const matching = flights.filter((f) => {
        // `ident_type=designator`: the ident is a flight designator, never an fa_flight_id
        const byId = request.query.ident_type !== 'designator' && f.fa_flight_id === ident;
        const identifies =
          byId ||
          [f.ident, f.ident_icao, f.ident_iata].includes(ident) ||
          (f.codeshares as string[] | null)?.includes(ident) ||
          (f.codeshares_iata as string[] | null)?.includes(ident) ||
          // an IATA designator finds the flight through its operator's IATA code
          (f.operator_iata && f.flight_number && `${f.operator_iata as string}${f.flight_number as string}` === ident);
        const departure = Date.parse((f.scheduled_out ?? f.scheduled_off) as string);
        return identifies && departure >= from && departure < to;
      });
      // the document: ordered by scheduled_out (or scheduled_off if scheduled_out is missing) descending
      const scheduled = (f: AeroFlight) => Date.parse((f.scheduled_out ?? f.scheduled_off) as string);
      matching.sort((a, b) => scheduled(b) - scheduled(a));
      // pages of `pageSize` (AeroAPI: 15), `links.next` a URI reference carrying the next page's cursor
      const size = options.pageSize ?? 15;
      const offset = request.query.cursor ? Number(request.query.cursor) : 0;
      const page = matching.slice(offset, offset + size);
      let links: { next: string } | null = null;
      if (offset + size < matching.length) {
        const next = new URLSearchParams({ ...request.query, cursor: String(offset + size) });
        links = { next: `/flights/${encodeURIComponent(ident)}?${next.toString()}` };
      }
      const body = { links, num_pages: 1, flights: page };
      assertValidFlightsResponse(body);
      return response.code(200).header('content-type', 'application/json; charset=UTF-8').send(body);
    },
  );
  const origin = await listen(t, app);

  return {
    baseUrl: `${origin}/aeroapi`,
    apiKey,
    requests,
    addFlights(...added) {
      assertValidFlightsResponse({ links: null, num_pages: 1, flights: added });
      flights.push(...added);
    },
    override(next) {
      if (next && next !== 'hang' && next !== 'trickle') assertValidAnswer(next);
      reply = next;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Fixtures: complete AeroAPI flight records (every field the document requires).

const airports = {
  CDG: {
    code: 'LFPG',
    code_icao: 'LFPG',
    code_iata: 'CDG',
    code_lid: null,
    timezone: 'Europe/Paris',
    name: 'Charles de Gaulle/Roissy',
    city: 'Paris',
    airport_info_url: '/airports/LFPG',
  },
  JFK: {
    code: 'KJFK',
    code_icao: 'KJFK',
    code_iata: 'JFK',
    code_lid: 'JFK',
    timezone: 'America/New_York',
    name: 'John F Kennedy Intl',
    city: 'New York',
    airport_info_url: '/airports/KJFK',
  },
  BOS: {
    code: 'KBOS',
    code_icao: 'KBOS',
    code_iata: 'BOS',
    code_lid: 'BOS',
    timezone: 'America/New_York',
    name: 'Boston Logan Intl',
    city: 'Boston',
    airport_info_url: '/airports/KBOS',
  },
} as const;

export type AirportCode = keyof typeof airports;

/**
 * An Air France flight as AeroAPI describes it, scheduled (nothing actual yet). `flight` is the
 * number ("6"), `from`/`to` the airports, `out`/`in` the scheduled gate times (ISO, UTC).
 */
export function aeroFlight(
  p: { flight: string; from: AirportCode; to: AirportCode; out: string; in: string },
  overrides: Record<string, unknown> = {},
): AeroFlight {
  const out = Date.parse(p.out);
  const arrive = Date.parse(p.in);
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  const epoch = Math.floor(out / 1000) - 86_400;
  return {
    ident: `AFR${p.flight}`,
    ident_icao: `AFR${p.flight}`,
    ident_iata: `AF${p.flight}`,
    actual_runway_off: null,
    actual_runway_on: null,
    fa_flight_id: `AFR${p.flight}-${epoch}-schedule-0041`,
    operator: 'AFR',
    operator_icao: 'AFR',
    operator_iata: 'AF',
    flight_number: p.flight,
    registration: 'F-GSQA',
    atc_ident: null,
    inbound_fa_flight_id: null,
    codeshares: [`DAL${8000 + Number(p.flight)}`],
    codeshares_iata: [`DL${8000 + Number(p.flight)}`],
    blocked: false,
    diverted: false,
    cancelled: false,
    position_only: false,
    origin: { ...airports[p.from] },
    destination: { ...airports[p.to] },
    departure_delay: 0,
    arrival_delay: 0,
    filed_ete: Math.round((arrive - out) / 1000) - 1800,
    progress_percent: 0,
    status: 'Scheduled',
    aircraft_type: 'B77W',
    route_distance: 3635,
    filed_airspeed: 488,
    filed_altitude: null,
    route: null,
    baggage_claim: null,
    seats_cabin_business: 14,
    seats_cabin_coach: 260,
    seats_cabin_first: 4,
    gate_origin: 'K35',
    gate_destination: null,
    terminal_origin: '2E',
    terminal_destination: '1',
    type: 'Airline',
    scheduled_out: iso(out),
    estimated_out: iso(out),
    actual_out: null,
    scheduled_off: iso(out + 15 * 60_000),
    estimated_off: iso(out + 15 * 60_000),
    actual_off: null,
    scheduled_on: iso(arrive - 15 * 60_000),
    estimated_on: iso(arrive - 15 * 60_000),
    actual_on: null,
    scheduled_in: iso(arrive),
    estimated_in: iso(arrive),
    actual_in: null,
    foresight_predictions_available: false,
    ...overrides,
  };
}
