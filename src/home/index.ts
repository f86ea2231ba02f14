/** The home domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export {
  homeRiskView,
  resolveHomeRisk,
  type HomeRiskView,
  riskDifferences,
  type HomeRisk,
  type HomeRiskInput,
  storedHomeRiskErrors,
  storedHomeRiskFindings,
} from './home-risk.ts';
export { verifyHomeQuote, type HomeQuoteTerms } from './quote-token.ts';
export { DEMO_PREFIX, demoRoutes } from './routes.ts';
export { HomeRisk as HomeRiskSchema, exampleHome } from './schemas.ts';
export { EXAMPLE_HOME_QUOTE_REFERENCE } from './response-examples.ts';
