/** The policies domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export { POLICY_ADMIN_PREFIX, policyAdminRoutes } from './routes.ts';
export { findPolicyForOperator, listPartnerPolicies, type PolicySummary } from './operator-policies.ts';
export { POLICY_STATUSES, PRODUCTS, type PolicyView } from './policy.ts';
export type { PolicyDeps } from './deps.ts';
