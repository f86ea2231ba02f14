import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { endToEndIdForPayout, isValidEndToEndId } from '../../src/payouts/end-to-end-id.ts';

describe('end-to-end ids', () => {
  it('are deterministic per payout and attempt', () => {
    const payoutId = '0b6f3a52-8a1e-4c7e-9d1f-3f2a9c1b7e10';
    assert.equal(endToEndIdForPayout({ payoutId }), endToEndIdForPayout({ payoutId, attempt: 1 }));
    assert.notEqual(endToEndIdForPayout({ payoutId, attempt: 2 }), endToEndIdForPayout({ payoutId }));
    assert.notEqual(endToEndIdForPayout({ payoutId: crypto.randomUUID() }), endToEndIdForPayout({ payoutId }));
  });

  it('a known value, so a change of scheme cannot pass unnoticed', () => {
    assert.equal(endToEndIdForPayout({ payoutId: 'x' }), 'PSL5TCW6YBLAJWJL44L7NTNFMIZGB');
  });

  it('fit the SEPA identifier rules: 29 characters of A-Z and 2-7', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 1, max: 1000 }), (payoutId, attempt) => {
        const id = endToEndIdForPayout({ payoutId, attempt });
        assert.match(id, /^PSL[A-Z2-7]{26}$/);
        assert.ok(isValidEndToEndId(id));
      }),
    );
  });

  it('refuse nonsense input', () => {
    assert.throws(() => endToEndIdForPayout({ payoutId: '' }), RangeError);
    assert.throws(() => endToEndIdForPayout({ payoutId: 'p', attempt: 0 }), RangeError);
  });

  it('validation of ids found in bank reports', () => {
    assert.ok(isValidEndToEndId('NOTPROVIDED'));
    assert.ok(isValidEndToEndId('A'.repeat(35)));
    assert.ok(!isValidEndToEndId('A'.repeat(36)));
    assert.ok(!isValidEndToEndId(''));
    assert.ok(!isValidEndToEndId('/ABC'));
    assert.ok(!isValidEndToEndId('AB//C'));
    assert.ok(!isValidEndToEndId('AB C'));
    assert.ok(!isValidEndToEndId('ABÉ'));
  });
});
