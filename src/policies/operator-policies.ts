import { auditTrail, type AuditRow } from '../platform/audit.ts';
import type { PolicyDeps } from './deps.ts';
import { findPolicyByNumber, type Scope } from './policies-repo.ts';
import { todayOf, type PolicyView } from './policy.ts';
import { answerPolicy } from './policy-answer.ts';
import { canonicalPolicyNumber } from './policy-number.ts';
import { searchPolicies, type PolicyQuery } from './search-policies.ts';

/** What the insurer's operators read of the policies partners record (`parasol policies`, docs/OPERATOR.md). */

/** A policy in a list: no personal data. */
export interface PolicySummary {
  policyNumber: string;
  externalReference: string;
  product: PolicyView['product'];
  status: PolicyView['status'];
  effectiveDate: string;
  expiryDate: string;
  premium: PolicyView['premium'];
  /** The previous term's policy number, and the next term's with its status (as in the partner's view). */
  renews: string | null;
  renewedBy: string | null;
  renewedByStatus: PolicyView['renewedByStatus'];
  createdAt: string;
}

const summaryOf = (p: PolicyView): PolicySummary => ({
  policyNumber: p.policyNumber,
  externalReference: p.externalReference,
  product: p.product,
  status: p.status,
  effectiveDate: p.effectiveDate,
  expiryDate: p.expiryDate,
  premium: p.premium,
  renews: p.renews,
  renewedBy: p.renewedBy,
  renewedByStatus: p.renewedByStatus,
  createdAt: p.createdAt,
});

/** A partner's policies of one environment, as the partner's own search reads them (filters, pages). */
export async function listPartnerPolicies(
  deps: PolicyDeps,
  scope: Scope,
  query: PolicyQuery,
): Promise<{ policies: PolicySummary[]; nextCursor: string | null }> {
  const page = await searchPolicies(deps, scope, query);
  return { policies: page.policies.map(summaryOf), nextCursor: page.nextCursor };
}

/** One policy by its number, whoever recorded it, with its history (the audit rows, newest first). */
export async function findPolicyForOperator(
  deps: PolicyDeps,
  policyNumber: string,
): Promise<
  { partnerId: string; environment: Scope['environment']; policy: PolicyView; audit: AuditRow[] } | undefined
> {
  const row = await findPolicyByNumber(deps.db, canonicalPolicyNumber(policyNumber));
  if (!row) return undefined;
  const audit = await auditTrail(deps.db, [{ entity: 'policy', ids: [row.policy_number] }]);
  return {
    partnerId: row.partner_id,
    environment: row.environment,
    policy: await answerPolicy(deps, deps.db, row, todayOf(deps.now())),
    audit,
  };
}
