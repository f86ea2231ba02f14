import assert from 'node:assert/strict';
import { Decimal } from 'decimal.js';
import { after, before, describe, it } from 'node:test';
import { DateTime } from 'luxon';
import { openClaimsForFlightEvent } from '../../src/claims/open-claims.ts';
import { entriesOfContract } from '../../src/ledger/index.ts';
import { resumeSales, suspendSales } from '../../src/limits/index.ts';
import { findWatchesOfFlight, planWatches } from '../../src/monitoring/index.ts';
import { setConfiguration } from '../../src/partners/index.ts';
import {
  buildTestApp,
  consent,
  createTestPartner,
  CUSTOMER,
  DEFAULT_CONFIGURATION,
  FLIGHT,
  insureFlight,
  post,
  trip,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/** Flight change on a live contract (issue 13 §1): preview, confirm, versions, refusals, watches. */
describe('Flight Delay API — flight change', () => {
  let t: TestApp;
  let a: TestPartner;
  let b: TestPartner;
  let clock = new Date();
  const at = (d: Date) => (clock = d);
  before(async () => {
    t = await buildTestApp({ now: () => clock, env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    a = await createTestPartner(t.db);
    b = await createTestPartner(t.db);
    const endpoint = await post(t.app, `${FLIGHT}/webhooks/endpoints`, { url: 'http://127.0.0.1:9/hooks' }, a.auth);
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  });
  after(() => t.close());

  /** Distinct flight numbers per contract: claims and watches are per flight. */
  let seq = 7000 + (process.pid % 1000);
  const flight = () => `AF${seq++}`;

  async function contract(options: { returnTrip?: boolean; passengers?: number; days?: number } = {}) {
    at(new Date());
    const insured = await insureFlight(t.app, a, {
      flightNumber: flight(),
      ...(options.returnTrip ? { returnFlight: flight() } : {}),
      days: options.days ?? 12,
      passengers: options.passengers ?? 1,
    });
    return insured;
  }

  const preview = (who: TestPartner, number: string, flights: object[]) =>
    post(t.app, `${FLIGHT}/contracts/${number}/flight-change/preview`, { flights }, who.auth);
  const confirm = (who: TestPartner, number: string, changeReference: string, key?: string) =>
    post(
      t.app,
      `${FLIGHT}/contracts/${number}/flight-change`,
      { changeReference },
      { ...who.auth, ...(key ? { 'idempotency-key': key } : {}) },
    );
  const outbound = (flightNumber: string, departureDateTime: string) => ({
    leg: 0,
    flightNumber,
    departureAirport: 'CDG',
    arrivalAirport: 'JFK',
    departureDateTime,
  });
  const read = async (number: string) => {
    const res = await t.app.inject({ method: 'GET', url: `${FLIGHT}/contracts/${number}`, headers: a.auth });
    assert.equal(res.statusCode, 200, res.body);
    return JSON.parse(res.body);
  };
  const legsOf = (number: string) =>
    t.db
      .selectFrom('contract_legs as l')
      .innerJoin('contracts as c', 'c.id', 'l.contract_id')
      .where('c.contract_number', '=', number)
      .select(['l.leg_index', 'l.flight_number', 'l.share_net', 'l.share_tax', 'l.share_commission'])
      .orderBy('l.leg_index')
      .execute();

  it('previews the change priced with the current model, confirms it: same number, version 2, versions, ledger, webhook', async () => {
    const c = await contract({ returnTrip: true, passengers: 2 });
    const before = await read(c.contractNumber);
    const newFlight = flight();
    const newDeparture = `${c.departureDate}T06:15`;
    // the new leg alone, quoted for one passenger, is its new share per passenger
    const alone = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...trip(12), departureDateTime: newDeparture, flightNumber: newFlight },
      a.auth,
    );
    assert.equal(alone.status, 200, JSON.stringify(alone.body));
    const [oldOutbound, returnLeg] = await legsOf(c.contractNumber);
    const returnShare = Number(returnLeg!.share_net) + Number(returnLeg!.share_tax);
    const expectedAfter = (alone.body.premium.total.amount + returnShare) * 2;

    const p = await preview(a, c.contractNumber, [outbound(newFlight, newDeparture)]);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal(p.body.contractNumber, c.contractNumber);
    assert.equal(p.body.version, 1);
    assert.match(p.body.changeReference, /^fc1\./);
    assert.deepEqual(p.body.premium.before, before.premium);
    assert.equal(p.body.premium.after.total.amount, expectedAfter);
    assert.notEqual(expectedAfter, before.premium.total.amount, 'an early-morning flight is priced differently');
    assert.equal(p.body.difference.amount, expectedAfter - before.premium.total.amount);
    assert.equal(
      p.body.outcome,
      p.body.difference.amount > 0 ? 'charge' : p.body.difference.amount < 0 ? 'refund' : 'none',
    );
    assert.equal(p.body.modelVersion, alone.body.modelVersion);
    assert.deepEqual(
      p.body.flights.map((f: { leg: number; flightNumber: string; departureDateTime: string }) => [
        f.leg,
        f.flightNumber,
        f.departureDateTime,
      ]),
      [
        [0, newFlight, newDeparture],
        [1, c.returnFlight, before.flights[1].departureDateTime],
      ],
    );
    // a preview writes nothing
    assert.equal((await read(c.contractNumber)).version, 1);
    assert.equal((await legsOf(c.contractNumber))[0]!.flight_number, oldOutbound!.flight_number);

    const key = `change-${process.pid}-${Date.now()}`;
    const done = await confirm(a, c.contractNumber, p.body.changeReference, key);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.contractNumber, c.contractNumber);
    assert.equal(done.body.version, 2);
    assert.equal(done.body.status, 'active');
    assert.equal(done.body.premium.total.amount, expectedAfter);
    assert.deepEqual(done.body.difference, p.body.difference);
    assert.equal(done.body.outcome, p.body.outcome);
    assert.equal(done.body.flights[0].flightNumber, newFlight);
    assert.equal(done.body.flights[1].flightNumber, c.returnFlight);

    // idempotent: the same key replays the same answer
    const replay = await confirm(a, c.contractNumber, p.body.changeReference, key);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.body, done.body);
    // the same reference under another key: the contract moved on
    const again = await confirm(a, c.contractNumber, p.body.changeReference, `${key}-2`);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'contract_changed');

    const after = await read(c.contractNumber);
    assert.equal(after.version, 2);
    assert.deepEqual(
      after.versions.map((v: { version: number; change: string }) => [v.version, v.change]),
      [
        [1, 'subscribed'],
        [2, 'flight_changed'],
      ],
    );
    assert.equal(after.versions[0].premium.amount, before.premium.total.amount);
    assert.equal(after.versions[0].flights[0].flightNumber, c.flightNumber);
    assert.equal(after.versions[1].flights[0].flightNumber, newFlight);
    assert.deepEqual(after.versions[1].difference, p.body.difference);

    // the difference entered the ledger under the change's event key
    const entries = (await entriesOfContract(t.db, c.contractNumber)).filter((e) =>
      e.event_key.endsWith(':flight_changed:2'),
    );
    const sum = (kind: string) =>
      entries.filter((e) => e.kind === kind).reduce((total, e) => total + Number(e.amount), 0);
    const difference = p.body.difference.amount as number;
    if (difference > 0) assert.equal(sum('premium_written') + sum('tax'), difference);
    else if (difference < 0) assert.equal(sum('refund'), -difference);
    assert.ok(difference === 0 || entries.length > 0, 'ledger entries for the difference');

    const events = await t.db
      .selectFrom('webhook_events')
      .select(['type', 'payload'])
      .where('partner_id', '=', a.id)
      .where('type', '=', 'contract.changed')
      .execute();
    const event = events.find(
      (e) => (e.payload as { data: { contractNumber: string } }).data.contractNumber === c.contractNumber,
    );
    assert.ok(event, 'contract.changed queued');
    const data = (event.payload as { data: Record<string, any> }).data;
    assert.equal(data.version, 2);
    assert.equal(data.change, 'flight_changed');
    assert.equal(data.difference.amount, difference);
    assert.equal(data.flights[0].flightNumber, newFlight);
  });

  it('refuses what cannot change: unknown or foreign contract, unknown leg, another route or airline, a cancelled contract', async () => {
    const c = await contract();
    const later = `${c.departureDate}T15:00`;
    const unknown = await preview(a, 'FD-0000-0000', [outbound(flight(), later)]);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'contract_not_found');
    const foreign = await preview(b, c.contractNumber, [outbound(flight(), later)]);
    assert.equal(foreign.status, 404);

    const noReturn = await preview(a, c.contractNumber, [{ ...outbound(flight(), later), leg: 1 }]);
    assert.equal(noReturn.status, 422);
    assert.equal(noReturn.body.code, 'validation_failed');
    assert.equal(noReturn.body.errors[0].field, '/flights/0/leg');
    const route = await preview(a, c.contractNumber, [{ ...outbound(flight(), later), arrivalAirport: 'EWR' }]);
    assert.equal(route.status, 422);
    assert.equal(route.body.errors[0].field, '/flights/0/arrivalAirport');
    const airline = await preview(a, c.contractNumber, [outbound('BA123', later)]);
    assert.equal(airline.status, 422);
    assert.equal(airline.body.errors[0].field, '/flights/0/flightNumber');
    const same = await preview(a, c.contractNumber, [outbound(c.flightNumber, `${c.departureDate}T10:30`)]);
    assert.equal(same.status, 422);

    const p = await preview(a, c.contractNumber, [outbound(flight(), later)]);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    const cancelled = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: c.contractNumber, reason: 'customer_request' },
      a.auth,
    );
    assert.equal(cancelled.status, 200);
    for (const res of [
      await preview(a, c.contractNumber, [outbound(flight(), later)]),
      await confirm(a, c.contractNumber, p.body.changeReference),
    ]) {
      assert.equal(res.status, 409);
      assert.equal(res.body.code, 'contract_not_changeable');
    }
  });

  it('refuses a leg that departed or departs within 3 hours, and a new flight departing within 3 hours', async (ctx) => {
    ctx.after(() => at(new Date()));
    const c = await contract();
    const departure = new Date((await read(c.contractNumber)).flights[0].departureAt);
    at(new Date(departure.getTime() - 2 * 3_600_000));
    const late = await preview(a, c.contractNumber, [outbound(flight(), `${c.departureDate}T15:00`)]);
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'leg_departed');
    at(new Date(departure.getTime() + 3_600_000));
    assert.equal(
      (await preview(a, c.contractNumber, [outbound(flight(), `${c.departureDate}T15:00`)])).body.code,
      'leg_departed',
    );
    // the leg departs in 5 h; the new flight 3 h earlier, in 2 h
    at(new Date(departure.getTime() - 5 * 3_600_000));
    const soon = await preview(a, c.contractNumber, [outbound(flight(), `${c.departureDate}T07:30`)]);
    assert.equal(soon.status, 409);
    assert.equal(soon.body.code, 'leg_departed');
    assert.equal(soon.body.errors[0].field, '/flights/0/departureDateTime');
  });

  it('keeps the legs in order by instants: an outbound moved to an hour before the return (in UTC) is accepted, a minute later refused', async () => {
    const c = await contract({ returnTrip: true });
    const returnAt = new Date((await read(c.contractNumber)).flights[1].departureAt);
    // the outbound leaves Paris, whose clock reads five or six hours ahead of New York's (the return's):
    // an hour before the return's departure is a later wall-clock time than the return's own
    const outboundAt = (minutesBefore: number) =>
      DateTime.fromJSDate(new Date(returnAt.getTime() - minutesBefore * 60_000))
        .setZone('Europe/Paris')
        .toFormat("yyyy-MM-dd'T'HH:mm");
    const inOrder = await preview(a, c.contractNumber, [outbound(flight(), outboundAt(60))]);
    assert.equal(inOrder.status, 200, JSON.stringify(inOrder.body));
    const outOfOrder = await preview(a, c.contractNumber, [outbound(flight(), outboundAt(59))]);
    assert.equal(outOfOrder.status, 422, JSON.stringify(outOfOrder.body));
    assert.equal(outOfOrder.body.code, 'validation_failed');
    assert.deepEqual(
      outOfOrder.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [['/flights', 'not_allowed']],
    );
  });

  it('refuses a flight change after a claim on that leg (at preview and at confirmation)', async () => {
    const c = await contract();
    const p = await preview(a, c.contractNumber, [outbound(flight(), `${c.departureDate}T15:00`)]);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    await openClaimsForFlightEvent(
      { db: t.app.parasol.db, jobs: t.app.parasol.jobs, now: () => new Date() },
      {
        environment: 'sandbox',
        flightNumber: c.flightNumber,
        departureDate: c.departureDate,
        status: 'cancelled',
        source: 'test',
      },
    );
    const refused = await preview(a, c.contractNumber, [outbound(flight(), `${c.departureDate}T16:00`)]);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'leg_has_claim');
    const late = await confirm(a, c.contractNumber, p.body.changeReference);
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'leg_has_claim');
  });

  it('refuses an altered or foreign change reference, an expired one, and one priced on an older version', async (ctx) => {
    ctx.after(() => at(new Date()));
    const c = await contract();
    const other = await contract();
    const first = await preview(a, c.contractNumber, [outbound(flight(), `${c.departureDate}T15:00`)]);
    const second = await preview(a, c.contractNumber, [outbound(flight(), `${c.departureDate}T16:00`)]);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    const ref = first.body.changeReference as string;
    const altered = await confirm(a, c.contractNumber, `${ref.slice(0, -2)}${ref.endsWith('AA') ? 'BB' : 'AA'}`);
    assert.equal(altered.status, 422);
    assert.equal(altered.body.code, 'change_reference_invalid');
    const elsewhere = await confirm(a, other.contractNumber, ref);
    assert.equal(elsewhere.status, 422);
    assert.equal(elsewhere.body.code, 'change_reference_invalid');
    const foreign = await confirm(b, c.contractNumber, ref);
    assert.equal(foreign.status, 422);

    at(new Date(clock.getTime() + 31 * 60_000));
    const expired = await confirm(a, c.contractNumber, ref);
    assert.equal(expired.status, 422);
    assert.equal(expired.body.code, 'change_expired');
    at(new Date());

    assert.equal((await confirm(a, c.contractNumber, ref)).status, 200);
    const stale = await confirm(a, c.contractNumber, second.body.changeReference);
    assert.equal(stale.status, 409);
    assert.equal(stale.body.code, 'contract_changed');
  });

  it('refuses the confirmation when sales of the new flight are suspended (409 sales_suspended), changing nothing', async (ctx) => {
    const c = await contract({ days: 13 });
    const departureLocal = `${c.departureDate}T04:10`;
    const stop = await suspendSales(
      t.db,
      'operator:test',
      {
        environment: 'sandbox',
        airline: 'AF',
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        departureLocal,
        reason: 'strike',
      },
      new Date(),
    );
    ctx.after(() => resumeSales(t.db, 'operator:test', stop.id, new Date()));
    const p = await preview(a, c.contractNumber, [outbound(flight(), departureLocal)]);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    const refused = await confirm(a, c.contractNumber, p.body.changeReference);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'sales_suspended');
    const unchanged = await read(c.contractNumber);
    assert.equal(unchanged.version, 1);
    assert.equal(unchanged.flights[0].flightNumber, c.flightNumber);
    assert.deepEqual(unchanged.versions, []);
  });

  it('moves the watch: the new flight is planned, the old flight’s watch closes when no other contract is on it', async (ctx) => {
    ctx.after(() => at(new Date()));
    const c = await contract({ days: 6 });
    const departure = new Date((await read(c.contractNumber)).flights[0].departureAt);
    at(new Date(departure.getTime() - 24 * 3_600_000));
    await planWatches({ db: t.db, now: () => clock });
    const [oldWatch] = await findWatchesOfFlight(t.db, 'sandbox', c.flightNumber, c.departureDate);
    assert.equal(oldWatch?.state, 'watching');

    const newFlight = flight();
    const p = await preview(a, c.contractNumber, [outbound(newFlight, `${c.departureDate}T18:40`)]);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal((await confirm(a, c.contractNumber, p.body.changeReference)).status, 200);
    await planWatches({ db: t.db, now: () => clock });
    const [newWatch] = await findWatchesOfFlight(t.db, 'sandbox', newFlight, c.departureDate);
    assert.equal(newWatch?.state, 'watching');
    const [closed] = await findWatchesOfFlight(t.db, 'sandbox', c.flightNumber, c.departureDate);
    assert.equal(closed?.state, 'closed');
    assert.equal((await read(c.contractNumber)).flights[0].flightStatus.state, 'watching');
  });
  it('a codeshare leg: a change keeps the operating flight it names, clears it when it names none; monitoring and exposure follow', async (ctx) => {
    ctx.after(() => at(new Date()));
    at(new Date());
    const marketing = flight();
    const operating = `DL${seq++}`;
    const body = trip(12);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, { ...body, flightNumber: marketing }, a.auth);
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const sold = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: { ...CUSTOMER, language: 'en' },
        booking: { reference: 'CODE02' },
        consent: consent(quote.body.documents.version),
        flights: [{ ...outbound(marketing, body.departureDateTime), leg: undefined, operatingFlightNumber: operating }],
      },
      a.auth,
    );
    assert.equal(sold.status, 201, JSON.stringify(sold.body));
    const number = sold.body.contractNumber as string;
    const date = body.departureDateTime.slice(0, 10);
    const monitored = async () =>
      await t.db
        .selectFrom('contract_legs as l')
        .innerJoin('contracts as c', 'c.id', 'l.contract_id')
        .where('c.contract_number', '=', number)
        .select(['l.operating_flight_number', 'l.monitored_flight_number'])
        .executeTakeFirstOrThrow();
    const exposure = async (airline: string, departureLocal: string) =>
      Number(
        (
          await t.db
            .selectFrom('flight_exposure')
            .select('amount')
            .where('environment', '=', 'sandbox')
            .where('airline', '=', airline)
            .where('departure_airport', '=', 'CDG')
            .where('arrival_airport', '=', 'JFK')
            .where('departure_local', '=', departureLocal)
            .executeTakeFirst()
        )?.amount ?? 0,
      );
    const first = body.departureDateTime;
    const cover = await exposure('DL', first);
    assert.ok(cover > 0, 'sold: the exposure counts on the operating carrier');

    // retimed, the partner names the operating flight: kept, priced, watched and counted as it
    const retimed = `${date}T07:35`;
    const p = await preview(a, number, [{ ...outbound(marketing, retimed), operatingFlightNumber: operating }]);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal(p.body.flights[0].operatingFlightNumber, operating, 'the preview shows what the leg will fly');
    const done = await confirm(a, number, p.body.changeReference);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.flights[0].flightNumber, marketing);
    assert.equal(done.body.flights[0].operatingFlightNumber, operating);
    assert.deepEqual(await monitored(), { operating_flight_number: operating, monitored_flight_number: operating });
    assert.equal(await exposure('DL', first), 0, 'the old flight released');
    assert.equal(await exposure('DL', retimed), cover, 'the new flight reserved on the operating carrier');
    assert.equal(await exposure('AF', retimed), 0);
    const departure = new Date(done.body.flights[0].departureAt);
    at(new Date(departure.getTime() - 24 * 3_600_000));
    await planWatches({ db: t.db, now: () => clock });
    const [watch] = await findWatchesOfFlight(t.db, 'sandbox', operating, date);
    assert.equal(watch?.state, 'watching', 'the operating flight is watched');
    assert.deepEqual(await findWatchesOfFlight(t.db, 'sandbox', marketing, date), []);
    at(new Date());

    // the same flight named again with its operating flight: nothing to change
    const same = await preview(a, number, [{ ...outbound(marketing, retimed), operatingFlightNumber: operating }]);
    assert.equal(same.status, 422);
    // an unknown operating airline: as at /subscribe
    const unknown = await preview(a, number, [{ ...outbound(marketing, retimed), operatingFlightNumber: '9Z264' }]);
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.code, 'unknown_airline');

    // a change naming no operating flight states a flight flying under its own number: cleared
    const own = await preview(a, number, [outbound(marketing, `${date}T09:10`)]);
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.equal(own.body.flights[0].operatingFlightNumber, null);
    const cleared = await confirm(a, number, own.body.changeReference);
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.equal(cleared.body.flights[0].operatingFlightNumber, null);
    assert.deepEqual(await monitored(), { operating_flight_number: null, monitored_flight_number: marketing });
    assert.equal(await exposure('DL', retimed), 0);
    assert.ok((await exposure('AF', `${date}T09:10`)) > 0, 'counted on the marketing airline that now flies it');
  });

  it('prices the new flight with the commission rate of the configuration the contract was sold under, not the one set since', async () => {
    const p = await createTestPartner(t.db); // its own: the configuration changes
    at(new Date());
    const sold = await insureFlight(t.app, p, { flightNumber: flight(), days: 12, passengers: 2 });
    const rate = (r: string) => (n: number) =>
      Number(new Decimal(n).times(r).toDecimalPlaces(0, Decimal.ROUND_HALF_UP));
    const [legBefore] = await legsOf(sold.contractNumber);
    assert.equal(Number(legBefore!.share_commission), rate('0.2')(Number(legBefore!.share_net)));
    // after the sale the partner raises its commission to 30 %
    await setConfiguration(t.db, 'operator:test', p.id, { ...DEFAULT_CONFIGURATION, commissionRate: '0.3' });

    const newDeparture = `${sold.departureDate}T06:15`;
    const previewed = await preview(p, sold.contractNumber, [outbound(flight(), newDeparture)]);
    assert.equal(previewed.status, 200, JSON.stringify(previewed.body));
    const confirmed = await confirm(p, sold.contractNumber, previewed.body.changeReference);
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    const [legAfter] = await legsOf(sold.contractNumber);
    const net = Number(legAfter!.share_net);
    assert.equal(Number(legAfter!.share_commission), rate('0.2')(net), 'the commission rate of the sale (20 %)');
    // the same flight quoted today, at 30 %, costs more: the customer is not charged for the new rate
    const today = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...trip(12), departureDateTime: newDeparture, flightNumber: legAfter!.flight_number },
      p.auth,
    );
    assert.equal(today.status, 200, JSON.stringify(today.body));
    assert.ok(today.body.premium.net.amount > net, `${today.body.premium.net.amount} > ${net}`);
    assert.equal(today.body.premium.commission.amount, rate('0.3')(today.body.premium.net.amount));
    // the ledger keeps the contract's commission
    const commission = (await entriesOfContract(t.db, sold.contractNumber))
      .filter((e) => e.kind === 'commission')
      .reduce((n, e) => n + Number(e.amount), 0);
    const row = await t.db
      .selectFrom('contracts')
      .select(['premium_commission'])
      .where('contract_number', '=', sold.contractNumber)
      .executeTakeFirstOrThrow();
    assert.equal(commission, Number(row.premium_commission));
  });
});
