/** The flight domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export { type FlightDeps } from './deps.ts';
export { claimView, listPartnerClaims, type ClaimView } from './list-claims.ts';
export { simulatePrice, type Simulation } from './price-quote.ts';
export { explanationText, explanationTextOf, type ExplanationWriting } from './leg-pricing.ts';
export { PRICING, priceLeg, type PricingTerms } from './pricing.ts';
export { QuoteCounter } from './quote-counter.ts';
export { newQuoteId } from './quote-token.ts';
export {
  RISK_TABLE_V1,
  greatCircleKm,
  haulOf,
  parseLocalDeparture,
  riskModelV1,
  singleModelSource,
  type EventExplanation,
  type LegFacts,
  type LegProbabilities,
  type RiskEvent,
  type RiskFactor,
  type RiskModel,
  type RiskModelSource,
} from './risk-model.ts';
export { FLIGHT_PREFIX, flightDelayRoutes } from './routes.ts';
export { GETTING_STARTED_EXAMPLES } from './schemas.ts';
export { findContract, findLegs, findVersions } from './contracts-repo.ts';
export { openBookingReference } from './booking-reference.ts';
export { versionView, type ContractVersionView } from './contract-versions.ts';
export { TIME_RULES } from './legs.ts';
