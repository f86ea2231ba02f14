import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Quote } from '../../src/flight/price-quote.ts';
import { quoteBody } from '../../src/flight/quote-body.ts';

/** A serializer writing the fields in its own order (as the route's schema serializer does), counting its calls. */
function countingSerializer(): { serialize: (q: Quote) => string; calls: () => number } {
  let calls = 0;
  const order = ['quoteReference', 'expiresAt', 'formula', 'passengers', 'premium', 'breakdown'] as const;
  return {
    serialize: (q) => {
      calls++;
      return `{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(q[k])}`).join(',')}}`;
    },
    calls: () => calls,
  };
}

function template(): Omit<Quote, 'quoteReference' | 'expiresAt'> {
  return {
    formula: 'delay',
    passengers: 2,
    premium: { total: { amount: 1234, currency: 'EUR' } },
    breakdown: [{ explanation: 'late "often" — ½' }],
  } as unknown as Omit<Quote, 'quoteReference' | 'expiresAt'>;
}

describe('quoteBody', () => {
  it('answers exactly what the serializer writes, serialising a template once', () => {
    const s = countingSerializer();
    const view = template();
    const first = { quoteReference: 'q2.abc.def', expiresAt: '2026-11-28T12:15:00.000Z', ...view } as Quote;
    const second = { quoteReference: 'q2.abc.xyz"\\', expiresAt: '2026-11-28T12:16:00.000Z', ...view } as Quote;
    const expected = [s.serialize(first), s.serialize(second)];
    const before = s.calls();
    assert.equal(quoteBody(first, s.serialize), expected[0]);
    assert.equal(quoteBody(second, s.serialize), expected[1]);
    assert.equal(s.calls() - before, 1, 'the second quote of the template reuses its parts');
  });

  it('serialises afresh when any other field is not the very value the parts came from', () => {
    const s = countingSerializer();
    const view = template();
    const first = { quoteReference: 'q2.a.b', expiresAt: '2026-11-28T12:15:00.000Z', ...view } as Quote;
    assert.equal(quoteBody(first, s.serialize), s.serialize(first));
    const changed = { ...first, quoteReference: 'q2.a.c', passengers: 3 } as Quote;
    assert.equal(quoteBody(changed, s.serialize), s.serialize(changed));
    const extra = { ...changed, quoteReference: 'q2.a.d', formula: 'cancellation' } as Quote;
    assert.equal(quoteBody(extra, s.serialize), s.serialize(extra));
  });

  it('falls back to the serializer when the varying strings are not found once each', () => {
    const view = template();
    const quote = { quoteReference: 'q2.x.y', expiresAt: '2026-11-28T12:15:00.000Z', ...view } as Quote;
    // a serializer that leaves the reference out: no parts, every answer serialised in full
    const serialize = (q: Quote): string => JSON.stringify({ expiresAt: q.expiresAt, passengers: q.passengers });
    assert.equal(quoteBody(quote, serialize), serialize(quote));
    const next = { ...quote, expiresAt: '2026-11-28T12:16:00.000Z' };
    assert.equal(quoteBody(next, serialize), serialize(next));
  });
});
