import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { decide, ProviderError, ProviderRejected, type FlightQuery } from '../../src/monitoring/flight-status.ts';
import { CircuitBreaker } from '../../src/platform/circuit-breaker.ts';
import { FLIGHTSTATS_DEFAULT_BASE_URL, FlightStatsProvider } from '../../src/monitoring/flightstats.ts';
import {
  assertValidFlightStatsResponse,
  fsFlight,
  startFlightStatsFake,
  type FlightStatsFake,
} from './flightstats-fake.ts';

/**
 * The FlightStats adapter against a local fake (flightstats-fake.ts). The insured leg: AF006 Paris
 * CDG → New York JFK, 2025-06-01 10:30 Paris (08:30Z), due at the gate 13:00 EDT (17:00Z).
 */

const AF6: FlightQuery = { flightNumber: 'AF006', departureDate: '2025-06-01', origin: 'CDG', destination: 'JFK' };
const at = (iso: string) => new Date(iso);
const schedule = {
  publishedDeparture: '2025-06-01T08:30:00Z',
  publishedArrival: '2025-06-01T17:00:00Z',
  scheduledGateDeparture: '2025-06-01T08:30:00Z',
  scheduledGateArrival: '2025-06-01T17:00:00Z',
};

async function setup(
  t: TestContext,
  options: { timeoutMs?: number; appKey?: string } = {},
): Promise<{ fake: FlightStatsFake; provider: FlightStatsProvider }> {
  const fake = await startFlightStatsFake(t);
  // the same flight the days around
  fake.addFlights(
    fsFlight({
      flight: '6',
      from: 'CDG',
      to: 'JFK',
      status: 'L',
      flightId: 1,
      times: {
        scheduledGateDeparture: '2025-05-31T08:30:00Z',
        scheduledGateArrival: '2025-05-31T17:00:00Z',
        actualGateArrival: '2025-05-31T16:50:00Z',
      },
    }),
    fsFlight({
      flight: '6',
      from: 'CDG',
      to: 'JFK',
      status: 'S',
      flightId: 3,
      times: { scheduledGateDeparture: '2025-06-02T08:30:00Z', scheduledGateArrival: '2025-06-02T17:00:00Z' },
    }),
  );
  const provider = new FlightStatsProvider({
    appId: fake.appId,
    appKey: options.appKey ?? fake.appKey,
    baseUrl: fake.baseUrl,
    timeoutMs: options.timeoutMs ?? 2_000,
  });
  return { fake, provider };
}

