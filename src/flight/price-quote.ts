import type { PartnerTerms } from '../platform/auth.ts';
import { DomainError } from '../platform/errors.ts';
import type { Agreement, Configuration } from '../partners/model.ts';
import { checkTerms } from '../partners/terms.ts';
import { coverageFor, type Coverage, type Formula } from './coverage.ts';
import { money, type Caller, type FlightDeps, type Money } from './deps.ts';
import { checkDepartureWindows, resolveLegs, resolveTrip, TIME_RULES, type Leg, type TripInput } from './legs.ts';
import { Memo } from '../platform/memo.ts';
import { maxPayoutPerPassenger } from '../limits/limits.ts';
import { policyPremium, priceLeg, type LegPremium, type PremiumBreakdown } from './pricing.ts';
import { newQuoteId, prepareQuote, quoteReference, signTerms } from './quote-token.ts';

export interface QuoteRequest extends TripInput {
  additionalPassengers?: number | undefined;
}

export interface PremiumView {
  total: Money;
  net: Money;
  tax: Money;
  commission: Money;
}

export interface CompensationView {
  delay: { minDelayMinutes: number; amount: Money }[];
  cancellation: Money | null;
}

export interface LegView {
  departureAirport: string;
  arrivalAirport: string;
  airline: string;
  departureDateTime: string;
  departureAt: string;
}

export interface Quote {
  quoteReference: string;
  expiresAt: string;
  formula: Formula;
  passengers: number;
  premium: PremiumView;
  compensation: CompensationView;
  legs: LegView[];
  configurationVersion: number;
}

export const premiumView = (p: PremiumBreakdown, currency: string): PremiumView => ({
  total: money(p.total, currency),
  net: money(p.net, currency),
  tax: money(p.tax, currency),
  commission: money(p.commission, currency),
});

export const compensationView = (c: Coverage, currency: string): CompensationView => ({
  delay: c.delayTiers.map((t) => ({ minDelayMinutes: t.minDelayMinutes, amount: money(t.amount, currency) })),
  cancellation: c.cancellationAmount > 0 ? money(c.cancellationAmount, currency) : null,
});

export const legView = (leg: Pick<Leg, 'departureAirport' | 'arrivalAirport' | 'airline' | 'departureLocal' | 'departureAt'>): LegView => ({
  departureAirport: leg.departureAirport,
  arrivalAirport: leg.arrivalAirport,
  airline: leg.airline,
  departureDateTime: leg.departureLocal,
  departureAt: leg.departureAt.toISOString(),
});

/**
 * Per-passenger leg premiums are a pure function of the risk model, the terms and the leg, and the
 * same flights are quoted over and over at search time: they are memoised, so a repeated quote
 * costs no decimal arithmetic. Passengers and legs are then combined exactly as pricePolicy does.
 */
const legPremiums = new Memo<LegPremium>(50_000);

function price(deps: FlightDeps, legs: Leg[], passengers: number, coverage: Coverage, commissionRate: string, taxRate: string): PremiumBreakdown {
  const terms = { coverage, commissionRate, taxRate };
  const termsKey = `${deps.riskModel.version}|${coverage.formula}|${coverage.delayTiers.map((t) => `${t.minDelayMinutes}:${t.amount}`).join(',')}|${coverage.cancellationAmount}|${commissionRate}|${taxRate}`;
  const perLeg = legs.map((leg) =>
    legPremiums.get(`${termsKey}|${leg.departureAirport}|${leg.arrivalAirport}|${leg.airline}|${leg.departureLocal}`, () => priceLeg(deps.riskModel.probabilities(leg), terms)),
  );
  return policyPremium(perLeg, passengers);
}

/** The partner's agreement and current configuration, or 409 when either is missing or stale. */
function configuredTerms(terms: PartnerTerms): { agreement: Agreement; configuration: Configuration } {
  const { agreement, configuration } = terms;
  if (!agreement || !configuration) {
    throw new DomainError('partner_not_configured', 'Your organisation has no agreement or configuration yet: set it in the partner console.');
  }
  if (!agreement.allowedFormulas.includes(configuration.formula) || agreement.currency !== configuration.currency) {
    throw new DomainError('partner_not_configured', 'Your configuration no longer matches your agreement: update it in the partner console.');
  }
  return { agreement, configuration };
}

interface QuoteTemplate {
  legs: Leg[];
  /** The signed part shared by every quote of this trip and terms (see prepareQuote). */
  prepared: string;
  view: Omit<Quote, 'quoteReference' | 'expiresAt'>;
}

/**
 * Everything in a quote but its id and times depends only on the trip and the partner's terms, and
 * the same trips are quoted again and again while customers search: the priced template is
 * memoised per (partner, environment, configuration version, tax rate, trip).
 */
const quoteTemplates = new Memo<QuoteTemplate>(20_000);

/**
 * POST /getPrice: prices the trip with the partner's current configuration and signs a quote.
 * Synchronous when the partner's terms are cached — the common case — so the hottest route of the
 * platform awaits nothing; a promise otherwise.
 */
export function issueQuote(deps: FlightDeps, caller: Caller, input: QuoteRequest): Quote | Promise<Quote> {
  const cached = deps.directory.cachedTerms(caller.partnerId);
  if (cached) return quoteWith(deps, caller, input, cached);
  return deps.directory.partnerTerms(caller.partnerId).then((terms) => quoteWith(deps, caller, input, terms));
}

