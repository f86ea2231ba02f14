import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { checkFlightWatch } from '../../src/monitoring/check-flight.ts';
import { ProviderError, type FlightStatusProvider } from '../../src/monitoring/flight-status.ts';
import { FlightAwareProvider, searchWindow } from '../../src/monitoring/flightaware.ts';
import { planWatches } from '../../src/monitoring/plan-watches.ts';
import { flightProviders, flightProvidersFromConfig } from '../../src/monitoring/providers.ts';
import { giveUpAt, MAX_RETRY_AFTER_MS } from '../../src/monitoring/schedule.ts';
import { LEFT_OUT_PAYOUT } from '../../src/payouts/index.ts';
import { DatabaseGauges, providerCallsTotal } from '../../src/platform/metrics.ts';
import { findAirport } from '../../src/reference/index.ts';
import { circuitTimePassed, createTestPartner, recordingLog, type TestApp, type TestPartner } from '../helper.ts';
import { aeroFlight, startAeroApiFake } from './aeroapi-fake.ts';
import {
  checkDeps,
  claimsOf,
  clock,
  flightNumber,
  minutes,
  monitoringApp,
  plus,
  randomDay,
  subscribe,
  watchOf,
} from './watch-fixtures.ts';

/**
 * Production flights checked through the FlightAware adapter against the local AeroAPI fake: errors
 * and timeouts back off, the circuit breaker stops calling, recovery decides; the provider's "AF712"
 * is the leg's "AF0712"; no provider configured keeps the watch.
 */

const DAY = 86_400_000;

/** This process's count of provider calls with `outcome` (parasol_flight_provider_calls_total). */
async function callsCounted(outcome: string): Promise<number> {
  const { values } = await providerCallsTotal.get();
  return values
    .filter((v) => v.labels.provider === 'flightaware' && v.labels.outcome === outcome)
    .reduce((sum, v) => sum + v.value, 0);
}

