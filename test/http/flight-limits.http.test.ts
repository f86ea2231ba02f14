import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setCap } from '../../src/limits/exposure.ts';
import { findExposure } from '../../src/limits/limits-repo.ts';
import { resumeSales, suspendSales } from '../../src/limits/stop-sales.ts';
import type { Environment } from '../../src/platform/db-schema.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  post,
  subscription,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * Limits on accumulation over HTTP (docs/limits.md). The partners of this file sell in CHF, a
 * currency no other test file uses, so the caps set here touch no other test; every test flies its
 * own flight (a random minute some months ahead), so exposure left by earlier runs on a shared
 * PostgreSQL never counts.
 */

const CURRENCY = 'CHF';
/** DEFAULT_CONFIGURATION's highest payout per passenger per leg: the cancellation amount. */
const PER_PASSENGER = 15_000;

const used = new Set<string>();
/** A departure nobody else quotes: a random local minute 60–300 days ahead. */
function uniqueDeparture(): string {
  for (;;) {
    const days = 60 + crypto.randomInt(240);
    const d = new Date(Date.now() + days * 86_400_000);
    const local = `${d.toISOString().slice(0, 10)}T${String(crypto.randomInt(6, 22)).padStart(2, '0')}:${String(crypto.randomInt(60)).padStart(2, '0')}`;
    if (!used.has(local)) {
      used.add(local);
      return local;
    }
  }
}

function flight(options: { passengers?: number; returnAt?: string } = {}) {
  return {
    departureAirport: 'CDG',
    arrivalAirport: 'JFK',
    airline: 'AF',
    departureDateTime: uniqueDeparture(),
    ...(options.returnAt ? { returnDepartureDateTime: options.returnAt } : {}),
    ...(options.passengers && options.passengers > 1 ? { additionalPassengers: options.passengers - 1 } : {}),
  };
}

type Trip = ReturnType<typeof flight>;
const keyOf = (environment: Environment, t: Trip, leg = 0) =>
  leg === 0
    ? {
        environment,
        currency: CURRENCY,
        airline: 'AF',
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        departureLocal: t.departureDateTime,
      }
    : {
        environment,
        currency: CURRENCY,
        airline: 'AF',
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        departureLocal: t.returnDepartureDateTime!,
      };

