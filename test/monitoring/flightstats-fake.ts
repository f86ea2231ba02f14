import type { TestContext } from 'node:test';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { DateTime } from 'luxon';
import { describeErrors } from './aeroapi-spec.ts';
import { fakeApp, listen, type Override, type RecordedRequest } from './fake-server.ts';

/**
 * A fake Cirium FlightStats Flex flight status API:
 * GET /flex/flightstatus/rest/v2/json/flight/status/{carrier}/{flight}/dep/{year}/{month}/{day}
 * checks `appId`/`appKey` (401 otherwise), `utc` and the path, and answers `{ request, appendix,
 * flightStatuses }` with the flights of that carrier and number (or codeshare) departing that local
 * date. FlightStats publishes no machine-readable schema (test/fixtures/reference has none); the schema below is
 * written from FlightStats' documented field names and public sample responses, and every payload
 * the fake serves must validate against it.
 */

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/.source;
const dateSchema = {
  type: 'object',
  properties: { dateLocal: { type: 'string', pattern: LOCAL }, dateUtc: { type: 'string', format: 'date-time' } },
  required: ['dateLocal', 'dateUtc'],
  additionalProperties: false,
};
const times = [
  'publishedDeparture',
  'publishedArrival',
  'scheduledGateDeparture',
  'estimatedGateDeparture',
  'actualGateDeparture',
  'flightPlanPlannedDeparture',
  'estimatedRunwayDeparture',
  'actualRunwayDeparture',
  'scheduledRunwayDeparture',
  'scheduledGateArrival',
  'estimatedGateArrival',
  'actualGateArrival',
  'flightPlanPlannedArrival',
  'scheduledRunwayArrival',
  'estimatedRunwayArrival',
  'actualRunwayArrival',
];
const flightStatusSchema = {
  type: 'object',
  properties: {
    flightId: { type: 'integer' },
    carrierFsCode: { type: 'string' },
    operatingCarrierFsCode: { type: 'string' },
    primaryCarrierFsCode: { type: 'string' },
    flightNumber: { type: 'string', pattern: '^[0-9]+[A-Z]?$' },
    departureAirportFsCode: { type: 'string' },
    arrivalAirportFsCode: { type: 'string' },
    divertedAirportFsCode: { type: 'string' },
    departureDate: dateSchema,
    arrivalDate: dateSchema,
    status: { enum: ['S', 'A', 'L', 'C', 'D', 'R', 'U', 'DN', 'NO'] },
    schedule: { type: 'object' },
    operationalTimes: {
      type: 'object',
      properties: Object.fromEntries(times.map((k) => [k, dateSchema])),
      additionalProperties: false,
    },
    codeshares: {
      type: 'array',
      items: {
        type: 'object',
        properties: { fsCode: { type: 'string' }, flightNumber: { type: 'string' }, relationship: { type: 'string' } },
        required: ['fsCode', 'flightNumber'],
        additionalProperties: false,
      },
    },
    delays: {
      type: 'object',
      properties: Object.fromEntries(
        [
          'departureGateDelayMinutes',
          'departureRunwayDelayMinutes',
          'arrivalGateDelayMinutes',
          'arrivalRunwayDelayMinutes',
        ].map((k) => [k, { type: 'integer' }]),
      ),
      additionalProperties: false,
    },
    flightDurations: { type: 'object' },
    airportResources: { type: 'object' },
    flightEquipment: { type: 'object' },
  },
  required: [
    'flightId',
    'carrierFsCode',
    'flightNumber',
    'departureAirportFsCode',
    'arrivalAirportFsCode',
    'departureDate',
    'arrivalDate',
    'status',
    'operationalTimes',
  ],
  additionalProperties: false,
};
const responseSchema = {
  type: 'object',
  properties: {
    request: { type: 'object' },
    appendix: { type: 'object' },
    flightStatuses: { type: 'array', items: flightStatusSchema },
  },
  required: ['flightStatuses'],
  additionalProperties: false,
};
const errorSchema = {
  type: 'object',
  properties: {
    request: { type: 'object' },
    error: {
      type: 'object',
      properties: {
        httpStatusCode: { type: 'integer' },
        errorId: { type: 'string' },
        errorMessage: { type: 'string' },
        errorCode: { type: 'string' },
      },
      required: ['httpStatusCode', 'errorMessage', 'errorCode'],
      additionalProperties: false,
    },
  },
  required: ['error'],
  additionalProperties: false,
};

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const validateResponse = ajv.compile(responseSchema);
const validateError = ajv.compile(errorSchema);

