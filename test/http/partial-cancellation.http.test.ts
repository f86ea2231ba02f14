import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openClaimsForFlightEvent } from '../../src/claims/open-claims.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

describe('Flight Delay API — partial cancellation: passengers or one leg leave, the rest stays covered', () => {
  let t: TestApp;
  let a: TestPartner;
  let b: TestPartner;
  let clock = new Date();
  before(async () => {
    t = await buildTestApp({ now: () => clock, env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    a = await createTestPartner(t.db);
    b = await createTestPartner(t.db);
    // an endpoint for every event, so contract.changed is recorded
    const endpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/hooks' },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
  });
  after(() => t.close());

  let flightSeq = 400;
  async function insured(options: { passengers?: number; returnTrip?: boolean } = {}) {
    clock = new Date();
    const flight = await insureFlight(t.app, a, {
      flightNumber: `AF${flightSeq++}`,
      ...(options.returnTrip === false ? {} : { returnFlight: `AF${flightSeq++}` }),
      passengers: options.passengers ?? 3,
      days: 12,
    });
    const read = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/contracts/${flight.contractNumber}`,
      headers: a.auth,
    });
    return { flight, contract: JSON.parse(read.body) };
  }
  const cancelPart = (number: string, body: object, who = a, headers: Record<string, string> = {}) =>
    post(t.app, `${FLIGHT}/contracts/${number}/partial-cancellation`, body, { ...who.auth, ...headers });
  const preview = (number: string, body: object, who = a) =>
    post(t.app, `${FLIGHT}/contracts/${number}/partial-cancellation/preview`, body, who.auth);
  const read = async (number: string) =>
    JSON.parse((await t.app.inject({ method: 'GET', url: `${FLIGHT}/contracts/${number}`, headers: a.auth })).body);
  const contractId = async (number: string) =>
    (await t.db.selectFrom('contracts').select('id').where('contract_number', '=', number).executeTakeFirstOrThrow())
      .id;
  const exposure = async (flightNumber: string) => {
    const leg = await t.db
      .selectFrom('contract_legs')
      .select(['airline', 'departure_airport', 'arrival_airport', 'departure_local'])
      .where('flight_number', '=', flightNumber)
      .executeTakeFirstOrThrow();
    const row = await t.db
      .selectFrom('flight_exposure')
      .select('amount')
      .where('environment', '=', 'sandbox')
      .where('airline', '=', leg.airline)
      .where('departure_airport', '=', leg.departure_airport)
      .where('arrival_airport', '=', leg.arrival_airport)
      .where('departure_local', '=', leg.departure_local)
      .executeTakeFirstOrThrow();
    return Number(row.amount);
  };

  it('previews then cancels one passenger: a third of the premium back, the others covered, version 2, in the ledger', async () => {
    const { flight, contract } = await insured({ passengers: 3 });
    const total = contract.premium.total.amount;
    const commission = contract.premium.commission.amount;
    const tax = contract.premium.tax.amount;
    const exposureBefore = await exposure(flight.flightNumber);

    const seen = await preview(contract.contractNumber, { passengers: 1, reason: 'customer_request' });
    assert.equal(seen.status, 200, JSON.stringify(seen.body));
    assert.equal(seen.body.refund.amount, total / 3);
    assert.equal(seen.body.passengers, 2);
    assert.equal(seen.body.version, 2);
    const untouched = await read(contract.contractNumber);
    assert.equal(untouched.passengers, 3, 'a preview changes nothing');
    assert.equal(untouched.version, 1);

    const done = await cancelPart(contract.contractNumber, { passengers: 1, reason: 'customer_request' }, a, {
      'idempotency-key': `pc-${contract.contractNumber}`,
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual({ ...done.body, cancelledAt: null }, { ...seen.body, cancelledAt: null }, 'as previewed');
    assert.equal(done.body.refund.amount, total / 3);
    assert.equal(done.body.commissionReturned.amount, commission / 3);
    assert.equal(done.body.premium.total.amount, (total * 2) / 3);
    assert.equal(done.body.flights.length, 2);

    const replay = await cancelPart(contract.contractNumber, { passengers: 1, reason: 'customer_request' }, a, {
      'idempotency-key': `pc-${contract.contractNumber}`,
    });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.body, done.body);

    const after = await read(contract.contractNumber);
    assert.equal(after.passengers, 2);
    assert.equal(after.version, 2);
    assert.equal(after.status, 'active');
    assert.equal(after.premium.total.amount, (total * 2) / 3);

    const id = await contractId(contract.contractNumber);
    const entries = await t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount', 'event_key'])
      .where('contract_id', '=', id)
      .where('event_key', '=', `contract:${id}:passenger_cancelled:2`)
      .orderBy('kind')
      .execute();
    assert.deepEqual(
      entries.map((e) => [e.kind, Number(e.amount)]),
      [
        ['commission', -commission / 3],
        ['refund', total / 3],
        // the refund's tax part (memorandum, inside the refund)
        ['tax_refunded', tax / 3],
      ],
    );
    const versions = await t.db
      .selectFrom('contract_versions')
      .select(['version', 'change', 'passengers', 'difference'])
      .where('contract_id', '=', id)
      .orderBy('version')
      .execute();
    assert.deepEqual(
      versions.map((v) => [v.version, v.change, v.passengers, Number(v.difference)]),
      [
        [1, 'subscribed', 3, 0],
        [2, 'passenger_cancelled', 2, -total / 3],
      ],
    );
    const events = await t.db
      .selectFrom('webhook_events')
      .select(['type', 'payload'])
      .where('type', '=', 'contract.changed')
      .execute();
    const event = events
      .map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload))
      .find((p) => p.data.contractNumber === contract.contractNumber);
    assert.ok(event, 'contract.changed emitted');
    assert.equal(event.data.change, 'passenger_cancelled');
    assert.equal(event.data.difference.amount, -total / 3);
    // the passenger's exposure leaves the flight
    assert.ok((await exposure(flight.flightNumber)) < exposureBefore);

    // cancelling the rest refunds what stays: the refunds add up to the premium paid
    const rest = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: contract.contractNumber, reason: 'customer_request' },
      a.auth,
    );
    assert.equal(rest.status, 200);
    assert.equal(rest.body.refund.amount + done.body.refund.amount, total);
  });

  it('cancels the return once the outbound has flown: that leg’s share back, its flight no longer insured', async () => {
    const { flight, contract } = await insured({ passengers: 2 });
    const id = await contractId(contract.contractNumber);
    const legs = await t.db
      .selectFrom('contract_legs')
      .selectAll()
      .where('contract_id', '=', id)
      .orderBy('leg_index')
      .execute();
    const returnShare = (Number(legs[1]!.share_net) + Number(legs[1]!.share_tax)) * 2;
    clock = new Date(new Date(contract.flights[0].departureAt).getTime() + 3_600_000);

    const done = await cancelPart(contract.contractNumber, { leg: 1, reason: 'ticket_cancelled' });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.change, 'leg_cancelled');
    assert.equal(done.body.refund.amount, returnShare);
    assert.deepEqual(
      done.body.flights.map((f: { leg: number }) => f.leg),
      [0],
    );
    assert.equal(done.body.premium.total.amount, contract.premium.total.amount - returnShare);

    // the cancelled return's cancellation opens nothing; the outbound stays covered
    const onReturn = await openClaimsForFlightEvent(
      { db: t.app.parasol.db, jobs: t.app.parasol.jobs, now: () => new Date() },
      {
        environment: 'sandbox',
        flightNumber: flight.returnFlight!,
        departureDate: flight.returnDate!,
        status: 'cancelled',
        source: 'test',
      },
    );
    assert.equal(onReturn.length, 0);
    const onOutbound = await openClaimsForFlightEvent(
      { db: t.app.parasol.db, jobs: t.app.parasol.jobs, now: () => new Date() },
      {
        environment: 'sandbox',
        flightNumber: flight.flightNumber,
        departureDate: flight.departureDate,
        status: 'cancelled',
        source: 'test',
      },
    );
    assert.equal(onOutbound.length, 1);
    clock = new Date();
  });

  it('with contractVersion, a request repeated without Idempotency-Key does not cancel twice', async () => {
    const { contract } = await insured({ passengers: 4 });
    const body = { passengers: 1, reason: 'customer_request', contractVersion: contract.version };
    const first = await cancelPart(contract.contractNumber, body);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.passengers, 3);
    const again = await cancelPart(contract.contractNumber, body);
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(again.body.code, 'contract_changed');
    const previewed = await preview(contract.contractNumber, body);
    assert.equal(previewed.status, 409, 'the preview says the same');
    const after = await read(contract.contractNumber);
    assert.deepEqual([after.passengers, after.version], [3, 2], 'cancelled once');
    // the version read again: the next cancellation goes through
    const next = await cancelPart(contract.contractNumber, { ...body, contractVersion: after.version });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.deepEqual([next.body.passengers, next.body.version], [2, 3]);
  });

  it('refuses what cannot be cancelled, each with its code', async (ctx) => {
    ctx.after(() => (clock = new Date()));
    const { flight, contract } = await insured({ passengers: 2 });
    const n = contract.contractNumber;
    const code = async (body: object, who = a) => {
      const res = await cancelPart(n, body, who);
      return [res.status, res.body.code];
    };
    assert.deepEqual(await code({ reason: 'customer_request' }), [422, 'validation_failed'], 'neither');
    assert.deepEqual(await code({ passengers: 1, leg: 1, reason: 'customer_request' }), [422, 'validation_failed']);
    assert.deepEqual(await code({ passengers: 2, reason: 'customer_request' }), [422, 'validation_failed'], 'all');
    assert.deepEqual(await code({ passengers: 1, reason: 'because' }), [422, 'validation_failed'], 'reason');
    assert.deepEqual(await code({ passengers: 1, reason: 'customer_request' }, b), [404, 'contract_not_found']);

    const all = await preview(n, { passengers: 2, reason: 'customer_request' });
    assert.equal(
      all.body.detail,
      'The contract insures 2 passengers and a partial cancellation leaves at least one: cancel at most 1, or cancel the contract instead (POST /cancel).',
    );

    const single = await insured({ passengers: 1, returnTrip: false });
    const only = await cancelPart(single.contract.contractNumber, { leg: 0, reason: 'customer_request' });
    assert.equal(only.status, 422);
    assert.match(only.body.errors[0].message, /only leg/);
    // its one passenger: said in plain words, with what to do instead
    const everyone = await cancelPart(single.contract.contractNumber, { passengers: 1, reason: 'customer_request' });
    assert.equal(everyone.status, 422, JSON.stringify(everyone.body));
    assert.equal(
      everyone.body.detail,
      'The contract insures one passenger: cancelling them would leave nobody covered. Cancel the contract instead (POST /cancel).',
    );
    assert.deepEqual(everyone.body.errors, [
      {
        field: '/passengers',
        code: 'out_of_range',
        message: 'the contract insures one passenger: cancel the contract instead (POST /cancel)',
      },
    ]);

    // a claim on the outbound: no passenger may leave, and the outbound cannot be cancelled
    await openClaimsForFlightEvent(
      { db: t.app.parasol.db, jobs: t.app.parasol.jobs, now: () => new Date() },
      {
        environment: 'sandbox',
        flightNumber: flight.flightNumber,
        departureDate: flight.departureDate,
        status: 'cancelled',
        source: 'test',
      },
    );
    assert.deepEqual(await code({ passengers: 1, reason: 'customer_request' }), [409, 'contract_not_cancellable']);
    assert.deepEqual(await code({ leg: 0, reason: 'customer_request' }), [409, 'contract_not_cancellable']);

    // after the return's departure it cannot be cancelled either
    clock = new Date(new Date(contract.flights[1].departureAt).getTime() + 60_000);
    assert.deepEqual(await code({ leg: 1, reason: 'customer_request' }), [409, 'contract_not_cancellable']);

    clock = new Date();
    const gone = await insured({ passengers: 2 });
    await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: gone.contract.contractNumber, reason: 'duplicate' },
      a.auth,
    );
    const res = await cancelPart(gone.contract.contractNumber, { passengers: 1, reason: 'customer_request' });
    assert.deepEqual([res.status, res.body.code], [409, 'contract_not_cancellable']);
  });
});