describe('Flight Delay API — limits on accumulation', () => {
  let t: TestApp;
  let partner: TestPartner;
  before(async () => {
    t = await buildTestApp();
    partner = await createTestPartner(t.db, { agreement: { currency: CURRENCY } });
    // 6 single-passenger contracts fit one flight (90,000), the 7th would make 105,000
    await setCap(t.db, 'operator:test', { environment: 'sandbox', currency: CURRENCY, amount: 100_000 });
    await t.app.parasol.limits.refresh();
  });
  after(() => t.close());

  const quote = (body: Trip, who = partner) => post(t.app, `${FLIGHT}/getPrice`, body, who.auth);
  const subscribe = (q: { quoteReference: string }, body: Trip, who = partner, headers: Record<string, string> = {}) =>
    post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body as never), { ...who.auth, ...headers });
  async function quoteAndSubscribe(body: Trip, who = partner) {
    const q = await quote(body, who);
    assert.equal(q.status, 200, JSON.stringify(q.body));
    return subscribe(q.body, body, who);
  }

  it('adds each subscribed leg’s highest payout × passengers to its flight, and refuses the quote and the subscription that would pass the cap', async () => {
    const body = flight();
    const early = await quote(body); // quoted while the flight still has room
    assert.equal(early.status, 200);
    for (let i = 0; i < 6; i++) assert.equal((await quoteAndSubscribe(body)).status, 201);
    assert.equal((await findExposure(t.db, keyOf('sandbox', body)))?.amount, 6 * PER_PASSENGER);

    const refused = await quote(body);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'capacity_exceeded');
    assert.match(refused.body.detail, /AF CDG→JFK/);
    assert.match(refused.headers['content-type'] as string, /application\/problem\+json/);
    assert.doesNotMatch(refused.body.detail, /90[, ]?000|100[, ]?000/, 'no other partner’s volume in the detail');

    const late = await subscribe(early.body, body);
    assert.equal(late.status, 409, 'the subscribe transaction is the authority');
    assert.equal(late.body.code, 'capacity_exceeded');
    assert.deepEqual(late.body.errors, [
      { field: '/flights/0', code: 'invalid', message: 'not enough capacity left on this flight for this quote' },
    ]);
    assert.equal(
      (await findExposure(t.db, keyOf('sandbox', body)))?.amount,
      6 * PER_PASSENGER,
      'a refused subscription adds nothing',
    );
  });

  it('counts passengers: a quote for more passengers than the flight has room for is refused, a smaller one is not', async () => {
    const body = flight({ passengers: 5 });
    assert.equal((await quoteAndSubscribe(body)).status, 201); // 75,000 of 100,000
    const two = await quote({ ...body, additionalPassengers: 1 });
    assert.equal(two.status, 409);
    assert.equal(two.body.code, 'capacity_exceeded');
    assert.match(two.body.detail, /what is left of its capacity \(CHF\) is less than the most they could be paid/);
    assert.doesNotMatch(two.body.detail, /fewer/, 'true whatever the passengers: one cannot be fewer');
    const { additionalPassengers: _, ...single } = body;
    assert.equal((await quoteAndSubscribe(single as Trip)).status, 201);
    assert.equal((await findExposure(t.db, keyOf('sandbox', body)))?.amount, 6 * PER_PASSENGER);
  });

  it('a cancellation gives the capacity back', async () => {
    const body = flight({ passengers: 6 });
    const contract = await quoteAndSubscribe(body);
    assert.equal(contract.status, 201);
    const { additionalPassengers: _, ...single } = body;
    assert.equal((await quote(single as Trip)).body.code, 'capacity_exceeded');
    const cancelled = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: contract.body.contractNumber, reason: 'customer_request' },
      partner.auth,
    );
    assert.equal(cancelled.status, 200);
    assert.equal((await findExposure(t.db, keyOf('sandbox', body)))?.amount, 0);
    assert.equal((await quote(single as Trip)).status, 200);
    // cancelling again (same answer) releases nothing twice
    assert.equal(
      (
        await post(
          t.app,
          `${FLIGHT}/cancel`,
          { contractNumber: contract.body.contractNumber, reason: 'customer_request' },
          partner.auth,
        )
      ).status,
      200,
    );
    assert.equal((await findExposure(t.db, keyOf('sandbox', body)))?.amount, 0);
  });

  it('a partial cancellation gives back its passengers’ capacity, or its leg’s, at once; the legs counted are the legs insured', async () => {
    const outboundAt = uniqueDeparture();
    const returnAt = `${new Date(Date.parse(`${outboundAt.slice(0, 10)}T00:00Z`) + 3 * 86_400_000).toISOString().slice(0, 10)}${outboundAt.slice(10)}`;
    const body = { ...flight({ passengers: 5, returnAt }), departureDateTime: outboundAt };
    const contract = await quoteAndSubscribe(body);
    assert.equal(contract.status, 201, JSON.stringify(contract.body));
    const { additionalPassengers: _, ...single } = body;
    assert.equal((await quoteAndSubscribe(single as Trip)).status, 201); // 90,000 of 100,000 on each flight
    assert.equal((await quote(single as Trip)).body.code, 'capacity_exceeded');
    const cancelPart = (request: object) =>
      post(t.app, `${FLIGHT}/contracts/${contract.body.contractNumber}/partial-cancellation`, request, partner.auth);

    const passengers = await cancelPart({ passengers: 2, reason: 'customer_request' });
    assert.equal(passengers.status, 200, JSON.stringify(passengers.body));
    for (const leg of [0, 1]) {
      const row = await findExposure(t.db, keyOf('sandbox', body, leg));
      assert.equal(row?.amount, 4 * PER_PASSENGER, `leg ${leg}: 3 + 1 passengers left`);
      assert.equal(row?.legs, 2, `leg ${leg}: both contracts still insure it`);
    }
    // this process's quotes see the room at once, as after a full cancellation
    assert.equal((await quote(single as Trip)).status, 200);

    const leg = await cancelPart({ leg: 1, reason: 'customer_request' });
    assert.equal(leg.status, 200, JSON.stringify(leg.body));
    const back = await findExposure(t.db, keyOf('sandbox', body, 1));
    assert.equal(back?.amount, PER_PASSENGER, 'the return keeps the other contract’s passenger');
    assert.equal(back?.legs, 1);
    assert.equal((await findExposure(t.db, keyOf('sandbox', body, 0)))?.legs, 2, 'the outbound is untouched');
  });

  it('an idempotent replay of an accepted subscription adds no exposure', async () => {
    const body = flight({ passengers: 2 });
    const q = await quote(body);
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await subscribe(q.body, body, partner, headers);
    const replay = await subscribe(q.body, body, partner, headers);
    assert.equal(first.status, 201);
    assert.equal(replay.status, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal((await findExposure(t.db, keyOf('sandbox', body)))?.amount, 2 * PER_PASSENGER);
  });

  it('a return trip whose return flight is full is refused as a whole: the outbound adds nothing', async () => {
    const outboundAt = uniqueDeparture();
    const d = new Date(`${outboundAt.slice(0, 10)}T00:00Z`);
    const returnAt = `${new Date(d.getTime() + 3 * 86_400_000).toISOString().slice(0, 10)}${outboundAt.slice(10)}`;
    // fill the JFK→CDG flight the return will take
    const full = {
      departureAirport: 'JFK',
      arrivalAirport: 'CDG',
      airline: 'AF',
      departureDateTime: returnAt,
      additionalPassengers: 5,
    };
    const body = {
      departureAirport: 'CDG',
      arrivalAirport: 'JFK',
      airline: 'AF',
      departureDateTime: outboundAt,
      returnDepartureDateTime: returnAt,
    };
    const early = await quote(body as Trip);
    assert.equal(early.status, 200);
    const q = await quote(full as Trip);
    assert.equal(
      (
        await post(
          t.app,
          `${FLIGHT}/subscribe`,
          {
            ...subscription(q.body.quoteReference, full as never),
            flights: [
              {
                flightNumber: 'AF007',
                departureAirport: 'JFK',
                arrivalAirport: 'CDG',
                departureDateTime: full.departureDateTime,
              },
            ],
          },
          partner.auth,
        )
      ).status,
      201,
    );

    const refusedQuote = await quote(body as Trip);
    assert.equal(refusedQuote.body.code, 'capacity_exceeded');
    assert.deepEqual(refusedQuote.body.errors, [
      {
        field: '/returnDepartureDateTime',
        code: 'invalid',
        message: 'not enough capacity left on this flight for this quote',
      },
    ]);
    const refused = await subscribe(early.body, body as Trip);
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body.errors, [
      { field: '/flights/1', code: 'invalid', message: 'not enough capacity left on this flight for this quote' },
    ]);
    assert.match(refused.body.detail, /AF JFK→CDG/);
    assert.equal(
      await findExposure(t.db, keyOf('sandbox', body as Trip)),
      undefined,
      'the outbound’s reservation rolled back',
    );
  });

  it('caps are per environment: a production partner is not limited by sandbox contracts', async () => {
    const body = flight({ passengers: 6 });
    assert.equal((await quoteAndSubscribe(body)).status, 201);
    const production = await createTestPartner(t.db, { environment: 'production', agreement: { currency: CURRENCY } });
    const { additionalPassengers: _, ...single } = body;
    assert.equal((await quote(single as Trip)).body.code, 'capacity_exceeded');
    assert.equal((await quote(single as Trip, production)).status, 200);
  });

  it('when the operator suspends sales, quotes and subscriptions of the legs covered answer 409 sales_suspended until sales resume', async () => {
    const body = flight();
    const departure = new Date((await quote(body)).body.legs[0].departureAt);
    const early = await quote(body);
    const stop = await suspendSales(
      t.db,
      'operator:test',
      {
        environment: 'sandbox',
        airline: 'AF',
        startsAt: new Date(departure.getTime() - 60_000).toISOString(),
        endsAt: new Date(departure.getTime() + 60_000).toISOString(),
        reason: 'strike',
      },
      new Date(),
    );
    // the subscribe transaction reads the stop-sales itself, whatever the snapshot says
    const refused = await subscribe(early.body, body);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'sales_suspended');
    assert.match(refused.body.detail, /strike/);
    assert.deepEqual(
      refused.body.errors,
      [{ field: '/flights/0', code: 'invalid', message: 'sales are suspended for this flight' }],
      'the leg as /subscribe names it',
    );
    await t.app.parasol.limits.refresh(); // what the timer does within 2 s
    const quoteRefused = await quote(body);
    assert.equal(quoteRefused.status, 409);
    assert.equal(quoteRefused.body.code, 'sales_suspended');
    assert.equal(quoteRefused.body.errors[0].field, '/departureDateTime', 'the leg as /getPrice names it');
    // another departure of the same airline, outside the period, and another environment, still sell
    const later = {
      ...body,
      departureDateTime: `${body.departureDateTime.slice(0, 11)}${body.departureDateTime.slice(11, 13) === '21' ? '05' : '22'}:00`,
    };
    assert.equal((await quote(later)).status, 200);
    const production = await createTestPartner(t.db, { environment: 'production', agreement: { currency: CURRENCY } });
    assert.equal((await quote(body, production)).status, 200);

    await resumeSales(t.db, 'operator:test', stop.id, new Date());
    await t.app.parasol.limits.refresh();
    assert.equal((await quoteAndSubscribe(body)).status, 201);
    const audit = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('entity', '=', 'stop_sale')
      .where('entity_id', '=', stop.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audit.map((a) => a.action),
      ['created', 'resumed'],
    );
  });

  it('a resumed stop-sale suspended again with the same scope, period and reason is a new stop-sale, enforced', async () => {
    const body = flight();
    const q = await quote(body);
    assert.equal(q.status, 200, JSON.stringify(q.body));
    const departure = new Date(q.body.legs[0].departureAt);
    const input = {
      environment: 'sandbox',
      airline: 'AF',
      departureAirport: 'CDG',
      arrivalAirport: 'JFK',
      startsAt: new Date(departure.getTime() - 60_000).toISOString(),
      endsAt: new Date(departure.getTime() + 60_000).toISOString(),
      reason: 'strike, again',
    };
    const first = await suspendSales(t.db, 'operator:test', input, new Date());
    await resumeSales(t.db, 'operator:test', first.id, new Date());
    const second = await suspendSales(t.db, 'operator:test', input, new Date());
    assert.notEqual(second.id, first.id, 'the resumed one is history: suspending again makes a new stop-sale');
    assert.equal(second.resumedAt, null);
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['entity_id', 'action'])
      .where('entity', '=', 'stop_sale')
      .where('entity_id', 'in', [first.id, second.id])
      .orderBy('id')
      .execute();
    assert.deepEqual(audit, [
      { entity_id: first.id, action: 'created' },
      { entity_id: first.id, action: 'resumed' },
      { entity_id: second.id, action: 'created' },
    ]);
    const refused = await subscribe(q.body, body);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'sales_suspended');
    await resumeSales(t.db, 'operator:test', second.id, new Date());
  });

  it('a stop-sale on the return leg’s route only refuses the subscription at that leg (/flights/1)', async () => {
    const outboundAt = uniqueDeparture();
    const d = new Date(`${outboundAt.slice(0, 10)}T00:00Z`);
    const returnAt = `${new Date(d.getTime() + 2 * 86_400_000).toISOString().slice(0, 10)}${outboundAt.slice(10)}`;
    const body = { ...flight(), departureDateTime: outboundAt, returnDepartureDateTime: returnAt };
    const q = await quote(body);
    assert.equal(q.status, 200, JSON.stringify(q.body));
    const [outbound, back] = q.body.legs.map((l: { departureAt: string }) => new Date(l.departureAt));
    const around = (at: Date) => ({
      startsAt: new Date(at.getTime() - 60_000).toISOString(),
      endsAt: new Date(at.getTime() + 60_000).toISOString(),
    });
    const stops = [
      // the outbound's departure, but the other direction or another environment: not covering
      { environment: 'sandbox', departureAirport: 'JFK', arrivalAirport: 'CDG', ...around(outbound), reason: 'x' },
      { environment: 'production', airline: 'AF', ...around(outbound), reason: 'x' },
      { environment: 'sandbox', departureAirport: 'JFK', arrivalAirport: 'CDG', ...around(back), reason: 'return' },
    ];
    const made = [];
    for (const input of stops) made.push(await suspendSales(t.db, 'operator:test', input, new Date()));
    const refused = await subscribe(q.body, body);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'sales_suspended');
    assert.match(refused.body.detail, /AF JFK→CDG .*: return$/);
    assert.equal(refused.body.errors[0].field, '/flights/1');
    for (const stop of made) await resumeSales(t.db, 'operator:test', stop.id, new Date());
  });

  it('enforces every stop-sale in force, however many there are', async () => {
    // a thousand stop-sales elsewhere (preproduction, Nice), all starting before the one that matters
    const now = Date.now();
    const elsewhere = await t.db
      .insertInto('stop_sales')
      .values(
        Array.from({ length: 1000 }, (_, i) => ({
          environment: 'preproduction' as const,
          airport: 'NCE',
          starts_at: new Date(now - 86_400_000 + i * 1000),
          ends_at: new Date(now + 400 * 86_400_000),
          reason: 'elsewhere',
          created_by: 'operator:test',
        })),
      )
      .returning('id')
      .execute();
    try {
      const body = flight();
      const q = await quote(body);
      assert.equal(q.status, 200);
      const departure = new Date(q.body.legs[0].departureAt);
      await suspendSales(
        t.db,
        'operator:test',
        {
          environment: 'sandbox',
          airline: 'AF',
          startsAt: new Date(departure.getTime() - 60_000).toISOString(),
          endsAt: new Date(departure.getTime() + 60_000).toISOString(),
          reason: 'the thousand and first',
        },
        new Date(),
      );
      const refused = await subscribe(q.body, body);
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'sales_suspended');
      await t.app.parasol.limits.refresh();
      assert.equal((await quote(body)).body.code, 'sales_suspended', 'the quote path too');
    } finally {
      await t.db
        .updateTable('stop_sales')
        .set({ resumed_at: new Date(), resumed_by: 'operator:test' })
        .where(
          'id',
          'in',
          elsewhere.map((r) => r.id),
        )
        .execute();
    }
  });

  it('declares the 409 answers and their codes on /getPrice and /subscribe in the OpenAPI document', async () => {
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: `${FLIGHT}/openapi.json` })).body);
    for (const path of ['/getPrice', '/subscribe']) {
      const operation = doc.paths[path].post;
      assert.ok(operation.responses['409'], path);
      assert.match(operation.description, /capacity_exceeded/, path);
      assert.match(operation.description, /sales_suspended/, path);
    }
  });

  describe('a flight change', () => {
    const change = async (number: string, flightNumber: string, departureDateTime: string) => {
      const flights = [{ leg: 0, flightNumber, departureAirport: 'CDG', arrivalAirport: 'JFK', departureDateTime }];
      const preview = await post(
        t.app,
        `${FLIGHT}/contracts/${number}/flight-change/preview`,
        { flights },
        partner.auth,
      );
      assert.equal(preview.status, 200, JSON.stringify(preview.body));
      return post(
        t.app,
        `${FLIGHT}/contracts/${number}/flight-change`,
        { changeReference: preview.body.changeReference },
        partner.auth,
      );
    };
    const exposureOf = async (body: Trip) => {
      const e = await findExposure(t.db, keyOf('sandbox', body));
      return { amount: e?.amount ?? 0, legs: e?.legs ?? 0 };
    };

    it('onto a flight without room for the contract is refused 409 capacity_exceeded, and moves nothing', async () => {
      const from = flight();
      const sold = await quoteAndSubscribe(from);
      assert.equal(sold.status, 201, JSON.stringify(sold.body));
      const onto = flight({ passengers: 6 });
      assert.equal((await quoteAndSubscribe(onto)).status, 201); // 90,000 of 100,000: one more passenger passes it
      const refused = await change(sold.body.contractNumber, 'AF123', onto.departureDateTime);
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'capacity_exceeded');
      assert.deepEqual(refused.body.errors, [
        { field: '/flights/0', code: 'invalid', message: 'not enough capacity left on this flight for this change' },
      ]);
      assert.deepEqual(await exposureOf(from), { amount: PER_PASSENGER, legs: 1 }, 'the old flight keeps it');
      assert.deepEqual(await exposureOf(onto), { amount: 6 * PER_PASSENGER, legs: 1 });
      const contract = await t.app.inject({
        method: 'GET',
        url: `${FLIGHT}/contracts/${sold.body.contractNumber}`,
        headers: partner.auth,
      });
      assert.equal(JSON.parse(contract.body).version, 1, 'the contract did not change');
    });

    it('staying on its flight (a new number, the same minute) is accepted though the cap was lowered below the flight’s exposure: it adds nothing', async (ctx) => {
      const body = flight();
      const sold = await quoteAndSubscribe(body);
      assert.equal(sold.status, 201, JSON.stringify(sold.body));
      assert.equal((await quoteAndSubscribe({ ...body, additionalPassengers: 4 })).status, 201); // 75,000 of 100,000
      await setCap(t.db, 'operator:test', { environment: 'sandbox', currency: CURRENCY, amount: 60_000 });
      ctx.after(() => setCap(t.db, 'operator:test', { environment: 'sandbox', currency: CURRENCY, amount: 100_000 }));
      const renumbered = await change(sold.body.contractNumber, 'AF008', body.departureDateTime);
      assert.equal(renumbered.status, 200, JSON.stringify(renumbered.body));
      assert.equal(renumbered.body.flights[0].flightNumber, 'AF008');
      assert.deepEqual(await exposureOf(body), { amount: 6 * PER_PASSENGER, legs: 2 }, 'nothing added nor released');
      // leaving the flight above its cap is accepted too, and gives its share back
      const elsewhere = flight();
      const moved = await change(sold.body.contractNumber, 'AF008', elsewhere.departureDateTime);
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.deepEqual(await exposureOf(body), { amount: 5 * PER_PASSENGER, legs: 1 });
      assert.deepEqual(await exposureOf(elsewhere), { amount: PER_PASSENGER, legs: 1 });
    });

    it('a round trip changing its return only moves the return’s exposure; the outbound is not touched', async () => {
      const outboundAt = uniqueDeparture();
      const later = (days: number) =>
        `${new Date(Date.parse(`${outboundAt.slice(0, 10)}T00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)}${outboundAt.slice(10)}`;
      const body = { ...flight(), departureDateTime: outboundAt, returnDepartureDateTime: later(3) };
      const sold = await quoteAndSubscribe(body);
      assert.equal(sold.status, 201, JSON.stringify(sold.body));
      const changeReturn = async (departureDateTime: string) => {
        const flights = [
          { leg: 1, flightNumber: 'AF008', departureAirport: 'JFK', arrivalAirport: 'CDG', departureDateTime },
        ];
        const preview = await post(
          t.app,
          `${FLIGHT}/contracts/${sold.body.contractNumber}/flight-change/preview`,
          { flights },
          partner.auth,
        );
        assert.equal(preview.status, 200, JSON.stringify(preview.body));
        return post(
          t.app,
          `${FLIGHT}/contracts/${sold.body.contractNumber}/flight-change`,
          { changeReference: preview.body.changeReference },
          partner.auth,
        );
      };
      const back = async (returnAt: string) => {
        const e = await findExposure(t.db, keyOf('sandbox', { ...body, returnDepartureDateTime: returnAt }, 1));
        return { amount: e?.amount ?? 0, legs: e?.legs ?? 0 };
      };
      // a full return flight (90,000 of 100,000): the change is refused, pointing at its one flight
      const full = {
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        airline: 'AF',
        departureDateTime: later(5),
        additionalPassengers: 5,
      };
      const q = await quote(full as Trip);
      assert.equal(q.status, 200, JSON.stringify(q.body));
      const fullFlights = [
        {
          flightNumber: 'AF007',
          departureAirport: 'JFK',
          arrivalAirport: 'CDG',
          departureDateTime: full.departureDateTime,
        },
      ];
      const filled = await post(
        t.app,
        `${FLIGHT}/subscribe`,
        { ...subscription(q.body.quoteReference, full as never), flights: fullFlights },
        partner.auth,
      );
      assert.equal(filled.status, 201, JSON.stringify(filled.body));
      const refused = await changeReturn(later(5));
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.deepEqual(refused.body.errors, [
        { field: '/flights/0', code: 'invalid', message: 'not enough capacity left on this flight for this change' },
      ]);
      assert.deepEqual(await back(later(3)), { amount: PER_PASSENGER, legs: 1 }, 'the old return keeps it');

      const moved = await changeReturn(later(4));
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.deepEqual(await exposureOf(body), { amount: PER_PASSENGER, legs: 1 }, 'the outbound is not touched');
      assert.deepEqual(await back(later(3)), { amount: 0, legs: 0 }, 'the old return gives its share back');
      assert.deepEqual(await back(later(4)), { amount: PER_PASSENGER, legs: 1 }, 'the new return takes it');
      assert.deepEqual(await back(later(5)), { amount: 6 * PER_PASSENGER, legs: 1 });
    });

    it('two contracts swapping flights at once both succeed, each flight counting one contract (no deadlock: flights in key order)', async () => {
      const [one, two] = [flight(), flight()];
      const a = await quoteAndSubscribe(one);
      const b = await quoteAndSubscribe(two);
      assert.equal(a.status, 201);
      assert.equal(b.status, 201);
      const replies = await Promise.all([
        change(a.body.contractNumber, 'AF123', two.departureDateTime),
        change(b.body.contractNumber, 'AF124', one.departureDateTime),
      ]);
      assert.deepEqual(
        replies.map((r) => r.status),
        [200, 200],
        JSON.stringify(replies.map((r) => r.body)),
      );
      assert.deepEqual(await exposureOf(one), { amount: PER_PASSENGER, legs: 1 });
      assert.deepEqual(await exposureOf(two), { amount: PER_PASSENGER, legs: 1 });
    });
  });

  it('50 concurrent subscriptions on one flight: exactly those that fit succeed, the exposure never passes the cap', async () => {
    // On PostgreSQL (TEST_DATABASE_URL) the subscriptions run at once, up to the pool's 10 connections, and
    // wait on the flight's exposure row: checked by replacing the upsert's condition on the locked row
    // with one on the amount the statement read (a read-then-write race) — 27 of 50 were then accepted.
    // PGlite runs one transaction at a time: there this test checks the count, not the lock.
    const partner = await createTestPartner(t.db, { environment: 'preproduction', agreement: { currency: CURRENCY } });
    // 10 single-passenger contracts fit (150,000), the 11th would make 165,000
    await setCap(t.db, 'operator:test', {
      environment: 'preproduction',
      currency: CURRENCY,
      amount: 10 * PER_PASSENGER + 7_000,
    });
    await t.app.parasol.limits.refresh();
    const body = flight();
    const quotes = [];
    for (let i = 0; i < 50; i++) {
      const q = await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth);
      assert.equal(q.status, 200);
      quotes.push(q.body.quoteReference as string);
    }
    const replies = await Promise.all(
      quotes.map((reference) =>
        post(t.app, `${FLIGHT}/subscribe`, subscription(reference, body as never), partner.auth),
      ),
    );
    const statuses = replies.map((r) => r.status);
    assert.equal(
      statuses.filter((s) => s === 201).length,
      10,
      JSON.stringify(replies.filter((r) => r.status !== 201 && r.body.code !== 'capacity_exceeded').map((r) => r.body)),
    );
    assert.ok(replies.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'capacity_exceeded')));
    const exposure = await findExposure(t.db, keyOf('preproduction', body));
    assert.equal(exposure?.amount, 10 * PER_PASSENGER);
    assert.equal(exposure?.legs, 10);
    const legs = await t.db
      .selectFrom('contract_legs')
      .innerJoin('contracts', 'contracts.id', 'contract_legs.contract_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('contracts.partner_id', '=', partner.id)
      .where('contract_legs.departure_local', '=', body.departureDateTime)
      .executeTakeFirstOrThrow();
    assert.equal(Number(legs.n), 10, 'one contract per accepted subscription, none for the refused');
  });
});
