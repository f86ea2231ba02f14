import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { dispatchDueChecks } from '../../src/monitoring/dispatch-checks.ts';
import { planWatches } from '../../src/monitoring/plan-watches.ts';
import { saveSimulatedFlightEvent } from '../../src/monitoring/simulated-events-repo.ts';
import { buildTestApp, createTestPartner, type TestApp, type TestPartner } from '../helper.ts';
import { claimsOf, flightNumber, subscribe, watchOf, type Clock } from './watch-fixtures.ts';

/**
 * The monitoring through the real job queue and workers (worker.ts), on the real clock: a sandbox
 * flight simulated cancelled is dispatched, checked by the `flights_check` worker, and its claim
 * opened with its notification job.
 */

describe('flight monitoring through the workers', () => {
  let t: TestApp;
  let partner: TestPartner;
  const realClock: Clock = { now: () => new Date(), set: () => new Date() };

  before(async () => {
    t = await buildTestApp({ env: { PARASOL_JOB_POLL_SECONDS: '1' } });
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  it('plan → simulate → dispatch → the check job decides and opens the claim', async () => {
    const flight = flightNumber();
    const departureDay = new Date(Date.now() + 30 * 3_600_000); // within the planner's 48 h
    const contract = await subscribe(t, realClock, partner, flight, departureDay);
    await planWatches({ db: t.db, now: () => new Date() });
    const watch = await watchOf(t, 'sandbox', flight, contract.departureDate);
    assert.ok(watch, 'planned');

    await saveSimulatedFlightEvent(t.db, {
      environment: 'sandbox',
      event: { flightNumber: flight, departureDate: contract.departureDate, status: 'cancelled' },
      actor: 'operator:test',
      now: new Date(),
    });
    assert.deepEqual(
      await dispatchDueChecks({ db: t.db, jobs: t.app.parasol.jobs, now: () => new Date() }, { only: [watch.id] }),
      [watch.id],
    );

    const deadline = Date.now() + 120_000; // a ceiling for a stuck worker, not a speed requirement
    while (Date.now() < deadline && (await watchOf(t, 'sandbox', flight, contract.departureDate))?.state !== 'decided')
      await sleep(200);
    const decided = await watchOf(t, 'sandbox', flight, contract.departureDate);
    assert.equal(decided?.state, 'decided', 'the worker checked the flight');
    const claims = await claimsOf(t, 'sandbox', flight, contract.departureDate);
    assert.equal(claims.length, 1);
    assert.equal(claims[0]!.event, 'cancelled');
  });
});