describe('flight monitoring in production (AeroAPI fake): outages and recovery', () => {
  const c = clock(new Date());
  let t: TestApp;
  let partner: TestPartner;
  const base = randomDay();
  let nextDay = 0;
  const day = () => new Date(base.getTime() + nextDay++ * 3 * DAY);

  before(async () => {
    t = await monitoringApp(c);
    partner = await createTestPartner(t.db, { environment: 'production' });
  });
  after(() => t.close());

  /** A production contract on a flight spelled with a leading zero (AF0712), planned; and the fake. */
  async function setup(tc: TestContext, options: { apiKey?: string; threshold?: number; fakeAheadMs?: number } = {}) {
    const flight = flightNumber({ leadingZero: true });
    const contract = await subscribe(t, c, partner, flight, day());
    c.set(new Date(contract.departureAt.getTime() - DAY));
    await planWatches({ db: t.db, now: c.now });
    const watch = await watchOf(t, 'production', flight, contract.departureDate);
    assert.ok(watch);
    const ahead = options.fakeAheadMs ?? 0;
    const fake = await startAeroApiFake(tc, { now: () => plus(c.now(), ahead) });
    // Real answers get all the time a loaded machine needs; only the step where the fake never
    // answers uses a short timeout (`impatient`), so no answer is ever expected within N ms.
    const patient = new FlightAwareProvider({
      apiKey: options.apiKey ?? fake.apiKey,
      baseUrl: fake.baseUrl,
      timeoutMs: 60_000,
      now: c.now,
    });
    const impatient = new FlightAwareProvider({
      apiKey: options.apiKey ?? fake.apiKey,
      baseUrl: fake.baseUrl,
      timeoutMs: 300,
      now: c.now,
    });
    let current = patient;
    // calls counted here, not by the fake: a request the impatient client gave up on may never reach it
    let calls = 0;
    const provider: FlightStatusProvider = {
      name: patient.name,
      history: patient.history,
      fetchStatus: (query, fetchOptions) => {
        calls++;
        return current.fetchStatus(query, fetchOptions);
      },
    };
    const hang = (on: boolean) => {
      fake.override(on ? 'hang' : undefined);
      current = on ? impatient : patient;
    };
    const providers = flightProviders(
      { production: provider },
      { failureThreshold: options.threshold ?? 3, coolDownMs: minutes(2) },
    );
    const number = String(Number(flight.slice(2))); // "AF0712" → "712", as AeroAPI spells it
    const departure = contract.departureAt;
    const arrival = plus(departure, minutes(510));
    const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');
    return {
      flight,
      date: contract.departureDate,
      watch,
      fake,
      hang,
      calls: () => calls,
      providers,
      number,
      departure,
      arrival,
      iso,
    };
  }

  it('500s and a timeout back off; the breaker then stops calling; after its cool-down a probe decides', async (tc) => {
    const s = await setup(tc);
    const log = recordingLog();
    const deps = checkDeps(t, c, s.providers, log);
    const serverError = {
      status: 500,
      body: { title: 'Internal Server Error', reason: 'INTERNAL_ERROR', detail: 'try later', status: 500 },
    };

    c.set(s.departure);
    s.fake.override(serverError);
    const first = await checkFlightWatch(deps, s.watch.id);
    assert.deepEqual(first, {
      outcome: 'provider_error',
      error: first.outcome === 'provider_error' ? first.error : '',
      consecutiveErrors: 1,
      nextCheckAt: plus(s.departure, minutes(1)),
    });
    assert.match(
      first.outcome === 'provider_error' ? first.error : '',
      /flightaware GET \/aeroapi\/flights\/AFR\d+: 500/,
    );

    c.set(plus(c.now(), minutes(1)));
    s.hang(true);
    const second = await checkFlightWatch(deps, s.watch.id);
    s.hang(false);
    assert.equal(second.outcome, 'provider_error');
    assert.equal(second.outcome === 'provider_error' && second.consecutiveErrors, 2);
    assert.deepEqual(
      second.outcome === 'provider_error' && second.nextCheckAt,
      plus(c.now(), minutes(2)),
      'back-off doubles',
    );
    assert.equal((await watchOf(t, 'production', s.flight, s.date))?.last_outcome, 'error:timeout');

    c.set(plus(c.now(), minutes(2)));
    s.fake.override(serverError);
    const third = await checkFlightWatch(deps, s.watch.id);
    assert.equal(third.outcome === 'provider_error' && third.consecutiveErrors, 3);
    assert.deepEqual(third.outcome === 'provider_error' && third.nextCheckAt, plus(c.now(), minutes(4)));
    const openedAt = c.now();
    assert.equal(s.calls(), 3);

    // the breaker is open: no call, the watch waits for the cool-down
    c.set(plus(openedAt, minutes(1)));
    const blocked = await checkFlightWatch(deps, s.watch.id);
    assert.deepEqual(blocked, { outcome: 'circuit_open', nextCheckAt: plus(openedAt, minutes(2)) });
    assert.equal(s.calls(), 3, 'no call while the circuit is open');
    const waiting = await watchOf(t, 'production', s.flight, s.date);
    assert.equal(waiting?.state, 'watching', 'an outage never drops the watch');
    assert.equal(waiting?.consecutive_errors, 3);
    assert.equal(waiting?.checks, 3);
    assert.ok(log.lines.filter((l) => l.level === 'warn').length >= 3, 'each failure is logged');

    // the provider is back and the flight has landed 190 min late at the gate: the probe decides
    s.fake.override(undefined);
    s.fake.addFlights(
      aeroFlight(
        { flight: s.number, from: 'CDG', to: 'JFK', out: s.iso(s.departure), in: s.iso(s.arrival) },
        {
          status: 'Arrived / Gate Arrival',
          progress_percent: 100,
          actual_out: s.iso(plus(s.departure, minutes(185))),
          actual_off: s.iso(plus(s.departure, minutes(200))),
          actual_on: s.iso(plus(s.arrival, minutes(180))),
          actual_in: s.iso(plus(s.arrival, minutes(190))),
        },
      ),
    );
    c.set(plus(openedAt, minutes(2)));
    const decided = await checkFlightWatch(deps, s.watch.id);
    assert.deepEqual(decided, {
      outcome: 'decided',
      decision: { kind: 'delayed', arrivalDelayMinutes: 190 },
      claimsOpened: 1,
    });
    assert.equal(
      s.fake.requests.at(-1)?.path,
      `/aeroapi/flights/AFR${s.number}`,
      'the provider is asked for AF712 (ICAO AFR712)',
    );
    const claims = await claimsOf(t, 'production', s.flight, s.date);
    assert.equal(claims.length, 1, 'the claim is opened on the leg as it spells the flight (AF0712)');
    assert.equal(Number(claims[0]!.compensation_amount), 10_000);
    assert.equal((claims[0]!.evidence as { source: string }).source, 'monitoring:flightaware');
    const row = await watchOf(t, 'production', s.flight, s.date);
    assert.equal(row?.state, 'decided');
    assert.equal(row?.consecutive_errors, 0);
    assert.equal(row?.checks, 4);
    assert.equal(row?.last_error, null);
  });

  it('a 429 with Retry-After opens the shared breaker at once: the other watches wait until then, no call', async (tc) => {
    const s = await setup(tc);
    const other = await setup(tc);
    // one provider for both flights, behind the breaker shared through the database (a name of its
    // own: the row is this test's alone)
    const aeroapi = new FlightAwareProvider({
      apiKey: s.fake.apiKey,
      baseUrl: s.fake.baseUrl,
      timeoutMs: 60_000,
      now: c.now,
    });
    let calls = 0;
    const provider: FlightStatusProvider = {
      name: `flightaware-${Math.random().toString(36).slice(2)}`,
      fetchStatus: (query, options) => {
        calls++;
        return aeroapi.fetchStatus(query, options);
      },
    };
    const providers = flightProviders(
      { production: provider },
      { failureThreshold: 5, coolDownMs: minutes(2) },
      { db: t.db },
    );
    const deps = checkDeps(t, c, providers);
    s.fake.override({
      status: 429,
      headers: { 'retry-after': '300' },
      body: { title: 'Too Many Requests', reason: 'TOO_MANY_REQUESTS', detail: 'rate limit exceeded', status: 429 },
    });
    c.set(s.departure);
    const failing = performance.now();
    const limited = await checkFlightWatch(deps, s.watch.id);
    assert.equal(limited.outcome, 'provider_error');
    assert.deepEqual(limited.outcome === 'provider_error' && limited.nextCheckAt, plus(s.departure, minutes(5)));

    // a call made before the 429 answering late (a straggler) does not close it
    await providers.forEnvironment('production')!.breaker.success({ allowed: true, probe: false, generation: 0 });
    // the key is throttled for every flight: the next watch does not call, it waits for the Retry-After
    const waiting = await checkFlightWatch(deps, other.watch.id);
    const elapsed = performance.now() - failing;
    assert.equal(waiting.outcome, 'circuit_open');
    // the circuit's end is the database's clock, moved into the watches' (the test's): the Retry-After
    // from the 429, less the time the database's clock moved since the 429 — no more than the test's
    // own since then (1 ms more for the rounding to milliseconds)
    const early = plus(s.departure, minutes(5)).getTime() - (waiting as { nextCheckAt: Date }).nextCheckAt.getTime();
    assert.ok(
      early >= 0 && early <= Math.ceil(elapsed) + 1,
      `waits for the Retry-After (${early} ms early, ${elapsed} ms taken)`,
    );
    assert.equal(calls, 1, 'one call: the 429');
    assert.equal((await watchOf(t, 'production', other.flight, other.date))?.state, 'watching');

    // then one probe: the provider answers, the circuit closes (its 5 minutes passed on the
    // database's clock, which the shared circuit compares on, and on the test's)
    s.fake.override(undefined);
    await circuitTimePassed(t.db, `production:${provider.name}`, minutes(5));
    c.set(plus(s.departure, minutes(5)));
    assert.equal((await checkFlightWatch(deps, other.watch.id)).outcome, 'pending');
    assert.equal(calls, 2);
    assert.equal((await checkFlightWatch(deps, s.watch.id)).outcome, 'pending', 'closed again: the next calls');
    assert.equal(calls, 3);
  });

  it('a 500 with Retry-After counts as one failure only: the circuit stays closed, the watch backs off by its count', async (tc) => {
    const s = await setup(tc);
    s.fake.override({
      status: 500,
      headers: { 'retry-after': '300' },
      body: { title: 'Internal Server Error', reason: 'INTERNAL_ERROR', detail: 'try later', status: 500 },
    });
    c.set(s.departure);
    const failed = await checkFlightWatch(checkDeps(t, c, s.providers), s.watch.id);
    assert.equal(failed.outcome, 'provider_error');
    assert.deepEqual(failed.outcome === 'provider_error' && failed.nextCheckAt, plus(s.departure, minutes(1)));
    assert.equal(s.providers.forEnvironment('production')!.breaker.state, 'closed', 'only a 429 or 503 opens it');
  });

  /** A provider answering `error` after `takesMs` of the test clock (a call that took that long). */
  function slowFailing(error: ProviderError, takesMs: number) {
    let calls = 0;
    const provider: FlightStatusProvider = {
      name: 'flightaware',
      fetchStatus: () => {
        calls++;
        c.set(plus(c.now(), takesMs));
        return Promise.reject(error);
      },
    };
    return {
      providers: flightProviders({ production: provider }, { failureThreshold: 5, coolDownMs: minutes(2) }),
      calls: () => calls,
    };
  }

  it('a Retry-After is counted from when the failure is known, not from when the check started', async (tc) => {
    const s = await setup(tc);
    const other = await setup(tc);
    const slow = slowFailing(
      new ProviderError('flightaware', 'http', 'flightaware GET /flights: 503', {
        status: 503,
        retryAfterMs: minutes(5),
      }),
      20_000,
    );
    const deps = checkDeps(t, c, slow.providers);
    c.set(s.departure);
    const failed = await checkFlightWatch(deps, s.watch.id);
    const known = plus(s.departure, 20_000);
    assert.deepEqual(failed.outcome === 'provider_error' && failed.nextCheckAt, plus(known, minutes(5)));
    assert.deepEqual(await checkFlightWatch(deps, other.watch.id), {
      outcome: 'circuit_open',
      nextCheckAt: plus(known, minutes(5)),
    });
    assert.equal(slow.calls(), 1);
  });

  it('a huge Retry-After: the watch waits an hour at most, and never past its deadline', async (tc) => {
    const s = await setup(tc);
    const huge = new ProviderError('flightaware', 'rate_limited', 'flightaware GET /flights: 429', {
      status: 429,
      retryAfterMs: 1e20,
    });
    c.set(s.departure);
    const first = await checkFlightWatch(checkDeps(t, c, slowFailing(huge, 0).providers), s.watch.id);
    assert.deepEqual(first.outcome === 'provider_error' && first.nextCheckAt, plus(s.departure, MAX_RETRY_AFTER_MS));

    const row = await watchOf(t, 'production', s.flight, s.date);
    const deadline = giveUpAt({
      scheduledDeparture: row!.scheduled_departure,
      scheduledArrival: row!.scheduled_arrival,
    });
    c.set(plus(deadline, -minutes(10)));
    const last = await checkFlightWatch(checkDeps(t, c, slowFailing(huge, 0).providers), s.watch.id);
    assert.equal(last.outcome, 'provider_error');
    assert.deepEqual(last.outcome === 'provider_error' && last.nextCheckAt, deadline, 'clamped to the deadline');
  });

  it('a refused key (401) counts as a failure and is logged as an error for the operator', async (tc) => {
    const s = await setup(tc, { apiKey: 'wrong-key' });
    const log = recordingLog();
    c.set(s.departure);
    const result = await checkFlightWatch(checkDeps(t, c, s.providers, log), s.watch.id);
    assert.equal(result.outcome, 'provider_error');
    assert.equal((await watchOf(t, 'production', s.flight, s.date))?.last_outcome, 'error:rejected');
    assert.ok(log.lines.some((l) => l.level === 'error' && /credentials/.test(l.message)));
  });

  it(
    'a 200 that is not JSON and a 200 whose body never ends are failures for the breaker, logged without the key',
    { timeout: 5000 },
    async (tc) => {
      const s = await setup(tc, { threshold: 2 });
      const log = recordingLog();
      const deps = checkDeps(t, c, s.providers, log);
      c.set(s.departure);
      s.fake.override({ status: 200, body: '<html>captive portal</html>', headers: { 'content-type': 'text/html' } });
      const first = await checkFlightWatch(deps, s.watch.id);
      assert.equal(first.outcome === 'provider_error' && first.consecutiveErrors, 1);
      assert.equal((await watchOf(t, 'production', s.flight, s.date))?.last_outcome, 'error:bad_response');
      assert.equal(s.providers.forEnvironment('production')!.breaker.state, 'closed');

      c.set(plus(c.now(), minutes(1)));
      s.hang(true); // the impatient client, 300 ms
      s.fake.override('trickle');
      const second = await checkFlightWatch(deps, s.watch.id);
      s.hang(false);
      assert.equal(second.outcome === 'provider_error' && second.consecutiveErrors, 2);
      assert.equal((await watchOf(t, 'production', s.flight, s.date))?.last_outcome, 'error:timeout');
      assert.equal(s.providers.forEnvironment('production')!.breaker.state, 'open', 'two failures: the threshold');

      const logged = JSON.stringify(log.lines);
      assert.equal(log.lines.filter((l) => l.level === 'warn').length, 2);
      assert.doesNotMatch(logged, new RegExp(s.fake.apiKey));
      assert.doesNotMatch(logged, /x-apikey/i);
    },
  );

  it("a flight older than AeroAPI's 10 days: not asked, manual review at once, no error, the breaker untouched", async (tc) => {
    const s = await setup(tc, { threshold: 1 });
    const log = recordingLog();
    const deps = checkDeps(t, c, s.providers, log);
    // e.g. production had no provider configured for 11 days: the watch is still watching
    c.set(plus(s.departure, 11 * DAY));
    assert.deepEqual(await checkFlightWatch(deps, s.watch.id), {
      outcome: 'beyond_provider_history',
      provider: 'flightaware',
      historyDays: 10,
    });
    const row = await watchOf(t, 'production', s.flight, s.date);
    assert.equal(row?.state, 'manual_review');
    assert.equal(row?.review_reason, 'beyond_provider_history');
    assert.equal(row?.consecutive_errors, 0, 'not a provider failure');
    assert.equal(s.calls(), 0, 'the answer is known: no billed call');
    assert.ok(
      log.lines.some((l) => l.level === 'warn' && /flights event/.test(l.message)),
      'the operator is told the way out',
    );
    assert.ok(!log.lines.some((l) => l.level === 'error'), 'not a refused request');
    // the operator's checks (parasol flights check) say the same, as often as asked; with a threshold
    // of one failure, the circuit stays closed: the provider's health is not at stake
    for (let i = 0; i < 3; i++)
      assert.equal((await checkFlightWatch(deps, s.watch.id, { manual: true })).outcome, 'beyond_provider_history');
    assert.equal(s.providers.forEnvironment('production')!.breaker.state, 'closed');
    assert.equal((await watchOf(t, 'production', s.flight, s.date))?.review_reason, 'beyond_provider_history');
  });

  it("AeroAPI's own 400 at the edge of its 10 days (its clock ahead): manual review, a success for the breaker, the call counted", async (tc) => {
    const s = await setup(tc, { threshold: 1, fakeAheadMs: 3 * 3_600_000 });
    const deps = checkDeps(t, c, s.providers, recordingLog());
    const breaker = s.providers.forEnvironment('production')!.breaker;
    // an outage opens the circuit (threshold 1): the next call is its half-open probe
    c.set(s.departure);
    s.fake.override({
      status: 503,
      body: { title: 'Service Unavailable', reason: 'UNAVAILABLE', detail: 'try later', status: 503 },
    });
    assert.equal((await checkFlightWatch(deps, s.watch.id)).outcome, 'provider_error');
    assert.equal(breaker.state, 'open');
    s.fake.override(undefined);
    // our clock: 9 days 22 h after the window's start, within the limit (the flight is asked);
    // AeroAPI's, 3 h ahead: beyond it, a 400
    const windowStart = Date.parse(searchWindow(s.date, findAirport(s.watch.origin)?.timeZone).start);
    c.set(new Date(windowStart + 9 * DAY + 22 * 3_600_000));
    const before = await callsCounted('beyond_history');
    assert.deepEqual(await checkFlightWatch(deps, s.watch.id), {
      outcome: 'beyond_provider_history',
      provider: 'flightaware',
      historyDays: 10,
    });
    assert.equal(s.calls(), 2, 'the probe was made');
    assert.equal(await callsCounted('beyond_history'), before + 1, 'the billed call is counted');
    assert.equal(breaker.state, 'closed', 'the provider answered: the probe closes the circuit');
    const row = await watchOf(t, 'production', s.flight, s.date);
    assert.equal(row?.state, 'manual_review');
    assert.equal(row?.review_reason, 'beyond_provider_history');
    assert.equal(row?.consecutive_errors, 0, 'an answer: the errors before it are over');
    assert.equal(row?.last_outcome, 'beyond_provider_history');
  });

  it('landed without a gate time (an airport without gate data): manual review 2 h after touchdown, not at the 24 h deadline', async (tc) => {
    const s = await setup(tc);
    const touchdown = plus(s.arrival, -minutes(5));
    s.fake.addFlights(
      aeroFlight(
        { flight: s.number, from: 'CDG', to: 'JFK', out: s.iso(s.departure), in: s.iso(s.arrival) },
        {
          actual_out: s.iso(s.departure),
          actual_off: s.iso(plus(s.departure, minutes(15))),
          actual_on: s.iso(touchdown),
          status: 'Landed',
          progress_percent: 100,
        },
      ),
    );
    const log = recordingLog();
    const deps = checkDeps(t, c, s.providers, log);
    c.set(plus(s.arrival, minutes(15)));
    let checks = 0;
    let result = await checkFlightWatch(deps, s.watch.id);
    // on the grid (arrival + 15, + 45, …), the last check at touchdown + 2 h
    while (result.outcome === 'pending') {
      checks++;
      assert.equal(result.reason, 'awaiting_gate_arrival');
      assert.ok(result.nextCheckAt <= plus(touchdown, minutes(120)), 'never after the gate give-up');
      c.set(result.nextCheckAt);
      result = await checkFlightWatch(deps, s.watch.id);
      assert.ok(checks < 10, 'stops within hours, not ~48 checks');
    }
    assert.deepEqual(result, { outcome: 'manual_review', reason: 'missing_gate_times' });
    assert.deepEqual(c.now(), plus(touchdown, minutes(120)));
    assert.equal(checks, 4, 'arrival + 15, + 45, + 75, + 105; the fifth, at touchdown + 2 h, gives up');
    const row = await watchOf(t, 'production', s.flight, s.date);
    assert.equal(row?.state, 'manual_review');
    assert.equal(row?.review_reason, 'missing_gate_times');
    assert.ok(log.lines.some((l) => l.level === 'warn' && /flights event/.test(l.message)));
  });

  it('a flight the provider does not know: checked again every 30 min', async (tc) => {
    const s = await setup(tc);
    c.set(plus(s.departure, minutes(5)));
    assert.deepEqual(await checkFlightWatch(checkDeps(t, c, s.providers), s.watch.id), {
      outcome: 'pending',
      reason: 'unknown_flight',
      nextCheckAt: plus(s.departure, minutes(35)),
    });
  });

  it('an outage past the deadline gives the flight to manual review (48 h after departure when the arrival was never known)', async (tc) => {
    const s = await setup(tc, { threshold: 100 });
    s.fake.override({
      status: 503,
      body: { title: 'Service Unavailable', reason: 'UNAVAILABLE', detail: 'maintenance', status: 503 },
    });
    const inReview = async () =>
      Number(
        /^parasol_flight_watches_manual_review\{environment="production"\} (\d+)$/m.exec(
          await new DatabaseGauges(t.db, { leftOutPayout: LEFT_OUT_PAYOUT, ttlMs: 0 }).metrics(),
        )?.[1],
      );
    const before = await inReview();
    assert.ok(before >= 0, 'the production series is always there');
    c.set(plus(s.departure, 48 * 3_600_000 - 60_000));
    assert.equal((await checkFlightWatch(checkDeps(t, c, s.providers), s.watch.id)).outcome, 'provider_error');
    c.set(plus(s.departure, 48 * 3_600_000));
    assert.deepEqual(await checkFlightWatch(checkDeps(t, c, s.providers), s.watch.id), {
      outcome: 'manual_review',
      reason: 'provider_unavailable',
    });
    const row = await watchOf(t, 'production', s.flight, s.date);
    assert.equal(row?.state, 'manual_review');
    assert.match(row?.last_error ?? '', /503/);
    assert.ok((await inReview()) >= before + 1, 'counted for the operators’ alert');
  });

  it('production without a configured provider: the watch is kept and retried, with a warning', async (tc) => {
    const s = await setup(tc);
    const log = recordingLog();
    c.set(s.departure);
    const result = await checkFlightWatch(
      checkDeps(t, c, flightProvidersFromConfig(undefined, t.db, c.now), log),
      s.watch.id,
    );
    assert.deepEqual(result, { outcome: 'no_provider', nextCheckAt: plus(s.departure, minutes(30)) });
    const row = await watchOf(t, 'production', s.flight, s.date);
    assert.equal(row?.state, 'watching');
    assert.match(row?.last_error ?? '', /PARASOL_FLIGHT_PROVIDER/);
    assert.ok(log.lines.some((l) => l.level === 'warn' && /PARASOL_FLIGHT_PROVIDER/.test(l.message)));
    assert.equal(s.fake.requests.length, 0);
  });
});
