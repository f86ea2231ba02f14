import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { coverageFor, FORMULAS, type DelayTier, type Formula } from '../../src/partners/coverage.ts';
import {
  expectedLoss,
  payoutFor,
  priceLeg,
  pricePolicy,
  PRICING,
  riskLoading,
  type PremiumBreakdown,
  type PricingTerms,
} from '../../src/flight/pricing.ts';
import { riskModelV1, type LegProbabilities } from '../../src/flight/risk-model.ts';

/** Probabilities are generated in parts per million so that they are exact decimals. */
const PPM = 1_000_000;

interface Scenario {
  formula: Formula;
  /** Strictly increasing minutes, non-decreasing amounts. */
  tiers: DelayTier[];
  cancellationAmount: number;
  cancellationPpm: number;
  diversionPpm: number;
  /** P(≥ tiers[i].minDelayMinutes) in ppm, non-increasing, one per tier. */
  delayPpm: number[];
  /** Percent, 0..90. */
  commissionPercent: number;
  /** Basis points, 0..9999. */
  taxBasisPoints: number;
}

const ppm = (n: number): Decimal => new Decimal(n).div(PPM);

/** Pricing here depends on the probabilities only: a leg the model knows fully, with no explanation. */
const tableKnowledge = { credibility: 1, explain: () => ({ base: 0, factors: [], probability: 0 }) };

/** A step delay curve through the tier points: non-increasing, as the interface requires. */
function legOf(s: Scenario): LegProbabilities {
  const points = s.tiers.map((tier, i) => ({ minutes: tier.minDelayMinutes, p: s.delayPpm[i] ?? 0 }));
  return {
    cancellation: ppm(s.cancellationPpm),
    diversion: ppm(s.diversionPpm),
    delayAtLeast(minutes: number): Decimal {
      const reached = points.filter((pt) => pt.minutes <= minutes).at(-1) ?? points[0];
      return ppm(reached?.p ?? 0);
    },
    ...tableKnowledge,
  };
}

function termsOf(s: Scenario): PricingTerms {
  return {
    coverage: coverageFor(s.formula, s.tiers, s.cancellationAmount),
    commissionRate: new Decimal(s.commissionPercent).div(100),
    taxRate: new Decimal(s.taxBasisPoints).div(10_000),
  };
}

const totalOf = (s: Scenario): number => priceLeg(legOf(s), termsOf(s)).total;
const netOf = (s: Scenario): number => priceLeg(legOf(s), termsOf(s)).net;

const nonDecreasing = (values: number[]): number[] => [...values].sort((a, b) => a - b);
const nonIncreasing = (values: number[]): number[] => [...values].sort((a, b) => b - a);

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .uniqueArray(fc.integer({ min: 1, max: 720 }), { maxLength: 4 })
  .chain((minutes) => {
    const n = minutes.length;
    return fc.record({
      formula: fc.constantFrom(...FORMULAS),
      minutes: fc.constant(nonDecreasing(minutes)),
      amounts: fc.array(fc.integer({ min: 0, max: 50_000 }), { minLength: n, maxLength: n }).map(nonDecreasing),
      cancellationAmount: fc.integer({ min: 0, max: 50_000 }),
      cancellationPpm: fc.integer({ min: 0, max: 100_000 }),
      diversionPpm: fc.integer({ min: 0, max: 20_000 }),
      delayPpm: fc.array(fc.integer({ min: 0, max: 500_000 }), { minLength: n, maxLength: n }).map(nonIncreasing),
      commissionPercent: fc.integer({ min: 0, max: 90 }),
      taxBasisPoints: fc.integer({ min: 0, max: 9_999 }),
    });
  })
  .map(({ minutes, amounts, ...rest }) => ({
    ...rest,
    tiers: minutes.map((m, i) => ({ minDelayMinutes: m, amount: amounts[i] ?? 0 })),
  }));

const withTiers = scenarioArb.filter((s) => s.tiers.length > 0);

function times(b: PremiumBreakdown, n: number): PremiumBreakdown {
  return { net: b.net * n, tax: b.tax * n, commission: b.commission * n, total: b.total * n };
}

function plus(a: PremiumBreakdown, b: PremiumBreakdown): PremiumBreakdown {
  return { net: a.net + b.net, tax: a.tax + b.tax, commission: a.commission + b.commission, total: a.total + b.total };
}

