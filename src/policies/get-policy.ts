import { DomainError } from '../platform/errors.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import { findPolicy } from './policies-repo.ts';
import { policyView, todayOf, type PolicyView } from './policy.ts';
import { canonicalPolicyNumber } from './policy-number.ts';

/** GET /policies/{policyNumber}: one of the caller's policies; anyone else's is not found. */
export async function getPolicy(deps: PolicyDeps, caller: Caller, policyNumber: string): Promise<PolicyView> {
  const row = await findPolicy(deps.db, caller, canonicalPolicyNumber(policyNumber));
  if (!row) throw new DomainError('policy_not_found', `No policy ${policyNumber}.`);
  return policyView(row, deps.keys.encryption, todayOf(deps.now()));
}
