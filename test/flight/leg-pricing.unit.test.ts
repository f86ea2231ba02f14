import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { coverageFor, FORMULAS } from '../../src/partners/coverage.ts';
import { explanationText, explanationView, priceAndExplain } from '../../src/flight/leg-pricing.ts';
import { explanationIn } from '../../src/web/console-views.ts';
import { riskModelV1 } from '../../src/flight/risk-model.ts';

const worked = { departureAirport: 'CDG', arrivalAirport: 'JFK', airline: 'AF', departureLocal: '2025-12-19T16:30' };
const terms = {
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

describe('explanation text', () => {
  it('reads base × each factor (label) = probability, in percent and to 2 decimals, half up', () => {
    const text = explanationText({
      base: 0.0217,
      factors: [
        { label: 'hour 19', factor: 1.12, credibility: 0.9 },
        { label: 'LAX', factor: 0.81, credibility: 0.8 },
        { label: 'OO on SAT–LAX', factor: 0.87, credibility: 0.4 },
      ],
      probability: 0.0173,
    });
    assert.equal(text, '2.17 % × 1.12 (hour 19) × 0.81 (LAX) × 0.87 (OO on SAT–LAX) = 1.73 %');
    assert.equal(
      explanationText({ base: 0.00125, factors: [{ label: 'x', factor: 1.005, credibility: 1 }], probability: 0.015 }),
      '0.13 % × 1.01 (x) = 1.50 %',
    );
    assert.equal(explanationText({ base: 0.002, factors: [], probability: 0.002 }), '0.20 % = 0.20 %');
  });
});

describe('the explanation in French', () => {
  it('is the same formatter: the same figures as the English, rounded once from the unrounded parts', () => {
    // 0.012349999996 is 1.23 % once rounded; rounded to 8 places first (the view's base) it would be 1.24 %
    const view = explanationView({
      base: 0.012349999996,
      factors: [
        { label: 'winter', factor: 1.004999999, credibility: 1 },
        { label: 'midday (hour 10)', factor: 1.2, credibility: 1 },
      ],
      probability: 0.014894999999,
    });
    const english = explanationIn('en', view);
    const french = explanationIn('fr', view);
    assert.equal(english, '1.23 % × 1.00 (winter) × 1.20 (midday (hour 10)) = 1.49 %');
    assert.equal(french, '1,23\u202f% × 1,00 (hiver) × 1,20 (mi-journée (heure 10)) = 1,49\u202f%');
    const figures = (text: string) => text.match(/\d+[.,]\d+/g)!.map((n) => n.replace(',', '.'));
    assert.deepEqual(figures(french), figures(english));
  });
});

describe('a leg priced and explained (worked example of docs/pricing.md)', () => {
  it('gives each payout event its probability, payout and explanation, and the leg its expected loss and premium share', () => {
    const { premium, breakdown } = priceAndExplain(riskModelV1.probabilities(worked), worked, terms, 'EUR');
    assert.deepEqual(premium, { net: 826, tax: 74, commission: 165, total: 900, expectedLoss: '489.6900' });
    assert.equal(breakdown.credibility, 0);
    assert.deepEqual(breakdown.expectedLoss, { amount: 490, currency: 'EUR' });
    assert.deepEqual(breakdown.premium, { amount: 826, currency: 'EUR' });
    assert.deepEqual(
      breakdown.events.map((e) => [e.event, e.minDelayMinutes, e.maxDelayMinutes, e.probability, e.payout.amount]),
      [
        ['cancellation', null, null, 0.0126, 15_000],
        ['diversion', null, null, 0.0048, 15_000],
        ['delay', 120, 180, 0.012474, 5_000],
        ['delay', 180, null, 0.016632, 10_000],
      ],
    );
    assert.equal(
      breakdown.events[0]!.explanation.text,
      '1.50 % × 0.50 (long-haul) × 1.60 (winter) × 1.05 (afternoon (hour 16)) = 1.26 %',
    );
    assert.equal(
      breakdown.events[3]!.explanation.text,
      '1.20 % × 1.05 (long-haul) × 1.10 (winter) × 1.20 (afternoon (hour 16)) = 1.66 %',
    );
  });

  it('lists only the events the coverage pays, disjoint: their probabilities never sum above 1', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMULAS),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 1, max: 12 }),
        (formula, hour, month) => {
          const leg = {
            ...worked,
            departureLocal: `2026-${String(month).padStart(2, '0')}-10T${String(hour).padStart(2, '0')}:00`,
          };
          const coverage = coverageFor(
            formula,
            formula === 'cancellation' ? [] : terms.coverage.delayTiers,
            formula === 'delay' ? 0 : 15_000,
          );
          const { breakdown } = priceAndExplain(riskModelV1.probabilities(leg), leg, { ...terms, coverage }, 'EUR');
          const kinds = breakdown.events.map((e) => e.event);
          assert.equal(kinds.includes('cancellation'), formula !== 'delay');
          assert.equal(kinds.includes('delay'), formula !== 'cancellation');
          assert.ok(kinds.includes('diversion'));
          const sum = breakdown.events.reduce((s, e) => s + e.probability, 0);
          assert.ok(breakdown.events.every((e) => e.probability >= 0 && e.probability <= 1) && sum <= 1);
        },
      ),
    );
  });
});
