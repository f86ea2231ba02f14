import {
  checkTerms,
  coverageFor,
  type Agreement,
  type Configuration,
  type Coverage,
  type DocumentRef,
  type DocumentSet,
  type Formula,
  type Insurer,
  termsAt,
  type PartnerTerms,
} from '../partners/index.ts';
import { DomainError } from '../platform/errors.ts';
import { money, type Caller, type FlightDeps, type Money } from './deps.ts';
import { checkDepartureWindows, resolveLegs, resolveTrip, TIME_RULES, type Leg, type TripInput } from './legs.ts';
import { Memo } from '../platform/memo.ts';
import { quotesTotal } from '../platform/metrics.ts';
import { carrierOf, quotedFlightNumbers } from './flight-numbers.ts';
import { pricedLeg, termsKey, type LegBreakdownView, type PricingLeg } from './leg-pricing.ts';
import { policyPremium, type PremiumBreakdown } from './pricing.ts';
import { newQuoteId, prepareQuote, quoteReference, signTerms, type QuotedLeg } from './quote-token.ts';
import type { RiskModel } from './risk-model.ts';
import { maxPayoutPerPassenger } from '../limits/index.ts';

export interface QuoteRequest extends TripInput {
  additionalPassengers?: number | undefined;
  /** Outbound flight designator, when known: the model may price it more sharply; /subscribe must then name it. */
  flightNumber?: string | undefined;
  returnFlightNumber?: string | undefined;
  /** Codeshares: the flights operating flightNumber / returnFlightNumber; priced instead of them. */
  operatingFlightNumber?: string | undefined;
  returnOperatingFlightNumber?: string | undefined;
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

/** The pre-contract documents given with a quote: the customer consents to exactly this version at /subscribe. */
export interface DocumentsView {
  version: number;
  ipid: DocumentRef;
  terms: DocumentRef;
}

export const documentsView = (d: DocumentSet): DocumentsView => ({ version: d.version, ipid: d.ipid, terms: d.terms });

export interface Quote {
  quoteReference: string;
  expiresAt: string;
  formula: Formula;
  passengers: number;
  premium: PremiumView;
  compensation: CompensationView;
  legs: LegView[];
  configurationVersion: number;
  /** Version of the risk model the premium was priced with (signed in the quote, recorded on the contract). */
  modelVersion: string;
  /** Per leg, in the order of legs: event probabilities, explanations, expected loss, premium share. */
  breakdown: LegBreakdownView[];
  /** What the customer must receive before buying (IDD art. 20): signed in the quote by version. */
  documents: DocumentsView;
  /** The insurer's legal identity and complaints contact. */
  insurer: Insurer;
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

export const legView = (
  leg: Pick<Leg, 'departureAirport' | 'arrivalAirport' | 'airline' | 'departureLocal' | 'departureAt'>,
): LegView => ({
  departureAirport: leg.departureAirport,
  arrivalAirport: leg.arrivalAirport,
  airline: leg.airline,
  departureDateTime: leg.departureLocal,
  departureAt: leg.departureAt.toISOString(),
});

/**
 * Each leg's own net premium per passenger under the given terms: the weights that split a contract's
 * premium into leg shares at subscribe (shares.ts). Memoised like a quote's legs, so the legs just
 * quoted cost nothing; every weight 1 (equal shares) when the quote's model version is gone.
 */
export function legWeights(
  model: RiskModel | undefined,
  legs: PricingLeg[],
  terms: { coverage: Coverage; commissionRate: string; taxRate: string },
  currency: string,
): number[] {
  if (!model) return legs.map(() => 1);
  const key = termsKey(model, terms, currency);
  try {
    return legs.map((leg) => pricedLeg(model, key, leg, terms, currency).premium.net);
  } catch {
    // a leg the model can no longer price (e.g. a retired airport): the quote's total still binds
    return legs.map(() => 1);
  }
}

/** A leg of the trip and the flight number the request named for it, if any (and its operating flight). */
type QuotedTripLeg = Leg & { flightNumber?: string; operatingFlightNumber?: string };

/**
 * The leg as the risk model prices it: the flight that flies. A codeshare is priced as its operating
 * flight (the operating carrier's factors, its flight's history), a leg flying under its own number
 * as that number (docs/pricing.md).
 */
export function pricingLeg(leg: Leg, flightNumber?: string, operatingFlightNumber?: string): PricingLeg {
  if (operatingFlightNumber !== undefined)
    return { ...leg, airline: carrierOf(operatingFlightNumber), flightNumber: operatingFlightNumber };
  return flightNumber === undefined ? leg : { ...leg, flightNumber };
}

/**
 * Per-passenger leg premiums and their explanations are a pure function of the risk model version,
 * the terms and the leg, and the same flights are quoted over and over at search time: they are
 * memoised (leg-pricing.ts), so a repeated quote costs no decimal arithmetic and no string building.
 * Passengers and legs are then combined exactly as pricePolicy does.
 */
function price(
  model: RiskModel,
  legs: QuotedTripLeg[],
  passengers: number,
  coverage: Coverage,
  commissionRate: string,
  taxRate: string,
  currency: string,
): { premium: PremiumBreakdown; breakdown: LegBreakdownView[] } {
  const terms = { coverage, commissionRate, taxRate };
  const key = termsKey(model, terms, currency);
  const perLeg = legs.map((leg) =>
    pricedLeg(model, key, pricingLeg(leg, leg.flightNumber, leg.operatingFlightNumber), terms, currency),
  );
  return {
    premium: policyPremium(
      perLeg.map((l) => l.premium),
      passengers,
    ),
    breakdown: perLeg.map((l) => l.breakdown),
  };
}

/** The trip's legs with the flight numbers the request names (checked against the trip's airline). */
function withFlightNumbers(legs: Leg[], input: QuoteRequest): QuotedTripLeg[] {
  const numbers = quotedFlightNumbers(input, legs[0]!.airline);
  return legs.map((leg, i) => {
    const flight = numbers[i];
    if (flight === undefined) return leg;
    return flight.operatingFlightNumber === undefined
      ? { ...leg, flightNumber: flight.flightNumber }
      : { ...leg, flightNumber: flight.flightNumber, operatingFlightNumber: flight.operatingFlightNumber };
  });
}

/**
 * The partner's agreement version in force at `at`, current configuration and documents, or 409 when
 * one is missing or the configuration is outside that version (an amendment became effective since
 * it was saved): no quote is priced outside the agreement in force.
 */
export function configuredTerms(
  terms: PartnerTerms,
  at: Date,
): {
  agreement: Agreement;
  configuration: Configuration;
  documents: DocumentSet;
} {
  const { agreement, configuration, documents, violations } = termsAt(terms, at);
  if (!agreement || !configuration) {
    throw new DomainError(
      'partner_not_configured',
      'Your organisation has no agreement or configuration yet: set it in the partner console.',
    );
  }
  if (violations.length) {
    const since = agreement.effectiveAt ? ` in force since ${agreement.effectiveAt.toISOString()}` : '';
    throw new DomainError(
      'partner_not_configured',
      `Your configuration is outside your agreement (version ${agreement.version}${since}): update it in the partner console.`,
      { errors: violations },
    );
  }
  if (!documents) {
    // no sale without the insurance product information document (IDD 2016/97 art. 20)
    throw new DomainError(
      'partner_not_configured',
      'Your agreement has no pre-contract documents (product information document and terms) yet: ask the insurer.',
    );
  }
  return { agreement, configuration, documents };
}

interface QuoteTemplate {
  /** The trip's legs, each with the airline that flies it (limits and stop-sales check those). */
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
  const now = deps.now();
  const { agreement, configuration, documents } = configuredTerms(terms, now);
  // the version a contract records: 0 for an unsigned draft (sandbox quotes before the signature)
  const agreementVersion = agreement.status === 'signed' ? agreement.version : 0;
  const passengers = 1 + (input.additionalPassengers ?? 0);
  const model = deps.riskModels.active(caller.environment);
  const key = `${caller.partnerId}|${caller.environment}|${configuration.id}|${documents.version}|${agreementVersion}|${agreement.taxRate}|${agreement.currency}|${model.version}|${input.departureAirport}|${input.arrivalAirport}|${input.airline}|${input.departureDateTime}|${input.returnDepartureDateTime ?? ''}|${passengers}|${input.flightNumber ?? ''}|${input.returnFlightNumber ?? ''}|${input.operatingFlightNumber ?? ''}|${input.returnOperatingFlightNumber ?? ''}`;
  const template = quoteTemplates.get(key, () => {
    const legs = withFlightNumbers(resolveLegs(input), input);
    const coverage = coverageFor(configuration.formula, configuration.delayTiers, configuration.cancellationAmount);
    const { premium, breakdown } = price(
      model,
      legs,
      passengers,
      coverage,
      configuration.commissionRate,
      agreement.taxRate,
      agreement.currency,
    );
    const prepared = prepareQuote({
      partnerId: caller.partnerId,
      environment: caller.environment,
      configurationId: configuration.id,
      formula: configuration.formula,
      passengers,
      currency: agreement.currency,
      premium,
      legs: legs.map((l): QuotedLeg => {
        if (l.flightNumber === undefined) return [l.departureAirport, l.arrivalAirport, l.airline, l.departureLocal];
        const quoted: QuotedLeg = [l.departureAirport, l.arrivalAirport, l.airline, l.departureLocal, l.flightNumber];
        return l.operatingFlightNumber === undefined ? quoted : [...quoted, l.operatingFlightNumber];
      }),
      modelVersion: model.version,
      documentsVersion: documents.version,
      agreementVersion,
      // the legs' shares of the premium at subscribe are in proportion to these (shares.ts)
      legNets: breakdown.map((b) => b.premium.amount),
    });
    const view = {
      formula: configuration.formula,
      passengers,
      premium: premiumView(premium, agreement.currency),
      compensation: compensationView(coverage, agreement.currency),
      legs: legs.map(legView),
      configurationVersion: configuration.version,
      modelVersion: model.version,
      breakdown,
      documents: documentsView(documents),
      insurer: documents.insurer,
    };
    // the limits count on the airline that flies (a codeshare's operating carrier: docs/limits.md)
    const flown = legs.map((l) =>
      l.operatingFlightNumber ? { ...l, airline: carrierOf(l.operatingFlightNumber) } : l,
    );
    return { legs: flown, prepared, view };
  });
  checkDepartureWindows(template.legs, now);
  deps.limits?.checkQuote(
    caller.environment,
    agreement.currency,
    template.legs,
    passengers * maxPayoutPerPassenger(configuration),
  );
  // Quotes of this trip issued within the same minute share one signature (see quote-token.ts):
  // issued at the minute, valid for the TTL from it, never beyond departure minus the margin.
  const minute = Math.floor(now.getTime() / 60_000) * 60_000;
  let signed = signedTerms.get(template);
  if (signed?.minute !== minute || signed.key !== deps.keys.quoteSigning) {
    const expiresAt = new Date(
      Math.min(
        minute + deps.quoteTtlMinutes * 60_000,
        template.legs[0]!.departureAt.getTime() - TIME_RULES.safetyMarginMinutes * 60_000,
      ),
    );
    signed = {
      minute,
      key: deps.keys.quoteSigning,
      reference: signTerms(deps.keys.quoteSigning, template.prepared, new Date(minute), expiresAt),
      expiresAt: expiresAt.toISOString(),
    };
    signedTerms.set(template, signed);
  }
  deps.quoteCounter?.count(caller.partnerId, caller.environment, now);
  quotesTotal.inc({ api: 'flight', environment: caller.environment });
  return {
    quoteReference: quoteReference(signed.reference, newQuoteId()),
    expiresAt: signed.expiresAt,
    ...template.view,
  };
}

/** The current minute's signed terms of each template (dropped with the template). */
const signedTerms = new WeakMap<QuoteTemplate, { minute: number; key: Buffer; reference: string; expiresAt: string }>();

export interface SimulationRequest extends QuoteRequest {
  formula: Formula;
  compensation: {
    delay?: { minDelayMinutes: number; amount: Money }[] | undefined;
    cancellation?: Money | null | undefined;
  };
  commissionRate: number;
}

export interface Simulation {
  formula: Formula;
  passengers: number;
  premium: PremiumView;
  compensation: CompensationView;
  legs: LegView[];
  modelVersion: string;
  breakdown: LegBreakdownView[];
}

/**
 * POST /getPrice/simulate: prices the trip with terms chosen by the caller, within the agreement's
 * bounds, with the same code as a real quote. No quote reference: a simulation cannot be subscribed.
 */
export async function simulatePrice(deps: FlightDeps, caller: Caller, input: SimulationRequest): Promise<Simulation> {
  const { agreement } = termsAt(await deps.directory.partnerTerms(caller.partnerId), deps.now());
  if (!agreement)
    throw new DomainError('partner_not_configured', 'Your organisation has no agreement with the insurer yet.');
  const tiers = input.compensation.delay ?? [];
  const currencies = [
    ...tiers.map((t) => t.amount.currency),
    ...(input.compensation.cancellation ? [input.compensation.cancellation.currency] : []),
  ];
  const wrongCurrency = currencies.findIndex((c) => c !== agreement.currency);
  if (wrongCurrency >= 0) {
    const message = `must be ${agreement.currency}, the currency of your agreement`;
    throw new DomainError('validation_failed', `Compensation amounts ${message}.`, {
      errors: [{ field: '/compensation', code: 'not_allowed', message }],
    });
  }
  const delayTiers = tiers.map((t) => ({ minDelayMinutes: t.minDelayMinutes, amount: t.amount.amount }));
  const cancellationAmount = input.compensation.cancellation?.amount ?? 0;
  const errors = checkTerms(
    agreement,
    { formula: input.formula, delayTiers, cancellationAmount, commissionRate: input.commissionRate },
    {
      formula: '/formula',
      commissionRate: '/commissionRate',
      delayTiers: '/compensation/delay',
      cancellationAmount: '/compensation/cancellation',
    },
  );
  if (errors.length) {
    const code = errors.some((e) => e.field === '/formula') ? 'formula_not_allowed' : 'configuration_out_of_bounds';
    throw new DomainError(code, 'These terms are outside what your agreement allows.', { errors });
  }
  const legs = withFlightNumbers(resolveTrip(input, deps.now()), input);
  const passengers = 1 + (input.additionalPassengers ?? 0);
  const coverage = coverageFor(input.formula, delayTiers, cancellationAmount);
  const model = deps.riskModels.active(caller.environment);
  const { premium, breakdown } = price(
    model,
    legs,
    passengers,
    coverage,
    String(input.commissionRate),
    agreement.taxRate,
    agreement.currency,
  );
  return {
    formula: input.formula,
    passengers,
    premium: premiumView(premium, agreement.currency),
    compensation: compensationView(coverage, agreement.currency),
    legs: legs.map(legView),
    modelVersion: model.version,
    breakdown,
  };
}
