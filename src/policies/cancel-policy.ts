import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { policyView, statusOn, todayOf, type CancelReason, type PolicyView } from './policy.ts';
import { auditPolicyChange, lockPolicy } from './policy-change.ts';

export interface CancelPolicyInput {
  reason: CancelReason;
  /** First day no longer covered. */
  effectiveDate: string;
}

/**
 * POST /policies/{policyNumber}/cancel: ends a pending or active policy from a date between its
 * effective date (cancelled from inception) and the day before its expiry. Cancelling again with the
 * same reason and date returns the same result; another reason or date is a 409, as is an expired policy.
 */
export async function cancelPolicy(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  input: CancelPolicyInput,
): Promise<PolicyView> {
  const policy = await lockPolicy(trx, caller, policyNumber);
  const now = deps.now();
  const today = todayOf(now);
  if (policy.status === 'cancelled') {
    if (policy.cancel_reason === input.reason && policy.cancellation_date === input.effectiveDate)
      return policyView(policy, deps.keys.encryption, today);
    throw new DomainError(
      'policy_not_cancellable',
      `Policy ${policy.policy_number} is already cancelled from ${policy.cancellation_date} (${policy.cancel_reason}).`,
    );
  }
  if (statusOn(policy, today) === 'expired') {
    throw new DomainError(
      'policy_not_cancellable',
      `Policy ${policy.policy_number} expired on ${policy.expiry_date}; it can no longer be cancelled.`,
    );
  }
  if (input.effectiveDate < policy.effective_date || input.effectiveDate >= policy.expiry_date) {
    const message = `must be from ${policy.effective_date} to the day before ${policy.expiry_date}`;
    throw new DomainError('validation_failed', `The cancellation date ${message}.`, {
      errors: [{ field: '/effectiveDate', code: 'out_of_range', message }],
    });
  }
  const cancelled = await repo.markCancelled(trx, policy.id, {
    reason: input.reason,
    date: input.effectiveDate,
    at: now,
  });
  await auditPolicyChange(trx, caller, policy, 'cancelled', {
    reason: input.reason,
    effectiveDate: input.effectiveDate,
    previousStatus: policy.status,
  });
  return policyView(cancelled, deps.keys.encryption, today);
}