describe('premium: invariants', () => {
  it('is never negative, total = net + tax, commission within net, net at least the minimum', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const premium = priceLeg(legOf(s), termsOf(s));
        for (const value of [premium.net, premium.tax, premium.commission, premium.total]) {
          assert.ok(Number.isSafeInteger(value) && value >= 0);
        }
        assert.equal(premium.total, premium.net + premium.tax);
        assert.ok(premium.commission <= premium.net);
        assert.ok(premium.net >= PRICING.minimumNetPerLegPerPassenger);
      }),
    );
  });

  it('applies the minimum net premium when the expected loss is small', () => {
    const s: Scenario = {
      formula: 'delay_and_cancellation',
      tiers: [{ minDelayMinutes: 120, amount: 5000 }],
      cancellationAmount: 15_000,
      cancellationPpm: 0,
      diversionPpm: 0,
      delayPpm: [0],
      commissionPercent: 20,
      taxBasisPoints: 900,
    };
    assert.deepEqual(priceLeg(legOf(s), termsOf(s)), {
      net: 100,
      tax: 9,
      commission: 20,
      total: 109,
      expectedLoss: '0.0000',
    });
    // 0.01 % chance of a €150 cancellation: risk premium 1.875 (credibility 1), grossed up 2.34 — still the minimum.
    const tiny = { ...s, cancellationPpm: 100 };
    assert.equal(priceLeg(legOf(tiny), termsOf(tiny)).net, PRICING.minimumNetPerLegPerPassenger);
  });
});

describe('premium: monotone non-decreasing', () => {
  it('in any delay tier amount (tiers kept valid)', () => {
    fc.assert(
      fc.property(withTiers, fc.nat(), fc.integer({ min: 0, max: 50_000 }), (s, index, raise) => {
        const i = index % s.tiers.length;
        const ceiling = s.tiers[i + 1]?.amount ?? Number.MAX_SAFE_INTEGER;
        const tiers = s.tiers.map((t, j) => (j === i ? { ...t, amount: Math.min(t.amount + raise, ceiling) } : t));
        const raised = { ...s, tiers };
        assert.ok(totalOf(raised) >= totalOf(s));
        assert.ok(netOf(raised) >= netOf(s));
      }),
    );
  });

  it('in the cancellation amount', () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 0, max: 50_000 }), (s, raise) => {
        assert.ok(totalOf({ ...s, cancellationAmount: s.cancellationAmount + raise }) >= totalOf(s));
      }),
    );
  });

  it('in the commission rate', () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 0, max: 90 }), (s, raise) => {
        assert.ok(totalOf({ ...s, commissionPercent: Math.min(90, s.commissionPercent + raise) }) >= totalOf(s));
      }),
    );
  });

  it('in the cancellation and diversion probabilities', () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 0, max: PPM }), (s, raise) => {
        assert.ok(totalOf({ ...s, cancellationPpm: Math.min(PPM, s.cancellationPpm + raise) }) >= totalOf(s));
        assert.ok(totalOf({ ...s, diversionPpm: Math.min(PPM, s.diversionPpm + raise) }) >= totalOf(s));
      }),
    );
  });

  it('in P(delay ≥ t_i) for any tier, keeping the curve non-increasing', () => {
    fc.assert(
      fc.property(withTiers, fc.nat(), fc.integer({ min: 0, max: PPM }), (s, index, raise) => {
        const i = index % s.tiers.length;
        const ceiling = s.delayPpm[i - 1] ?? PPM;
        const delayPpm = s.delayPpm.map((p, j) => (j === i ? Math.min(p + raise, ceiling) : p));
        assert.ok(totalOf({ ...s, delayPpm }) >= totalOf(s));
      }),
    );
  });
});

describe('loadings: expenses and a risk margin that grows as credibility falls', () => {
  const withCredibility = (s: Scenario, credibility: number): LegProbabilities => ({ ...legOf(s), credibility });
  const credibilityArb = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000);

  it('the loading is expenses + the margin: 0.25 at credibility 1, 0.35 at credibility 0, linear between', () => {
    assert.equal(riskLoading(1).toString(), PRICING.expenseLoading.plus(PRICING.minRiskMargin).toString());
    assert.equal(riskLoading(1).toString(), '0.25');
    assert.equal(riskLoading(0).toString(), '0.35');
    assert.equal(riskLoading(0.5).toString(), '0.3');
    assert.equal(riskLoading(0.25).toString(), '0.325');
  });

  it('the premium is non-increasing in credibility, component by component', () => {
    fc.assert(
      fc.property(scenarioArb, credibilityArb, credibilityArb, (s, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const known = priceLeg(withCredibility(s, high), termsOf(s));
        const unknown = priceLeg(withCredibility(s, low), termsOf(s));
        assert.ok(
          known.net <= unknown.net &&
            known.total <= unknown.total &&
            known.tax <= unknown.tax &&
            known.commission <= unknown.commission,
        );
        assert.equal(
          known.expectedLoss,
          unknown.expectedLoss,
          'credibility changes the loading, never the expected loss',
        );
      }),
    );
  });

  it('a leg priced from priors only (credibility 0) costs strictly more than a fully credible one when above the minimum', () => {
    const s: Scenario = {
      formula: 'delay_and_cancellation',
      tiers: [{ minDelayMinutes: 120, amount: 5000 }],
      cancellationAmount: 15_000,
      cancellationPpm: 20_000,
      diversionPpm: 2_000,
      delayPpm: [30_000],
      commissionPercent: 20,
      taxBasisPoints: 900,
    };
    // E = 0.02 × 15000 + 0.002 × 15000 + 0.03 × 5000 = 480; net = round(480 × 1.35 / 0.8) = 810 vs round(480 × 1.25 / 0.8) = 750
    assert.equal(priceLeg(withCredibility(s, 0), termsOf(s)).net, 810);
    assert.equal(priceLeg(withCredibility(s, 1), termsOf(s)).net, 750);
  });

  it('rejects a credibility outside [0, 1]', () => {
    const s = fc.sample(scenarioArb, { numRuns: 1, seed: 7 })[0]!;
    for (const bad of [-0.01, 1.01, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => priceLeg(withCredibility(s, bad), termsOf(s)), RangeError);
    }
  });
});

