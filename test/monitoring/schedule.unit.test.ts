import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { FlightStatusProvider } from '../../src/monitoring/flight-status.ts';
import { flightProviders } from '../../src/monitoring/providers.ts';
import { backoffMs, giveUpAt, MAX_RETRY_AFTER_MS, nextPendingCheck } from '../../src/monitoring/schedule.ts';
import { CircuitBreaker, type Granted } from '../../src/platform/circuit-breaker.ts';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

/** The schedule, the back-off and the circuit breaker (pure), and the provider configuration. */

const at = (iso: string) => new Date(iso);
const DEPARTURE = at('2031-06-01T08:30:00Z');
const ARRIVAL = at('2031-06-01T17:00:00Z');

describe('check schedule', () => {
  it('scheduled arrival + 15 min, then every 30 min on that grid', () => {
    const w = { scheduledDeparture: DEPARTURE, scheduledArrival: ARRIVAL };
    assert.deepEqual(nextPendingCheck(DEPARTURE, w), at('2031-06-01T17:15:00Z'));
    assert.deepEqual(nextPendingCheck(at('2031-06-01T17:15:00Z'), w), at('2031-06-01T17:45:00Z'));
    assert.deepEqual(nextPendingCheck(at('2031-06-01T17:16:00Z'), w), at('2031-06-01T17:45:00Z'));
    assert.deepEqual(nextPendingCheck(at('2031-06-01T19:50:00Z'), w), at('2031-06-01T20:15:00Z'));
  });

  it('gives up 24 h after the scheduled arrival, or 48 h after departure when the arrival is unknown', () => {
    assert.deepEqual(
      giveUpAt({ scheduledDeparture: DEPARTURE, scheduledArrival: ARRIVAL }),
      at('2031-06-02T17:00:00Z'),
    );
    assert.deepEqual(giveUpAt({ scheduledDeparture: DEPARTURE, scheduledArrival: null }), at('2031-06-03T08:30:00Z'));
    assert.deepEqual(
      nextPendingCheck(at('2031-06-02T16:50:00Z'), { scheduledDeparture: DEPARTURE, scheduledArrival: ARRIVAL }),
      at('2031-06-02T17:00:00Z'),
      'the last check is at the deadline',
    );
  });

  it('without a scheduled arrival: the departure if ahead, else every 30 min', () => {
    const w = { scheduledDeparture: DEPARTURE, scheduledArrival: undefined };
    assert.deepEqual(nextPendingCheck(at('2031-06-01T06:00:00Z'), w), DEPARTURE);
    assert.deepEqual(nextPendingCheck(at('2031-06-01T09:00:00Z'), w), at('2031-06-01T09:30:00Z'));
  });

  it('the next check is always after now and never after the deadline (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -48 * 60, max: 80 * 60 }), fc.boolean(), (offsetMinutes, known) => {
        const w = { scheduledDeparture: DEPARTURE, scheduledArrival: known ? ARRIVAL : null };
        const now = new Date(DEPARTURE.getTime() + offsetMinutes * 60_000);
        const next = nextPendingCheck(now, w);
        const deadline = giveUpAt(w);
        if (now < deadline) return next > now && next <= deadline;
        return next.getTime() === now.getTime();
      }),
    );
  });
});

describe('back-off', () => {
  it('doubles from 1 min, capped at 30 min, at least Retry-After, with up to 20 % jitter', () => {
    const none = () => 0;
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 20].map((n) => backoffMs(n, undefined, none) / 60_000),
      [1, 2, 4, 8, 16, 30, 30, 30],
    );
    assert.equal(backoffMs(1, 300_000, none), 300_000);
    assert.equal(backoffMs(1, 10 * 86_400_000, none), MAX_RETRY_AFTER_MS, 'Retry-After waits an hour at most');
    assert.equal(backoffMs(1, Number.MAX_SAFE_INTEGER * 1000, none), MAX_RETRY_AFTER_MS, 'even an absurd one');
    assert.equal(
      backoffMs(1, undefined, () => 0.999_999),
      Math.round(60_000 * (1 + 0.2 * 0.999_999)),
    );
  });
});

