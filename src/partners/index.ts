/** The partners domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export { createApiKey, revokeApiKey } from './api-keys.ts';
export { BRAND_NAME, checkBrandName, setBrandName } from './brand.ts';
export { setConfiguration, type ConfigurationInput } from './configuration.ts';
export {
  FORMULAS,
  coverageFor,
  coversCancellation,
  coversDelay,
  type Coverage,
  type DelayTier,
  type Formula,
} from './coverage.ts';
export { PartnerDirectory, type PartnerTerms } from './directory.ts';
export { checkDocuments, setDocuments } from './documents.ts';
export {
  APIS,
  ENVIRONMENTS,
  type Agreement,
  type ApiKeyInfo,
  type ApiName,
  type Configuration,
  type DocumentRef,
  type DocumentSet,
  type DocumentSetInput,
  type Environment,
  type Insurer,
  type Partner,
} from './model.ts';
// Read queries other domains' pages and commands show (the repository file itself stays private).
export {
  findAgreement,
  findPartner,
  findConfigurationById,
  findCurrentConfiguration,
  findDocuments,
  listDocuments,
  listApiKeys,
  listConfigurations,
  listPartners,
  listSubscriptions,
} from './partners-repo.ts';
export {
  createPartner,
  parseApiName,
  requirePartner,
  setAgreement,
  setSubscription,
  signAgreement,
} from './partners.ts';
export { seedDemo, type SeedResult } from './seed.ts';
export { TIER_LIMITS, checkTerms } from './terms.ts';
export { createUser } from './users.ts';
