import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { statusOn, todayOf, type ActivationReason, type PolicyView } from './policy.ts';
import { answerPolicy } from './policy-answer.ts';
import { auditPolicyChange, lockPolicy, type ExpectedVersions } from './policy-change.ts';

export interface ActivatePolicyInput {
  /** What the partner's system was waiting for. */
  reason: ActivationReason;
}

/**
 * POST /policies/{policyNumber}/activate: puts a pending policy in force, until its expiry date as
 * recorded, from its effective date — or from the day of activation when that date is past: no cover
 * is given for days already gone while the policy was not in force (docs/DECISIONS.md, "Late
 * activation"); the audit row keeps the effective date recorded. Activating an active policy answers
 * it unchanged (a retry, or a policy created active); a cancelled policy, or one past its expiry
 * date, is a 409 policy_not_activatable. A pending policy whose cancellation is scheduled is activated
 * until that date (its cancellation stands).
 */
export async function activatePolicy(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  input: ActivatePolicyInput,
  expected?: ExpectedVersions,
): Promise<PolicyView> {
  const policy = await lockPolicy(trx, caller, policyNumber, expected);
  const now = deps.now();
  const today = todayOf(now);
  const status = statusOn(policy, today);
  if (status === 'active') return answerPolicy(deps, trx, policy, today);
  if (status === 'cancelled') {
    throw new DomainError(
      'policy_not_activatable',
      `Policy ${policy.policy_number} is cancelled from ${policy.cancellation_date}; record a new policy instead.`,
    );
  }
  if (status === 'expired') {
    throw new DomainError(
      'policy_not_activatable',
      `Policy ${policy.policy_number} expired on ${policy.expiry_date} without being activated.`,
    );
  }
  const coverFrom = policy.effective_date < today ? today : policy.effective_date;
  const active = await repo.markActive(trx, policy.id, coverFrom, now);
  await auditPolicyChange(
    trx,
    caller,
    policy,
    'activated',
    {
      reason: input.reason,
      previousStatus: policy.status,
      effectiveDate: coverFrom,
      ...(coverFrom !== policy.effective_date ? { recordedEffectiveDate: policy.effective_date } : {}),
    },
    now,
  );
  return answerPolicy(deps, trx, active, today);
}
