import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { payoutLaterals, type FlightEventType } from '../../src/claims/claims-repo.ts';
import { coverageFor, FORMULAS, type DelayTier } from '../../src/partners/coverage.ts';
import { payoutFor, type PayoutTrigger } from '../../src/flight/pricing.ts';
import { openTestDatabase } from '../helper.ts';

/**
 * The payout rule is written twice: in TypeScript, where it prices the cover (`payoutFor`), and in
 * SQL, where claims are opened set-wise for every leg of a flight (`payoutLaterals`). This runs
 * the SQL fragment itself on random coverages (as partners configure them: amounts ≥ 1 where
 * covered, tiers with increasing delays and non-decreasing amounts) and random events, and asks
 * for the same reason and amount as the TypeScript rule.
 */
const amount = fc.integer({ min: 1, max: 1_000_000 });
const tiers: fc.Arbitrary<DelayTier[]> = fc
  .uniqueArray(fc.integer({ min: 0, max: 1_440 }), { maxLength: 5 })
  .chain((minutes) =>
    fc.array(amount, { minLength: minutes.length, maxLength: minutes.length }).map((amounts) => {
      const sortedMinutes = [...minutes].sort((a, b) => a - b);
      const sortedAmounts = [...amounts].sort((a, b) => a - b);
      return sortedMinutes.map((minDelayMinutes, i) => ({ minDelayMinutes, amount: sortedAmounts[i]! }));
    }),
  );
const coverage = fc
  .record({ formula: fc.constantFrom(...FORMULAS), tiers, cancellation: amount })
  .map((c) => coverageFor(c.formula, c.tiers, c.cancellation));
const trigger: fc.Arbitrary<PayoutTrigger> = fc.oneof(
  fc.integer({ min: 0, max: 2_000 }).map((delayMinutes) => ({ event: 'delayed' as const, delayMinutes })),
  fc.constant({ event: 'cancelled' as const }),
  fc.constant({ event: 'diverted' as const }),
);

test('a claim pays what the cover was priced on: the SQL that opens claims and the pricing rule agree on every coverage and event', async (t) => {
  const { db } = await openTestDatabase(t);
  await fc.assert(
    fc.asyncProperty(coverage, trigger, async (cov, trig) => {
      const event: FlightEventType = trig.event;
      const delay = trig.event === 'delayed' ? trig.delayMinutes : 0;
      const { rows } = await sql<{ reason: 'delay' | 'cancellation'; amount: string | number | null }>`
        SELECT pay.reason, pay.amount FROM (SELECT ${JSON.stringify(cov)}::jsonb AS coverage) c ${payoutLaterals(event, delay)}`.execute(
        db,
      );
      const expected = payoutFor(cov, trig);
      const paid = Number(rows[0]!.amount ?? 0);
      assert.equal(paid, expected.amount, `amount for ${JSON.stringify(trig)} on ${JSON.stringify(cov)}`);
      // the reason is recorded only on a claim, i.e. when something is paid
      if (paid > 0)
        assert.equal(rows[0]!.reason, expected.reason, `reason for ${JSON.stringify(trig)} on ${JSON.stringify(cov)}`);
    }),
    { numRuns: 100 },
  );
});
