import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkFlightWatch } from '../../src/monitoring/check-flight.ts';
import { dispatchDueChecks } from '../../src/monitoring/dispatch-checks.ts';
import { recordOperatorFlightEvent } from '../../src/monitoring/operator-flight-event.ts';
import { planWatches } from '../../src/monitoring/plan-watches.ts';
import { voidClaim } from '../../src/payouts/void-claim.ts';
import { markClaimPaid } from '../../src/claims/index.ts';
import { flightProviders, flightProvidersFromConfig } from '../../src/monitoring/providers.ts';
import { saveSimulatedFlightEvent, SqlSimulatedFlightStore } from '../../src/monitoring/simulated-events-repo.ts';
import { SimulatorProvider, type SimulatedFlightEvent } from '../../src/monitoring/simulator.ts';
import { listWatches } from '../../src/monitoring/watches-repo.ts';
import { createTestPartner, recordingLog, type TestApp, type TestPartner } from '../helper.ts';
import {
  auditOf,
  cancel,
  checkDeps,
  claimsOf,
  clock,
  flightNumber,
  minutes,
  monitoringApp,
  plus,
  queuedChecks,
  randomDay,
  subscribe,
  watchOf,
  type Contract,
} from './watch-fixtures.ts';

/**
 * The monitoring wired to the database, in sandbox with the simulator reading its events from the
 * database: the planner, the checks and their decisions, the schedule, manual review, the
 * dispatcher. The clock is injected; nothing waits.
 */

const DAY = 86_400_000;