describe('policy premium', () => {
  it('n passengers cost exactly n times one passenger, component by component', () => {
    fc.assert(
      fc.property(
        fc.array(scenarioArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 9 }),
        (scenarios, n) => {
          const [first] = scenarios;
          if (!first) return;
          const legs = scenarios.map(legOf);
          const terms = termsOf(first);
          assert.deepEqual(pricePolicy(legs, n, terms).premium, times(pricePolicy(legs, 1, terms).premium, n));
        },
      ),
    );
  });

  it('a return trip costs exactly the sum of its two legs', () => {
    fc.assert(
      fc.property(scenarioArb, scenarioArb, fc.integer({ min: 1, max: 9 }), (outbound, inbound, n) => {
        const terms = termsOf(outbound);
        const trip = pricePolicy([legOf(outbound), legOf(inbound)], n, terms);
        const out = pricePolicy([legOf(outbound)], n, terms);
        const back = pricePolicy([legOf(inbound)], n, terms);
        assert.deepEqual(trip.premium, plus(out.premium, back.premium));
        assert.deepEqual(trip.legs, [...out.legs, ...back.legs]);
        assert.equal(trip.premium.total, trip.premium.net + trip.premium.tax);
      }),
    );
  });
});

describe('expected loss', () => {
  const leg: LegProbabilities = {
    cancellation: new Decimal('0.02'),
    diversion: new Decimal('0.005'),
    delayAtLeast: (minutes) => new Decimal(minutes >= 180 ? '0.01' : minutes >= 120 ? '0.03' : '0.2'),
    ...tableKnowledge,
  };
  const tiers = [
    { minDelayMinutes: 120, amount: 5000 },
    { minDelayMinutes: 180, amount: 10_000 },
  ];

  it('pays the highest tier reached, the cancellation amount, and diversion as cancellation', () => {
    // 0.02·15000 + 0.005·15000 + (0.03 − 0.01)·5000 + 0.01·10000 = 300 + 75 + 100 + 100
    assert.equal(expectedLoss(leg, coverageFor('delay_and_cancellation', tiers, 15_000)).toString(), '575');
  });

  it('pays a diversion as the highest tier when cancellation is not covered', () => {
    // 0.005·10000 + 100 + 100
    assert.equal(expectedLoss(leg, coverageFor('delay', tiers, 15_000)).toString(), '250');
  });

  it('ignores delay when only cancellation is covered', () => {
    assert.equal(expectedLoss(leg, coverageFor('cancellation', tiers, 15_000)).toString(), '375');
  });
});

describe('the payout rule (DESIGN.md, trigger rules): what one passenger is paid for one leg', () => {
  const tiers = [
    { minDelayMinutes: 120, amount: 5000 },
    { minDelayMinutes: 180, amount: 10_000 },
  ];
  const both = coverageFor('delay_and_cancellation', tiers, 15_000);

  it('a delay pays the highest tier reached, a tier being reached at its own minute', () => {
    const paid = (delayMinutes: number) => payoutFor(both, { event: 'delayed', delayMinutes });
    assert.deepEqual(
      [0, 119, 120, 179, 180, 1_440].map((minutes) => [minutes, paid(minutes).amount]),
      [
        [0, 0],
        [119, 0],
        [120, 5000],
        [179, 5000],
        [180, 10_000],
        [1_440, 10_000],
      ],
    );
    assert.equal(paid(150).reason, 'delay');
  });

  it('each formula pays only what it covers: delay, cancellation, diversion', () => {
    const rows = FORMULAS.map((formula) => {
      const coverage = coverageFor(formula, tiers, 15_000);
      return [
        formula,
        payoutFor(coverage, { event: 'delayed', delayMinutes: 200 }),
        payoutFor(coverage, { event: 'cancelled' }),
        payoutFor(coverage, { event: 'diverted' }),
      ];
    });
    assert.deepEqual(rows, [
      // a diverted leg: as cancelled when cancellation is covered, else the highest delay tier
      [
        'delay',
        { reason: 'delay', amount: 10_000 },
        { reason: 'cancellation', amount: 0 },
        { reason: 'delay', amount: 10_000 },
      ],
      [
        'cancellation',
        { reason: 'delay', amount: 0 },
        { reason: 'cancellation', amount: 15_000 },
        { reason: 'cancellation', amount: 15_000 },
      ],
      [
        'delay_and_cancellation',
        { reason: 'delay', amount: 10_000 },
        { reason: 'cancellation', amount: 15_000 },
        { reason: 'cancellation', amount: 15_000 },
      ],
    ]);
  });
});

