import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { completeFinishedContracts } from '../../src/claims/contract-completion.ts';
import { planWatches } from '../../src/monitoring/index.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  operatorToken,
  post,
  runCliOn,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

const DAY = 86_400_000;

/**
 * What a flight did is stated once it has flown: an operator's on_time, delay or diversion before the
 * flight's departure is refused, watched or not (a decision taken ahead stopped the monitoring, decided
 * the legs sold later and completed contracts before departure); a cancellation may be stated ahead.
 * And a contract is never completed before its first departure, whatever decided its flight, unless a
 * claim of it was paid ahead (a cancellation): the departure counts the legs of completed contracts too,
 * and a claim voided ahead leaves its contract active.
 */
describe('operator flight events before and after departure (production)', () => {
  let t: TestApp;
  let p: TestPartner;
  let sandbox: TestPartner;
  let operator: { authorization: string };
  before(async () => {
    t = await buildTestApp();
    p = await createTestPartner(t.db, { environment: 'production' });
    sandbox = await createTestPartner(t.db);
    operator = (await operatorToken(t, 'flight desk')).auth;
  });
  after(() => t.close());

  const watchOf = (flightNumber: string, environment: 'production' | 'sandbox' = 'production') =>
    t.db
      .selectFrom('flight_watches')
      .select(['state', 'decided_at'])
      .where('environment', '=', environment)
      .where('flight_number', '=', flightNumber)
      .executeTakeFirst();
  const contractOf = async (who: TestPartner, contractNumber: string) => {
    const res = await t.app.inject({ method: 'GET', url: `${FLIGHT}/contracts/${contractNumber}`, headers: who.auth });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const event = (at: Date | undefined, ...argv: string[]) =>
    runCliOn(t, ['--json', 'flights', 'event', '--env', 'production', ...argv], {
      actor: 'operator:flight-desk',
      ...(at ? { now: () => at } : {}),
    });

  it('on_time, delayed or diverted 12 days before departure: refused; the contract stays active and cancellable', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7101' });
    const onTime = await event(undefined, 'AF7101', c.departureDate, '--status', 'on_time');
    assert.equal(onTime.code, 1, onTime.out);
    assert.equal(JSON.parse(onTime.err).error.code, 'flight_not_departed', onTime.err);
    const plain = await runCliOn(
      t,
      ['flights', 'event', '--env', 'production', 'AF7101', c.departureDate, '--status', 'on_time'],
      { actor: 'operator:flight-desk' },
    );
    assert.match(plain.err, /^error: AF7101 \S+ departs at \S+: it can be stated on_time only once it has departed/);
    for (const body of [{ status: 'delayed', delayMinutes: 200 }, { status: 'diverted' }]) {
      const refused = await post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber: 'AF7101', departureDate: c.departureDate, ...body },
        operator,
      );
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'flight_not_departed');
    }
    assert.equal(await watchOf('AF7101'), undefined, 'no watch made or decided: the monitoring checks it as any other');
    const read = await contractOf(p, c.contractNumber);
    assert.equal(read.status, 'active');
    assert.deepEqual(read.claims, []);
    const cancelled = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: c.contractNumber, reason: 'customer_request' },
      p.auth,
    );
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.deepEqual(cancelled.body.refund, read.premium.total, 'the full refund before the first departure');
  });

  it('a cancellation stated ahead whose claim is voided (flight_data): the contract stays active; a delay is still refused', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7106' });
    const cancelled = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF7106', departureDate: c.departureDate, status: 'cancelled' },
      operator,
    );
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const claimNumber = cancelled.body.claimsOpened[0].claimNumber as string;
    const voided = await runCliOn(
      t,
      ['--json', 'claims', 'void', claimNumber, '--reason', 'the airline did not cancel it', '--cause', 'flight_data'],
      { actor: 'operator:claim-desk' },
    );
    assert.equal(voided.code, 0, voided.err);
    assert.equal((await contractOf(p, c.contractNumber)).status, 'active', 'a void before departure completes nothing');

    const delayed = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF7106', departureDate: c.departureDate, status: 'delayed', delayMinutes: 200 },
      operator,
    );
    assert.equal(delayed.status, 409, JSON.stringify(delayed.body));
    assert.equal(delayed.body.code, 'flight_not_departed');
    const read = await contractOf(p, c.contractNumber);
    assert.equal(read.status, 'active');
    assert.equal(read.claims.length, 1, 'only the voided claim');
  });

  /** A contract whose flight an operator stated cancelled ahead, and the claim desk's void of its claim. */
  const voidedAhead = async (
    flightNumber: string,
    cause: 'flight_data' | 'other',
    options: { returnFlight?: string; passengers?: number } = {},
  ) => {
    const c = await insureFlight(t.app, p, { flightNumber, ...options });
    const reported = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      operator,
    );
    assert.equal(reported.status, 200, JSON.stringify(reported.body));
    const claimNumber = reported.body.claimsOpened[0].claimNumber as string;
    const voided = await runCliOn(
      t,
      ['--json', 'claims', 'void', claimNumber, '--reason', 'checked with the airline', '--cause', cause],
      { actor: 'operator:claim-desk' },
    );
    assert.equal(voided.code, 0, voided.err);
    return c;
  };

  /** Every flight's exposure summed (docs/limits.md): what a release takes away. */
  const totalExposure = async () => {
    const row = await t.db
      .selectFrom('flight_exposure')
      .select([sql<string>`coalesce(sum(amount), 0)`.as('amount'), sql<string>`coalesce(sum(legs), 0)`.as('legs')])
      .executeTakeFirstOrThrow();
    return { amount: Number(row.amount), legs: Number(row.legs) };
  };

  it('a contract whose claim was voided ahead: cancellable for its full premium when the flight data was wrong, not for another cause', async () => {
    const cancel = (contractNumber: string) =>
      post(t.app, `${FLIGHT}/cancel`, { contractNumber, reason: 'customer_request' }, p.auth);

    // the airline never cancelled the flight: the claim paid nothing, the customer may still withdraw
    const wrongData = await voidedAhead('AF7131', 'flight_data');
    const premium = (await contractOf(p, wrongData.contractNumber)).premium.total;
    const exposed = await totalExposure();
    const cancelled = await cancel(wrongData.contractNumber);
    // the voided claim's leg is no claimed leg (money owed): its exposure is released like any other's
    const released = await totalExposure();
    assert.equal(released.legs, exposed.legs - 1, 'the leg leaves the flight_exposure count');
    assert.ok(released.amount < exposed.amount, 'its exposure is released');
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'cancelled');
    assert.deepEqual(cancelled.body.refund, premium, 'the full premium');
    assert.deepEqual((await cancel(wrongData.contractNumber)).body, cancelled.body, 'the same answer again');
    assert.deepEqual(await totalExposure(), released, 'released once');
    // the flight's true outcome, reported afterwards, opens nothing on the cancelled contract
    const reportedAgain = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF7131', departureDate: wrongData.departureDate, status: 'cancelled' },
      operator,
    );
    assert.equal(reportedAgain.status, 200, JSON.stringify(reportedAgain.body));
    assert.deepEqual(reportedAgain.body.claimsOpened, []);

    // a claim voided for another cause (fraud, a duplicate) still bars the refund
    const other = await voidedAhead('AF7132', 'other');
    const refused = await cancel(other.contractNumber);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'contract_not_cancellable');
    assert.match(refused.body.detail, /has a claim/);
    assert.equal((await contractOf(p, other.contractNumber)).status, 'active');
  });

  it('a partial cancellation: the leg of a claim voided for wrong flight data stays (409, no 500); its passengers may leave', async () => {
    const c = await voidedAhead('AF7133', 'flight_data', { returnFlight: 'AF7134', passengers: 3 });
    const partial = (path: string, body: Record<string, unknown>) =>
      post(t.app, `${FLIGHT}/contracts/${c.contractNumber}/${path}`, { reason: 'customer_request', ...body }, p.auth);
    const before = await contractOf(p, c.contractNumber);

    // the leg keeps its claim, voided or not: removing it would take the claim's leg away
    for (const path of ['partial-cancellation/preview', 'partial-cancellation']) {
      const refused = await partial(path, { leg: 0 });
      assert.equal(refused.status, 409, `${path}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.code, 'contract_not_cancellable');
      assert.match(refused.body.detail, /Leg 0 has a claim \(voided or not\)/);
    }
    // the other leg, without a claim, may leave
    const preview = await partial('partial-cancellation/preview', { leg: 1 });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.equal(preview.body.flights.length, 1);

    // passengers leave: every leg, the voided claim's too, stays with fewer passengers insured, and the
    // share of the one who left is released on both (the voided claim's leg owes nothing)
    const exposed = await totalExposure();
    const one = await voidedAhead('AF7136', 'flight_data');
    const perPassengerLeg = (await totalExposure()).amount - exposed.amount;
    const cancelledOne = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: one.contractNumber, reason: 'customer_request' },
      p.auth,
    );
    assert.equal(cancelledOne.status, 200, JSON.stringify(cancelledOne.body));
    assert.deepEqual(await totalExposure(), exposed, 'a one-passenger leg: its exposure, released on /cancel');
    const left = await partial('partial-cancellation', { passengers: 1, contractVersion: before.version });
    assert.equal(left.status, 200, JSON.stringify(left.body));
    assert.equal(left.body.change, 'passenger_cancelled');
    assert.equal(left.body.passengers, 2);
    assert.equal(left.body.flights.length, 2);
    assert.ok(left.body.refund.amount > 0, 'the share of the passenger who left');
    assert.deepEqual(
      await totalExposure(),
      { amount: exposed.amount - 2 * perPassengerLeg, legs: exposed.legs },
      'one passenger of three released on both legs; the legs stay',
    );
    const after = await contractOf(p, c.contractNumber);
    assert.equal(after.status, 'active');
    assert.equal(after.passengers, 2);
    assert.equal(after.claims.length, 1, 'the voided claim stays on the contract');
    assert.equal(after.claims[0].status, 'voided');

    // a claim voided for another cause bars passengers leaving as it bars /cancel
    const other = await voidedAhead('AF7135', 'other', { passengers: 2 });
    const refused = await post(
      t.app,
      `${FLIGHT}/contracts/${other.contractNumber}/partial-cancellation`,
      { reason: 'customer_request', passengers: 1 },
      p.auth,
    );
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'contract_not_cancellable');
  });

  it('a cancellation paid ahead completes the contract; a delay on its flight is still refused before departure', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7107' });
    const cancelled = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF7107', departureDate: c.departureDate, status: 'cancelled' },
      operator,
    );
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    // the claim paid and the contract completed ahead of departure (as the payout of a cancellation does)
    const claimNumber = cancelled.body.claimsOpened[0].claimNumber as string;
    await t.db.updateTable('claims').set({ status: 'paid' }).where('claim_number', '=', claimNumber).execute();
    await t.db
      .updateTable('contracts')
      .set({ status: 'completed' })
      .where('contract_number', '=', c.contractNumber)
      .execute();

    const delayed = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF7107', departureDate: c.departureDate, status: 'delayed', delayMinutes: 200 },
      operator,
    );
    assert.equal(delayed.status, 409, JSON.stringify(delayed.body));
    assert.equal(delayed.body.code, 'flight_not_departed', 'a completed contract’s leg still departs later');
  });

  it('the same refusal on a flight already watched (within 48 h of departure): it stays watching', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7104' });
    await watchFlight('AF7104', c.departureDate, new Date(Date.now() + 12 * DAY));
    const onTime = await event(new Date(Date.now() + 11 * DAY), 'AF7104', c.departureDate, '--status', 'on_time');
    assert.equal(JSON.parse(onTime.err).error.code, 'flight_not_departed', onTime.err);
    assert.deepEqual(await watchOf('AF7104'), { state: 'watching', decided_at: null });
    assert.equal((await contractOf(p, c.contractNumber)).status, 'active');
  });

  /** The flight's watch as the planner makes it within 48 h of departure (at the leg's scheduled departure). */
  const watchFlight = async (
    flightNumber: string,
    departureDate: string,
    departure: Date,
    environment: 'production' | 'sandbox' = 'production',
  ) =>
    t.db
      .insertInto('flight_watches')
      .values({
        environment,
        flight_number: flightNumber,
        departure_date: departureDate,
        origin: 'CDG',
        destination: 'JFK',
        scheduled_departure: departure,
        scheduled_arrival: null,
        state: 'watching',
        next_check_at: departure,
        last_checked_at: null,
        last_outcome: null,
        last_error: null,
        review_reason: null,
        decided_at: null,
      })
      .execute();
  const legDeparture = async (contractNumber: string) =>
    (
      await t.db
        .selectFrom('contract_legs as l')
        .innerJoin('contracts as c', 'c.id', 'l.contract_id')
        .select('l.departure_at')
        .where('c.contract_number', '=', contractNumber)
        .where('l.leg_index', '=', 0)
        .executeTakeFirstOrThrow()
    ).departure_at;
  /** A delay stated by an operator now, the flight 12 days ahead. */
  const delayNow = (flightNumber: string, departureDate: string) =>
    post(t.app, `${FLIGHT}/claims`, { flightNumber, departureDate, status: 'delayed', delayMinutes: 200 }, operator);
  /** A contract sold later on the flight, and the planner's run over the flights decided ahead. */
  const soldLaterAndPlanned = async (flightNumber: string) => {
    const later = await insureFlight(t.app, p, { flightNumber });
    await planWatches({ db: t.db, jobs: t.app.parasol.jobs, now: () => new Date() });
    return contractOf(p, later.contractNumber);
  };

  it('a delay before departure on a flight whose only contract was cancelled: refused; a contract sold later gets no claim', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7108' });
    await watchFlight('AF7108', c.departureDate, await legDeparture(c.contractNumber));
    const cancelled = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: c.contractNumber, reason: 'customer_request' },
      p.auth,
    );
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));

    const delayed = await delayNow('AF7108', c.departureDate);
    assert.equal(delayed.status, 409, JSON.stringify(delayed.body));
    assert.equal(
      delayed.body.code,
      'flight_not_departed',
      'the cancelled contract’s leg and the watch still say when it departs',
    );
    assert.deepEqual(await watchOf('AF7108'), { state: 'watching', decided_at: null });
    const onTime = await event(undefined, 'AF7108', c.departureDate, '--status', 'on_time');
    assert.equal(JSON.parse(onTime.err).error.code, 'flight_not_departed', onTime.err);

    const later = await soldLaterAndPlanned('AF7108');
    assert.equal(later.status, 'active');
    assert.deepEqual(later.claims, [], 'no claim from a decision that was never taken');
  });

  /** Moves the contract's outbound onto another flight of the same day (a flight change, confirmed). */
  const changeFlight = async (
    contractNumber: string,
    departureDate: string,
    flightNumber: string,
    time = '14:00',
    who: TestPartner = p,
  ) => {
    const flights = [
      {
        leg: 0,
        flightNumber,
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        departureDateTime: `${departureDate}T${time}`,
      },
    ];
    const preview = await post(
      t.app,
      `${FLIGHT}/contracts/${contractNumber}/flight-change/preview`,
      { flights },
      who.auth,
    );
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    const changed = await post(
      t.app,
      `${FLIGHT}/contracts/${contractNumber}/flight-change`,
      { changeReference: preview.body.changeReference },
      who.auth,
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
  };

  it('a delay before departure on a flight its only contract left (a flight change), watched: refused', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7109' });
    await watchFlight('AF7109', c.departureDate, await legDeparture(c.contractNumber));
    await changeFlight(c.contractNumber, c.departureDate, 'AF7110');

    const delayed = await delayNow('AF7109', c.departureDate);
    assert.equal(delayed.status, 409, JSON.stringify(delayed.body));
    assert.equal(delayed.body.code, 'flight_not_departed');
    assert.deepEqual(await watchOf('AF7109'), { state: 'watching', decided_at: null });

    const later = await soldLaterAndPlanned('AF7109');
    assert.deepEqual(later.claims, []);
  });

  it('the same on a flight not watched that a changed contract insured (its earlier version’s departure), in any spelling', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF712' });
    await changeFlight(c.contractNumber, c.departureDate, 'AF7113');
    assert.equal(await watchOf('AF712'), undefined);
    const delayed = await delayNow('AF0712', c.departureDate);
    assert.equal(delayed.status, 409, JSON.stringify(delayed.body));
    assert.equal(delayed.body.code, 'flight_not_departed');
  });

  /** The operator's delay at `at`, through the CLI (the application's clock). */
  const delayAt = (at: Date, flightNumber: string, departureDate: string) =>
    event(at, flightNumber, departureDate, '--status', 'delayed', '--delay', '200');
  const cancel = async (who: TestPartner, contractNumber: string) =>
    assert.equal(
      (await post(t.app, `${FLIGHT}/cancel`, { contractNumber, reason: 'customer_request' }, who.auth)).status,
      200,
    );
  const HOUR = 3_600_000;

  it('a cancelled contract, no watch, never changed: its cancelled leg alone refuses a delay before it, not after', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7114' });
    const departure = await legDeparture(c.contractNumber);
    await cancel(p, c.contractNumber);
    assert.equal(await watchOf('AF7114'), undefined);
    const ahead = await delayAt(new Date(departure.getTime() - 60_000), 'AF7114', c.departureDate);
    assert.equal(JSON.parse(ahead.err).error.code, 'flight_not_departed', ahead.err);
    const flown = await delayAt(new Date(departure.getTime() + 60_000), 'AF7114', c.departureDate);
    assert.equal(flown.code, 0, flown.err);
  });

  it('a watch alone (no contract, no version) refuses a delay before its scheduled departure', async () => {
    const departureDate = new Date(Date.now() + 12 * DAY).toISOString().slice(0, 10);
    const departure = new Date(`${departureDate}T09:30:00Z`);
    await watchFlight('AF7115', departureDate, departure);
    const ahead = await delayAt(new Date(departure.getTime() - 60_000), 'AF7115', departureDate);
    assert.equal(JSON.parse(ahead.err).error.code, 'flight_not_departed', ahead.err);
    assert.deepEqual(await watchOf('AF7115'), { state: 'watching', decided_at: null });
    const flown = await delayAt(new Date(departure.getTime() + 60_000), 'AF7115', departureDate);
    assert.equal(flown.code, 0, flown.err);
    assert.equal((await watchOf('AF7115'))?.state, 'decided');
  });

  it('a watch later than the cancelled legs: refused until the watch’s departure (never decided before it)', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7116' });
    const leg = await legDeparture(c.contractNumber);
    const watched = new Date(leg.getTime() + 6 * HOUR);
    await watchFlight('AF7116', c.departureDate, watched);
    await cancel(p, c.contractNumber);
    const between = await delayAt(new Date(leg.getTime() + HOUR), 'AF7116', c.departureDate);
    assert.equal(JSON.parse(between.err).error.code, 'flight_not_departed', between.err);
    assert.deepEqual(await watchOf('AF7116'), { state: 'watching', decided_at: null });
    const flown = await delayAt(new Date(watched.getTime() + 60_000), 'AF7116', c.departureDate);
    assert.equal(flown.code, 0, flown.err);
  });

  it('a watch later than the live legs: refused until the watch’s departure too', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7120' });
    const leg = await legDeparture(c.contractNumber);
    await watchFlight('AF7120', c.departureDate, new Date(leg.getTime() + 6 * HOUR));
    const between = await delayAt(new Date(leg.getTime() + HOUR), 'AF7120', c.departureDate);
    assert.equal(JSON.parse(between.err).error.code, 'flight_not_departed', between.err);
  });

  it('a contract retimed later on the same flight, then cancelled: refused until its latest departure, not its first', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7117' });
    const first = await legDeparture(c.contractNumber);
    await changeFlight(c.contractNumber, c.departureDate, 'AF7117', '18:00');
    const retimed = await legDeparture(c.contractNumber);
    assert.ok(retimed > first);
    await cancel(p, c.contractNumber);
    const between = await delayAt(new Date(first.getTime() + HOUR), 'AF7117', c.departureDate);
    assert.equal(JSON.parse(between.err).error.code, 'flight_not_departed', between.err);
    const flown = await delayAt(new Date(retimed.getTime() + 60_000), 'AF7117', c.departureDate);
    assert.equal(flown.code, 0, flown.err);
  });

  it('a contract retimed later, then moved off the flight: its versions refuse until the latest departure they give', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF718' });
    const first = await legDeparture(c.contractNumber);
    await changeFlight(c.contractNumber, c.departureDate, 'AF718', '18:00');
    const retimed = await legDeparture(c.contractNumber);
    await changeFlight(c.contractNumber, c.departureDate, 'AF7119');
    const between = await delayAt(new Date(first.getTime() + HOUR), 'AF0718', c.departureDate);
    assert.equal(JSON.parse(between.err).error.code, 'flight_not_departed', between.err);
    const flown = await delayAt(new Date(retimed.getTime() + 60_000), 'AF718', c.departureDate);
    assert.equal(flown.code, 0, flown.err);
  });

  it('the versions are looked up by containment through their GIN index (migration 0064), not by reading them all', async () => {
    const plan = await t.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      return sql<Record<string, string>>`
        EXPLAIN SELECT flights FROM contract_versions
        WHERE flights @> ${JSON.stringify([{ flightNumber: 'AF718' }])}::jsonb
           OR flights @> ${JSON.stringify([{ operatingFlightNumber: 'AF718' }])}::jsonb`.execute(trx);
    });
    const text = plan.rows.map((r) => Object.values(r).join(' ')).join('\n');
    assert.match(text, /contract_versions_flights/, text);
  });

  it('a sandbox contract on the same flight neither blocks nor sets a production event’s departure', async () => {
    // production: a contract moved off AF7121 (only its version 1 says 10:30)
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7121' });
    const production = await legDeparture(c.contractNumber);
    await changeFlight(c.contractNumber, c.departureDate, 'AF7122');
    // sandbox: the same flight retimed to 18:00 (its versions), then cancelled (its legs), and watched
    const s = await insureFlight(t.app, sandbox, { flightNumber: 'AF7121' });
    await changeFlight(s.contractNumber, s.departureDate, 'AF7121', '18:00', sandbox);
    const later = await legDeparture(s.contractNumber);
    await cancel(sandbox, s.contractNumber);
    await watchFlight('AF7121', s.departureDate, later, 'sandbox');
    const between = await delayAt(new Date(production.getTime() + HOUR), 'AF7121', c.departureDate);
    assert.equal(between.code, 0, between.err);

    // and a flight only sandbox insured is not production's to refuse
    const only = await insureFlight(t.app, sandbox, { flightNumber: 'AF7123' });
    await cancel(sandbox, only.contractNumber);
    const unknown = await delayAt(new Date(), 'AF7123', only.departureDate);
    assert.equal(unknown.code, 0, unknown.err);
  });

  it('a delay after the departure its cancelled contract recorded: stated (the watch decided, nothing to pay)', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7111' });
    const departure = await legDeparture(c.contractNumber);
    await watchFlight('AF7111', c.departureDate, departure);
    assert.equal(
      (await post(t.app, `${FLIGHT}/cancel`, { contractNumber: c.contractNumber, reason: 'customer_request' }, p.auth))
        .status,
      200,
    );
    const delayed = await event(
      new Date(departure.getTime() + 60_000),
      'AF7111',
      c.departureDate,
      '--status',
      'delayed',
      '--delay',
      '200',
    );
    assert.equal(delayed.code, 0, delayed.err);
    assert.equal((await watchOf('AF7111'))?.state, 'decided');
  });

  it('on_time after departure on a flight never watched decides it; the contract completes', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7102' });
    const landedAt = new Date(Date.now() + 13 * DAY);
    const onTime = await event(landedAt, 'AF7102', c.departureDate, '--status', 'on_time');
    assert.equal(onTime.code, 0, onTime.err);
    assert.equal(JSON.parse(onTime.out).watchesDecided, 1);
    assert.deepEqual(await watchOf('AF7102'), { state: 'decided', decided_at: landedAt });
    const read = await contractOf(p, c.contractNumber);
    assert.equal(read.status, 'completed', 'flown with nothing to pay');
    assert.deepEqual(read.flights[0].flightStatus.outcome, { event: 'landed', delayMinutes: null });
  });

  it('a cancellation stated before departure still opens the claims and decides the flight', async () => {
    const c = await insureFlight(t.app, p, { flightNumber: 'AF7103' });
    const res = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF7103', departureDate: c.departureDate, status: 'cancelled' },
      operator,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.claimsOpened.length, 1);
    assert.equal((await watchOf('AF7103'))?.state, 'decided');
  });

  it('a flight decided before departure (the simulator on time) completes no contract until it departs; the sweep does after', async () => {
    const c = await insureFlight(t.app, sandbox, { flightNumber: 'AF7105' });
    const cli = async (...argv: string[]) => {
      const run = await runCliOn(t, ['--json', 'flights', ...argv]);
      assert.equal(run.code, 0, run.err);
      return JSON.parse(run.out);
    };
    await cli('simulate', '--env', 'sandbox', 'AF7105', c.departureDate, '--status', 'on_time');
    const checked = await cli('check', 'sandbox', 'AF7105', c.departureDate);
    assert.equal(checked.checks[0].outcome, 'decided', JSON.stringify(checked));
    assert.equal((await watchOf('AF7105', 'sandbox'))?.state, 'decided');
    assert.equal((await contractOf(sandbox, c.contractNumber)).status, 'active', 'not completed before departure');

    await completeFinishedContracts(t.db, new Date(Date.now() + 12 * DAY));
    assert.equal((await contractOf(sandbox, c.contractNumber)).status, 'active', 'the sweep waits a day past it');
    await completeFinishedContracts(t.db, new Date(Date.now() + 14 * DAY));
    assert.equal(
      (await contractOf(sandbox, c.contractNumber)).status,
      'completed',
      'completed by the sweep once flown',
    );
  });
});