describe('flight monitoring (sandbox, simulator)', () => {
  const c = clock(new Date());
  let t: TestApp;
  let a: TestPartner;
  let b: TestPartner;
  const base = randomDay();
  let nextDay = 0;
  /** A day of its own for each test: the planner's window only sees it. */
  const day = () => new Date(base.getTime() + nextDay++ * 3 * DAY);

  before(async () => {
    t = await monitoringApp(c);
    a = await createTestPartner(t.db);
    b = await createTestPartner(t.db);
  });
  after(() => t.close());

  const providers = () => flightProvidersFromConfig(undefined, t.db, c.now);
  const simulate = (event: SimulatedFlightEvent) =>
    saveSimulatedFlightEvent(t.db, { environment: 'sandbox', event, actor: 'operator:test', now: c.now() });

  /** Contracts on one flight, then the planner run the day before departure; returns the watch. */
  async function watched(contracts: (TestPartner | [TestPartner, number])[], flight = flightNumber()) {
    const d = day();
    const subscribed: Contract[] = [];
    for (const who of contracts) {
      const [partner, passengers] = Array.isArray(who) ? who : [who, 1];
      subscribed.push(await subscribe(t, c, partner, flight, d, { passengers }));
    }
    const departure = subscribed[0]!.departureAt;
    c.set(new Date(departure.getTime() - DAY));
    await planWatches({ db: t.db, now: c.now });
    const watch = await watchOf(t, 'sandbox', flight, subscribed[0]!.departureDate);
    assert.ok(watch, 'the planner created the watch');
    return { watch, contracts: subscribed, departure, flight, date: subscribed[0]!.departureDate };
  }

  describe('planner', () => {
    it('creates one watch for several contracts on one flight, none for a cancelled contract nor for flights beyond 48 h', async () => {
      const d = day();
      const shared = flightNumber();
      const lone = flightNumber();
      const far = flightNumber();
      const one = await subscribe(t, c, a, shared, d);
      await subscribe(t, c, a, shared, d);
      await subscribe(t, c, b, shared, d);
      const cancelled = await subscribe(t, c, b, lone, d);
      await cancel(t, c, b, cancelled);
      const later = await subscribe(t, c, a, far, new Date(d.getTime() + 3 * DAY));

      c.set(new Date(one.departureAt.getTime() - DAY));
      const first = await planWatches({ db: t.db, now: c.now });
      assert.ok(first.created >= 1);
      const watch = await watchOf(t, 'sandbox', shared, one.departureDate);
      assert.ok(watch);
      assert.equal(watch.state, 'watching');
      assert.deepEqual(watch.next_check_at, one.departureAt, 'first check at the scheduled departure');
      assert.equal(watch.origin, 'CDG');
      assert.equal(watch.destination, 'JFK');
      assert.equal(watch.scheduled_arrival, null, 'learnt from the provider, not from the legs');
      assert.equal(
        await watchOf(t, 'sandbox', lone, one.departureDate),
        undefined,
        'a cancelled contract is not watched',
      );
      assert.equal(await watchOf(t, 'sandbox', far, later.departureDate), undefined, 'beyond the 48 h horizon');

      const listed = await listWatches(t.db, { environment: 'sandbox', departureDate: one.departureDate, limit: 100 });
      assert.equal(listed.find((w) => w.flightNumber === shared)?.contracts, 3, 'three contracts share the watch');

      const again = await planWatches({ db: t.db, now: c.now });
      assert.equal(again.created, 0, 'running the planner again creates nothing');
      const count = await t.db
        .selectFrom('flight_watches')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('flight_number', '=', shared)
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 1);
    });

    it('closes the watch when its last contract is cancelled, and reopens it for a new one', async () => {
      const { watch, contracts } = await watched([a]);
      const now = c.now();
      await cancel(t, c, a, contracts[0]!);
      c.set(now);
      const planned = await planWatches({ db: t.db, now: c.now });
      assert.ok(planned.closed >= 1);
      const closed = await watchOf(t, 'sandbox', watch.flight_number, watch.departure_date);
      assert.equal(closed?.state, 'closed');
      assert.equal(closed?.next_check_at, null);
      assert.ok((await auditOf(t, watch.id)).some((r) => r.action === 'flight_watch_closed'));

      await subscribe(t, c, b, watch.flight_number, new Date(`${watch.departure_date}T00:00:00Z`));
      const reopened = await planWatches({ db: t.db, now: c.now });
      assert.ok(reopened.reopened >= 1);
      assert.equal((await watchOf(t, 'sandbox', watch.flight_number, watch.departure_date))?.state, 'watching');
    });
  });

  describe('checks', () => {
    it('delayed beyond a tier: one claim per leg, the watch decided with its audit row', async () => {
      const { watch, departure, flight, date } = await watched([a, [b, 2]]);
      await simulate({ flightNumber: flight, departureDate: date, status: 'delayed', arrivalDelayMinutes: 190 });
      c.set(departure);
      const result = await checkFlightWatch(checkDeps(t, c, providers()), watch.id);
      assert.equal(result.outcome, 'decided');
      assert.deepEqual(result.outcome === 'decided' && result.decision, { kind: 'delayed', arrivalDelayMinutes: 190 });
      const claims = await claimsOf(t, 'sandbox', flight, date);
      assert.equal(claims.length, 2, 'one claim per leg');
      assert.deepEqual(
        claims.map((cl) => Number(cl.compensation_amount)).sort((x, y) => x - y),
        [10_000, 20_000],
        'highest tier (180 min) × passengers',
      );
      assert.ok(claims.every((cl) => cl.reason === 'delay' && cl.delay_minutes === 190));
      assert.equal((claims[0]!.evidence as { source: string }).source, 'monitoring:simulator');
      assert.equal(
        (claims[0]!.evidence as { scheduledArrival: string }).scheduledArrival,
        plus(departure, minutes(120)).toISOString(),
        'the status record is the evidence',
      );

      const after = await watchOf(t, 'sandbox', flight, date);
      assert.equal(after?.state, 'decided');
      assert.equal(after?.next_check_at, null);
      assert.equal(after?.checks, 1);
      assert.deepEqual(after?.decision, {
        kind: 'delayed',
        arrivalDelayMinutes: 190,
        claimsOpened: 2,
        source: 'monitoring:simulator',
      });
      assert.deepEqual(after?.scheduled_arrival, plus(departure, minutes(120)));
      const audit = await auditOf(t, watch.id);
      assert.equal(audit.at(-1)?.action, 'flight_decided');

      assert.deepEqual(
        await checkFlightWatch(checkDeps(t, c, providers()), watch.id),
        { outcome: 'skipped', state: 'decided' },
        'a decided watch is not checked again',
      );
      assert.equal((await claimsOf(t, 'sandbox', flight, date)).length, 2);
    });

    it('a delay below the lowest tier: decided, no claim', async () => {
      const { watch, departure, flight, date } = await watched([a]);
      await simulate({ flightNumber: flight, departureDate: date, status: 'delayed', arrivalDelayMinutes: 60 });
      c.set(departure);
      const result = await checkFlightWatch(checkDeps(t, c, providers()), watch.id);
      assert.deepEqual(result, {
        outcome: 'decided',
        decision: { kind: 'delayed', arrivalDelayMinutes: 60 },
        claimsOpened: 0,
      });
      assert.equal((await claimsOf(t, 'sandbox', flight, date)).length, 0);
      assert.equal((await watchOf(t, 'sandbox', flight, date))?.state, 'decided');
    });

    it('cancelled: the cancellation amount per passenger', async () => {
      const { watch, departure, flight, date } = await watched([[a, 3]]);
      await simulate({ flightNumber: flight, departureDate: date, status: 'cancelled' });
      c.set(plus(departure, -minutes(30)));
      const result = await checkFlightWatch(checkDeps(t, c, providers()), watch.id);
      assert.deepEqual(result, { outcome: 'decided', decision: { kind: 'cancelled' }, claimsOpened: 1 });
      const [claim] = await claimsOf(t, 'sandbox', flight, date);
      assert.equal(claim?.event, 'cancelled');
      assert.equal(Number(claim?.compensation_amount), 3 * 15_000);
    });

    it('a leg sold after its flight was decided before departure gets that decision’s claim at the next planning', async () => {
      const delayOnly = await createTestPartner(t.db, { configuration: { formula: 'delay' } });
      const { watch, departure, flight, date, contracts } = await watched([a]);
      // known before departure (the simulator's event, as an operator's): decided now, a day ahead
      await simulate({ flightNumber: flight, departureDate: date, status: 'cancelled' });
      const decidedAt = c.now();
      assert.ok(decidedAt < departure);
      const first = await checkFlightWatch(checkDeps(t, c, providers()), watch.id);
      assert.deepEqual(first, { outcome: 'decided', decision: { kind: 'cancelled' }, claimsOpened: 1 });
      // sold afterwards, still before departure: one the decision pays, one it does not (delay only)
      const later = await subscribe(t, c, b, flight, new Date(`${date}T00:00:00Z`), { passengers: 2 });
      const unpaid = await subscribe(t, c, delayOnly, flight, new Date(`${date}T00:00:00Z`));
      await planWatches({ db: t.db, jobs: t.app.parasol.jobs, now: c.now });
      const claims = await claimsOf(t, 'sandbox', flight, date);
      assert.deepEqual(
        claims.map((cl) => [cl.contract_number, cl.event, Number(cl.compensation_amount)]).sort(),
        [
          [contracts[0]!.contractNumber, 'cancelled', 15_000],
          [later.contractNumber, 'cancelled', 2 * 15_000],
        ].sort(),
      );
      assert.ok(!claims.some((cl) => cl.contract_number === unpaid.contractNumber));
      const evidence = claims.find((cl) => cl.contract_number === later.contractNumber)!.evidence as {
        source: string;
        cancelled: boolean;
      };
      assert.equal(evidence.source, 'monitoring:simulator', 'the record the flight was decided on');
      assert.equal(evidence.cancelled, true);
      await planWatches({ db: t.db, jobs: t.app.parasol.jobs, now: c.now });
      assert.equal((await claimsOf(t, 'sandbox', flight, date)).length, 2, 'once');
      assert.equal((await watchOf(t, 'sandbox', flight, date))?.state, 'decided');
    });

    it('a claim the desk voided: the monitoring’s next planning opens none; the operator’s true outcome opens a new one, once', async () => {
      // a round trip: voiding its outbound claim leaves it active (its return still to fly), so the
      // planner still reads it; a contract sold after the decision makes the planner open the flight's
      // claims again — the voided leg among the legs it considers
      const flight = flightNumber();
      const d = day();
      const roundTrip = await subscribe(t, c, a, flight, d, { returnFlight: flightNumber() });
      c.set(new Date(roundTrip.departureAt.getTime() - DAY));
      await planWatches({ db: t.db, now: c.now });
      const watch = (await watchOf(t, 'sandbox', flight, roundTrip.departureDate))!;
      const date = roundTrip.departureDate;
      // the provider wrongly reports a cancellation, known before departure: decided early, a claim opened
      await simulate({ flightNumber: flight, departureDate: date, status: 'cancelled' });
      const decided = await checkFlightWatch(checkDeps(t, c, providers()), watch.id);
      assert.deepEqual(decided, { outcome: 'decided', decision: { kind: 'cancelled' }, claimsOpened: 1 });
      assert.ok(c.now() < roundTrip.departureAt);
      const [wrong] = await claimsOf(t, 'sandbox', flight, date);
      // wrong flight data: even such a void is replaced only by an operator's event, never the monitoring
      const voided = await voidClaim(
        { db: t.db, jobs: t.app.parasol.jobs, keys: t.app.parasol.keys, now: c.now },
        {
          claimNumber: wrong!.claim_number,
          actor: 'operator:desk@parasol.test',
          reason: 'the flight was not cancelled',
          actionToken: `void-${wrong!.claim_number}`,
          cause: 'flight_data',
        },
      );
      assert.equal(voided.outcome, 'done');
      const status = await t.db
        .selectFrom('contracts')
        .select('status')
        .where('contract_number', '=', roundTrip.contractNumber)
        .executeTakeFirstOrThrow();
      assert.equal(status.status, 'active', 'its return still to fly');
      // sold afterwards: the planner opens the flight's claims as decided — for the new contract only
      const later = await subscribe(t, c, b, flight, new Date(`${date}T00:00:00Z`));
      const planned = await planWatches({ db: t.db, jobs: t.app.parasol.jobs, now: c.now });
      assert.equal(planned.claimsOpened, 1);
      assert.deepEqual(
        (await claimsOf(t, 'sandbox', flight, date)).map((cl) => [cl.contract_number, cl.status]).sort(),
        [
          [roundTrip.contractNumber, 'voided'],
          [later.contractNumber, 'opened'],
        ].sort(),
        'no new claim on the voided leg',
      );

      // the operator records what really happened, once the flight has flown: delayed 200 minutes
      c.set(new Date(roundTrip.departureAt.getTime() + 6 * 3_600_000));
      const corrected = await recordOperatorFlightEvent(
        { db: t.db, jobs: t.app.parasol.jobs, now: c.now },
        {
          environment: 'sandbox',
          flightNumber: flight,
          departureDate: date,
          status: 'delayed',
          arrivalDelayMinutes: 200,
        },
        'operator:test',
      );
      assert.equal(corrected.claimsOpened.length, 1);
      assert.equal(corrected.claimsOpened[0]!.replaces, wrong!.claim_number);
      assert.deepEqual(
        corrected.claimsNotChanged.map((cl) => cl.claimNumber),
        (await claimsOf(t, 'sandbox', flight, date))
          .filter((cl) => cl.contract_number === later.contractNumber)
          .map((cl) => cl.claim_number),
        'the later contract’s claim (cancelled) would pay differently; never the voided one',
      );
      assert.deepEqual(corrected.contractsReopened, [], 'the round trip was still active');
      const live = (await claimsOf(t, 'sandbox', flight, date)).filter(
        (cl) => cl.contract_number === roundTrip.contractNumber && cl.status !== 'voided',
      );
      assert.equal(live.length, 1);
      assert.equal(live[0]!.delay_minutes, 200);
      assert.equal(Number(live[0]!.compensation_amount), 10_000);

      assert.equal((await planWatches({ db: t.db, jobs: t.app.parasol.jobs, now: c.now })).claimsOpened, 0);
      const again = await recordOperatorFlightEvent(
        { db: t.db, jobs: t.app.parasol.jobs, now: c.now },
        {
          environment: 'sandbox',
          flightNumber: flight,
          departureDate: date,
          status: 'delayed',
          arrivalDelayMinutes: 200,
        },
        'operator:test',
      );
      assert.deepEqual(again.claimsOpened, []);
      assert.equal((await claimsOf(t, 'sandbox', flight, date)).length, 3);
    });

    it('an operator’s cancellation stated before departure: a leg sold after it gets its claim, the operator as source', async () => {
      const { watch, flight, date, departure } = await watched([a]);
      // a clock a second later at each reading: the event reads it once, for all it writes
      let ticks = 0;
      const ticking = () => new Date(c.now().getTime() + ++ticks * 1000);
      const stated = await recordOperatorFlightEvent(
        { db: t.db, jobs: t.app.parasol.jobs, now: ticking },
        {
          environment: 'sandbox',
          flightNumber: flight,
          departureDate: date,
          status: 'cancelled',
        },
        'operator:test',
      );
      assert.equal(stated.watchesDecided, 1);
      const at = new Date(c.now().getTime() + 1000);
      const decided = await t.db
        .selectFrom('flight_watches')
        .select('decided_at')
        .where('id', '=', watch.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(decided.decided_at, at);
      // the claims it opens observed at that reading (their opened_at is the transaction's start, the listing's key)
      const opened = await t.db
        .selectFrom('claims')
        .select('evidence')
        .where(
          'id',
          'in',
          stated.claimsOpened.map((cl) => cl.id),
        )
        .execute();
      assert.deepEqual(
        opened.map((cl) => (cl.evidence as { observedAt: string }).observedAt),
        [at.toISOString()],
      );
      const audited = await t.db
        .selectFrom('audit_log')
        .select('at')
        .where('entity', '=', 'flight_watch')
        .where('entity_id', '=', watch.id)
        .where('action', '=', 'flight_decided')
        .execute();
      assert.deepEqual(
        audited.map((r) => r.at),
        [at],
      );
      assert.ok(c.now() < departure);
      const later = await subscribe(t, c, b, flight, new Date(`${date}T00:00:00Z`));
      const planned = await planWatches({ db: t.db, jobs: t.app.parasol.jobs, now: c.now });
      assert.equal(planned.claimsOpened, 1);
      const claim = (await claimsOf(t, 'sandbox', flight, date)).find(
        (cl) => cl.contract_number === later.contractNumber,
      );
      assert.equal(claim?.event, 'cancelled');
      assert.equal((claim?.evidence as { source: string }).source, 'operator');
      assert.equal(
        (claim?.evidence as { reportedBy?: string }).reportedBy,
        'operator:test',
        'the operator who stated the event, as on the claims it opened then',
      );
      const openedLater = await t.db
        .selectFrom('audit_log')
        .select('actor')
        .where('entity', '=', 'flight')
        .where('entity_id', '=', `${flight}/${date}`)
        .where('action', '=', 'claims_opened')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        openedLater.map((r) => r.actor),
        ['operator:test', 'operator:test'],
        "the planner opens the later leg's claim in the operator's name, not as system",
      );
    });

    it('diverted: paid as cancelled when cancellation is covered', async () => {
      const { watch, departure, flight, date } = await watched([a]);
      await simulate({
        flightNumber: flight.replace(/^AF/, 'af '),
        departureDate: date,
        status: 'diverted',
        divertedTo: 'bos',
      });
      c.set(plus(departure, minutes(135)));
      const result = await checkFlightWatch(checkDeps(t, c, providers()), watch.id);
      assert.deepEqual(result, { outcome: 'decided', decision: { kind: 'diverted' }, claimsOpened: 1 });
      const [claim] = await claimsOf(t, 'sandbox', flight, date);
      assert.equal(claim?.event, 'diverted');
      assert.equal(claim?.reason, 'cancellation');
      assert.equal((claim?.evidence as { divertedTo: string }).divertedTo, 'BOS');
    });

    it('a flight nobody simulated: pending until it lands, then on time (no claim)', async () => {
      const { watch, departure, flight, date } = await watched([a]);
      c.set(departure);
      const first = await checkFlightWatch(checkDeps(t, c, providers()), watch.id);
      const arrival = plus(departure, minutes(120));
      assert.deepEqual(
        first,
        { outcome: 'pending', reason: 'not_final', nextCheckAt: plus(arrival, minutes(15)) },
        'scheduled arrival + 15 min',
      );
      c.set(plus(arrival, minutes(15)));
      const second = await checkFlightWatch(checkDeps(t, c, providers()), watch.id);
      assert.deepEqual(second, { outcome: 'decided', decision: { kind: 'on_time' }, claimsOpened: 0 });
      assert.equal((await claimsOf(t, 'sandbox', flight, date)).length, 0);
    });

    it('a round trip stays active while its return is still to fly, its outbound decided on time or its claim paid; the return then gets its claim', async () => {
      const statusOf = async (contractNumber: string) =>
        (
          await t.db
            .selectFrom('contracts')
            .select('status')
            .where('contract_number', '=', contractNumber)
            .executeTakeFirstOrThrow()
        ).status;
      const d = day();
      const [onTime, late, returnFlight] = [flightNumber(), flightNumber(), flightNumber()];
      const flown = await subscribe(t, c, a, onTime, d, { returnFlight });
      const single = await subscribe(t, c, b, onTime, d);
      const paid = await subscribe(t, c, a, late, d, { returnFlight });
      c.set(new Date(flown.departureAt.getTime() - DAY));
      await planWatches({ db: t.db, now: c.now });
      // outbound on time: the one-way contract is over, the round trip is not
      c.set(plus(flown.departureAt, minutes(135)));
      const first = await checkFlightWatch(
        checkDeps(t, c, providers()),
        (await watchOf(t, 'sandbox', onTime, flown.departureDate))!.id,
      );
      assert.deepEqual(first, { outcome: 'decided', decision: { kind: 'on_time' }, claimsOpened: 0 });
      assert.equal(await statusOf(single.contractNumber), 'completed');
      assert.equal(await statusOf(flown.contractNumber), 'active', 'its return still to fly');
      // outbound late, its claim paid: the round trip stays active
      await simulate({
        flightNumber: late,
        departureDate: paid.departureDate,
        status: 'delayed',
        arrivalDelayMinutes: 200,
      });
      const second = await checkFlightWatch(
        checkDeps(t, c, providers()),
        (await watchOf(t, 'sandbox', late, paid.departureDate))!.id,
      );
      assert.equal(second.outcome, 'decided');
      const [claim] = await claimsOf(t, 'sandbox', late, paid.departureDate);
      await t.db
        .transaction()
        .execute((trx) =>
          markClaimPaid(
            trx,
            t.app.parasol.jobs,
            { id: claim!.id, contractId: claim!.contract_id, attempt: 1 },
            c.now(),
          ),
        );
      assert.equal(await statusOf(paid.contractNumber), 'active', 'its return still to fly');
      // the return flight is cancelled: both round trips get their claim on it, then are over once paid
      const returnDate = new Date(flown.departureAt.getTime() + 7 * DAY).toISOString().slice(0, 10);
      await simulate({ flightNumber: returnFlight, departureDate: returnDate, status: 'cancelled' });
      c.set(new Date(flown.departureAt.getTime() + 6 * DAY));
      await planWatches({ db: t.db, now: c.now });
      const back = await checkFlightWatch(
        checkDeps(t, c, providers()),
        (await watchOf(t, 'sandbox', returnFlight, returnDate))!.id,
      );
      assert.deepEqual(back, { outcome: 'decided', decision: { kind: 'cancelled' }, claimsOpened: 2 });
    });

    it('an operator’s correction after an on-time decision: completed contracts get their claim and are active again; open claims are listed, never changed', async () => {
      const { watch, departure, flight, date, contracts } = await watched([a, [b, 2]]);
      const cancelledOne = await subscribe(t, c, a, flight, new Date(`${date}T00:00:00Z`));
      await cancel(t, c, a, cancelledOne);
      c.set(plus(departure, minutes(135)));
      const decided = await checkFlightWatch(checkDeps(t, c, providers()), watch.id);
      assert.deepEqual(decided, { outcome: 'decided', decision: { kind: 'on_time' }, claimsOpened: 0 });
      const statusOf = async (contractNumber: string) =>
        (
          await t.db
            .selectFrom('contracts')
            .select('status')
            .where('contract_number', '=', contractNumber)
            .executeTakeFirstOrThrow()
        ).status;
      for (const contract of contracts) assert.equal(await statusOf(contract.contractNumber), 'completed');
      // the decision's audit rows on the monitoring's clock (years from the database's)
      const auditedAt = (entity: string, action: string, ids: string[]) =>
        t.db
          .selectFrom('audit_log')
          .select('at')
          .where('entity', '=', entity)
          .where('action', '=', action)
          .where('entity_id', 'in', ids)
          .execute()
          .then((rows) => rows.map((r) => r.at));
      const decidedAt = plus(departure, minutes(135));
      assert.deepEqual(await auditedAt('flight_watch', 'flight_decided', [watch.id]), [decidedAt]);
      assert.deepEqual(
        await auditedAt(
          'contract',
          'completed',
          contracts.map((k) => k.contractNumber),
        ),
        [decidedAt, decidedAt],
      );

      // the provider was wrong: the flight arrived 200 minutes late
      c.set(plus(departure, minutes(3 * 24 * 60)));
      const deps = { db: t.db, jobs: t.app.parasol.jobs, now: c.now };
      const event = { environment: 'sandbox' as const, flightNumber: flight, departureDate: date };
      const corrected = await recordOperatorFlightEvent(
        deps,
        { ...event, status: 'delayed', arrivalDelayMinutes: 200 },
        'operator:test',
      );
      assert.equal(corrected.claimsOpened.length, 2);
      assert.equal(corrected.watchesDecided, 0, 'the watch was decided already');
      assert.deepEqual(corrected.contractsReopened, contracts.map((k) => k.contractNumber).sort());
      assert.deepEqual(corrected.claimsNotChanged, []);
      for (const contract of contracts) assert.equal(await statusOf(contract.contractNumber), 'active');
      assert.equal(await statusOf(cancelledOne.contractNumber), 'cancelled', 'a cancelled contract stays so');
      const claims = await claimsOf(t, 'sandbox', flight, date);
      assert.deepEqual(
        claims.map((cl) => [cl.contract_number, Number(cl.compensation_amount)]).sort(),
        [
          [contracts[0]!.contractNumber, 10_000],
          [contracts[1]!.contractNumber, 2 * 10_000],
        ].sort(),
      );
      const reopened = await t.db
        .selectFrom('audit_log')
        .select(['actor', 'entity_id', 'data', 'at'])
        .where('entity', '=', 'contract')
        .where('action', '=', 'reopened')
        .where(
          'entity_id',
          'in',
          contracts.map((k) => k.contractNumber),
        )
        .execute();
      assert.equal(reopened.length, 2);
      assert.ok(reopened.every((r) => r.actor === 'operator:test'));
      assert.ok(reopened.every((r) => r.at.getTime() === c.now().getTime()));
      assert.deepEqual(reopened[0]!.data, {
        reason: 'flight_corrected',
        flightNumber: flight,
        departureDate: date,
        status: 'delayed',
        delayMinutes: 200,
      });

      // the same correction again: nothing twice
      const again = await recordOperatorFlightEvent(
        deps,
        { ...event, status: 'delayed', arrivalDelayMinutes: 200 },
        'operator:test',
      );
      assert.deepEqual([again.claimsOpened, again.contractsReopened, again.claimsNotChanged], [[], [], []]);
      // another outcome: the claims stand as decided, listed for the desk with what this one would pay
      const other = await recordOperatorFlightEvent(deps, { ...event, status: 'cancelled' }, 'operator:test');
      assert.deepEqual(other.claimsOpened, []);
      assert.deepEqual(
        other.claimsNotChanged
          .map((d) => [d.compensation.amount, d.eventWouldPay.amount, d.compensation.currency])
          .sort(),
        [
          [10_000, 15_000, 'EUR'],
          [2 * 10_000, 2 * 15_000, 'EUR'],
        ].sort(),
      );
      assert.equal((await claimsOf(t, 'sandbox', flight, date)).length, 2);
    });

    it('pending: rescheduled at arrival + 15 min then every 30 min; manual review 24 h after the scheduled arrival', async () => {
      const { watch, departure } = await watched([a]);
      // a simulator whose unset flights never become final
      const never = flightProviders({
        sandbox: new SimulatorProvider({
          store: new SqlSimulatedFlightStore(t.db, 'sandbox'),
          whenUnset: 'pending',
          now: c.now,
        }),
      });
      const log = recordingLog();
      const deps = checkDeps(t, c, never, log);
      const arrival = plus(departure, minutes(120));
      const expect = async (at: Date, next: Date) => {
        c.set(at);
        const result = await checkFlightWatch(deps, watch.id);
        assert.deepEqual(
          result,
          { outcome: 'pending', reason: 'not_final', nextCheckAt: next },
          `checked at ${at.toISOString()}`,
        );
        assert.deepEqual((await watchOf(t, 'sandbox', watch.flight_number, watch.departure_date))?.next_check_at, next);
      };
      await expect(departure, plus(arrival, minutes(15)));
      await expect(plus(arrival, minutes(15)), plus(arrival, minutes(45)));
      await expect(plus(arrival, minutes(52)), plus(arrival, minutes(75))); // a late check keeps the grid
      await expect(plus(arrival, minutes(24 * 60 - 10)), plus(arrival, minutes(24 * 60))); // the grid's next slot (+24 h 15) is past the deadline

      c.set(plus(arrival, minutes(24 * 60)));
      const result = await checkFlightWatch(deps, watch.id);
      assert.deepEqual(result, { outcome: 'manual_review', reason: 'no_final_status' });
      const row = await watchOf(t, 'sandbox', watch.flight_number, watch.departure_date);
      assert.equal(row?.state, 'manual_review');
      assert.equal(row?.review_reason, 'no_final_status');
      assert.equal(row?.next_check_at, null);
      assert.equal(row?.checks, 5);
      const audit = await auditOf(t, watch.id);
      assert.equal(audit.at(-1)?.action, 'flight_watch_manual_review');
      assert.equal((audit.at(-1)?.data as { reason: string }).reason, 'no_final_status');
      assert.ok(
        log.lines.some((l) => l.level === 'warn' && /manual review/.test(l.message)),
        'a warning is logged',
      );
      assert.deepEqual(
        await checkFlightWatch(deps, watch.id),
        { outcome: 'skipped', state: 'manual_review' },
        'the jobs leave it to the operator',
      );
    });

    it('a watch whose contracts were all cancelled closes instead of calling the provider', async () => {
      const { watch, contracts, departure } = await watched([a]);
      await cancel(t, c, a, contracts[0]!);
      c.set(departure);
      assert.deepEqual(await checkFlightWatch(checkDeps(t, c, providers()), watch.id), { outcome: 'closed' });
      assert.equal((await watchOf(t, 'sandbox', watch.flight_number, watch.departure_date))?.checks, 0);
    });
  });

  describe('dispatcher', () => {
    it('never hands the same watch to two concurrent dispatchers; leases it and queues one check per watch', async () => {
      const first = await watched([a]);
      const second = await watched([b]);
      const ids = [first.watch.id, second.watch.id];
      c.set(plus(second.departure, minutes(1)));
      const only = [...ids];
      const runs = await Promise.all(
        Array.from({ length: 4 }, () =>
          dispatchDueChecks({ db: t.db, jobs: t.app.parasol.jobs, now: c.now }, { only }),
        ),
      );
      const handed = runs.flat();
      assert.deepEqual([...handed].sort(), [...ids].sort(), 'each due watch handed out exactly once');
      for (const w of [first, second]) {
        const row = await watchOf(t, 'sandbox', w.flight, w.date);
        assert.deepEqual(row?.next_check_at, plus(c.now(), minutes(10)), 'leased for 10 minutes');
      }
      assert.equal(await queuedChecks(t, ids), 2);

      assert.deepEqual(
        await dispatchDueChecks({ db: t.db, jobs: t.app.parasol.jobs, now: c.now }, { only }),
        [],
        'leased: not due',
      );
      c.set(plus(c.now(), minutes(11)));
      assert.equal(
        (await dispatchDueChecks({ db: t.db, jobs: t.app.parasol.jobs, now: c.now }, { only })).length,
        2,
        'due again once the lease ends (lost job)',
      );
      assert.equal(
        await queuedChecks(t, ids),
        2,
        'a check still waiting in the queue is not queued twice (singletonKey)',
      );
    });

    it('a simulated event brings the watch’s next check forward', async () => {
      const { watch, flight, date } = await watched([a]);
      const saved = await simulate({ flightNumber: flight, departureDate: date, status: 'cancelled' });
      assert.equal(saved.watchesDue, 1);
      assert.deepEqual((await watchOf(t, 'sandbox', flight, date))?.next_check_at, c.now());
      assert.deepEqual(
        await dispatchDueChecks({ db: t.db, jobs: t.app.parasol.jobs, now: c.now }, { only: [watch.id] }),
        [watch.id],
      );
    });
  });
});
