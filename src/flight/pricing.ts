/**
 * Flight delay & cancellation premium, version 1. Pure functions, no I/O; see docs/pricing.md.
 *
 * Per passenger and per leg:
 *   expected loss  E = P(cancel)·C                                   (when cancellation is covered)
 *                    + P(divert)·(C if cancellation is covered, else the highest tier amount)
 *                    + Σ_i [P(≥t_i) − P(≥t_{i+1})]·A_i, P(≥t_{n+1}) = 0  (when delay is covered)
 *   risk premium   R = E × (1 + expenseLoading + margin(c))
 *                  margin(c) = minRiskMargin + (maxRiskMargin − minRiskMargin) × (1 − c), c = the leg's credibility
 *   net            N = round(max(minimum, R / (1 − commissionRate)))   so commission = commissionRate × N
 *   commission       = round(N × commissionRate)                         (part of N, paid to the partner)
 *   tax              = round(N × taxRate)
 *   total            = N + tax                                           (exactly)
 * with one rounding rule, ROUND_HALF_UP to integer minor units. A policy multiplies each leg's rounded
 * per-passenger amounts by the number of passengers and sums the legs, in integers.
 */
import { Decimal } from 'decimal.js';
import {
  coversCancellation,
  coversDelay,
  MAX_POLICY_PASSENGERS,
  type Coverage,
  type DelayTier,
} from '../partners/index.ts';
import type { LegProbabilities } from './risk-model.ts';

export interface PricingTerms {
  coverage: Coverage;
  /** Partner's share of the net premium, in [0, PRICING.maxCommissionRate]. */
  commissionRate: Decimal.Value;
  /** Insurance premium tax, applied on the net premium, in [0, 1). */
  taxRate: Decimal.Value;
}

/** Integer minor units. `commission` is included in `net`; `total = net + tax`. */
export interface PremiumBreakdown {
  net: number;
  tax: number;
  commission: number;
  total: number;
}

export interface LegPremium extends PremiumBreakdown {
  /** Expected loss per passenger, minor units, 4 decimals: for docs and debugging only. */
  expectedLoss: string;
}

/** Documented pricing constants (docs/pricing.md, "Premium and loadings"). */
export const PRICING = Object.freeze({
  /** Expenses as a share of the expected loss: flight monitoring, SMS, payouts, claims handling. */
  expenseLoading: new Decimal('0.15'),
  /** Risk margin (cost of capital) of a leg the model knows fully (credibility 1). */
  minRiskMargin: new Decimal('0.10'),
  /**
   * Risk margin of a leg priced from priors only (credibility 0): the model's uncertainty on top of
   * the cost of capital. With the expenses it makes the 0.35 loading every leg carried before.
   */
  maxRiskMargin: new Decimal('0.20'),
  /** Floor on the net premium, per leg and per passenger, in minor units (1.00 in the agreement's currency). */
  minimumNetPerLegPerPassenger: 100,
  /** Highest commission rate a partner may have: above it the premium would mostly be commission. */
  maxCommissionRate: new Decimal('0.9'),
  /** Passengers per policy, 1..maxPassengers (one booking). */
  maxPassengers: MAX_POLICY_PASSENGERS,
  /** The one rounding rule for money, to integer minor units. */
  rounding: Decimal.ROUND_HALF_UP,
});

const ZERO = new Decimal(0);
const ONE = new Decimal(1);

/** Expected loss per passenger for one leg, in minor units, unrounded. */
export function expectedLoss(p: LegProbabilities, coverage: Coverage): Decimal {
  assertValidCoverage(coverage);
  const cancellation = probability(p.cancellation, 'cancellation');
  const diversion = probability(p.diversion, 'diversion');
  const tiers = coversDelay(coverage.formula) ? coverage.delayTiers : [];
  const cancellationCovered = coversCancellation(coverage.formula);

  const cancellationLoss = cancellationCovered ? cancellation.times(coverage.cancellationAmount) : ZERO;
  const diversionPayout = payoutFor(coverage, { event: 'diverted' }).amount;
  return cancellationLoss.plus(diversion.times(diversionPayout)).plus(delayLoss(p, tiers));
}

