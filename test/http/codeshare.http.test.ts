import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { planWatches } from '../../src/monitoring/plan-watches.ts';
import {
  buildTestApp,
  consent,
  createTestPartner,
  CUSTOMER,
  eventually,
  FLIGHT,
  post,
  trip,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { Receiver } from '../webhooks/receiver.ts';

/**
 * Codeshares (docs/monitoring.md#codeshares): a leg sold as AF3612 and operated as DL264 is priced,
 * watched and claimed as DL264; the partner and the customer are shown AF3612.
 */
describe('codeshares: the marketing flight shown, the operating flight monitored', () => {
  let t: TestApp;
  let a: TestPartner;
  let receiver: Receiver;
  const hookPath = `/codeshare/${process.pid}`;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    a = await createTestPartner(t.db);
    receiver = await Receiver.start();
    const endpoint = await post(
      t.app,
      `${FLIGHT}/webhooks/endpoints`,
      { url: receiver.url(hookPath), eventTypes: ['contract.created', 'contract.changed', 'claim.opened'] },
      a.auth,
    );
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    receiver.secret(hookPath, endpoint.body.secret);
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });
  /** The data of the webhook event of this type whose data matches, once delivered. */
  const webhook = (type: string, match: (data: Record<string, unknown>) => boolean) =>
    eventually(async () => {
      const found = receiver.received(hookPath).find((r) => r.payload?.type === type && match(r.payload.data));
      return found?.payload?.data as Record<string, unknown> | undefined;
    });

  /**
   * A contract's flights as its webhooks carry them: every field GET /contracts/{n} gives a flight but
   * its live flightStatus, operatingFlightNumber only on a codeshare leg (absent, never null, otherwise:
   * as in the claim.* events, docs/webhooks.md).
   */
  const webhookFlightsOf = async (contractNumber: string): Promise<Record<string, unknown>[]> => {
    const read = await t.app.inject({ method: 'GET', url: `${FLIGHT}/contracts/${contractNumber}`, headers: a.auth });
    assert.equal(read.statusCode, 200, read.body);
    return (read.json().flights as Record<string, unknown>[]).map(
      ({ flightStatus: _live, operatingFlightNumber, ...flight }) => ({
        ...flight,
        ...(operatingFlightNumber === null ? {} : { operatingFlightNumber }),
      }),
    );
  };

  let seq = 100;
  /** A fresh codeshare pair: marketed by AF, operated by DL. */
  const pair = () => {
    seq += 1;
    return { marketing: `AF3${seq}`, operating: `DL2${seq}` };
  };

  async function quoteAndSubscribe(
    flights: { marketing: string; operating: string },
    options: { quoteOperating?: boolean; days?: number; passengers?: number } = {},
  ) {
    const body = trip(options.days ?? 12, { additionalPassengers: (options.passengers ?? 1) - 1 });
    const quote = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      {
        ...body,
        flightNumber: flights.marketing,
        ...(options.quoteOperating === false ? {} : { operatingFlightNumber: flights.operating }),
      },
      a.auth,
    );
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const res = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: { ...CUSTOMER, language: 'en' },
        booking: { reference: 'CODE01' },
        consent: consent(quote.body.documents.version),
        flights: [
          {
            flightNumber: flights.marketing,
            operatingFlightNumber: flights.operating,
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: body.departureDateTime,
          },
        ],
      },
      a.auth,
    );
    return { quote, res, departureDate: body.departureDateTime.slice(0, 10) };
  }

  it('quotes the operating flight, subscribes the codeshare and shows both on the contract', async () => {
    const flights = pair();
    const { quote, res } = await quoteAndSubscribe(flights);
    assert.equal(quote.body.breakdown[0].flightNumber, flights.operating, 'priced as the flight that flies');
    assert.equal(quote.body.legs[0].airline, 'AF', 'the trip is still the marketing airline’s');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.flights[0].flightNumber, flights.marketing);
    assert.equal(res.body.flights[0].operatingFlightNumber, flights.operating);

    const read = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/contracts/${res.body.contractNumber}`,
      headers: a.auth,
    });
    assert.equal(read.statusCode, 200, read.body);
    const [leg] = read.json().flights;
    assert.equal(leg.flightNumber, flights.marketing);
    assert.equal(leg.operatingFlightNumber, flights.operating);
    assert.equal(leg.flightStatus.state, 'scheduled');

    // the exposure counts on the operating carrier: one aircraft, one risk
    const exposure = await t.db
      .selectFrom('flight_exposure')
      .select('airline')
      .where('environment', '=', 'sandbox')
      .where('departure_local', '=', leg.departureDateTime)
      .execute();
    assert.ok(
      exposure.some((e) => e.airline === 'DL'),
      JSON.stringify(exposure),
    );
  });

  it('a partial cancellation shows the operating flight of the legs that stay, and so do the versions', async () => {
    const flights = pair();
    const { res } = await quoteAndSubscribe(flights, { passengers: 2 });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const number = res.body.contractNumber as string;
    const url = `${FLIGHT}/contracts/${number}/partial-cancellation`;
    const body = { passengers: 1, reason: 'customer_request', contractVersion: 1 };
    for (const [what, answer] of [
      ['preview', await post(t.app, `${url}/preview`, body, a.auth)],
      ['cancellation', await post(t.app, url, body, a.auth)],
    ] as const) {
      assert.equal(answer.status, 200, `${what}: ${JSON.stringify(answer.body)}`);
      assert.deepEqual(
        answer.body.flights.map((f: { flightNumber: string; operatingFlightNumber: string | null }) => [
          f.flightNumber,
          f.operatingFlightNumber,
        ]),
        [[flights.marketing, flights.operating]],
        `${what}: the leg that stays, with the flight that flies it`,
      );
    }
    const read = await t.app.inject({ method: 'GET', url: `${FLIGHT}/contracts/${number}`, headers: a.auth });
    assert.equal(read.statusCode, 200, read.body);
    const versions = read.json().versions as { version: number; flights: { operatingFlightNumber: string | null }[] }[];
    assert.deepEqual(
      versions.map((v) => [v.version, v.flights[0]?.operatingFlightNumber]),
      [
        [1, flights.operating],
        [2, flights.operating],
      ],
      'each version shows the operating flight of its leg',
    );
    const changed = await webhook('contract.changed', (d) => d.contractNumber === number);
    assert.deepEqual(changed.flights, await webhookFlightsOf(number), 'the flights of GET /contracts/{n}');
    assert.equal(
      (changed.flights as { operatingFlightNumber?: string }[])[0]!.operatingFlightNumber,
      flights.operating,
    );
  });

  it('quotes and subscribes a codeshare return', async () => {
    const body = trip(17, { returnTrip: true });
    const quote = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...body, flightNumber: 'AF006', returnFlightNumber: 'AF3613', returnOperatingFlightNumber: 'DL265' },
      a.auth,
    );
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    assert.deepEqual(
      quote.body.breakdown.map((b: { flightNumber: string }) => b.flightNumber),
      ['AF006', 'DL265'],
    );
    const res = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: CUSTOMER,
        booking: { reference: 'CODE04' },
        consent: consent(quote.body.documents.version),
        flights: [
          {
            flightNumber: 'AF006',
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: body.departureDateTime,
          },
          {
            flightNumber: 'AF3613',
            operatingFlightNumber: 'DL265',
            departureAirport: 'JFK',
            arrivalAirport: 'CDG',
            departureDateTime: body.returnDepartureDateTime,
          },
        ],
      },
      a.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.flights.map((f: { flightNumber: string; operatingFlightNumber: string | null }) => [
        f.flightNumber,
        f.operatingFlightNumber,
      ]),
      [
        ['AF006', null],
        ['AF3613', 'DL265'],
      ],
    );
    const number = res.body.contractNumber as string;
    const created = await webhook('contract.created', (d) => d.contractNumber === number);
    const expected = await webhookFlightsOf(number);
    assert.deepEqual(created.flights, expected, 'the flights of GET /contracts/{n}, each leg with its fields');
    assert.deepEqual(
      expected.map((f) => [f.flightNumber, f.operatingFlightNumber]),
      [
        ['AF006', undefined],
        ['AF3613', 'DL265'],
      ],
    );
  });

  it('a leg flying under its own number has no operating flight', async () => {
    const body = trip(13);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, { ...body, flightNumber: 'AF006' }, a.auth);
    const res = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: CUSTOMER,
        booking: { reference: 'OWN001' },
        consent: consent(quote.body.documents.version),
        flights: [
          // naming the marketing flight itself as operating is the same as naming none
          {
            flightNumber: 'AF006',
            operatingFlightNumber: 'af 006',
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: body.departureDateTime,
          },
        ],
      },
      a.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.flights[0].operatingFlightNumber, null);
  });

  it('watches the operating flight; its cancellation opens the claim, which shows the booked flight', async () => {
    const flights = pair();
    const { res, departureDate } = await quoteAndSubscribe(flights);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const contractNumber = res.body.contractNumber as string;

    const departure = new Date(res.body.flights[0].departureAt as string);
    await planWatches({ db: t.db, now: () => new Date(departure.getTime() - 24 * 3_600_000) });
    const watches = await t.db
      .selectFrom('flight_watches')
      .select('flight_number')
      .where('environment', '=', 'sandbox')
      .where('departure_date', '=', departureDate)
      .where('flight_number', 'in', [flights.marketing, flights.operating])
      .execute();
    assert.deepEqual(
      watches.map((w) => w.flight_number),
      [flights.operating],
      'one watch, on the flight that flies',
    );

    const unrelated = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'DL9999', departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(unrelated.status, 200, JSON.stringify(unrelated.body));
    assert.deepEqual(unrelated.body.claimsOpened, [], 'an unrelated flight opens nothing');
    const marketing = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: flights.marketing, departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.deepEqual(marketing.body.claimsOpened, [], 'the marketing number does not fly: it opens nothing');

    const reported = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: flights.operating, departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(reported.status, 200, JSON.stringify(reported.body));
    assert.equal(reported.body.claimsOpened.length, 1);
    const [claim] = reported.body.claimsOpened;
    assert.equal(claim.contractNumber, contractNumber);
    assert.equal(claim.flightNumber, flights.marketing, 'the claim shows the flight the customer booked');
    assert.equal(claim.operatingFlightNumber, flights.operating);

    const read = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/claims/${claim.claimNumber}`,
      headers: a.auth,
    });
    assert.equal(read.statusCode, 200, read.body);
    assert.equal(read.json().flightNumber, flights.marketing);
    assert.equal(read.json().operatingFlightNumber, flights.operating);

    const [message] = await eventually(async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
        headers: a.auth,
      });
      const messages = res.json().messages as { body: string }[];
      return messages.length > 0 ? messages : undefined;
    });
    assert.ok(message!.body.includes(flights.marketing), message!.body);
    assert.ok(!message!.body.includes(flights.operating), 'the SMS names the booked flight only');

    const opened = await webhook('claim.opened', (d) => d.claimNumber === claim.claimNumber);
    assert.equal(opened.flightNumber, flights.marketing);
    assert.equal(opened.operatingFlightNumber, flights.operating);
    const created = await webhook('contract.created', (d) => d.contractNumber === contractNumber);
    const [flight] = created.flights as { flightNumber: string; operatingFlightNumber?: string; airline: string }[];
    assert.equal(flight!.flightNumber, flights.marketing);
    assert.equal(flight!.operatingFlightNumber, flights.operating);
    assert.equal(flight!.airline, 'AF');
  });

  it('subscribes an operating flight the quote did not name; a quoted one must be repeated', async () => {
    const free = pair();
    const unquoted = await quoteAndSubscribe(free, { quoteOperating: false, days: 14 });
    assert.equal(unquoted.res.status, 201, JSON.stringify(unquoted.res.body));
    assert.equal(unquoted.res.body.flights[0].operatingFlightNumber, free.operating);

    const quoted = pair();
    const body = trip(15);
    const quote = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...body, flightNumber: quoted.marketing, operatingFlightNumber: quoted.operating },
      a.auth,
    );
    const other = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: CUSTOMER,
        booking: { reference: 'CODE02' },
        consent: consent(quote.body.documents.version),
        flights: [
          {
            flightNumber: quoted.marketing,
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: body.departureDateTime,
          },
        ],
      },
      a.auth,
    );
    assert.equal(other.status, 422, JSON.stringify(other.body));
    assert.equal(other.body.code, 'flights_mismatch');
    assert.deepEqual(
      other.body.errors.map((e: { field: string }) => e.field),
      ['/flights/0/operatingFlightNumber'],
    );
  });

  it('refuses bad operating designators with 422', async () => {
    const body = trip(16);
    const malformed = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...body, flightNumber: 'AF3612', operatingFlightNumber: 'DL-264' },
      a.auth,
    );
    assert.equal(malformed.status, 422, JSON.stringify(malformed.body));
    assert.equal(malformed.body.code, 'validation_failed');

    const unknownAirline = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...body, flightNumber: 'AF3612', operatingFlightNumber: '9Z264' },
      a.auth,
    );
    assert.equal(unknownAirline.status, 422, JSON.stringify(unknownAirline.body));
    assert.equal(unknownAirline.body.code, 'unknown_airline');
    assert.deepEqual(
      unknownAirline.body.errors.map((e: { field: string }) => e.field),
      ['/operatingFlightNumber'],
    );

    const withoutMarketing = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...body, operatingFlightNumber: 'DL264' },
      a.auth,
    );
    assert.equal(withoutMarketing.status, 422, JSON.stringify(withoutMarketing.body));
    assert.deepEqual(
      withoutMarketing.body.errors.map((e: { field: string }) => e.field),
      ['/operatingFlightNumber'],
    );

    const quote = await post(t.app, `${FLIGHT}/getPrice`, body, a.auth);
    const subscribe = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: CUSTOMER,
        booking: { reference: 'CODE03' },
        consent: consent(quote.body.documents.version),
        flights: [
          {
            flightNumber: 'AF3612',
            operatingFlightNumber: '9Z264',
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: body.departureDateTime,
          },
        ],
      },
      a.auth,
    );
    assert.equal(subscribe.status, 422, JSON.stringify(subscribe.body));
    assert.equal(subscribe.body.code, 'unknown_airline');
    assert.deepEqual(
      subscribe.body.errors.map((e: { field: string }) => e.field),
      ['/flights/0/operatingFlightNumber'],
    );
  });
});
