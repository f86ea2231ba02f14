import { Decimal } from 'decimal.js';
import { Memo } from '../platform/memo.ts';
import { coversCancellation, coversDelay, type Coverage } from '../partners/index.ts';
import { money, type Money } from './deps.ts';
import { PRICING, payoutFor, priceLeg, type LegPremium, type PricingTerms } from './pricing.ts';
import type { EventExplanation, LegFacts, LegProbabilities, RiskEvent, RiskModel } from './risk-model.ts';

/**
 * One leg priced and explained: the premium per passenger (pricing.ts) and what the quote shows of
 * it — each payout event's probability and explanation, the expected loss, the leg's share of the
 * net premium, the model's credibility. Pure; memoised per (model version, terms, currency, leg), so
 * the explanation strings are built once per leg and a repeated quote costs a map lookup.
 */

export interface ExplanationView {
  /** Base rate, a fraction in [0, 1]. */
  base: number;
  factors: { label: string; factor: number; credibility: number }[];
  /** The probability the model returns, a fraction in [0, 1]. */
  probability: number;
  /** e.g. `2.17 % × 1.12 (hour 19) × 0.81 (LAX) × 0.87 (OO on SAT–LAX) = 1.73 %` */
  text: string;
}

export interface PayoutEventView {
  event: 'cancellation' | 'diversion' | 'delay';
  /** Delay band [minDelayMinutes, maxDelayMinutes): the tier it pays; null outside delay. */
  minDelayMinutes: number | null;
  /** End of the band (the next tier), null for the highest tier and outside delay. */
  maxDelayMinutes: number | null;
  /** Probability of this event on this leg (a band: P(≥ min) − P(≥ max)), a fraction in [0, 1]. */
  probability: number;
  /** What the event pays per passenger. */
  payout: Money;
  /** How the model built the probability (of a band: the probability of reaching its tier, P(≥ min)). */
  explanation: ExplanationView;
}

export interface LegBreakdownView {
  departureAirport: string;
  arrivalAirport: string;
  /** The flight the quote was priced for, when the request named it. */
  flightNumber: string | null;
  /** How much the model knows about this leg, in [0, 1]; the risk margin grows as it falls. */
  credibility: number;
  /** Expected loss per passenger (rounded to minor units for display; the premium uses it unrounded). */
  expectedLoss: Money;
  /** This leg's share of the net premium, per passenger (commission included, tax excluded). */
  premium: Money;
  events: PayoutEventView[];
}

export interface PricedLeg {
  premium: LegPremium;
  breakdown: LegBreakdownView;
}

/** The facts of a leg as pricing sees them: the platform's leg and the flight number when quoted. */
export type PricingLeg = LegFacts & { departureAirport: string; arrivalAirport: string };

const priced = new Memo<PricedLeg>(50_000);

/** Terms part of the memo key: everything but the leg that a priced leg depends on. */
export function termsKey(
  model: RiskModel,
  terms: { coverage: Coverage; commissionRate: string; taxRate: string },
  currency: string,
): string {
  const c = terms.coverage;
  return `${model.version}|${c.formula}|${c.delayTiers.map((t) => `${t.minDelayMinutes}:${t.amount}`).join(',')}|${c.cancellationAmount}|${terms.commissionRate}|${terms.taxRate}|${currency}`;
}

/** Prices and explains one leg, memoised; `key` is `termsKey(...)` computed once per quote. */
export function pricedLeg(
  model: RiskModel,
  key: string,
  leg: PricingLeg,
  terms: PricingTerms,
  currency: string,
): PricedLeg {
  return priced.get(
    `${key}|${leg.departureAirport}|${leg.arrivalAirport}|${leg.airline}|${leg.departureLocal}|${leg.flightNumber ?? ''}`,
    () => priceAndExplain(model.probabilities(leg), leg, terms, currency),
  );
}

/** Not memoised: the pure computation behind pricedLeg. */
export function priceAndExplain(
  p: LegProbabilities,
  leg: PricingLeg,
  terms: PricingTerms,
  currency: string,
): PricedLeg {
  const premium = priceLeg(p, terms);
  return {
    premium,
    breakdown: {
      departureAirport: leg.departureAirport,
      arrivalAirport: leg.arrivalAirport,
      flightNumber: leg.flightNumber ?? null,
      credibility: p.credibility,
      expectedLoss: money(new Decimal(premium.expectedLoss).toDecimalPlaces(0, PRICING.rounding).toNumber(), currency),
      premium: money(premium.net, currency),
      events: payoutEvents(p, terms.coverage, currency),
    },
  };
}

