import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { sharesTimes, type Share } from '../../src/flight/shares.ts';
import { cancellationMovements, changeMovements, saleMovements, type Movement } from '../../src/ledger/index.ts';

/**
 * The ledger's movements as the flows build them (saleMovements, changeMovements, cancellationMovements),
 * on any contract and any sequence of changes — passengers leaving, a leg leaving, legs repriced (one
 * dearer and one cheaper at once, so the tax may move against the total) — then cancelled or not, each
 * event recorded any number of times (a retried request or job: one entry per event and kind). Pure
 * and fast, so it explores far more sequences than the HTTP property (test/ledger/books.http.test.ts).
 */

const halfUp = (n: number, rate: string) =>
  Number(new Decimal(n).times(rate).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toString());

const termsArb = fc.record({
  commissionRate: fc.constantFrom('0', '0.1', '0.15', '0.2', '0.3', '0.9'),
  taxRate: fc.constantFrom('0', '0.05', '0.09', '0.1', '0.2'),
});
/** A leg's share per passenger as pricing makes it: net ≥ the minimum, commission and tax of it, half up. */
const shareArb = (terms: { commissionRate: string; taxRate: string }) =>
  fc.integer({ min: 100, max: 200_000 }).map<Share>((net) => {
    const tax = halfUp(net, terms.taxRate);
    return { net, tax, commission: halfUp(net, terms.commissionRate), total: net + tax };
  });

type Step =
  | { kind: 'passengers_leave'; count: number }
  | { kind: 'leg_leaves' }
  | { kind: 'reprice'; leg: number; share: Share }
  | { kind: 'reprice_both'; shares: [Share, Share] };

const scenarioArb = termsArb.chain((terms) =>
  fc.record({
    terms: fc.constant(terms),
    passengers: fc.integer({ min: 1, max: 9 }),
    legs: fc.array(shareArb(terms), { minLength: 1, maxLength: 2 }),
    steps: fc.array(
      fc.oneof(
        fc.integer({ min: 1, max: 8 }).map<Step>((count) => ({ kind: 'passengers_leave', count })),
        fc.constant<Step>({ kind: 'leg_leaves' }),
        fc.record({ leg: fc.integer({ min: 0, max: 1 }), share: shareArb(terms) }).map<Step>((r) => ({
          kind: 'reprice',
          ...r,
        })),
        fc.tuple(shareArb(terms), shareArb(terms)).map<Step>((shares) => ({ kind: 'reprice_both', shares })),
      ),
      { maxLength: 8 },
    ),
    cancelled: fc.boolean(),
    /** How many times each event is recorded (a retry records it again). */
    replays: fc.integer({ min: 1, max: 3 }),
  }),
);

describe('ledger movements: any sequence of changes keeps the books whole', () => {
  it('premium written − refunds, the commission and the tax net of refunds equal the contract’s, every time', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const contract = { id: 'c1', partnerId: 'p1', environment: 'sandbox' as const, currency: 'EUR' };
        const at = new Date('2026-11-30T23:59:59.999Z');
        let legs = [...s.legs];
        let passengers = s.passengers;
        let premium = sharesTimes(legs, passengers);
        /** The ledger: one entry per (event key, kind), whatever the replays. */
        const ledger = new Map<string, Movement>();
        const record = (movements: Movement[]) => {
          for (let i = 0; i < s.replays; i++)
            for (const m of movements) {
              assert.ok(Number.isSafeInteger(m.amount), `${m.kind} ${m.amount} is integer minor units`);
              const key = `${m.eventKey}|${m.kind}`;
              const seen = ledger.get(key);
              if (seen) assert.deepEqual(seen, m, 'a replay records the same movement');
              else ledger.set(key, m);
            }
        };
        record(
          saleMovements(
            { ...contract, premiumNet: premium.net, premiumTax: premium.tax, premiumCommission: premium.commission },
            at,
            'test',
          ),
        );
        let version = 1;
        for (const step of s.steps) {
          if (step.kind === 'passengers_leave' && step.count < passengers) passengers -= step.count;
          else if (step.kind === 'leg_leaves' && legs.length > 1) legs = legs.slice(0, 1);
          else if (step.kind === 'reprice' && step.leg < legs.length)
            legs = legs.map((l, i) => (i === step.leg ? step.share : l));
          else if (step.kind === 'reprice_both' && legs.length === 2) legs = [...step.shares];
          else continue;
          const after = sharesTimes(legs, passengers);
          const difference = {
            net: after.net - premium.net,
            tax: after.tax - premium.tax,
            commission: after.commission - premium.commission,
            total: after.total - premium.total,
          };
          version += 1;
          const movements = changeMovements(contract, difference, step.kind, version, at, 'test');
          assert.ok(
            movements.every((m) => m.amount !== 0),
            'a change writes no zero entry',
          );
          // a lower premium is refunded, never written back negative; a higher one is written
          if (difference.total < 0) assert.ok(!movements.some((m) => m.kind === 'premium_written' || m.kind === 'tax'));
          else assert.ok(!movements.some((m) => m.kind === 'refund' || m.kind === 'tax_refunded'));
          record(movements);
          premium = after;
        }
        if (s.cancelled)
          record(
            cancellationMovements(
              { ...contract, premiumNet: premium.net, premiumTax: premium.tax, premiumCommission: premium.commission },
              premium.total,
              at,
              'test',
            ),
          );
        const sum = (kind: Movement['kind']) =>
          [...ledger.values()].filter((m) => m.kind === kind).reduce((n, m) => n + m.amount, 0);
        const expected = s.cancelled ? { total: 0, commission: 0, tax: 0 } : premium;
        assert.equal(sum('premium_written') + sum('tax') - sum('refund'), expected.total, 'premium');
        assert.equal(sum('commission'), expected.commission, 'commission');
        assert.equal(sum('tax') - sum('tax_refunded'), expected.tax, 'tax net of refunds');
        // what the customer paid and got back: every refund is at most what was paid
        assert.ok(sum('refund') <= sum('premium_written') + sum('tax'));
      }),
      { numRuns: 3000 },
    );
  });
});