/** What happened to an insured leg's flight, as a claim sees it. */
export type PayoutTrigger = { event: 'delayed'; delayMinutes: number } | { event: 'cancelled' } | { event: 'diverted' };

/**
 * The payout rule (DESIGN.md): what one passenger is paid for one leg, and the claim's reason. A
 * delay pays the highest tier reached; a cancellation the cancellation amount; a diversion the
 * cancellation amount when cancellation is covered, else the highest tier. Amount 0: no claim.
 * Priced here; claims are opened set-wise by the same rule in SQL (`payoutLaterals` in
 * claims/claims-repo.ts), and test/claims/payout-rule.db.test.ts ties the two on random coverages.
 */
export function payoutFor(
  coverage: Coverage,
  trigger: PayoutTrigger,
): { reason: 'delay' | 'cancellation'; amount: number } {
  const tiers = coversDelay(coverage.formula) ? coverage.delayTiers : [];
  const cancellationCovered = coversCancellation(coverage.formula);
  switch (trigger.event) {
    case 'delayed':
      return {
        reason: 'delay',
        amount: highestTierAmount(tiers.filter((tier) => tier.minDelayMinutes <= trigger.delayMinutes)),
      };
    case 'cancelled':
      return { reason: 'cancellation', amount: cancellationCovered ? coverage.cancellationAmount : 0 };
    case 'diverted':
      return cancellationCovered
        ? { reason: 'cancellation', amount: coverage.cancellationAmount }
        : { reason: 'delay', amount: highestTierAmount(tiers) };
  }
}

/**
 * Total loading on the expected loss of a leg whose model credibility is `credibility` in [0, 1]:
 * expenses plus a risk margin that falls linearly from maxRiskMargin (priors only) to minRiskMargin
 * (the leg's own history is ample). Non-increasing in credibility.
 */
export function riskLoading(credibility: number): Decimal {
  if (typeof credibility !== 'number' || !Number.isFinite(credibility) || credibility < 0 || credibility > 1) {
    throw new RangeError(`credibility must be a number in [0, 1], got ${String(credibility)}`);
  }
  const spread = PRICING.maxRiskMargin.minus(PRICING.minRiskMargin);
  return PRICING.expenseLoading.plus(PRICING.minRiskMargin).plus(spread.times(ONE.minus(credibility)));
}

/** Premium per passenger for one leg. */
export function priceLeg(p: LegProbabilities, terms: PricingTerms): LegPremium {
  const commissionRate = rate(terms.commissionRate, 'commissionRate', PRICING.maxCommissionRate, true);
  const taxRate = rate(terms.taxRate, 'taxRate', ONE, false);
  const loss = expectedLoss(p, terms.coverage);

  const riskPremium = loss.times(ONE.plus(riskLoading(p.credibility)));
  const grossedUp = riskPremium.div(ONE.minus(commissionRate));
  const net = toMinorUnits(Decimal.max(PRICING.minimumNetPerLegPerPassenger, grossedUp));
  const commission = toMinorUnits(new Decimal(net).times(commissionRate));
  const tax = toMinorUnits(new Decimal(net).times(taxRate));
  return { net, tax, commission, total: net + tax, expectedLoss: loss.toFixed(4) };
}

/** Premium of a policy: each leg priced per passenger, rounded, then × passengers and summed in integers. */
export function pricePolicy(
  legs: LegProbabilities[],
  passengers: number,
  terms: PricingTerms,
): { premium: PremiumBreakdown; legs: LegPremium[] } {
  if (!Number.isInteger(passengers) || passengers < 1 || passengers > PRICING.maxPassengers) {
    throw new RangeError(`passengers must be an integer in 1..${PRICING.maxPassengers}, got ${passengers}`);
  }
  if (legs.length === 0) throw new RangeError('a policy needs at least one leg');
  const legPremiums = legs.map((leg) => priceLeg(leg, terms));
  return { premium: policyPremium(legPremiums, passengers), legs: legPremiums };
}

/** Sums per-passenger leg premiums × passengers, in integers: how every policy total is formed. */
export function policyPremium(legPremiums: readonly PremiumBreakdown[], passengers: number): PremiumBreakdown {
  const premium = legPremiums.reduce((sum, leg) => addBreakdowns(sum, scaleBreakdown(leg, passengers)), {
    net: 0,
    tax: 0,
    commission: 0,
    total: 0,
  });
  return assertSafe(premium);
}

