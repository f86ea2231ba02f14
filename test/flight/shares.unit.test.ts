import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { allocate, perPassenger, sharesTimes, splitPremium } from '../../src/flight/shares.ts';

test('largest remainder: the parts add up to the whole, in proportion, ties to the earlier leg', () => {
  assert.deepEqual(allocate(100, [1, 1]), [50, 50]);
  assert.deepEqual(allocate(101, [1, 1]), [51, 50]);
  assert.deepEqual(allocate(1000, [1, 3]), [250, 750]);
  assert.deepEqual(allocate(10, [1, 1, 1]), [4, 3, 3]);
  for (let i = 0; i < 500; i++) {
    const amount = Math.floor(Math.random() * 1_000_000);
    const weights: number[] = Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () =>
      Math.floor(Math.random() * 5000),
    );
    if (!weights.some((w) => w > 0)) weights[0] = 1;
    const parts = allocate(amount, weights);
    assert.equal(
      parts.reduce((a, b) => a + b, 0),
      amount,
    );
    const sum = weights.reduce((a, b) => a + b, 0);
    parts.forEach((p, k) => assert.ok(Math.abs(p - (amount * weights[k]!) / sum) < 1));
  }
});

test('largest remainder is exact: the units go to the largest exact remainders, ties to the earlier leg (no float)', () => {
  // the reference: each exact share amount × w / Σw as an integer quotient and remainder (BigInt)
  const reference = (amount: number, weights: number[]) => {
    const sum = weights.reduce((a, b) => a + BigInt(b), 0n);
    const parts = weights.map((w) => (BigInt(amount) * BigInt(w)) / sum);
    const rest = weights.map((w) => (BigInt(amount) * BigInt(w)) % sum);
    let left = BigInt(amount) - parts.reduce((a, b) => a + b, 0n);
    const order = rest.map((r, i) => ({ r, i })).sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
    for (const { i } of order) if (left-- > 0n) parts[i]! += 1n;
    return parts.map(Number);
  };
  // found by this property against the float version: 0.6/0.6 remainders computed as unequal doubles
  assert.deepEqual(allocate(62339, [3623, 390, 426]), reference(62339, [3623, 390, 426]));
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 10_000_000 }),
      fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 6 }),
      (amount, weights) => {
        fc.pre(weights.some((w) => w > 0));
        const parts = allocate(amount, weights);
        assert.deepEqual(parts, reference(amount, weights));
        assert.ok(parts.every(Number.isSafeInteger));
      },
    ),
    { numRuns: 2000 },
  );
  assert.throws(() => allocate(10, [0.5, 1]), RangeError);
});

test('a premium split into leg shares adds back up exactly, and no leg carries more commission than net', () => {
  for (let i = 0; i < 500; i++) {
    const passengers = 1 + Math.floor(Math.random() * 9);
    const net = 100 + Math.floor(Math.random() * 5000);
    const commission = Math.floor(net * Math.random() * 0.9);
    const tax = Math.floor(net * 0.09);
    const premium = {
      net: net * passengers,
      tax: tax * passengers,
      commission: commission * passengers,
      total: (net + tax) * passengers,
    };
    const weights = Array.from({ length: 1 + Math.floor(Math.random() * 2) }, () => Math.floor(Math.random() * 3000));
    const shares = splitPremium(perPassenger(premium, passengers), weights);
    assert.deepEqual(sharesTimes(shares, passengers), premium);
    for (const s of shares) {
      assert.ok(s.commission <= s.net, `commission ${s.commission} > net ${s.net}`);
      assert.equal(s.total, s.net + s.tax);
    }
  }
});

test('equal shares when the weights say nothing', () => {
  const shares = splitPremium({ net: 1001, tax: 91, commission: 201, total: 1092 }, [0, 0]);
  assert.deepEqual(
    shares.map((s) => s.net),
    [501, 500],
  );
});

test('a premium that does not divide by its passengers is refused, not rounded', () => {
  assert.throws(() => perPassenger({ net: 1001, tax: 0, commission: 0, total: 1001 }, 2), RangeError);
});