/** The disjoint events that pay on this coverage, with their probabilities, payouts and explanations. */
function payoutEvents(p: LegProbabilities, coverage: Coverage, currency: string): PayoutEventView[] {
  const tiers = coversDelay(coverage.formula) ? coverage.delayTiers : [];
  const cancellationCovered = coversCancellation(coverage.formula);
  const event = (
    kind: PayoutEventView['event'],
    risk: RiskEvent,
    probability: Decimal,
    payout: number,
    band: [number | null, number | null] = [null, null],
  ): PayoutEventView => ({
    event: kind,
    minDelayMinutes: band[0],
    maxDelayMinutes: band[1],
    probability: fraction(probability),
    payout: money(payout, currency),
    explanation: explanationView(p.explain(risk)),
  });
  const events: PayoutEventView[] = [];
  if (cancellationCovered)
    events.push(event('cancellation', 'cancellation', p.cancellation, coverage.cancellationAmount));
  events.push(event('diversion', 'diversion', p.diversion, payoutFor(coverage, { event: 'diverted' }).amount));
  tiers.forEach((tier, i) => {
    const next = tiers[i + 1];
    const reach = p.delayAtLeast(tier.minDelayMinutes);
    const band = next ? reach.minus(p.delayAtLeast(next.minDelayMinutes)) : reach;
    events.push(
      event('delay', { delayAtLeast: tier.minDelayMinutes }, band, tier.amount, [
        tier.minDelayMinutes,
        next?.minDelayMinutes ?? null,
      ]),
    );
  });
  return events;
}

const fraction = (p: Decimal.Value): number => new Decimal(p).toDecimalPlaces(8, Decimal.ROUND_HALF_UP).toNumber();

/** Each view's unrounded explanation, for `explanationTextOf` (a view is sent as is; this is not). */
const explained = new WeakMap<ExplanationView, EventExplanation>();

export function explanationView(e: EventExplanation): ExplanationView {
  const view = {
    base: fraction(e.base),
    factors: e.factors.map((f) => ({ label: f.label, factor: f.factor, credibility: f.credibility })),
    probability: fraction(e.probability),
    text: explanationText(e),
  };
  explained.set(view, e);
  return view;
}

/** How an explanation writes its numbers and names its factors: English by default (the API's `text`). */
export interface ExplanationWriting {
  /** A decimal to `digits` places, half up: "1.12" in English. */
  decimal: (value: Decimal.Value, digits: number) => string;
  /** A fraction as a percentage to 2 places, half up: "2.17 %" in English. */
  percent: (fraction: Decimal.Value) => string;
  /** A factor's name from its label: the label itself in English. */
  name: (label: string) => string;
}

const decimalHalfUp = (value: Decimal.Value, digits: number) =>
  new Decimal(value).toFixed(digits, Decimal.ROUND_HALF_UP);
export const ENGLISH_EXPLANATION: ExplanationWriting = {
  decimal: decimalHalfUp,
  percent: (p) => `${decimalHalfUp(new Decimal(p).times(100), 2)} %`,
  name: (label) => label,
};

/**
 * `2.17 % × 1.12 (hour 19) × 0.81 (LAX) = 1.97 %`: percentages and factors to 2 decimals, half up, rounded
 * once from the model's unrounded parts; `writing` gives another language's numbers and names (the same figures).
 */
export function explanationText(e: EventExplanation, writing: ExplanationWriting = ENGLISH_EXPLANATION): string {
  const factors = e.factors.map((f) => ` × ${writing.decimal(f.factor, 2)} (${writing.name(f.label)})`).join('');
  return `${writing.percent(e.base)}${factors} = ${writing.percent(e.probability)}`;
}

/** A view's explanation written another way, from the model's unrounded parts when the view is this process's. */
export const explanationTextOf = (view: ExplanationView, writing: ExplanationWriting): string =>
  explanationText(explained.get(view) ?? view, writing);
