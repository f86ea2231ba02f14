import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decide,
  parseDesignator,
  ProviderError,
  ProviderRejected,
  sameDesignator,
  type FlightStatus,
} from '../../src/monitoring/flight-status.ts';
import { parseRetryAfter } from '../../src/platform/retry-after.ts';
import { normaliseFlightNumber } from '../../src/reference/index.ts';
import { createFlightStatusProvider } from '../../src/monitoring/providers.ts';
import { flightEventFor } from '../../src/monitoring/flight-event.ts';

const SCHEDULED_IN = new Date('2025-06-01T17:00:00Z');
const plus = (ms: number) => new Date(SCHEDULED_IN.getTime() + ms);
const MIN = 60_000;

function status(overrides: Partial<FlightStatus> = {}): FlightStatus {
  return {
    provider: 'test',
    flightNumber: 'AF006',
    departureDate: '2025-06-01',
    origin: 'CDG',
    destination: 'JFK',
    scheduledDeparture: new Date('2025-06-01T08:30:00Z'),
    scheduledArrival: SCHEDULED_IN,
    cancelled: false,
    diverted: false,
    final: false,
    observedAt: new Date(),
    raw: {},
    ...overrides,
  };
}

describe('decide', () => {
  it('arrived at the gate late: whole minutes, rounded down', () => {
    assert.deepEqual(decide(status({ final: true, actualArrival: plus(185 * MIN) })), {
      kind: 'delayed',
      arrivalDelayMinutes: 185,
    });
    assert.deepEqual(decide(status({ final: true, actualArrival: plus(185 * MIN + 59_999) })), {
      kind: 'delayed',
      arrivalDelayMinutes: 185,
    });
    assert.deepEqual(decide(status({ final: true, actualArrival: plus(60_000) })), {
      kind: 'delayed',
      arrivalDelayMinutes: 1,
    });
  });

  it('on time: early, exactly on time, or less than a minute late', () => {
    assert.deepEqual(decide(status({ final: true, actualArrival: plus(-12 * MIN) })), { kind: 'on_time' });
    assert.deepEqual(decide(status({ final: true, actualArrival: SCHEDULED_IN })), { kind: 'on_time' });
    assert.deepEqual(decide(status({ final: true, actualArrival: plus(59_999) })), { kind: 'on_time' });
  });

  it('uses the gate times only: runway arrival, estimates and the status text never count', () => {
    const late = status({
      final: true,
      actualArrival: plus(30 * MIN),
      runwayArrival: plus(-10 * MIN),
      estimatedArrival: plus(-5 * MIN),
      providerStatus: 'Arrived / On Time',
    });
    assert.deepEqual(decide(late), { kind: 'delayed', arrivalDelayMinutes: 30 });
  });

  it('pending while not final, even with an estimate far in the future', () => {
    assert.deepEqual(decide(status({ estimatedArrival: plus(300 * MIN) })), { kind: 'pending', reason: 'not_final' });
    assert.deepEqual(decide(status({ actualDeparture: new Date('2025-06-01T09:00:00Z') })), {
      kind: 'pending',
      reason: 'not_final',
    });
  });

  it('pending when landed on the runway but not at the gate (the runway time is no substitute)', () => {
    assert.deepEqual(decide(status({ runwayArrival: plus(200 * MIN) })), {
      kind: 'pending',
      reason: 'awaiting_gate_arrival',
    });
  });

  it('a gate arrival on a record the adapter does not call final is not decided', () => {
    assert.deepEqual(decide(status({ actualArrival: plus(200 * MIN) })), { kind: 'pending', reason: 'not_final' });
  });

  it('final without gate times: pending, for manual review', () => {
    assert.deepEqual(decide(status({ final: true })), { kind: 'pending', reason: 'missing_gate_times' });
    const { scheduledArrival: _, ...noSchedule } = status({ final: true, actualArrival: plus(10 * MIN) });
    assert.deepEqual(decide(noSchedule), { kind: 'pending', reason: 'missing_gate_times' });
  });

  it('cancelled', () => {
    assert.deepEqual(decide(status({ cancelled: true, final: true })), { kind: 'cancelled' });
  });

  it('diverted once landed elsewhere; pending while in the air', () => {
    assert.deepEqual(
      decide(status({ diverted: true, final: true, divertedTo: 'BOS', runwayArrival: plus(-50 * MIN) })),
      { kind: 'diverted' },
    );
    assert.deepEqual(decide(status({ diverted: true, final: false, divertedTo: 'BOS' })), {
      kind: 'pending',
      reason: 'not_final',
    });
  });
});