describe('Cirium FlightStats adapter', () => {
  it('defaults to the real base URL and needs credentials', () => {
    assert.equal(FLIGHTSTATS_DEFAULT_BASE_URL, 'https://api.flightstats.com');
    assert.throws(() => new FlightStatsProvider({ appId: 'x', appKey: '' }), ProviderRejected);
  });

  it('on time (L with a gate arrival): path, credentials, utc=false; gate times mapped', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      fsFlight(
        {
          flight: '6',
          from: 'CDG',
          to: 'JFK',
          status: 'L',
          flightId: 2,
          times: {
            ...schedule,
            actualGateDeparture: '2025-06-01T08:32:00Z',
            actualRunwayDeparture: '2025-06-01T08:50:00Z',
            estimatedGateArrival: '2025-06-01T16:52:00Z',
            actualRunwayArrival: '2025-06-01T16:40:00Z',
            actualGateArrival: '2025-06-01T16:52:00Z',
          },
        },
        { delays: { departureGateDelayMinutes: 2 } },
      ),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    const [request] = fake.requests;
    assert.equal(request!.path, '/flex/flightstatus/rest/v2/json/flight/status/AF/6/dep/2025/6/1');
    assert.deepEqual(request!.query, { appId: fake.appId, appKey: fake.appKey, utc: 'false' });

    assert.equal(status.provider, 'flightstats');
    assert.equal(status.flightNumber, 'AF006');
    assert.equal(status.providerFlightId, '2');
    assert.equal(status.providerStatus, 'L');
    assert.deepEqual(status.scheduledDeparture, at('2025-06-01T08:30:00Z'));
    assert.deepEqual(status.actualDeparture, at('2025-06-01T08:32:00Z'));
    assert.deepEqual(status.scheduledArrival, at('2025-06-01T17:00:00Z'));
    assert.deepEqual(status.actualArrival, at('2025-06-01T16:52:00Z'));
    assert.deepEqual(status.runwayArrival, at('2025-06-01T16:40:00Z'));
    assert.equal(status.final, true);
    assert.equal(status.cancelled, false);
    assert.equal(status.diverted, false);
    assert.equal((status.raw as { flightStatus: { flightId: number } }).flightStatus.flightId, 2);
    assert.doesNotMatch(JSON.stringify(status.raw), /fs-test-key/, 'no credentials in the evidence');
    assert.deepEqual(decide(status), { kind: 'on_time' });
  });

  it('delayed 3 h 05 at the gate → 185, computed from the gate times (delays.arrivalGateDelayMinutes only kept in raw)', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      fsFlight(
        {
          flight: '6',
          from: 'CDG',
          to: 'JFK',
          status: 'L',
          flightId: 2,
          times: {
            ...schedule,
            actualGateDeparture: '2025-06-01T11:20:00Z',
            actualRunwayDeparture: '2025-06-01T11:38:00Z',
            estimatedGateArrival: '2025-06-01T20:05:00Z',
            actualRunwayArrival: '2025-06-01T19:55:00Z',
            actualGateArrival: '2025-06-01T20:05:00Z',
          },
        },
        { delays: { departureGateDelayMinutes: 170, arrivalGateDelayMinutes: 120 } }, // deliberately not 185
      ),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status?.final);
    assert.deepEqual(decide(status), { kind: 'delayed', arrivalDelayMinutes: 185 });
    assert.equal(
      (status.raw as { flightStatus: { delays: { arrivalGateDelayMinutes: number } } }).flightStatus.delays
        .arrivalGateDelayMinutes,
      120,
    );
  });

  it('cancelled (C)', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(fsFlight({ flight: '6', from: 'CDG', to: 'JFK', status: 'C', flightId: 2, times: schedule }));
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.cancelled, true);
    assert.equal(status.final, true);
    assert.deepEqual(decide(status), { kind: 'cancelled' });
  });

  it('diverted (D): landed at BOS', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      fsFlight({
        flight: '6',
        from: 'CDG',
        to: 'JFK',
        divertedTo: 'BOS',
        status: 'D',
        flightId: 2,
        times: {
          ...schedule,
          actualGateDeparture: '2025-06-01T08:31:00Z',
          actualRunwayArrival: '2025-06-01T16:10:00Z',
          actualGateArrival: '2025-06-01T16:24:00Z',
        },
      }),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.diverted, true);
    assert.equal(status.divertedTo, 'BOS');
    assert.equal(status.destination, 'JFK');
    assert.equal(status.final, true);
    assert.deepEqual(status.runwayArrival, at('2025-06-01T16:10:00Z'));
    assert.deepEqual(decide(status), { kind: 'diverted' });
  });

  it('redirected (R): in the air towards another airport → pending', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      fsFlight({
        flight: '6',
        from: 'CDG',
        to: 'JFK',
        status: 'R',
        flightId: 2,
        divertedTo: 'BOS',
        times: { ...schedule, actualGateDeparture: '2025-06-01T08:31:00Z' },
      }),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.diverted, false);
    assert.equal(status.final, false);
    assert.equal(decide(status).kind, 'pending');
  });

  it('pending: active (A), departed, not arrived', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      fsFlight(
        {
          flight: '6',
          from: 'CDG',
          to: 'JFK',
          status: 'A',
          flightId: 2,
          times: {
            ...schedule,
            actualGateDeparture: '2025-06-01T09:02:00Z',
            actualRunwayDeparture: '2025-06-01T09:20:00Z',
            estimatedGateArrival: '2025-06-01T17:25:00Z',
          },
        },
        { delays: { departureGateDelayMinutes: 32 } },
      ),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.final, false);
    assert.deepEqual(status.estimatedArrival, at('2025-06-01T17:25:00Z'));
    assert.deepEqual(decide(status), { kind: 'pending', reason: 'not_final' });
  });

  it('pending: landed (L) without a gate arrival yet', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      fsFlight({
        flight: '6',
        from: 'CDG',
        to: 'JFK',
        status: 'L',
        flightId: 2,
        times: {
          ...schedule,
          actualGateDeparture: '2025-06-01T08:32:00Z',
          actualRunwayArrival: '2025-06-01T19:40:00Z',
        },
      }),
    );
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.final, false);
    assert.deepEqual(decide(status), { kind: 'pending', reason: 'awaiting_gate_arrival' });
  });

  it('unknown (U) and not operational (NO) are never decided', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(fsFlight({ flight: '6', from: 'CDG', to: 'JFK', status: 'NO', flightId: 2, times: schedule }));
    const status = await provider.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.final, false);
    assert.equal(status.cancelled, false);
    assert.equal(decide(status).kind, 'pending');
  });

  it('finds a marketing (codeshare) designator', async (t) => {
    const { fake, provider } = await setup(t);
    fake.addFlights(
      fsFlight({
        flight: '6',
        from: 'CDG',
        to: 'JFK',
        status: 'L',
        flightId: 2,
        times: { ...schedule, actualGateArrival: '2025-06-01T17:30:00Z' },
      }),
    );
    const status = await provider.fetchStatus({ ...AF6, flightNumber: 'DL8006' });
    assert.ok(status);
    assert.equal(fake.requests[0]!.path, '/flex/flightstatus/rest/v2/json/flight/status/DL/8006/dep/2025/6/1');
    assert.deepEqual(decide(status), { kind: 'delayed', arrivalDelayMinutes: 30 });
  });

  it('maps an IATA code to a different FS code when configured', async (t) => {
    const fake = await startFlightStatsFake(t);
    fake.addFlights(
      fsFlight(
        {
          flight: '6',
          from: 'CDG',
          to: 'JFK',
          status: 'L',
          flightId: 2,
          times: { ...schedule, actualGateArrival: '2025-06-01T17:00:00Z' },
        },
        { carrierFsCode: 'AF*' },
      ),
    );
    const provider = new FlightStatsProvider({
      appId: fake.appId,
      appKey: fake.appKey,
      baseUrl: fake.baseUrl,
      carrierCodes: { AF: 'AF*' },
    });
    const status = await provider.fetchStatus(AF6);
    assert.equal(fake.requests[0]!.path, '/flex/flightstatus/rest/v2/json/flight/status/AF*/6/dep/2025/6/1');
    assert.ok(status);
    assert.deepEqual(decide(status), { kind: 'on_time' });
  });

  it('unknown flight: empty flightStatuses → undefined', async (t) => {
    const { provider } = await setup(t);
    assert.equal(await provider.fetchStatus({ ...AF6, flightNumber: 'AF1234' }), undefined);
    assert.equal(await provider.fetchStatus({ ...AF6, destination: 'BOS' }), undefined, 'same number, another route');
  });

  it('500 → retryable ProviderError', async (t) => {
    const { fake, provider } = await setup(t);
    fake.override({
      status: 500,
      body: {
        error: { httpStatusCode: 500, errorId: 'x', errorMessage: 'Internal error', errorCode: 'INTERNAL_ERROR' },
      },
    });
    await assert.rejects(provider.fetchStatus(AF6), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.equal(error.status, 500);
      assert.equal(error.retryable, true);
      assert.doesNotMatch(error.message, /fs-test-key/);
      return true;
    });
  });

  it('429 with Retry-After → retryable ProviderError with the wait', async (t) => {
    const { fake, provider } = await setup(t);
    fake.override({
      status: 429,
      headers: { 'retry-after': '30' },
      body: {
        error: { httpStatusCode: 429, errorId: 'x', errorMessage: 'Rate limit exceeded', errorCode: 'RATE_LIMIT' },
      },
    });
    await assert.rejects(provider.fetchStatus(AF6), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, 'rate_limited');
      assert.equal(error.retryAfterMs, 30_000);
      return true;
    });
  });

  it('401 (wrong appKey) → ProviderRejected; the key never appears in the message', async (t) => {
    const { provider } = await setup(t, { appKey: 'wrong-secret' });
    await assert.rejects(provider.fetchStatus(AF6), (error: unknown) => {
      assert.ok(error instanceof ProviderRejected);
      assert.equal(error.status, 401);
      assert.equal(error.retryable, false);
      assert.match(error.message, /UNAUTHORIZED/);
      assert.doesNotMatch(error.message, /wrong-secret/);
      return true;
    });
  });

  it('an error described in a 200 body is still an error', async () => {
    const embedded = new FlightStatsProvider({
      appId: 'a',
      appKey: 'b',
      fetch: async () =>
        Response.json({
          error: {
            httpStatusCode: 403,
            errorId: 'x',
            errorMessage: 'Application is not active',
            errorCode: 'FORBIDDEN',
          },
        }),
    });
    await assert.rejects(embedded.fetchStatus(AF6), (e: unknown) => e instanceof ProviderRejected && e.status === 403);
  });

  it("a rate limit described in a 200 body is a rate limit: kind rate_limited, the answer's Retry-After opens the breaker", async () => {
    const now = at('2025-06-01T12:00:00Z');
    const limited = (headers: Record<string, string>) =>
      new FlightStatsProvider({
        appId: 'a',
        appKey: 'b',
        now: () => now,
        fetch: async () =>
          Response.json(
            {
              error: {
                httpStatusCode: 429,
                errorId: 'x',
                errorMessage: 'Rate limit exceeded',
                errorCode: 'RATE_LIMIT_EXCEEDED',
              },
            },
            { headers },
          ),
      });
    const error = await limited({ 'retry-after': '120' })
      .fetchStatus(AF6)
      .then(
        () => assert.fail('an error body must throw'),
        (e: unknown) => e,
      );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.kind, 'rate_limited', 'a quota, not an HTTP failure');
    assert.equal(error.status, 429);
    assert.equal(error.retryAfterMs, 120_000);
    // as AeroAPI's 429: the breaker opens at once, for every watch, until the provider's time
    const breaker = new CircuitBreaker();
    const permit = breaker.acquire(now);
    assert.ok(permit.allowed);
    breaker.failure(now, permit, error.retryAfterMs);
    assert.equal(breaker.state, 'open');
    const later = breaker.acquire(new Date(now.getTime() + 60_000));
    assert.equal(later.allowed, false);
    // without a Retry-After: still a rate limit (one failure for the breaker, back-off for the watch)
    await assert.rejects(
      limited({}).fetchStatus(AF6),
      (e: unknown) => e instanceof ProviderError && e.kind === 'rate_limited' && e.retryAfterMs === undefined,
    );
  });

  it('timeout: a server that never answers → retryable ProviderError', async (t) => {
    const { fake, provider } = await setup(t, { timeoutMs: 200 });
    fake.override('hang');
    const started = Date.now();
    await assert.rejects(provider.fetchStatus(AF6), (e: unknown) => e instanceof ProviderError && e.kind === 'timeout');
    assert.ok(Date.now() - started >= 150, 'the configured timeout, not an earlier failure'); // no upper bound: a loaded machine is slow
  });

  it('the fixtures cannot drift from the documented shape', () => {
    const good = fsFlight({ flight: '6', from: 'CDG', to: 'JFK', status: 'L', times: schedule });
    assertValidFlightStatsResponse({ flightStatuses: [good] });
    assert.throws(
      () => assertValidFlightStatsResponse({ flightStatuses: [{ ...good, status: 'Landed' }] }),
      /does not match/,
    );
    assert.throws(
      () =>
        assertValidFlightStatsResponse({
          flightStatuses: [{ ...good, operationalTimes: { actualGateArrivalTime: good.departureDate } }],
        }),
      /does not match/,
    );
  });
});
