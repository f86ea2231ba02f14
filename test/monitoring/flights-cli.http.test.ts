import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dispatchDueChecks } from '../../src/monitoring/dispatch-checks.ts';
import { AEROAPI_MAX_PAGES } from '../../src/monitoring/flightaware.ts';
import { planWatches } from '../../src/monitoring/plan-watches.ts';
import { flightProviders, type FlightProviders } from '../../src/monitoring/providers.ts';
import { SqlSimulatedFlightStore } from '../../src/monitoring/simulated-events-repo.ts';
import { MemorySimulatedFlightStore, SimulatorProvider } from '../../src/monitoring/simulator.ts';
import { createTestPartner, runCliOn, testConfig, type TestApp, type TestPartner } from '../helper.ts';
import {
  auditOf,
  claimsOf,
  clock,
  flightNumber,
  monitoringApp,
  plus,
  randomDay,
  subscribe,
  watchOf,
} from './watch-fixtures.ts';
import { aeroFlight, startAeroApiFake } from './aeroapi-fake.ts';

/** `parasol flights …`: list, show, simulate, check, event — through runCliOn, with an injected clock. */

const DAY = 86_400_000;

describe('parasol flights', () => {
  const c = clock(new Date());
  let t: TestApp;
  let sandbox: TestPartner;
  let production: TestPartner;
  let providers: FlightProviders;
  const base = randomDay();
  let nextDay = 0;
  const day = () => new Date(base.getTime() + nextDay++ * 3 * DAY);

  before(async () => {
    t = await monitoringApp(c);
    sandbox = await createTestPartner(t.db);
    production = await createTestPartner(t.db, { environment: 'production' });
    providers = flightProviders({
      sandbox: new SimulatorProvider({
        store: new SqlSimulatedFlightStore(t.db, 'sandbox'),
        whenUnset: 'on_time',
        now: c.now,
      }),
      // production: a flight that never becomes final, to reach manual review
      production: new SimulatorProvider({ store: new MemorySimulatedFlightStore(), whenUnset: 'pending', now: c.now }),
    });
  });
  after(() => t.close());

  // the configuration of a plain test app (this one's has its workers off), this file's providers and clock
  const cli = (...argv: string[]) =>
    runCliOn(t, argv, { config: testConfig(), flightProviders: providers, now: c.now });
  async function json<T = any>(...argv: string[]): Promise<T> {
    const run = await cli('--json', ...argv);
    assert.equal(run.code, 0, `${argv.join(' ')}: ${run.err}`);
    return JSON.parse(run.out) as T;
  }

  it('list, simulate, check and show a sandbox flight (the designator may be typed without its leading zero)', async () => {
    const flight = flightNumber({ leadingZero: true }); // AF0712 on the legs
    const typed = `AF${Number(flight.slice(2))}`; // AF712 as an operator types it
    const d = day();
    const first = await subscribe(t, c, sandbox, flight, d);
    await subscribe(t, c, sandbox, flight, d, { passengers: 2 });
    c.set(plus(first.departureAt, -DAY));
    await planWatches({ db: t.db, now: c.now });

    const listed = await json('flights', 'list', '--env', 'sandbox', '--date', first.departureDate);
    const mine = listed.watches.find((w: { flightNumber: string }) => w.flightNumber === flight);
    assert.equal(mine.state, 'watching');
    assert.equal(mine.contracts, 2);
    assert.equal(mine.nextCheckAt, first.departureAt.toISOString());
    const text = await cli('flights', 'list', '--env', 'sandbox', '--date', first.departureDate);
    assert.match(text.out, /ENV +FLIGHT +DATE +ROUTE +STATE +NEXT CHECK/);
    assert.match(text.out, new RegExp(`sandbox +${flight} +${first.departureDate} +CDG-JFK +watching`));

    const simulated = await json(
      'flights',
      'simulate',
      '--env',
      'sandbox',
      typed,
      first.departureDate,
      '--status',
      'delayed',
      '--delay',
      '190',
    );
    assert.equal(simulated.simulated.status, 'delayed');
    assert.equal(simulated.simulated.arrivalDelayMinutes, 190);
    assert.equal(simulated.simulated.watchesDue, 1, 'the watch is due now');
    // named as typed, and as the contracts hold it (as flights event names it), never as its key AF712
    assert.deepEqual([simulated.simulated.flightNumber, simulated.simulated.flightNumbers], [typed, [flight]]);
    const simulatedText = await cli(
      'flights',
      'simulate',
      '--env',
      'sandbox',
      typed,
      first.departureDate,
      '--status',
      'delayed',
      '--delay',
      '190',
    );
    assert.equal(simulatedText.code, 0, simulatedText.err);
    assert.match(
      simulatedText.out,
      new RegExp(`^Simulated ${flight} ${first.departureDate} in sandbox: delayed \\(190 min at the gate\\)\\.`),
    );

    const checked = await json('flights', 'check', 'sandbox', typed, first.departureDate);
    assert.equal(checked.checks.length, 1);
    assert.equal(checked.checks[0].outcome, 'decided');
    assert.equal(checked.checks[0].claimsOpened, 2);
    assert.equal((await claimsOf(t, 'sandbox', flight, first.departureDate)).length, 2);

    const shown = await json('flights', 'show', 'sandbox', typed, first.departureDate);
    assert.equal(shown.watches[0].flightNumber, flight);
    assert.equal(shown.watches[0].state, 'decided');
    assert.deepEqual(shown.watches[0].decision, {
      kind: 'delayed',
      arrivalDelayMinutes: 190,
      claimsOpened: 2,
      source: 'monitoring:simulator',
    });
    assert.equal(shown.simulated.status, 'delayed');
    const shownText = await cli('flights', 'show', 'sandbox', flight, first.departureDate);
    assert.match(shownText.out, /State +decided \(delayed\)/);
    assert.match(shownText.out, /Simulated: delayed 190 min/);
  });

  it("simulate a flight beyond the planner's 48 h: its watch is created and due now, the next dispatch opens its claims", async () => {
    const flight = flightNumber();
    const contract = await subscribe(t, c, sandbox, flight, day(), { passengers: 2 });
    c.set(plus(contract.departureAt, -5 * DAY)); // no planner run: the flight is 5 days out, no watch
    assert.equal(await watchOf(t, 'sandbox', flight, contract.departureDate), undefined, 'no watch before');

    const run = await cli(
      'flights',
      'simulate',
      '--env',
      'sandbox',
      flight,
      contract.departureDate,
      '--status',
      'cancelled',
    );
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /Its watch is due now \(created for this event\)/, run.out);
    const watch = await watchOf(t, 'sandbox', flight, contract.departureDate);
    assert.equal(watch?.state, 'watching', 'the simulation created the watch');
    assert.equal(watch?.next_check_at?.getTime(), c.now().getTime(), 'its check is due now, not at departure');
    const simulatedRows = await t.db
      .selectFrom('audit_log')
      .select(['action', 'at'])
      .where('entity', '=', 'flight')
      .where('entity_id', '=', `${flight}/${contract.departureDate}`)
      .execute();
    assert.deepEqual(
      simulatedRows.map((r) => [r.action, r.at.toISOString()]),
      [['flight_simulated', c.now().toISOString()]],
      'audited at the clock of the command (2031), not the database’s',
    );

    const dispatched = await dispatchDueChecks(
      { db: t.db, jobs: t.app.parasol.jobs, now: c.now },
      { only: [watch!.id] },
    );
    assert.deepEqual(dispatched, [watch!.id], 'the next dispatch takes it');
    const checked = await json('flights', 'check', 'sandbox', flight, contract.departureDate);
    assert.equal(checked.checks[0].outcome, 'decided', JSON.stringify(checked));
    assert.equal(checked.checks[0].claimsOpened, 1, 'the claim opens days before departure');
    assert.equal((await claimsOf(t, 'sandbox', flight, contract.departureDate)).length, 1, 'one claim');

    const again = await json(
      'flights',
      'simulate',
      '--env',
      'sandbox',
      flight,
      contract.departureDate,
      '--status',
      'cancelled',
    );
    assert.equal(again.simulated.watchesCreated, 0, 'the watch exists');
    assert.equal(again.simulated.watchesDue, 0, 'a decided watch is not checked again');

    const nobody = flightNumber();
    const none = await cli(
      'flights',
      'simulate',
      '--env',
      'sandbox',
      nobody,
      contract.departureDate,
      '--status',
      'cancelled',
    );
    assert.equal(none.code, 0, none.err);
    assert.match(none.out, /No active contract on this flight in sandbox/, none.out);
    assert.equal(await watchOf(t, 'sandbox', nobody, contract.departureDate), undefined, 'no watch without a contract');
  });

  it('event resolves a production flight in manual review: claims opened by the operator, the watch decided, idempotent', async () => {
    const flight = flightNumber();
    const contract = await subscribe(t, c, production, flight, day(), { passengers: 2 });
    c.set(plus(contract.departureAt, -DAY));
    await planWatches({ db: t.db, now: c.now });
    c.set(plus(contract.departureAt, 120 * 60_000 + DAY)); // scheduled arrival + 24 h
    const checked = await json('flights', 'check', 'production', flight, contract.departureDate);
    assert.deepEqual(checked.checks[0].outcome, 'manual_review');
    assert.equal(
      (
        await json(
          'flights',
          'list',
          '--env',
          'production',
          '--state',
          'manual_review',
          '--date',
          contract.departureDate,
        )
      ).watches[0].flightNumber,
      flight,
    );

    const event = await json(
      'flights',
      'event',
      '--env',
      'production',
      flight,
      contract.departureDate,
      '--status',
      'cancelled',
    );
    assert.equal(event.claimsOpened.length, 1);
    assert.deepEqual(event.claimsOpened[0].compensation, { amount: 30_000, currency: 'EUR' });
    assert.equal(event.watchesDecided, 1);
    const watch = await watchOf(t, 'production', flight, contract.departureDate);
    assert.equal(watch?.state, 'decided');
    assert.deepEqual(watch?.decision, {
      kind: 'cancelled',
      claimsOpened: 1,
      source: 'operator',
      reportedBy: 'operator:test',
    });
    const audit = await auditOf(t, watch!.id);
    assert.deepEqual(audit.at(-1) && { actor: audit.at(-1)!.actor, action: audit.at(-1)!.action }, {
      actor: 'operator:test',
      action: 'flight_decided',
    });
    const claims = await claimsOf(t, 'production', flight, contract.departureDate);
    assert.equal((claims[0]!.evidence as { source: string; reportedBy: string }).source, 'operator');

    const again = await json(
      'flights',
      'event',
      '--env',
      'production',
      flight,
      contract.departureDate,
      '--status',
      'cancelled',
    );
    assert.equal(again.claimsOpened.length, 0, 'one claim per leg, whatever the repeats');
    assert.equal(again.watchesDecided, 0);
  });

  it('codeshares: the operating flight is watched and simulated; its event opens the claims of the legs sold under another number', async () => {
    const marketing = flightNumber(); // AF1234, booked by the customer
    const operating = `DL${marketing.slice(2)}`; // the Delta flight that operates it
    const d = day();
    const codeshare = await subscribe(t, c, sandbox, marketing, d, { operatingFlightNumber: operating });
    const own = await subscribe(t, c, sandbox, operating, d, { airline: 'DL' }); // DL's own passenger
    c.set(plus(codeshare.departureAt, -DAY));
    await planWatches({ db: t.db, now: c.now });
    assert.equal(await watchOf(t, 'sandbox', marketing, codeshare.departureDate), undefined, 'AF does not fly it');
    const listed = await json('flights', 'list', '--env', 'sandbox', '--date', codeshare.departureDate);
    const watch = listed.watches.find((w: { flightNumber: string }) => w.flightNumber === operating);
    assert.equal(watch.contracts, 2, 'one watch for both, on the operating flight');

    const simulated = await json(
      'flights',
      'simulate',
      '--env',
      'sandbox',
      operating,
      codeshare.departureDate,
      '--status',
      'cancelled',
    );
    assert.equal(simulated.simulated.watchesDue, 1);
    assert.deepEqual(simulated.simulated.flightNumbers, [operating], 'the flight that flies, as its legs hold it');
    const checked = await json('flights', 'check', 'sandbox', operating, codeshare.departureDate);
    assert.equal(checked.checks[0].outcome, 'decided');
    assert.equal(checked.checks[0].claimsOpened, 2);
    const claims = await claimsOf(t, 'sandbox', marketing, codeshare.departureDate);
    assert.deepEqual(
      claims.map((cl) => cl.contract_number),
      [codeshare.contractNumber],
      'the leg sold as the marketing flight has its claim',
    );
    assert.equal((await claimsOf(t, 'sandbox', operating, own.departureDate)).length, 1);
  });

  it('simulate names a flight no contract holds as the operator typed it: AF006 stays AF006', async () => {
    const d = day().toISOString().slice(0, 10);
    const run = await cli('flights', 'simulate', '--env', 'sandbox', 'af 006', d, '--status', 'cancelled');
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, new RegExp(`^Simulated AF006 ${d} in sandbox: cancelled\\.`), run.out);
    assert.doesNotMatch(run.out, /\bAF6\b/, 'never the normalised key');
    const saved = await json('flights', 'simulate', '--env', 'sandbox', 'AF006', d, '--status', 'on_time');
    assert.deepEqual([saved.simulated.flightNumber, saved.simulated.flightNumbers], ['AF006', ['AF006']]);
    const shown = await new SqlSimulatedFlightStore(t.db, 'sandbox').find('AF6', d);
    assert.equal(shown?.status, 'on_time', 'one flight: AF006 is kept under its key AF6');
  });

  it('simulate the marketing number of a codeshare: the CLI names the operating flight to simulate, and creates no watch', async () => {
    const marketing = flightNumber();
    const operating = `KL${marketing.slice(2)}`;
    const codeshare = await subscribe(t, c, sandbox, marketing, day(), { operatingFlightNumber: operating });
    c.set(plus(codeshare.departureAt, -5 * DAY));
    const run = await cli(
      'flights',
      'simulate',
      '--env',
      'sandbox',
      marketing,
      codeshare.departureDate,
      '--status',
      'cancelled',
    );
    assert.equal(run.code, 0, run.err);
    assert.match(
      run.out,
      new RegExp(
        `${marketing} is sold as a codeshare: its legs are monitored under the operating flight ${operating}, not under ${marketing}\\. Simulate that flight: parasol flights simulate --env sandbox ${operating} ${codeshare.departureDate}`,
      ),
      run.out,
    );
    assert.doesNotMatch(run.out, /No active contract/, run.out);
    assert.equal(await watchOf(t, 'sandbox', marketing, codeshare.departureDate), undefined, 'no watch of AF');
    assert.equal(
      await watchOf(t, 'sandbox', operating, codeshare.departureDate),
      undefined,
      'nor of the operating flight: its own simulation creates it',
    );
  });

  it('simulate a flight whose watch is in manual review: the CLI says flights check decides it with the event; a production contract on the same flight is untouched', async () => {
    const flight = flightNumber();
    const d = day();
    const contract = await subscribe(t, c, sandbox, flight, d);
    const real = await subscribe(t, c, production, flight, d);
    c.set(plus(contract.departureAt, -DAY));
    await planWatches({ db: t.db, now: c.now });
    const reviewed = await watchOf(t, 'sandbox', flight, contract.departureDate);
    assert.equal(reviewed?.state, 'watching', 'planned');
    await t.db
      .updateTable('flight_watches')
      .set({ state: 'manual_review', next_check_at: null, review_reason: 'provider_unavailable' })
      .where('id', '=', reviewed!.id)
      .execute();
    const productionWatch = await watchOf(t, 'production', flight, real.departureDate);
    assert.equal(productionWatch?.state, 'watching', 'the production flight is watched by its own schedule');

    const run = await cli(
      'flights',
      'simulate',
      '--env',
      'sandbox',
      flight,
      contract.departureDate,
      '--status',
      'cancelled',
    );
    assert.equal(run.code, 0, run.err);
    assert.match(
      run.out,
      new RegExp(
        `Its watch is manual_review \\(provider_unavailable\\): the dispatch does not check it; parasol flights check sandbox ${flight} ${contract.departureDate} decides it with this simulated event`,
      ),
      run.out,
    );
    assert.doesNotMatch(run.out, /changes nothing/, run.out);
    const checked = await json('flights', 'check', 'sandbox', flight, contract.departureDate);
    assert.equal(checked.checks[0].outcome, 'decided', JSON.stringify(checked));
    assert.equal(checked.checks[0].decision.kind, 'cancelled', 'decided with the simulated event');
    assert.equal(checked.checks[0].claimsOpened, 1, JSON.stringify(checked));

    const after = await watchOf(t, 'production', flight, real.departureDate);
    assert.deepEqual(
      { state: after?.state, nextCheckAt: after?.next_check_at, decision: after?.decision },
      { state: 'watching', nextCheckAt: productionWatch?.next_check_at, decision: productionWatch?.decision },
      'the production watch keeps its schedule',
    );
    assert.equal((await claimsOf(t, 'production', flight, real.departureDate)).length, 0, 'no production claim');
    const status = await t.db
      .selectFrom('contracts')
      .select('status')
      .where('contract_number', '=', real.contractNumber)
      .executeTakeFirstOrThrow();
    assert.equal(status.status, 'active', 'the production contract is still active');
  });

  it('check with the configured AeroAPI: its page-limit warning is on standard error; a flight older than its 10 days is not asked', async (tc) => {
    const fake = await startAeroApiFake(tc, { pageSize: 1, now: c.now });
    // the platform's providers, from the configuration (as in production): no flightProviders given
    const config = testConfig({
      PARASOL_FLIGHT_PROVIDER: 'flightaware',
      PARASOL_FLIGHTAWARE_API_KEY: fake.apiKey,
      PARASOL_FLIGHTAWARE_URL: fake.baseUrl,
    });
    const configured = (...argv: string[]) => runCliOn(t, argv, { config, now: c.now });
    const flight = flightNumber();
    const number = flight.slice(2);
    const contract = await subscribe(t, c, production, flight, day());
    c.set(plus(contract.departureAt, -DAY));
    await planWatches({ db: t.db, now: c.now });
    // ours, and five later rotations of the number that day elsewhere (JFK-BOS): AeroAPI lists them
    // latest first, one a page here, so ours is on the sixth page, beyond AEROAPI_MAX_PAGES
    const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');
    for (let k = 0; k <= AEROAPI_MAX_PAGES; k++) {
      const out = plus(contract.departureAt, k * 10 * 60_000);
      const route = k === 0 ? ({ from: 'CDG', to: 'JFK' } as const) : ({ from: 'JFK', to: 'BOS' } as const);
      fake.addFlights(aeroFlight({ flight: number, ...route, out: iso(out), in: iso(plus(out, 8 * 3_600_000)) }));
    }
    c.set(contract.departureAt);
    const run = await configured('flights', 'check', 'production', flight, contract.departureDate);
    assert.equal(run.code, 0, run.err);
    assert.match(run.err, /^warning: AeroAPI listed more pages than AEROAPI_MAX_PAGES/m, 'the operator sees the cut');
    assert.match(run.err, new RegExp(`"flight":"${flight}"`));
    assert.match(run.err, /"pages":5/);
    assert.match(run.out, /not final \(unknown_flight\)/, 'ours was on a page not read: unknown this time');
    assert.equal(fake.requests.length, 2 * AEROAPI_MAX_PAGES, 'five pages per ident (ICAO, then IATA), no more');

    // eleven days later: beyond AeroAPI's history — said as such, no call, no error counted
    fake.requests.length = 0;
    c.set(plus(contract.departureAt, 11 * DAY));
    const old = await configured('--json', 'flights', 'check', 'production', flight, contract.departureDate);
    assert.equal(old.code, 0, old.err);
    assert.deepEqual(
      (JSON.parse(old.out) as { checks: { outcome: string; historyDays: number }[] }).checks.map((x) => [
        x.outcome,
        x.historyDays,
      ]),
      [['beyond_provider_history', 10]],
    );
    const text = await configured('flights', 'check', 'production', flight, contract.departureDate);
    assert.ok(
      text.out.includes(
        `keeps no flight data older than 10 days (not a provider failure). State what happened from another source: parasol flights event --env production ${flight} ${contract.departureDate} --status …`,
      ),
      text.out,
    );
    assert.equal(fake.requests.length, 0, 'not asked');
    const row = await watchOf(t, 'production', flight, contract.departureDate);
    assert.equal(row?.state, 'manual_review');
    assert.equal(row?.review_reason, 'beyond_provider_history');
  });

  it('refuses what is not valid, naming the option', async () => {
    const production = await cli(
      'flights',
      'simulate',
      '--env',
      'production',
      'AF6',
      '2031-06-01',
      '--status',
      'cancelled',
    );
    assert.equal(production.code, 2, 'the simulator is for sandbox and preproduction');
    assert.match(production.err, /Allowed choices are sandbox, preproduction/);

    const noDelay = await cli('flights', 'simulate', '--env', 'sandbox', 'AF6', '2031-06-01', '--status', 'delayed');
    assert.equal(noDelay.code, 1);
    assert.match(noDelay.err, /--delay/);

    const badDelay = await cli(
      '--json',
      'flights',
      'event',
      '--env',
      'sandbox',
      'AF6',
      '2031-06-01',
      '--status',
      'delayed',
      '--delay',
      '3h',
    );
    assert.equal(badDelay.code, 1);
    assert.equal(JSON.parse(badDelay.err).error.errors[0].option, '--delay');

    const badDate = await cli('--json', 'flights', 'check', 'sandbox', 'AF6', '2031-02-30');
    assert.equal(badDate.code, 1);
    assert.equal(JSON.parse(badDate.err).error.errors[0].option, '<date>');

    const badEnv = await cli('flights', 'show', 'staging', 'AF6', '2031-06-01');
    assert.equal(badEnv.code, 1);

    const none = await cli('--json', 'flights', 'show', 'sandbox', 'AF9', '2031-01-02');
    assert.equal(none.code, 1);
    assert.equal(JSON.parse(none.err).error.code, 'flight_watch_not_found');
  });
});