describe('invalid inputs', () => {
  const s: Scenario = {
    formula: 'delay_and_cancellation',
    tiers: [
      { minDelayMinutes: 120, amount: 5000 },
      { minDelayMinutes: 180, amount: 10_000 },
    ],
    cancellationAmount: 15_000,
    cancellationPpm: 10_000,
    diversionPpm: 2_000,
    delayPpm: [30_000, 10_000],
    commissionPercent: 20,
    taxBasisPoints: 900,
  };
  const leg = legOf(s);
  const terms = termsOf(s);

  it('rejects rates out of range', () => {
    for (const commissionRate of ['-0.01', '0.91', 'abc', Number.NaN]) {
      assert.throws(() => priceLeg(leg, { ...terms, commissionRate }), RangeError);
    }
    for (const taxRate of ['-0.01', '1', '1.5', Number.POSITIVE_INFINITY]) {
      assert.throws(() => priceLeg(leg, { ...terms, taxRate }), RangeError);
    }
    assert.doesNotThrow(() => priceLeg(leg, { ...terms, commissionRate: '0.9', taxRate: 0 }));
  });

  it('rejects passenger counts outside 1..9 and empty policies', () => {
    for (const passengers of [0, 10, 1.5, -1, Number.NaN]) {
      assert.throws(() => pricePolicy([leg], passengers, terms), RangeError);
    }
    assert.throws(() => pricePolicy([], 1, terms), RangeError);
  });

  it('rejects invalid coverage and probabilities', () => {
    const badTiers = [
      [
        { minDelayMinutes: 120, amount: 5000 },
        { minDelayMinutes: 120, amount: 6000 },
      ],
      [
        { minDelayMinutes: 120, amount: 5000 },
        { minDelayMinutes: 180, amount: 4000 },
      ],
      [{ minDelayMinutes: 120, amount: -1 }],
      [{ minDelayMinutes: 120, amount: 10.5 }],
    ];
    for (const delayTiers of badTiers) {
      assert.throws(() => priceLeg(leg, { ...terms, coverage: { ...terms.coverage, delayTiers } }), RangeError);
    }
    assert.throws(
      () => priceLeg(leg, { ...terms, coverage: { ...terms.coverage, cancellationAmount: -5 } }),
      RangeError,
    );
    assert.throws(() => priceLeg({ ...leg, cancellation: new Decimal('1.01') }, terms), RangeError);
    assert.throws(() => priceLeg(legOf({ ...s, delayPpm: [10_000, 30_000] }), terms), RangeError);
  });
});

describe('worked example (docs/pricing.md)', () => {
  it('CDG→JFK on 19 December 2025 at 16:30, 2 passengers', () => {
    const leg = riskModelV1.probabilities({
      departureAirport: 'CDG',
      arrivalAirport: 'JFK',
      airline: 'AF',
      departureLocal: '2025-12-19T16:30',
    });
    assert.equal(leg.cancellation.toString(), '0.0126');
    assert.equal(leg.diversion.toString(), '0.0048');
    assert.equal(leg.delayAtLeast(120).toString(), '0.029106');
    assert.equal(leg.delayAtLeast(180).toString(), '0.016632');

    const terms: PricingTerms = {
      coverage: coverageFor(
        'delay_and_cancellation',
        [
          { minDelayMinutes: 120, amount: 5000 },
          { minDelayMinutes: 180, amount: 10_000 },
        ],
        15_000,
      ),
      commissionRate: '0.20',
      taxRate: '0.09',
    };
    assert.equal(expectedLoss(leg, terms.coverage).toString(), '489.69');
    const policy = pricePolicy([leg], 2, terms);
    assert.deepEqual(policy.legs, [{ net: 826, tax: 74, commission: 165, total: 900, expectedLoss: '489.6900' }]);
    assert.deepEqual(policy.premium, { net: 1652, tax: 148, commission: 330, total: 1800 });
  });
});