describe('circuit breaker', () => {
  /** A call let through at `now` (fails the test when refused). */
  function granted(breaker: CircuitBreaker, now: Date): Granted {
    const permit = breaker.acquire(now);
    assert.ok(permit.allowed, 'a call is let through');
    return permit;
  }

  it('opens after N failures in a row, lets one probe through after the cool-down, closes on success', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 3, coolDownMs: 60_000, probeTimeoutMs: 30_000 });
    const t0 = at('2031-06-01T12:00:00Z');
    const after = (s: number) => new Date(t0.getTime() + s * 1000);
    breaker.failure(t0, granted(breaker, t0));
    breaker.success(granted(breaker, t0));
    breaker.failure(t0, granted(breaker, t0));
    breaker.failure(t0, granted(breaker, t0));
    assert.equal(breaker.state, 'closed', 'a success resets the count');
    breaker.failure(t0, granted(breaker, t0));
    assert.equal(breaker.state, 'open');
    assert.deepEqual(breaker.acquire(after(59)), { allowed: false, retryAt: after(60) });
    assert.deepEqual(breaker.acquire(after(60)), {
      allowed: true,
      probe: true,
      generation: 1,
      probeStartedAt: after(60),
    });
    assert.equal(breaker.state, 'half_open');
    assert.equal(breaker.acquire(after(61)).allowed, false, 'one probe at a time');
    const probe = breaker.acquire(after(91));
    assert.deepEqual(
      probe,
      { allowed: true, probe: true, generation: 1, probeStartedAt: after(91) },
      'a probe that never reported back no longer blocks',
    );
    breaker.failure(after(91), probe);
    assert.equal(breaker.state, 'open', 'a failed probe opens it again');
    assert.deepEqual(breaker.acquire(after(100)), { allowed: false, retryAt: after(151) });
    breaker.success(granted(breaker, after(151)));
    assert.equal(breaker.state, 'closed');
    assert.deepEqual(breaker.acquire(after(152)), { allowed: true, probe: false, generation: 2 });
  });

  it('half-open: a straggler (a call let through before it opened) neither closes it nor fails the probe', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 2, coolDownMs: 60_000 });
    const t0 = at('2031-06-01T12:00:00Z');
    const after = (s: number) => new Date(t0.getTime() + s * 1000);
    const [a, b, c, d] = [1, 2, 3, 4].map(() => granted(breaker, t0));
    breaker.failure(t0, a!);
    breaker.failure(t0, b!);
    assert.equal(breaker.state, 'open');
    const probe = granted(breaker, after(60));
    assert.equal(breaker.state, 'half_open');
    breaker.success(c!);
    assert.equal(breaker.state, 'half_open', "a straggler's success does not close it");
    breaker.failure(after(61), d!);
    assert.equal(breaker.state, 'half_open', "a straggler's failure is not the probe's");
    assert.equal(breaker.acquire(after(62)).allowed, false, 'the probe is still the one');
    breaker.failure(after(70), probe);
    assert.equal(breaker.state, 'open', "the probe's own failure opens it again");
    assert.deepEqual(breaker.acquire(after(71)), { allowed: false, retryAt: after(130) });
    breaker.success(probe);
    assert.equal(breaker.state, 'open', "the last generation's probe answering late does not close it");
    const next = granted(breaker, after(130));
    breaker.success(next);
    assert.equal(breaker.state, 'closed', 'the probe of this generation does');
  });
});

describe('circuit breaker and Retry-After', () => {
  it('a failure saying when to come back opens it at once until then (capped at an hour); a count-opening waits at least as long', () => {
    const t0 = at('2031-06-01T12:00:00Z');
    const after = (s: number) => new Date(t0.getTime() + s * 1000);
    const breaker = new CircuitBreaker({
      failureThreshold: 5,
      coolDownMs: 60_000,
      maxRetryAfterMs: MAX_RETRY_AFTER_MS,
    });
    const take = () => {
      const permit = breaker.acquire(t0);
      assert.ok(permit.allowed);
      return permit;
    };
    const early = take();
    breaker.failure(t0, take(), 300_000);
    assert.equal(breaker.state, 'open', 'the first 429 with Retry-After');
    breaker.success(early);
    assert.equal(breaker.state, 'open', 'a call made before it opened answering late does not close it');
    assert.deepEqual(breaker.acquire(after(299)), { allowed: false, retryAt: after(300) });
    const probe = breaker.acquire(after(300));
    assert.deepEqual(probe, { allowed: true, probe: true, generation: 1, probeStartedAt: after(300) });
    breaker.success(probe);

    breaker.failure(t0, take());
    assert.equal(breaker.state, 'closed', 'without Retry-After: counted only');
    breaker.failure(t0, take(), 0);
    assert.equal(breaker.state, 'closed', 'Retry-After: 0 — nothing to wait for');
    breaker.success(take());

    const straggler = take();
    breaker.failure(t0, take(), 86_400_000);
    assert.deepEqual(breaker.acquire(t0), { allowed: false, retryAt: after(MAX_RETRY_AFTER_MS / 1000) });
    breaker.failure(t0, straggler, 10_000);
    assert.deepEqual(
      breaker.acquire(t0),
      { allowed: false, retryAt: after(MAX_RETRY_AFTER_MS / 1000) },
      'a straggler never shortens it',
    );

    const count = new CircuitBreaker({ failureThreshold: 1, coolDownMs: 60_000 });
    const permit = count.acquire(t0);
    assert.ok(permit.allowed);
    count.failure(t0, permit, 10_000);
    assert.deepEqual(count.acquire(t0), { allowed: false, retryAt: after(60) }, 'the cool-down when longer');
  });

  it("the monitoring's providers (flightProviders) obey a Retry-After for at most the watches' MAX_RETRY_AFTER_MS", async () => {
    const t0 = at('2031-06-01T12:00:00Z');
    const providers = flightProviders({ production: { name: 'fake' } as FlightStatusProvider }, { coolDownMs: 60_000 });
    const breaker = providers.forEnvironment('production')!.breaker;
    const permit = await breaker.acquire(t0);
    assert.ok(permit.allowed);
    await breaker.failure(t0, permit, 1e9);
    assert.deepEqual(await breaker.acquire(t0), {
      allowed: false,
      retryAt: new Date(t0.getTime() + MAX_RETRY_AFTER_MS),
    });
  });
});

