/** The policies domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export { POLICY_ADMIN_PREFIX, policyAdminRoutes } from './routes.ts';