export type FsFlight = Record<string, unknown> & {
  carrierFsCode: string;
  flightNumber: string;
  departureDate: { dateLocal: string; dateUtc: string };
};

export function assertValidFlightStatsResponse(body: unknown): void {
  if (!validateResponse(body))
    throw new Error(
      `FlightStats fake payload does not match the documented shape: ${describeErrors(validateResponse.errors)}`,
    );
}

function errorBody(httpStatusCode: number, errorCode: string, errorMessage: string) {
  const body = { error: { httpStatusCode, errorId: `fake-${httpStatusCode}`, errorMessage, errorCode } };
  if (!validateError(body)) throw new Error(`FlightStats fake error: ${describeErrors(validateError.errors)}`);
  return body;
}

export interface FlightStatsFake {
  baseUrl: string;
  appId: string;
  appKey: string;
  requests: RecordedRequest[];
  addFlights(...flights: FsFlight[]): void;
  override(reply: Override | undefined): void;
}

const ALLOWED_QUERY = new Set(['appId', 'appKey', 'utc', 'airport', 'codeType', 'extendedOptions']);

export async function startFlightStatsFake(t: Pick<TestContext, 'after'>): Promise<FlightStatsFake> {
  const appId = 'fs-test-app';
  const appKey = 'fs-test-key';
  const flights: FsFlight[] = [];
  const requests: RecordedRequest[] = [];
  let reply: Override | undefined;

  const app = fakeApp();
  app.get<{
    Params: Record<'carrier' | 'flight' | 'year' | 'month' | 'day', string>;
    Querystring: Record<string, string>;
  }>(
    '/flex/flightstatus/rest/v2/json/flight/status/:carrier/:flight/dep/:year/:month/:day',
    async (request, response) => {
      requests.push({ path: request.url.split('?')[0]!, query: { ...request.query }, headers: { ...request.headers } });
      if (reply === 'hang') return new Promise(() => {});
      const q = request.query;
      if (q.appId !== appId || q.appKey !== appKey)
        return response.code(401).send(errorBody(401, 'UNAUTHORIZED', 'Invalid appId or appKey'));
      const unknown = Object.keys(q).filter((k) => !ALLOWED_QUERY.has(k));
      if (unknown.length > 0)
        return response.code(400).send(errorBody(400, 'BAD_REQUEST', `Unknown parameter(s): ${unknown.join(', ')}`));
      if (q.utc !== undefined && q.utc !== 'true' && q.utc !== 'false')
        return response.code(400).send(errorBody(400, 'BAD_REQUEST', 'utc must be true or false'));
      const { carrier, flight, year, month, day } = request.params;
      if (
        !/^[A-Z0-9*]{2,3}$/.test(carrier) ||
        !/^\d{1,4}[A-Z]?$/.test(flight) ||
        !/^\d{4}$/.test(year) ||
        !/^\d{1,2}$/.test(month) ||
        !/^\d{1,2}$/.test(day)
      ) {
        return response.code(400).send(errorBody(400, 'BAD_REQUEST', 'Malformed carrier, flight or date'));
      }
      if (reply) {
        if (reply.headers) response.headers(reply.headers);
        return response.code(reply.status).send(reply.body);
      }
      const date = `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
      const useUtc = q.utc === 'true';
      const same = (fs: string, number: string) =>
        fs === carrier && Number.parseInt(number, 10) === Number.parseInt(flight, 10);
      const matching = flights.filter((f) => {
        const codeshares = (f.codeshares as { fsCode: string; flightNumber: string }[] | undefined) ?? [];
        const identifies =
          same(f.carrierFsCode, f.flightNumber) || codeshares.some((c) => same(c.fsCode, c.flightNumber));
        const departs = useUtc ? f.departureDate.dateUtc.slice(0, 10) : f.departureDate.dateLocal.slice(0, 10);
        return identifies && departs === date;
      });
      const body = {
        request: {
          airline: { requestedCode: carrier, fsCode: carrier },
          flight: { requested: flight, interpreted: flight },
          utc: { requested: q.utc ?? 'false', interpreted: useUtc },
          date: { year, month, day, interpreted: date },
        },
        appendix: { airlines: [], airports: [] },
        flightStatuses: matching,
      };
      assertValidFlightStatsResponse(body);
      return response.code(200).send(body);
    },
  );
  const origin = await listen(t, app);

  return {
    baseUrl: origin,
    appId,
    appKey,
    requests,
    addFlights(...added) {
      assertValidFlightStatsResponse({ flightStatuses: added });
      flights.push(...added);
    },
    override(next) {
      if (next && next !== 'hang' && next.status === 200) assertValidFlightStatsResponse(next.body);
      reply = next;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Fixtures

const zones: Record<string, string> = { CDG: 'Europe/Paris', JFK: 'America/New_York', BOS: 'America/New_York' };

/** `{ dateLocal, dateUtc }` for an instant at an airport, as FlightStats writes them. */
export function fsDate(utc: string, airport: string): { dateLocal: string; dateUtc: string } {
  const at = DateTime.fromISO(utc, { zone: 'utc' });
  return {
    dateLocal: at.setZone(zones[airport]!).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS"),
    dateUtc: at.toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"),
  };
}

/**
 * An Air France flight as FlightStats describes it: `times` are UTC instants by operationalTimes
 * key (departure keys at `from`, arrival keys at `to`, or at `divertedTo` for actual arrivals).
 */
export function fsFlight(
  p: {
    flight: string;
    from: string;
    to: string;
    status: string;
    times: Record<string, string>;
    flightId?: number;
    divertedTo?: string;
  },
  extra: Record<string, unknown> = {},
): FsFlight {
  const operationalTimes: Record<string, { dateLocal: string; dateUtc: string }> = {};
  for (const [key, utc] of Object.entries(p.times)) {
    const departure = key.includes('Departure');
    const airport = departure ? p.from : p.divertedTo && key.startsWith('actual') ? p.divertedTo : p.to;
    operationalTimes[key] = fsDate(utc, airport);
  }
  const departure = p.times.publishedDeparture ?? p.times.scheduledGateDeparture!;
  const arrival = p.times.publishedArrival ?? p.times.scheduledGateArrival!;
  return {
    flightId: p.flightId ?? 1_300_000_000 + Number(p.flight),
    carrierFsCode: 'AF',
    flightNumber: p.flight,
    departureAirportFsCode: p.from,
    arrivalAirportFsCode: p.to,
    ...(p.divertedTo ? { divertedAirportFsCode: p.divertedTo } : {}),
    departureDate: fsDate(departure, p.from),
    arrivalDate: fsDate(arrival, p.to),
    status: p.status,
    schedule: { flightType: 'J', serviceClasses: 'RFJY', restrictions: '' },
    operationalTimes,
    codeshares: [{ fsCode: 'DL', flightNumber: String(8000 + Number(p.flight)), relationship: 'L' }],
    flightDurations: { scheduledBlockMinutes: 510 },
    airportResources: { departureTerminal: '2E', departureGate: 'K35', arrivalTerminal: '1' },
    flightEquipment: { scheduledEquipmentIataCode: '77W', actualEquipmentIataCode: '77W', tailNumber: 'F-GSQA' },
    ...extra,
  };
}