describe('designators', () => {
  it('parse IATA designators; compare by airline, number and suffix', () => {
    assert.deepEqual(parseDesignator('AF006'), { airline: 'AF', number: 6, suffix: '' });
    assert.deepEqual(parseDesignator('u2 1234'), { airline: 'U2', number: 1234, suffix: '' });
    assert.deepEqual(parseDesignator('9W123A'), { airline: '9W', number: 123, suffix: 'A' });
    assert.equal(parseDesignator('AFR6'), undefined);
    assert.equal(parseDesignator('12345'), undefined);
    assert.ok(sameDesignator('AF006', 'AF6'));
    assert.ok(sameDesignator('af 6', 'AF0006'));
    assert.ok(!sameDesignator('AF6', 'AF6A'));
    assert.ok(!sameDesignator('AF6', 'KL6'));
    assert.ok(!sameDesignator('AF6', null));
    assert.equal(normaliseFlightNumber(' af 006 '), 'AF006');
  });
});

describe('provider errors', () => {
  it('retryable vs rejected', () => {
    const retry = new ProviderError('flightaware', 'rate_limited', 'slow down', { status: 429, retryAfterMs: 5000 });
    const reject = new ProviderRejected('flightaware', 'bad key', { status: 401 });
    assert.ok(retry instanceof Error && reject instanceof Error);
    assert.equal(retry.retryable, true);
    assert.equal(reject.retryable, false);
    assert.equal(retry.name, 'ProviderError');
    assert.equal(reject.name, 'ProviderRejected');
    assert.equal(retry.retryAfterMs, 5000);
  });

  it('Retry-After in seconds or as an HTTP date', () => {
    const now = new Date('2025-06-01T12:00:00Z');
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter('Sun, 01 Jun 2025 12:01:30 GMT', now), 90_000);
    assert.equal(parseRetryAfter('Sun, 01 Jun 2025 11:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter(null, now), undefined);
    assert.equal(parseRetryAfter('soon', now), undefined);
  });
});

describe('createFlightStatusProvider', () => {
  it('builds the configured provider', () => {
    assert.equal(createFlightStatusProvider({ kind: 'flightaware', apiKey: 'k' }).name, 'flightaware');
    assert.equal(createFlightStatusProvider({ kind: 'flightstats', appId: 'a', appKey: 'k' }).name, 'flightstats');
    assert.equal(createFlightStatusProvider({ kind: 'simulator' }).name, 'simulator');
  });
});

describe('flightEventFor', () => {
  it('turns a decision into the claims use case’s FlightEvent, with the record as evidence', () => {
    const s = status({
      provider: 'flightaware',
      final: true,
      actualArrival: plus(185 * MIN),
      raw: { flights: [{ fa_flight_id: 'AFR6-1' }] },
    });
    const event = flightEventFor('production', s, decide(s));
    assert.ok(event);
    assert.equal(event.status, 'delayed');
    assert.equal(event.arrivalDelayMinutes, 185);
    assert.equal(event.flightNumber, 'AF006');
    assert.equal(event.departureDate, '2025-06-01');
    assert.equal(event.source, 'monitoring:flightaware');
    assert.equal(event.evidence?.actualArrival, '2025-06-01T20:05:00.000Z');
    assert.deepEqual(event.evidence?.raw, { flights: [{ fa_flight_id: 'AFR6-1' }] });
    assert.doesNotThrow(() => JSON.stringify(event.evidence));
    assert.equal(
      flightEventFor('sandbox', status({ cancelled: true, final: true }), { kind: 'cancelled' })?.status,
      'cancelled',
    );
    assert.equal(
      flightEventFor('sandbox', status({ diverted: true, final: true }), { kind: 'diverted' })?.status,
      'diverted',
    );
    assert.equal(flightEventFor('sandbox', s, { kind: 'on_time' }), undefined);
    assert.equal(flightEventFor('sandbox', s, { kind: 'pending', reason: 'not_final' }), undefined);
  });
});