describe('provider configuration', () => {
  const load = (env: Record<string, string>) => loadConfig({ LOG_LEVEL: 'silent', ...env });
  const fails = (env: Record<string, string>, variable: string) =>
    assert.throws(
      () => load(env),
      (error: unknown) =>
        error instanceof ConfigError && error.variable === variable && error.message.includes(variable),
    );

  it('unset: no production provider', () => {
    assert.equal(load({}).flightProvider, undefined);
  });

  it('flightaware needs its key; the URL defaults to the real AeroAPI', () => {
    fails({ PARASOL_FLIGHT_PROVIDER: 'flightaware' }, 'PARASOL_FLIGHTAWARE_API_KEY');
    assert.deepEqual(
      load({ PARASOL_FLIGHT_PROVIDER: 'flightaware', PARASOL_FLIGHTAWARE_API_KEY: 'k' }).flightProvider,
      { kind: 'flightaware', apiKey: 'k', baseUrl: undefined },
    );
    assert.deepEqual(
      load({
        PARASOL_FLIGHT_PROVIDER: 'FlightAware',
        PARASOL_FLIGHTAWARE_API_KEY: 'k',
        PARASOL_FLIGHTAWARE_URL: 'http://127.0.0.1:4010/aeroapi/',
      }).flightProvider,
      {
        kind: 'flightaware',
        apiKey: 'k',
        baseUrl: 'http://127.0.0.1:4010/aeroapi',
      },
    );
    fails(
      {
        PARASOL_FLIGHT_PROVIDER: 'flightaware',
        PARASOL_FLIGHTAWARE_API_KEY: 'k',
        PARASOL_FLIGHTAWARE_URL: 'ftp://example.com',
      },
      'PARASOL_FLIGHTAWARE_URL',
    );
  });

  it('flightstats needs its app id and key', () => {
    fails({ PARASOL_FLIGHT_PROVIDER: 'flightstats', PARASOL_FLIGHTSTATS_APP_KEY: 'key' }, 'PARASOL_FLIGHTSTATS_APP_ID');
    fails({ PARASOL_FLIGHT_PROVIDER: 'flightstats', PARASOL_FLIGHTSTATS_APP_ID: 'id' }, 'PARASOL_FLIGHTSTATS_APP_KEY');
    assert.deepEqual(
      load({
        PARASOL_FLIGHT_PROVIDER: 'flightstats',
        PARASOL_FLIGHTSTATS_APP_ID: 'id',
        PARASOL_FLIGHTSTATS_APP_KEY: 'key',
      }).flightProvider,
      {
        kind: 'flightstats',
        appId: 'id',
        appKey: 'key',
        baseUrl: undefined,
      },
    );
    fails(
      {
        PARASOL_FLIGHT_PROVIDER: 'flightstats',
        PARASOL_FLIGHTSTATS_APP_ID: 'id',
        PARASOL_FLIGHTSTATS_APP_KEY: 'key',
        PARASOL_FLIGHTSTATS_URL: 'not a url',
      },
      'PARASOL_FLIGHTSTATS_URL',
    );
  });

  it('an unknown provider names the variable', () => {
    fails({ PARASOL_FLIGHT_PROVIDER: 'aviationstack' }, 'PARASOL_FLIGHT_PROVIDER');
  });
});
