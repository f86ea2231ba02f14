import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import {
  decide,
  ProviderBeyondHistory,
  ProviderError,
  ProviderRejected,
  type FlightQuery,
} from '../../src/monitoring/flight-status.ts';
import {
  AEROAPI_DEFAULT_BASE_URL,
  AEROAPI_HISTORY_DAYS,
  AEROAPI_MAX_PAGES,
  FlightAwareProvider,
  searchWindow,
} from '../../src/monitoring/flightaware.ts';
import { PROVIDER_MAX_BODY_BYTES } from '../../src/monitoring/http.ts';
import {
  aeroFlight,
  assertValidAnswer,
  assertValidFlightsResponse,
  startAeroApiFake,
  type AeroApiFake,
} from './aeroapi-fake.ts';

/**
 * The AeroAPI adapter against a local fake whose every answer validates against FlightAware's
 * OpenAPI document (see aeroapi-fake.ts). The insured leg: AF006 Paris CDG → New York JFK,
 * 2025-06-01 10:30 Paris (08:30Z), scheduled at the gate in New York 13:00 EDT (17:00Z).
 */

const AF6: FlightQuery = { flightNumber: 'AF006', departureDate: '2025-06-01', origin: 'CDG', destination: 'JFK' };
const OUT = '2025-06-01T08:30:00Z';
const IN = '2025-06-01T17:00:00Z';
const at = (iso: string) => new Date(iso);
/** The adapter's clock: the evening of the flights' day (AeroAPI answers on the last 10 days only). */
const TODAY = at('2025-06-01T20:00:00Z');

/** The fake, with the same flight number on the days around (the adapter must pick the right day). */
async function setup(
  t: TestContext,
  options: { timeoutMs?: number; apiKey?: string; pageSize?: number } = {},
): Promise<{ fake: AeroApiFake; provider: FlightAwareProvider }> {
  const fake = await startAeroApiFake(t, options.pageSize ? { pageSize: options.pageSize } : {});
  fake.addFlights(
    aeroFlight(
      { flight: '6', from: 'CDG', to: 'JFK', out: '2025-05-31T08:30:00Z', in: '2025-05-31T17:00:00Z' },
      {
        actual_out: '2025-05-31T08:31:00Z',
        actual_off: '2025-05-31T08:47:00Z',
        actual_on: '2025-05-31T16:41:00Z',
        actual_in: '2025-05-31T16:50:00Z',
        status: 'Arrived / Gate Arrival',
        progress_percent: 100,
      },
    ),
    aeroFlight({ flight: '6', from: 'CDG', to: 'JFK', out: '2025-06-02T08:30:00Z', in: '2025-06-02T17:00:00Z' }),
  );
  const provider = new FlightAwareProvider({
    apiKey: options.apiKey ?? fake.apiKey,
    baseUrl: fake.baseUrl,
    now: () => TODAY,
    timeoutMs: options.timeoutMs ?? 2_000,
  });
  return { fake, provider };
}

