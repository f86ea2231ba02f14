import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import {
  baseDelayAtLeast,
  greatCircleKm,
  haulOf,
  RISK_TABLE_V1,
  riskModelV1,
  type LegFacts,
} from '../../src/flight/risk-model.ts';

const AIRPORTS = [
  'CDG',
  'ORY',
  'LHR',
  'FRA',
  'AMS',
  'MAD',
  'NCE',
  'JFK',
  'LAX',
  'YUL',
  'DXB',
  'NRT',
  'SYD',
  'GRU',
  'JNB',
];
const MAX = new Decimal(RISK_TABLE_V1.maxProbability);

const pad = (n: number): string => String(n).padStart(2, '0');

const legArb: fc.Arbitrary<LegFacts> = fc
  .record({
    departureAirport: fc.constantFrom(...AIRPORTS),
    arrivalAirport: fc.constantFrom(...AIRPORTS),
    year: fc.integer({ min: 2024, max: 2030 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
  })
  .map(({ year, month, day, hour, minute, ...airports }) => ({
    ...airports,
    airline: 'AF',
    departureLocal: `${year}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}`,
  }));

const leg = (departureLocal: string, departureAirport = 'CDG', arrivalAirport = 'JFK'): LegFacts => ({
  departureAirport,
  arrivalAirport,
  airline: 'AF',
  departureLocal,
});

describe('risk model v1: haul', () => {
  it('classifies CDG→JFK as long haul and CDG→LHR as short haul', () => {
    const cdgJfk = greatCircleKm('CDG', 'JFK');
    const cdgLhr = greatCircleKm('CDG', 'LHR');
    assert.ok(cdgJfk > 5700 && cdgJfk < 5950, `CDG→JFK ${cdgJfk} km`);
    assert.ok(cdgLhr > 300 && cdgLhr < 400, `CDG→LHR ${cdgLhr} km`);
    assert.equal(haulOf(cdgJfk), 'long');
    assert.equal(haulOf(cdgLhr), 'short');
    assert.equal(haulOf(greatCircleKm('CDG', 'DXB')), 'long');
    assert.equal(haulOf(2500), 'medium');
  });

  it('long haul is cancelled less and diverted more than short haul', () => {
    const long = riskModelV1.probabilities(leg('2025-10-15T11:00', 'CDG', 'JFK'));
    const short = riskModelV1.probabilities(leg('2025-10-15T11:00', 'CDG', 'LHR'));
    assert.ok(long.cancellation.lessThan(short.cancellation));
    assert.ok(long.diversion.greaterThan(short.diversion));
  });
});

describe('risk model v1: probabilities', () => {
  it('are Decimals in [0, 0.95], disjoint events sum to at most 1, delay curve non-increasing', () => {
    fc.assert(
      fc.property(
        legArb,
        fc.array(fc.integer({ min: 0, max: 2000 }), { minLength: 2, maxLength: 12 }),
        (facts, minutes) => {
          const p = riskModelV1.probabilities(facts);
          const curve = [...minutes].sort((a, b) => a - b).map((m) => p.delayAtLeast(m));
          for (const value of [p.cancellation, p.diversion, ...curve]) {
            assert.ok(Decimal.isDecimal(value));
            assert.ok(value.greaterThanOrEqualTo(0) && value.lessThanOrEqualTo(MAX), value.toString());
          }
          curve.slice(1).forEach((value, i) => assert.ok(value.lessThanOrEqualTo(curve[i] ?? value)));
          assert.ok(p.cancellation.plus(p.diversion).plus(p.delayAtLeast(0)).lessThanOrEqualTo(1));
        },
      ),
    );
  });

  it('base table: P(≥15 min) about 20 %, P(≥180 min) 1–2 %, cancellation 1.5–2 %', () => {
    assert.equal(baseDelayAtLeast(15).toString(), '0.2');
    const p180 = baseDelayAtLeast(180).toNumber();
    assert.ok(p180 >= 0.01 && p180 <= 0.02);
    assert.ok(RISK_TABLE_V1.base.cancellation >= 0.015 && RISK_TABLE_V1.base.cancellation <= 0.02);
  });

  it('base curve: table points strictly decreasing, interpolated between them, decaying beyond', () => {
    const points = RISK_TABLE_V1.base.delayAtLeast;
    points.slice(1).forEach((pt, i) => {
      const previous = points[i];
      assert.ok(
        previous && pt.minutes > previous.minutes && pt.probability < previous.probability && pt.probability > 0,
      );
    });
    const at100 = baseDelayAtLeast(100);
    assert.ok(at100.lessThan(baseDelayAtLeast(90)) && at100.greaterThan(baseDelayAtLeast(120)));
    assert.ok(baseDelayAtLeast(1440).lessThan(baseDelayAtLeast(720)));
    assert.ok(baseDelayAtLeast(1440).greaterThan(0));
  });
});

describe('risk model v1: season and hour of day', () => {
  it('winter raises cancellation, summer raises delay, compared with October', () => {
    const october = riskModelV1.probabilities(leg('2025-10-15T11:00'));
    const january = riskModelV1.probabilities(leg('2026-01-15T11:00'));
    const july = riskModelV1.probabilities(leg('2025-07-15T11:00'));
    assert.ok(january.cancellation.greaterThan(october.cancellation));
    assert.ok(july.delayAtLeast(60).greaterThan(october.delayAtLeast(60)));
  });

  it('late departures are more delayed than early ones', () => {
    const morning = riskModelV1.probabilities(leg('2025-10-15T07:30'));
    const evening = riskModelV1.probabilities(leg('2025-10-15T20:30'));
    assert.ok(evening.delayAtLeast(30).greaterThan(morning.delayAtLeast(30)));
  });
});

describe('risk model v1: invalid facts', () => {
  it('throws for an unknown airport', () => {
    assert.throws(() => riskModelV1.probabilities(leg('2025-10-15T11:00', 'ZZZ', 'JFK')), Error);
    assert.throws(() => riskModelV1.probabilities(leg('2025-10-15T11:00', 'CDG', 'QQQ')), Error);
  });

  it('throws a RangeError for a malformed local departure time', () => {
    for (const departureLocal of [
      '2025-13-01T10:00',
      '2025-02-30T10:00',
      '2025-1-01T10:00',
      '2025-12-01 10:00',
      '2025-12-01T24:00',
      '2025-12-01T10:00:00Z',
      '',
    ]) {
      assert.throws(() => riskModelV1.probabilities(leg(departureLocal)), RangeError);
    }
  });

  it('throws a RangeError for negative or non-finite minutes', () => {
    const p = riskModelV1.probabilities(leg('2025-10-15T11:00'));
    assert.throws(() => p.delayAtLeast(-1), RangeError);
    assert.throws(() => p.delayAtLeast(Number.NaN), RangeError);
  });
});
