/**
 * Each leg's share of a contract's premium, per passenger (contract_legs.share_*, migration 0024).
 * Pure functions, integers in minor units. A contract's premium is, exactly, the sum over its legs of
 * their shares times its passengers: a partial refund gives back the shares it removes (one
 * passenger: every leg's share once; one leg: that leg's share times the passengers) and a flight
 * change replaces the changed legs' shares, so every change keeps the contract and the ledger whole.
 */
import type { PremiumBreakdown } from './pricing.ts';

/** A leg's share per passenger; `total = net + tax`. */
export type Share = PremiumBreakdown;

/**
 * Splits a per-passenger premium over legs in proportion to `weights` (each leg's own priced net
 * premium per passenger), each component by the largest-remainder rule so the parts add up to the
 * whole; equal parts when every weight is 0 or the weights are unusable.
 */
export function splitPremium(perPassenger: PremiumBreakdown, weights: readonly number[]): Share[] {
  if (weights.length === 0) throw new RangeError('a contract has at least one leg');
  const usable = weights.every((w) => Number.isSafeInteger(w) && w >= 0) && weights.some((w) => w > 0);
  const w = usable ? weights : weights.map(() => 1);
  const net = allocate(perPassenger.net, w);
  const tax = allocate(perPassenger.tax, w);
  // the commission is part of the net: a leg's part never exceeds its net (the excess of a rounding
  // moves to a leg with room; there is one, as the whole commission is at most the whole net)
  const commission = allocate(perPassenger.commission, w);
  for (let i = 0; i < commission.length; i++) {
    let excess = commission[i]! - net[i]!;
    for (let j = 0; excess > 0 && j < commission.length; j++) {
      const room = net[j]! - commission[j]!;
      if (room <= 0) continue;
      const moved = Math.min(room, excess);
      commission[j]! += moved;
      commission[i]! -= moved;
      excess -= moved;
    }
  }
  return net.map((n, i) => ({ net: n, tax: tax[i]!, commission: commission[i]!, total: n + tax[i]! }));
}

/** The premium per passenger of a contract: every premium divides by its passengers exactly. */
export function perPassenger(premium: PremiumBreakdown, passengers: number): PremiumBreakdown {
  const divide = (amount: number, what: string): number => {
    if (amount % passengers !== 0)
      throw new RangeError(`the ${what} ${amount} does not divide by ${passengers} passengers`);
    return amount / passengers;
  };
  return {
    net: divide(premium.net, 'net premium'),
    tax: divide(premium.tax, 'tax'),
    commission: divide(premium.commission, 'commission'),
    total: divide(premium.total, 'premium'),
  };
}

/** The sum of some legs' shares times the passengers: what those legs cost in the contract. */
export function sharesTimes(shares: readonly Share[], passengers: number): PremiumBreakdown {
  return shares.reduce(
    (sum, s) => ({
      net: sum.net + s.net * passengers,
      tax: sum.tax + s.tax * passengers,
      commission: sum.commission + s.commission * passengers,
      total: sum.total + s.total * passengers,
    }),
    { net: 0, tax: 0, commission: 0, total: 0 },
  );
}

/** The share columns of a leg row. */
export function shareOf(leg: { share_net: number; share_tax: number; share_commission: number }): Share {
  const net = Number(leg.share_net);
  const tax = Number(leg.share_tax);
  return { net, tax, commission: Number(leg.share_commission), total: net + tax };
}

/**
 * Largest remainder (Hamilton): integer parts of `amount` proportional to `weights`, adding up to it.
 * Exact: each part and its remainder are integer quotients (BigInt), never a float — the ranking of
 * the remainders, and so which leg gets a unit, is the exact one, ties to the earlier leg.
 */
export function allocate(amount: number, weights: readonly number[]): number[] {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`cannot allocate ${amount}`);
  if (!weights.every((w) => Number.isSafeInteger(w) && w >= 0) || !weights.some((w) => w > 0))
    throw new RangeError(`cannot allocate over weights ${weights.join(', ')}`);
  const whole = BigInt(amount);
  const w = weights.map(BigInt);
  const sum = w.reduce((a, b) => a + b, 0n);
  const parts = w.map((x) => (whole * x) / sum);
  const remainders = w.map((x) => (whole * x) % sum);
  let left = whole - parts.reduce((a, b) => a + b, 0n);
  // the largest remainders get a unit each, ties to the earlier leg
  const order = remainders.map((r, i) => ({ i, r })).sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of order) {
    if (left <= 0n) break;
    parts[i]! += 1n;
    left -= 1n;
  }
  return parts.map(Number);
}
