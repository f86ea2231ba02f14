import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import type { Simulation } from '../../src/flight/index.ts';
import { delayBandTerms } from '../../src/web/console-views.ts';
import { t } from '../../src/i18n/index.ts';

/** The preview's band line "a % (≥ 120 min) − b % (≥ 180 min) = c %" is never false arithmetic. */

type Event = Simulation['breakdown'][number]['events'][number];

const money = { amount: 5000, currency: 'EUR' };
const explanation = (probability: number) => ({ base: probability, factors: [], probability, text: 'x' });

/** A leg's delay events as pricing builds them: tier i's band is P(≥ tier i) − P(≥ tier i+1). */
function delayEvents(tiers: readonly number[], reach: readonly number[]): Event[] {
  return tiers.map((minutes, i) => {
    const to = tiers[i + 1] ?? null;
    const probability = to === null ? reach[i]! : reach[i]! - reach[i + 1]!;
    return {
      event: 'delay',
      minDelayMinutes: minutes,
      maxDelayMinutes: to,
      probability,
      payout: money,
      explanation: explanation(reach[i]!),
    };
  });
}

const shown = (text: string) => {
  const m = /^The band: (\d+\.\d\d) % \(≥ \d+ min\) − (\d+\.\d\d) % \(≥ \d+ min\) ([=≈]) (\d+\.\d\d) %$/.exec(text);
  assert.ok(m, text);
  return { a: new Decimal(m[1]!), b: new Decimal(m[2]!), sign: m[3], c: new Decimal(m[4]!) };
};

const bandLines = (events: Event[]) =>
  events.flatMap((e) => {
    const band = delayBandTerms(e, events);
    return band ? [t('en').delayBand(band)] : [];
  });

describe('the delay band line of the preview', () => {
  test('CDG → JFK in January at 00:30, tiers 120/180: 2.18 − 1.25 is 0.93, so the band’s 0.94 is “≈”', () => {
    const events = delayEvents([120, 180], [0.021844, 0.012454]);
    assert.deepEqual(bandLines(events), ['The band: 2.18 % (≥ 120 min) − 1.25 % (≥ 180 min) ≈ 0.94 %']);
  });

  test('when the rounded terms meet, the line says “=”', () => {
    const events = delayEvents([120, 180], [0.0224, 0.0079]);
    assert.deepEqual(bandLines(events), ['The band: 2.24 % (≥ 120 min) − 0.79 % (≥ 180 min) = 1.45 %']);
  });

  test('over any tier set and probabilities: “=” only when the shown terms add up, “≈” off by rounding only', () => {
    const tierSets = fc
      .uniqueArray(fc.integer({ min: 15, max: 720 }), { minLength: 2, maxLength: 5 })
      .map((a) => [...a].sort((x, y) => x - y));
    const leg = tierSets.chain((tiers) =>
      fc
        .array(fc.integer({ min: 0, max: 500_000 }), { minLength: tiers.length, maxLength: tiers.length })
        .map((ps) => ({ tiers, reach: [...ps].sort((x, y) => y - x).map((n) => n / 1_000_000) })),
    );
    let approximate = 0;
    fc.assert(
      fc.property(leg, ({ tiers, reach }) => {
        const events = delayEvents(tiers, reach);
        const lines = bandLines(events);
        assert.equal(lines.length, tiers.length - 1, 'every band but the last tier has its line');
        for (const [i, line] of lines.entries()) {
          const { a, b, sign, c } = shown(line);
          // the result is the band's probability as its row shows it
          assert.equal(c.toFixed(2), new Decimal(events[i]!.probability).times(100).toFixed(2, Decimal.ROUND_HALF_UP));
          if (sign === '≈') approximate++;
          assert.equal(sign === '=', a.minus(b).equals(c), line);
          assert.ok(a.minus(b).minus(c).abs().lte(0.01), line);
        }
      }),
      { numRuns: 2000 },
    );
    assert.ok(approximate > 0, 'the property reached the rounded-apart case');
  });
});
