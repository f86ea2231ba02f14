import { DomainError } from '../platform/errors.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import { findPolicy } from './policies-repo.ts';
import { todayOf, type PolicyView } from './policy.ts';
import { answerPolicy } from './policy-answer.ts';
import { canonicalPolicyNumber } from './policy-number.ts';

/** GET /policies/{policyNumber}: one of the caller's policies; anyone else's is not found. */
export async function getPolicy(deps: PolicyDeps, caller: Caller, policyNumber: string): Promise<PolicyView> {
  const row = await findPolicy(deps.db, caller, canonicalPolicyNumber(policyNumber));
  if (!row) throw new DomainError('policy_not_found', `No policy ${policyNumber}.`);
  return answerPolicy(deps, deps.db, row, todayOf(deps.now()));
}