/** Σ_i [P(≥t_i) − P(≥t_{i+1})]·A_i: each passenger is paid the highest tier reached, once. */
function delayLoss(p: LegProbabilities, tiers: DelayTier[]): Decimal {
  const reach = tiers.map((tier) =>
    probability(p.delayAtLeast(tier.minDelayMinutes), `delayAtLeast(${tier.minDelayMinutes})`),
  );
  return tiers.reduce((sum, tier, i) => {
    const pReach = reach[i] ?? ZERO;
    const pNext = reach[i + 1] ?? ZERO;
    if (pNext.greaterThan(pReach)) {
      throw new RangeError(`delayAtLeast must be non-increasing, but rises after ${tier.minDelayMinutes} min`);
    }
    return sum.plus(pReach.minus(pNext).times(tier.amount));
  }, ZERO);
}

function highestTierAmount(tiers: DelayTier[]): number {
  return tiers.reduce((max, tier) => Math.max(max, tier.amount), 0);
}

function assertValidCoverage(coverage: Coverage): void {
  assertAmount(coverage.cancellationAmount, 'cancellationAmount');
  coverage.delayTiers.forEach((tier, i) => {
    assertAmount(tier.amount, `delayTiers[${i}].amount`);
    if (!Number.isSafeInteger(tier.minDelayMinutes) || tier.minDelayMinutes < 0) {
      throw new RangeError(`delayTiers[${i}].minDelayMinutes must be an integer ≥ 0, got ${tier.minDelayMinutes}`);
    }
    const previous = coverage.delayTiers[i - 1];
    if (previous && (tier.minDelayMinutes <= previous.minDelayMinutes || tier.amount < previous.amount)) {
      throw new RangeError('delayTiers must have strictly increasing minDelayMinutes and non-decreasing amounts');
    }
  });
}

function assertAmount(amount: number, name: string): void {
  if (!Number.isSafeInteger(amount) || amount < 0) {
    throw new RangeError(`${name} must be an integer number of minor units ≥ 0, got ${amount}`);
  }
}

function probability(value: Decimal, name: string): Decimal {
  if (!Decimal.isDecimal(value) || !value.isFinite() || value.lessThan(0) || value.greaterThan(1)) {
    throw new RangeError(`probability ${name} must be a Decimal in [0, 1], got ${String(value)}`);
  }
  return value;
}

/** A rate in [0, max] (or [0, max) when `maxIncluded` is false); rejects anything else with a RangeError. */
function rate(value: Decimal.Value, name: string, max: Decimal, maxIncluded: boolean): Decimal {
  let parsed: Decimal;
  try {
    parsed = new Decimal(value);
  } catch {
    throw new RangeError(`${name} must be a number, got ${String(value)}`);
  }
  const aboveMax = maxIncluded ? parsed.greaterThan(max) : parsed.greaterThanOrEqualTo(max);
  if (!parsed.isFinite() || parsed.lessThan(0) || aboveMax) {
    throw new RangeError(`${name} must be in [0, ${max.toString()}${maxIncluded ? ']' : ')'}, got ${String(value)}`);
  }
  return parsed;
}

/** The one rounding rule: half up to an integer number of minor units. */
function toMinorUnits(amount: Decimal): number {
  const rounded = amount.toDecimalPlaces(0, PRICING.rounding).toNumber();
  if (!Number.isSafeInteger(rounded)) throw new RangeError(`amount ${amount.toString()} is out of range`);
  return rounded;
}

function scaleBreakdown(b: PremiumBreakdown, factor: number): PremiumBreakdown {
  return { net: b.net * factor, tax: b.tax * factor, commission: b.commission * factor, total: b.total * factor };
}

function addBreakdowns(a: PremiumBreakdown, b: PremiumBreakdown): PremiumBreakdown {
  return { net: a.net + b.net, tax: a.tax + b.tax, commission: a.commission + b.commission, total: a.total + b.total };
}

function assertSafe(b: PremiumBreakdown): PremiumBreakdown {
  if (![b.net, b.tax, b.commission, b.total].every(Number.isSafeInteger))
    throw new RangeError('premium is out of range');
  return b;
}
