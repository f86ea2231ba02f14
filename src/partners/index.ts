/** The partners domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export {
  agreementAt,
  agreementChanges,
  amendAgreement,
  futureViolations,
  parseEffective,
  type AgreementChange,
  type Amendment,
  type AmendmentInput,
  type FutureViolation,
} from './amendments.ts';
export { createApiKey, MAX_LABEL_LENGTH, parseEnvironment, revokeApiKey } from './api-keys.ts';
export { BRAND_NAME, checkBrandName, setBrandName } from './brand.ts';
export {
  setConfiguration,
  type ConfigurationInput,
  type ConfigurationSave,
  type SavedConfiguration,
} from './configuration.ts';
export {
  FORMULAS,
  MAX_POLICY_PASSENGERS,
  coverageFor,
  coversCancellation,
  coversDelay,
  type Coverage,
  type DelayTier,
  type Formula,
} from './coverage.ts';
export { PartnerDirectory, termsAt, type PartnerTerms, type TermsInForce } from './directory.ts';
export { checkDocuments, insurerOfPlatform, setDocuments } from './documents.ts';
export {
  APIS,
  ENVIRONMENTS,
  USER_ROLES,
  type UserRole,
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
  findOriginalAgreement,
  listAgreementVersions,
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
  agreementRevision,
  agreementTermsFrom,
  type AgreementText,
  createPartner,
  type AgreementInput,
  parseApiName,
  requirePartner,
  setAgreement,
  setSubscription,
  signAgreement,
} from './partners.ts';
export { seedDemo, type SeedResult } from './seed.ts';
export { TIER_LIMITS, checkTerms } from './terms.ts';
export { can, parseRole, requirePermission, type Permission } from './roles.ts';
export {
  createUser,
  inviteUser,
  resendInvitation,
  type CountInvitation,
  sendPasswordReset,
  listUsers,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  peekPasswordLink,
  recordUserSignIn,
  removeUser,
  requestPasswordReset,
  requireActingUser,
  setUserRole,
  USER_LINKS,
  usePasswordLink,
  type ActingUser,
  type UserCaller,
  type UserDeps,
  type PasswordResetJob,
  type UserRow,
} from './users.ts';