describe('FlightAware AeroAPI adapter', () => {
  it('defaults to the real base URL, and asks for the local day at the origin', () => {
    assert.equal(AEROAPI_DEFAULT_BASE_URL, 'https://aeroapi.flightaware.com/aeroapi');
    assert.deepEqual(searchWindow('2025-06-01', 'Europe/Paris'), {
      start: '2025-05-31T22:00:00Z',
      end: '2025-06-01T22:00:00Z',
    });
    assert.deepEqual(searchWindow('2025-03-30', 'Europe/Paris'), {
      start: '2025-03-29T23:00:00Z',
      end: '2025-03-30T22:00:00Z',
    }); // 23-hour day
    assert.throws(() => new FlightAwareProvider({ apiKey: '' }), ProviderRejected);
  });

  it('on time: sends the ICAO ident, x-apikey and the day window; maps the gate times', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        {
          status: 'Arrived / Gate Arrival',
          progress_percent: 100,
          actual_out: '2025-06-01T08:32:00Z',
          actual_off: '2025-06-01T08:50:00Z',
          actual_on: '2025-06-01T16:40:00Z',
          actual_in: '2025-06-01T16:52:30Z',
          arrival_delay: -450,
          gate_destination: 'B22',
        },
      ),
    );

    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    const [request] = fake.requests;
    assert.equal(request!.path, '/aeroapi/flights/AFR6');
    assert.equal(request!.headers['x-apikey'], fake.apiKey);
    assert.deepEqual(request!.query, {
      ident_type: 'designator',
      start: '2025-05-31T22:00:00Z',
      end: '2025-06-01T22:00:00Z',
    });

    assert.equal(status.provider, 'flightaware');
    assert.equal(status.flightNumber, 'AF006', 'the designator as the leg stores it');
    assert.equal(status.departureDate, '2025-06-01');
    assert.equal(status.origin, 'CDG');
    assert.equal(status.destination, 'JFK');
    assert.deepEqual(status.scheduledDeparture, at(OUT));
    assert.deepEqual(status.actualDeparture, at('2025-06-01T08:32:00Z'));
    assert.deepEqual(status.scheduledArrival, at(IN));
    assert.deepEqual(status.actualArrival, at('2025-06-01T16:52:30Z'));
    assert.deepEqual(status.runwayArrival, at('2025-06-01T16:40:00Z'));
    assert.equal(status.cancelled, false);
    assert.equal(status.diverted, false);
    assert.equal(status.final, true);
    assert.equal(status.providerStatus, 'Arrived / Gate Arrival');
    assert.match(status.providerFlightId!, /^AFR6-/);
    assert.ok(status.observedAt instanceof Date);
    assert.equal((status.raw as { flights: { actual_in: string }[] }).flights[0]!.actual_in, '2025-06-01T16:52:30Z');
    assert.deepEqual(decide(status), { kind: 'on_time' });
  });

  it('delayed 3 h 05 min 40 s at the gate → 185 minutes, from the gate times, not the status text nor arrival_delay', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        {
          status: 'Arrived / On Time', // misleading text: must not matter
          arrival_delay: 0, // misleading provider delay: must not matter either
          departure_delay: 10_200,
          progress_percent: 100,
          actual_out: '2025-06-01T11:20:00Z',
          actual_off: '2025-06-01T11:38:00Z',
          actual_on: '2025-06-01T19:55:00Z',
          estimated_in: '2025-06-01T20:05:00Z',
          actual_in: '2025-06-01T20:05:40Z',
        },
      ),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status?.final);
    assert.deepEqual(decide(status), { kind: 'delayed', arrivalDelayMinutes: 185 });
  });

  it('cancelled', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        {
          cancelled: true,
          status: 'Cancelled',
          estimated_out: null,
          estimated_off: null,
          estimated_on: null,
          estimated_in: null,
        },
      ),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.cancelled, true);
    assert.equal(status.final, true);
    assert.deepEqual(decide(status), { kind: 'cancelled' });
  });

  it('"cancelled" (no longer tracked) after take-off is not a cancellation: pending', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        {
          cancelled: true,
          status: 'Result Unknown',
          actual_out: '2025-06-01T08:35:00Z',
          actual_off: '2025-06-01T08:52:00Z',
        },
      ),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.cancelled, false);
    assert.equal(status.final, false);
    assert.equal(decide(status).kind, 'pending');
  });

  it('diverted: the original record and the diversion leg (same fa_flight_id) read as one diverted, landed flight', async (t) => {
    const { fake, provider } = await setup(t);
    const original = aeroFlight(
      { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
      {
        diverted: true,
        status: 'Diverted',
        actual_out: '2025-06-01T08:31:00Z',
        actual_off: '2025-06-01T08:49:00Z',
        estimated_on: null,
        estimated_in: null,
      },
    );
    const diversion = {
      ...original,
      destination: {
        code: 'KBOS',
        code_icao: 'KBOS',
        code_iata: 'BOS',
        code_lid: 'BOS',
        timezone: 'America/New_York',
        name: 'Boston Logan Intl',
        city: 'Boston',
        airport_info_url: '/airports/KBOS',
      },
      status: 'Arrived / Gate Arrival',
      actual_on: '2025-06-01T16:10:00Z',
      actual_in: '2025-06-01T16:24:00Z',
      progress_percent: 100,
    };
    fake.addFlights(original, diversion);
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.diverted, true);
    assert.equal(status.divertedTo, 'BOS');
    assert.equal(status.destination, 'JFK', 'the planned destination stays');
    assert.equal(status.final, true);
    assert.deepEqual(status.runwayArrival, at('2025-06-01T16:10:00Z'));
    assert.equal((status.raw as { flights: unknown[] }).flights.length, 2);
    assert.deepEqual(decide(status), { kind: 'diverted' });
  });

  it('diverted: the original record landed elsewhere, then a continuation leg (same fa_flight_id) from the diversion airport', async (t) => {
    const { fake, provider } = await setup(t);
    const original = aeroFlight(
      { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
      {
        diverted: true,
        status: 'Diverted',
        actual_out: '2025-06-01T08:31:00Z',
        actual_off: '2025-06-01T08:49:00Z',
        actual_on: '2025-06-01T16:10:00Z',
        estimated_on: null,
        estimated_in: null,
      },
    );
    const continuation = {
      ...aeroFlight(
        { flight: '6', from: 'BOS', to: 'JFK', out: '2025-06-01T19:00:00Z', in: '2025-06-01T20:30:00Z' },
        { actual_in: '2025-06-01T20:41:00Z', actual_on: '2025-06-01T20:33:00Z' },
      ),
      fa_flight_id: original.fa_flight_id,
    };
    fake.addFlights(original, continuation);
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.diverted, true);
    assert.equal(status.divertedTo, 'BOS');
    assert.equal(status.final, true);
    assert.equal(status.actualArrival, undefined, 'the continuation’s arrival is not the insured leg’s');
    assert.deepEqual(status.runwayArrival, at('2025-06-01T16:10:00Z'));
    assert.equal((status.raw as { flights: unknown[] }).flights.length, 2);
    assert.deepEqual(decide(status), { kind: 'diverted' });
  });

  it('diverted, still in the air: pending', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'BOS', out: OUT, in: IN },
        {
          diverted: true,
          status: 'En Route / Diverted',
          actual_out: '2025-06-01T08:31:00Z',
          actual_off: '2025-06-01T08:49:00Z',
        },
      ),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.diverted, true);
    assert.equal(status.divertedTo, 'BOS');
    assert.equal(status.final, false);
    assert.deepEqual(decide(status), { kind: 'pending', reason: 'not_final' });
  });

  it('pending: departed, en route', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        {
          status: 'En Route / Delayed',
          progress_percent: 61,
          actual_out: '2025-06-01T09:02:00Z',
          actual_off: '2025-06-01T09:20:00Z',
          estimated_on: '2025-06-01T17:12:00Z',
          estimated_in: '2025-06-01T17:25:00Z',
          arrival_delay: 1500,
        },
      ),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.final, false);
    assert.deepEqual(status.estimatedArrival, at('2025-06-01T17:25:00Z'));
    assert.equal(status.actualArrival, undefined);
    assert.deepEqual(decide(status), { kind: 'pending', reason: 'not_final' });
  });

  it('pending: landed (runway) but not yet at the gate', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        {
          status: 'Landed / Taxiing',
          progress_percent: 100,
          actual_out: '2025-06-01T08:32:00Z',
          actual_off: '2025-06-01T08:50:00Z',
          actual_on: '2025-06-01T19:40:00Z',
        },
      ),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.final, false);
    assert.deepEqual(decide(status), { kind: 'pending', reason: 'awaiting_gate_arrival' });
  });

  it('picks the flight of the local departure date at the origin, not the UTC date', async (t) => {
    const { fake, provider } = await setup(t);
    // AF7 JFK → CDG leaves at 22:30 New York time: 02:30Z the next UTC day
    fake.addFlights(
      aeroFlight(
        { flight: '7', from: 'JFK', to: 'CDG', out: '2025-06-01T02:30:00Z', in: '2025-06-01T09:55:00Z' },
        { actual_in: '2025-06-01T09:50:00Z', actual_on: '2025-06-01T09:40:00Z' },
      ),
      aeroFlight(
        { flight: '7', from: 'JFK', to: 'CDG', out: '2025-06-02T02:30:00Z', in: '2025-06-02T09:55:00Z' },
        { actual_in: '2025-06-02T11:15:00Z', actual_on: '2025-06-02T11:02:00Z' },
      ),
    );
    const status = await provider.fetchStatus({
      flightNumber: 'AF7',
      departureDate: '2025-06-01',
      origin: 'JFK',
      destination: 'CDG',
    });
    assert.ok(status);
    assert.deepEqual(status.scheduledDeparture, at('2025-06-02T02:30:00Z'));
    assert.deepEqual(fake.requests[0]!.query, {
      ident_type: 'designator',
      start: '2025-06-01T04:00:00Z',
      end: '2025-06-02T04:00:00Z',
    });
    assert.deepEqual(decide(status), { kind: 'delayed', arrivalDelayMinutes: 80 });
  });

  it('finds a marketing (codeshare) designator on the operating flight', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        { actual_in: '2025-06-01T17:30:00Z', actual_on: '2025-06-01T17:18:00Z' },
      ),
    );
    const status = await provider.fetchStatus({ ...AF6, flightNumber: 'DL8006' });
    assert.ok(status);
    assert.equal(status.flightNumber, 'DL8006');
    assert.equal(fake.requests[0]!.path, '/aeroapi/flights/DAL8006');
    assert.deepEqual(decide(status), { kind: 'delayed', arrivalDelayMinutes: 30 });
  });

  it('two flights under the designator on the watched day, on two pages: follows links.next, takes the one at the leg’s departure', async (t) => {
    const { fake, provider } = await setup(t, { pageSize: 1 });
    fake.addFlights(
      // ours, 10:30 Paris, 30 min late at the gate
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        { actual_on: '2025-06-01T17:20:00Z', actual_in: '2025-06-01T17:30:00Z' },
      ),
      // a second rotation under the same number, 20:00 Paris the same day, on time; listed first
      // (AeroAPI orders by scheduled_out descending), so on the first page
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: '2025-06-01T18:00:00Z', in: '2025-06-02T02:30:00Z' },
        { actual_on: '2025-06-02T02:10:00Z', actual_in: '2025-06-02T02:20:00Z' },
      ),
    );
    const status = await provider.fetchStatus({ ...AF6, scheduledDeparture: at(OUT) });
    assert.ok(status);
    assert.deepEqual(status.scheduledDeparture, at(OUT), 'the flight at the leg’s departure, from page 2');
    assert.deepEqual(decide(status), { kind: 'delayed', arrivalDelayMinutes: 30 });
    assert.equal(fake.requests.length, 2);
    assert.equal(fake.requests[0]!.query.cursor, undefined);
    assert.equal(fake.requests[1]!.query.cursor, '1', 'the cursor of links.next');
    assert.equal(fake.requests[1]!.query.start, '2025-05-31T22:00:00Z', 'the same window');
  });

  it('pages read at most AEROAPI_MAX_PAGES, the last page ends the reading', async (t) => {
    const { fake, provider } = await setup(t, { pageSize: 1 });
    for (let hour = 0; hour < AEROAPI_MAX_PAGES + 3; hour++) {
      const out = new Date(Date.parse('2025-05-31T22:10:00Z') + hour * 3_600_000).toISOString();
      fake.addFlights(aeroFlight({ flight: '6', from: 'CDG', to: 'JFK', out, in: out }));
    }
    const warnings: { o: object; m: string }[] = [];
    const logged = new FlightAwareProvider({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      now: () => TODAY,
      log: { warn: (o, m) => warnings.push({ o, m }) },
    });
    await logged.fetchStatus(AF6);
    assert.equal(fake.requests.length, AEROAPI_MAX_PAGES);
    assert.equal(warnings.length, 1, 'the pages left unread are reported');
    assert.match(warnings[0]!.m, /AEROAPI_MAX_PAGES/);
    assert.deepEqual(warnings[0]!.o, {
      provider: 'flightaware',
      ident: 'AFR6',
      flight: 'AF006',
      date: AF6.departureDate,
      pages: 5,
    });
    fake.requests.length = 0;
    await provider.fetchStatus({ ...AF6, flightNumber: 'AF1234' });
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      ['/aeroapi/flights/AFR1234', '/aeroapi/flights/AF1234'],
      'no links.next: one request per ident (the ICAO one found nothing: the IATA one once more)',
    );
  });

  it('ident_iata, codeshares_iata, operator_iata and flight_number null: matched on the ICAO ident and codeshares', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        {
          ident_iata: null,
          codeshares_iata: null,
          operator_iata: null,
          flight_number: null,
          actual_on: '2025-06-01T17:55:00Z',
          actual_in: '2025-06-01T18:05:00Z',
        },
      ),
    );
    const operating = await provider.fetchStatus(AF6);
    assert.ok(operating, 'AF006 is AFR6');
    assert.deepEqual(decide(operating), { kind: 'delayed', arrivalDelayMinutes: 65 });
    const marketing = await provider.fetchStatus({ ...AF6, flightNumber: 'DL8006' });
    assert.ok(marketing, 'DL8006 is the codeshare DAL8006');
    assert.equal(marketing.flightNumber, 'DL8006');
    assert.equal(await provider.fetchStatus({ ...AF6, flightNumber: 'DL806' }), undefined, 'DAL806 is not DAL8006');
  });

  it('ident_iata null: matched on operator_iata + flight_number (required fields) before the ICAO ident', async (t) => {
    const { fake } = await setup(t);
    // the airline's ICAO code in the reference data (AFR) is not the one AeroAPI lists it under
    const stale = { ident: 'XAF6', ident_icao: 'XAF6', ident_iata: null, operator: 'XAF', operator_icao: 'XAF' };
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        { ...stale, actual_on: '2025-06-01T17:55:00Z', actual_in: '2025-06-01T18:05:00Z' },
      ),
    );
    const iata = new FlightAwareProvider({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      ident: 'iata',
      now: () => TODAY,
    });
    const status = await iata.fetchStatus(AF6);
    assert.ok(status, 'AF + 6 is AF006, whatever the ICAO ident says');
    assert.deepEqual(decide(status), { kind: 'delayed', arrivalDelayMinutes: 65 });
  });

  it('the ICAO ident finds no flight of ours: asked once more under the IATA ident', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        { ident: 'XAF6', ident_icao: 'XAF6', actual_on: '2025-06-01T17:55:00Z', actual_in: '2025-06-01T18:05:00Z' },
      ),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status, 'found under AF6');
    assert.deepEqual(decide(status), { kind: 'delayed', arrivalDelayMinutes: 65 });
    assert.deepEqual(
      fake.requests.map((r) => [r.path, r.query.ident_type]),
      [
        ['/aeroapi/flights/AFR6', 'designator'],
        ['/aeroapi/flights/AF6', 'designator'],
      ],
    );
    fake.requests.length = 0;
    assert.ok(await provider.fetchStatus({ ...AF6, scheduledDeparture: at(OUT) }));
    assert.equal(fake.requests.length, 2, 'once more only: one extra request');
  });

  it('the airlines whose ICAO code the reference data has wrong are asked under the right one (AZ → ITY), or under the IATA one (U2)', async (t) => {
    const { fake, provider } = await setup(t);
    await provider.fetchStatus({ ...AF6, flightNumber: 'AZ610' });
    await provider.fetchStatus({ ...AF6, flightNumber: 'U2123' });
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      ['/aeroapi/flights/ITY610', '/aeroapi/flights/AZ610', '/aeroapi/flights/U2123'],
    );
  });

  it('a present ident_iata that is not ours is not overridden by a matching ICAO ident', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN },
        { ident_iata: 'KL6', operator_iata: 'KL', codeshares_iata: [], codeshares: [] },
      ),
    );
    assert.equal(await provider.fetchStatus(AF6), undefined, 'AFR6 listed, but its IATA ident says KL6');
  });

  it('a flight the airline retimed (10:30 → 13:30 Paris): found from the leg’s time, the delay counted from its new scheduled arrival', async (t) => {
    // the current behaviour, a product point to confirm (docs/monitoring.md, "A flight retimed by the airline")
    const { fake, provider } = await setup(t);
    fake.addFlights(
      aeroFlight(
        { flight: '6', from: 'CDG', to: 'JFK', out: '2025-06-01T11:30:00Z', in: '2025-06-01T20:00:00Z' },
        { actual_on: '2025-06-01T20:02:00Z', actual_in: '2025-06-01T20:10:00Z' },
      ),
    );
    const status = await provider.fetchStatus({ ...AF6, scheduledDeparture: at(OUT) });
    assert.ok(status);
    assert.deepEqual(status.scheduledArrival, at('2025-06-01T20:00:00Z'), 'the provider’s schedule, not the one sold');
    assert.deepEqual(decide(status), { kind: 'delayed', arrivalDelayMinutes: 10 });
  });

  it('unknown flight: an empty list → undefined', async (t) => {
    const { provider } = await setup(t);
    assert.equal(await provider.fetchStatus({ ...AF6, flightNumber: 'AF1234' }), undefined);
  });

  it('a flight with that number on another route → undefined', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(aeroFlight({ flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN }));
    assert.equal(await provider.fetchStatus({ ...AF6, destination: 'BOS' }), undefined);
  });

  it('500 → retryable ProviderError', async (t) => {
    const { fake, provider } = await setup(t);
    fake.override({
      status: 500,
      body: { title: 'Internal Server Error', reason: 'INTERNAL_ERROR', detail: 'try again', status: 500 },
    });
    await assert.rejects(provider.fetchStatus(AF6), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.equal(error.retryable, true);
      assert.equal(error.kind, 'http');
      assert.equal(error.status, 500);
      assert.equal(error.provider, 'flightaware');
      return true;
    });
  });

  it('Retry-After is read on a 503 (the whole service), not on a 500/502/504/408', async (t) => {
    const { fake, provider } = await setup(t);
    for (const status of [503, 500, 502, 504, 408]) {
      fake.override({
        status,
        headers: { 'retry-after': '120' },
        body: { title: 'Unavailable', reason: 'UNAVAILABLE', detail: 'try again', status },
      });
      await assert.rejects(provider.fetchStatus(AF6), (error: unknown) => {
        assert.ok(error instanceof ProviderError);
        assert.equal(error.status, status);
        assert.equal(error.retryAfterMs, status === 503 ? 120_000 : undefined, `${status}`);
        return true;
      });
    }
  });

  it('429 with Retry-After → retryable ProviderError saying how long to wait', async (t) => {
    const { fake, provider } = await setup(t);
    fake.override({
      status: 429,
      headers: { 'retry-after': '120' },
      body: { title: 'Too Many Requests', reason: 'TOO_MANY_REQUESTS', detail: 'rate limit exceeded', status: 429 },
    });
    await assert.rejects(provider.fetchStatus(AF6), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, 'rate_limited');
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, 120_000);
      return true;
    });
  });

  it('401 (wrong key) → ProviderRejected, not retryable, key not in the message', async (t) => {
    const { fake, provider } = await setup(t, { apiKey: 'not-the-key' });
    await assert.rejects(provider.fetchStatus(AF6), (error: unknown) => {
      assert.ok(error instanceof ProviderRejected);
      assert.equal(error.retryable, false);
      assert.equal(error.status, 401);
      assert.doesNotMatch(error.message, /not-the-key/);
      return true;
    });
    assert.equal(fake.requests[0]!.headers['x-apikey'], 'not-the-key');
  });

  it('timeout: a server that never answers → retryable ProviderError once the configured time has passed', async (t) => {
    const { fake, provider } = await setup(t, { timeoutMs: 200 });
    fake.override('hang');
    const started = Date.now();
    await assert.rejects(provider.fetchStatus(AF6), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, 'timeout');
      return true;
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 150, `took ${elapsed} ms`); // no upper bound: a loaded machine is slow
  });

  it(
    'a 200 whose body comes slowly in chunks and never ends → timeout, bounded by the same timeoutMs',
    { timeout: 5000 },
    async (t) => {
      const { fake, provider } = await setup(t, { timeoutMs: 300 });
      fake.override('trickle');
      await assert.rejects(provider.fetchStatus(AF6), (error: unknown) => {
        assert.ok(error instanceof ProviderError);
        assert.equal(error.kind, 'timeout');
        assert.equal(error.retryable, true);
        assert.doesNotMatch(error.message, new RegExp(fake.apiKey));
        return true;
      });
      assert.equal(fake.requests.length, 1);
    },
  );

  it("the caller's abort is not a provider error", async (t) => {
    const { fake, provider } = await setup(t);
    fake.override('hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    await assert.rejects(provider.fetchStatus(AF6, { signal: controller.signal }), (error: unknown) => {
      assert.ok(!(error instanceof ProviderError));
      assert.equal((error as Error).message, 'shutting down');
      return true;
    });
  });

  it("a flight older than AeroAPI's 10 days of history: not asked, ProviderBeyondHistory (not a rejection)", async (t) => {
    const fake = await startAeroApiFake(t);
    const eleven = at('2025-06-12T20:00:00Z');
    const provider = new FlightAwareProvider({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, now: () => eleven });
    assert.equal(provider.history.days, AEROAPI_HISTORY_DAYS);
    assert.equal(
      provider.history.beyond(AF6, eleven),
      true,
      'no scheduled departure: the CDG day ends 2025-06-01T22:00Z, before 2025-06-02T21:00Z (10 days less an hour)',
    );
    assert.equal(provider.history.beyond({ ...AF6, scheduledDeparture: at(OUT) }, eleven), true);
    assert.equal(provider.history.beyond(AF6, TODAY), false);
    await assert.rejects(
      provider.fetchStatus(AF6),
      (e: unknown) => e instanceof ProviderBeyondHistory && e.historyDays === 10 && /flights event/.test(e.message),
    );
    assert.equal(fake.requests.length, 0, 'the answer is known: no billed call');
  });

  it('a flight whose day began more than 10 days ago but that departed within them: asked from 10 days ago less an hour, found', async (t) => {
    // AF6 departs 2025-06-01T17:00Z; the CDG day began 2025-05-31T22:00Z. Our clock (and AeroAPI's):
    // 2025-06-11T12:00Z — the day began 10 d 14 h ago, the flight departed 9 d 19 h ago
    const now = at('2025-06-11T12:00:00Z');
    const fake = await startAeroApiFake(t, { now: () => now });
    const evening = aeroFlight(
      { flight: '6', from: 'CDG', to: 'JFK', out: '2025-06-01T17:00:00Z', in: '2025-06-02T01:30:00Z' },
      {
        actual_out: '2025-06-01T17:02:00Z',
        actual_off: '2025-06-01T17:20:00Z',
        actual_on: '2025-06-02T01:20:00Z',
        actual_in: '2025-06-02T01:28:00Z',
        status: 'Arrived / Gate Arrival',
        progress_percent: 100,
      },
    );
    fake.addFlights(evening);
    const provider = new FlightAwareProvider({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, now: () => now });
    const query = { ...AF6, scheduledDeparture: at('2025-06-01T17:00:00Z') };
    assert.equal(provider.history.beyond(query, now), false, 'AeroAPI still holds it');
    const status = await provider.fetchStatus(query);
    assert.equal(status?.actualArrival?.toISOString(), '2025-06-02T01:28:00.000Z');
    assert.equal(fake.requests.length, 1);
    assert.equal(fake.requests[0]!.query.start, '2025-06-01T13:00:00Z', 'not the day start: AeroAPI would refuse it');
    assert.equal(fake.requests[0]!.query.end, '2025-06-01T22:00:00Z');
    // an unknown airport (window: the date − 14 h to + 36 h) is judged on its departure too
    const unknownZone = { ...query, origin: 'ZZZ' };
    assert.equal(provider.history.beyond(unknownZone, now), false);
    // once the departure itself is older than the bound: beyond, not asked
    assert.equal(provider.history.beyond(query, at('2025-06-11T16:30:00Z')), true);
  });

  it("AeroAPI's 400 at the edge of its 10 days (its clock ahead of ours) is ProviderBeyondHistory too", async (t) => {
    // our clock: 9 days 22 h after the window's start (within the limit); AeroAPI's: 3 h later (beyond)
    const ours = at('2025-06-10T20:00:00Z');
    const fake = await startAeroApiFake(t, { now: () => at('2025-06-10T23:00:00Z') });
    const provider = new FlightAwareProvider({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, now: () => ours });
    assert.equal(provider.history.beyond(AF6, ours), false);
    await assert.rejects(provider.fetchStatus(AF6), (e: unknown) => e instanceof ProviderBeyondHistory);
    assert.equal(fake.requests.length, 1);
    // any other 400 (a recent flight) stays a rejection: a request of ours AeroAPI refused
    fake.override({
      status: 400,
      body: { title: 'Invalid argument', reason: 'INVALID_ARGUMENT', detail: 'bad ident', status: 400 },
    });
    await assert.rejects(
      provider.fetchStatus({ ...AF6, departureDate: '2025-06-09' }),
      (e: unknown) => e instanceof ProviderRejected && e.status === 400,
    );
  });

  it('a 200 that is not JSON, or has no flights → retryable ProviderError (bad_response)', async (t) => {
    const { fake, provider } = await setup(t);
    fake.override({ status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } });
    await assert.rejects(provider.fetchStatus(AF6), (e: unknown) => e instanceof ProviderError && e.status === 502);
    const bogus = new FlightAwareProvider({
      apiKey: 'k',
      now: () => TODAY,
      fetch: async () =>
        new Response('<html>captive portal</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    });
    await assert.rejects(
      bogus.fetchStatus(AF6),
      (e: unknown) => e instanceof ProviderError && e.kind === 'bad_response',
    );
  });

  it('a 200 whose body runs past PROVIDER_MAX_BODY_BYTES → retryable ProviderError (bad_response), the rest unread', async () => {
    let chunks = 0;
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          chunks++;
          controller.enqueue(new TextEncoder().encode(chunks === 1 ? '{"flights":[' : ' '.repeat(65_536)));
        },
      });
    const provider = new FlightAwareProvider({
      apiKey: 'k',
      now: () => TODAY,
      fetch: async () => new Response(endless(), { status: 200, headers: { 'content-type': 'application/json' } }),
    });
    await assert.rejects(
      provider.fetchStatus(AF6),
      (e: unknown) => e instanceof ProviderError && e.kind === 'bad_response' && /longer than/.test(e.message),
    );
    assert.ok(chunks <= PROVIDER_MAX_BODY_BYTES / 65_536 + 3, `${chunks} chunks read`);
  });

  it('network error (nothing listening) → retryable ProviderError', async () => {
    const provider = new FlightAwareProvider({
      apiKey: 'k',
      baseUrl: 'http://127.0.0.1:9/aeroapi',
      timeoutMs: 60_000,
      now: () => TODAY,
    });
    await assert.rejects(provider.fetchStatus(AF6), (e: unknown) => e instanceof ProviderError && e.kind === 'network');
  });

  it('the fake checks requests against the document: bad parameters → 400, no key → 401', async (t) => {
    const { fake } = await setup(t);
    const get = (query: string, key: string | null = fake.apiKey) =>
      fetch(`${fake.baseUrl}/flights/AFR6?${query}`, { headers: key ? { 'x-apikey': key } : {} });
    assert.equal((await get('ident_type=designator&start=2025-06-01&end=2025-06-02')).status, 200);
    assert.equal((await get('ident_type=designator&start=2025-06-01&end=2025-06-02', null)).status, 401);
    assert.equal((await get('ident_type=flight&start=2025-06-01&end=2025-06-02')).status, 400);
    assert.equal((await get('start=1 June 2025&end=2025-06-02')).status, 400);
    assert.equal((await get('start=2025-06-02&end=2025-06-01')).status, 400);
    assert.equal((await get('date=2025-06-01')).status, 400);
    // an fa_flight_id is found as one, never as a designator
    const [flight] = (await (await get('ident_type=designator&start=2025-05-31&end=2025-06-01')).json()).flights;
    const byId = (type: string) =>
      fetch(`${fake.baseUrl}/flights/${flight.fa_flight_id}?ident_type=${type}`, {
        headers: { 'x-apikey': fake.apiKey },
      }).then(async (r) => ((await r.json()) as { flights: unknown[] }).flights.length);
    assert.equal(await byId('fa_flight_id'), 1);
    assert.equal(await byId('designator'), 0);
  });

  it("every error answer the fake gives is the document's Error, its status the answer's; a text page only on a 200 or a 5xx", async (t) => {
    const { fake } = await setup(t);
    const error = (status: number) => ({
      title: 'Too Many Requests',
      reason: 'TOO_MANY_REQUESTS',
      detail: 'slow down',
      status,
    });
    assert.doesNotThrow(() => assertValidAnswer({ status: 429, body: error(429) }));
    assert.doesNotThrow(() => assertValidAnswer({ status: 502, body: '<html>Bad gateway</html>' }));
    assert.throws(() => fake.override({ status: 429, body: error(500) }), /body status 500, answered 429/);
    assert.throws(() => fake.override({ status: 404, body: { title: 'Not found', status: 404 } }), /does not match/);
    assert.throws(() => fake.override({ status: 401, body: 'Unauthorized' }), /not a text body/);
    assert.throws(() => fake.override({ status: 200, body: { flights: [{ ident: 'AFR6' }] } }), /does not match/);
  });

  it('the fixtures cannot drift: a misspelt or mistyped field fails the OpenAPI schema', () => {
    const good = aeroFlight({ flight: '6', from: 'CDG', to: 'JFK', out: OUT, in: IN });
    assertValidFlightsResponse({ links: null, num_pages: 1, flights: [good] });
    assert.throws(
      () =>
        assertValidFlightsResponse({
          links: null,
          num_pages: 1,
          flights: [{ ...good, actual_arrival: '2025-06-01T17:00:00Z' }],
        }),
      /does not match/,
    );
    assert.throws(
      () => assertValidFlightsResponse({ links: null, num_pages: 1, flights: [{ ...good, arrival_delay: '185' }] }),
      /does not match/,
    );
    assert.throws(
      () => assertValidFlightsResponse({ links: null, num_pages: 1, flights: [{ ...good, actual_in: 'yesterday' }] }),
      /does not match/,
    );
    const { cancelled: _, ...missing } = good;
    assert.throws(
      () => assertValidFlightsResponse({ links: null, num_pages: 1, flights: [missing] }),
      /does not match/,
    );
  });
});