function quoteWith(deps: FlightDeps, caller: Caller, input: QuoteRequest, terms: PartnerTerms): Quote {
  const { agreement, configuration } = configuredTerms(terms);
  const passengers = 1 + (input.additionalPassengers ?? 0);
  const key = `${caller.partnerId}|${caller.environment}|${configuration.id}|${agreement.taxRate}|${agreement.currency}|${deps.riskModel.version}|${input.departureAirport}|${input.arrivalAirport}|${input.airline}|${input.departureDateTime}|${input.returnDepartureDateTime ?? ''}|${passengers}`;
  const template = quoteTemplates.get(key, () => {
    const legs = resolveLegs(input);
    const coverage = coverageFor(configuration.formula, configuration.delayTiers, configuration.cancellationAmount);
    const premium = price(deps, legs, passengers, coverage, configuration.commissionRate, agreement.taxRate);
    const prepared = prepareQuote({
      partnerId: caller.partnerId,
      environment: caller.environment,
      configurationId: configuration.id,
      formula: configuration.formula,
      passengers,
      currency: agreement.currency,
      premium,
      legs: legs.map((l) => [l.departureAirport, l.arrivalAirport, l.airline, l.departureLocal]),
    });
    const view = {
      formula: configuration.formula,
      passengers,
      premium: premiumView(premium, agreement.currency),
      compensation: compensationView(coverage, agreement.currency),
      legs: legs.map(legView),
      configurationVersion: configuration.version,
    };
    return { legs, prepared, view };
  });
  const now = deps.now();
  checkDepartureWindows(template.legs, now);
  deps.limits?.checkQuote(caller.environment, agreement.currency, template.legs, passengers * maxPayoutPerPassenger(configuration));
  // Quotes of this trip issued within the same minute share one signature (see quote-token.ts):
  // issued at the minute, valid for the TTL from it, never beyond departure minus the margin.
  const minute = Math.floor(now.getTime() / 60_000) * 60_000;
  let signed = signedTerms.get(template);
  if (signed?.minute !== minute || signed.key !== deps.keys.quoteSigning) {
    const expiresAt = new Date(Math.min(minute + deps.quoteTtlMinutes * 60_000, template.legs[0]!.departureAt.getTime() - TIME_RULES.safetyMarginMinutes * 60_000));
    signed = { minute, key: deps.keys.quoteSigning, reference: signTerms(deps.keys.quoteSigning, template.prepared, new Date(minute), expiresAt), expiresAt: expiresAt.toISOString() };
    signedTerms.set(template, signed);
  }
  deps.quoteCounter?.count(caller.partnerId, caller.environment, now);
  return { quoteReference: quoteReference(signed.reference, newQuoteId()), expiresAt: signed.expiresAt, ...template.view };
}

/** The current minute's signed terms of each template (dropped with the template). */
const signedTerms = new WeakMap<QuoteTemplate, { minute: number; key: Buffer; reference: string; expiresAt: string }>();

export interface SimulationRequest extends QuoteRequest {
  formula: Formula;
  compensation: { delay?: { minDelayMinutes: number; amount: Money }[] | undefined; cancellation?: Money | null | undefined };
  commissionRate: number;
}

export interface Simulation {
  formula: Formula;
  passengers: number;
  premium: PremiumView;
  compensation: CompensationView;
  legs: LegView[];
}

/**
 * POST /getPrice/simulate: prices the trip with terms chosen by the caller, within the agreement's
 * bounds, with the same code as a real quote. No quote reference: a simulation cannot be subscribed.
 */
export async function simulatePrice(deps: FlightDeps, caller: Caller, input: SimulationRequest): Promise<Simulation> {
  const { agreement } = await deps.directory.partnerTerms(caller.partnerId);
  if (!agreement) throw new DomainError('partner_not_configured', 'Your organisation has no agreement with the insurer yet.');
  const tiers = input.compensation.delay ?? [];
  const currencies = [...tiers.map((t) => t.amount.currency), ...(input.compensation.cancellation ? [input.compensation.cancellation.currency] : [])];
  const wrongCurrency = currencies.findIndex((c) => c !== agreement.currency);
  if (wrongCurrency >= 0) {
    const message = `must be ${agreement.currency}, the currency of your agreement`;
    throw new DomainError('validation_failed', `Compensation amounts ${message}.`, { errors: [{ field: '/compensation', message }] });
  }
  const delayTiers = tiers.map((t) => ({ minDelayMinutes: t.minDelayMinutes, amount: t.amount.amount }));
  const cancellationAmount = input.compensation.cancellation?.amount ?? 0;
  const errors = checkTerms(
    agreement,
    { formula: input.formula, delayTiers, cancellationAmount, commissionRate: input.commissionRate },
    { formula: '/formula', commissionRate: '/commissionRate', delayTiers: '/compensation/delay', cancellationAmount: '/compensation/cancellation' },
  );
  if (errors.length) {
    const code = errors.some((e) => e.field === '/formula') ? 'formula_not_allowed' : 'configuration_out_of_bounds';
    throw new DomainError(code, 'These terms are outside what your agreement allows.', { errors });
  }
  const legs = resolveTrip(input, deps.now());
  const passengers = 1 + (input.additionalPassengers ?? 0);
  const coverage = coverageFor(input.formula, delayTiers, cancellationAmount);
  const premium = price(deps, legs, passengers, coverage, String(input.commissionRate), agreement.taxRate);
  return {
    formula: input.formula,
    passengers,
    premium: premiumView(premium, agreement.currency),
    compensation: compensationView(coverage, agreement.currency),
    legs: legs.map(legView),
  };
}
