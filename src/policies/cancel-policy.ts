import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { statusOn, todayOf, type CancelReason, type PolicyView } from './policy.ts';
import { answerPolicy } from './policy-answer.ts';
import { auditPolicyChange, lockPolicy, type ExpectedVersions } from './policy-change.ts';
import { canonicalPolicyNumber } from './policy-number.ts';

export interface CancelPolicyInput {
  reason: CancelReason;
  /** First day no longer covered. */
  effectiveDate: string;
}

/**
 * POST /policies/{policyNumber}/cancel: ends a pending or active policy from a date between its
 * effective date (cancelled from inception) and the day before its expiry. From today or a past day,
 * or from its inception, it is cancelled at once; from a later day the cancellation is scheduled: the
 * policy stays pending or active, changes allowed, until that day, from which it reads cancelled
 * (statusOn). Cancelling again with the same reason and date returns the same result. A scheduled
 * cancellation is moved earlier by cancelling again from an earlier day (with that call's reason; at
 * once when that day is today, past or the inception), audited with what it replaces (`movedFrom`);
 * another reason for the same date, a later date, or a policy cancelled already is a 409, as is an
 * expired policy. A scheduled cancellation is never withdrawn: renewals cancelled with it stay so.
 * A policy's renewal (and the renewal's, term after term) has not started while the policy runs: it
 * is cancelled with it, from its inception, for the same reason, audited on each. A renewal cancelled
 * from its inception releases the policy it renews, which can be renewed again (docs/DECISIONS.md,
 * "Cancelling a renewed policy").
 */
export async function cancelPolicy(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  input: CancelPolicyInput,
  expected?: ExpectedVersions,
): Promise<PolicyView> {
  // the term renewed is locked before its renewal, as a renewal and a cascade lock them
  const renews = (await repo.findPolicy(trx, caller, canonicalPolicyNumber(policyNumber)))?.renews_policy_number;
  const previous = renews ? await repo.findPolicy(trx, caller, renews, { forUpdate: true }) : undefined;
  const policy = await lockPolicy(trx, caller, policyNumber, expected);
  const now = deps.now();
  const today = todayOf(now);
  // cancelled, or a cancellation scheduled: the same again is a retry; a scheduled one moves earlier
  const movedFrom =
    policy.cancellation_date !== null
      ? { effectiveDate: policy.cancellation_date, reason: policy.cancel_reason }
      : undefined;
  if (movedFrom) {
    if (movedFrom.reason === input.reason && movedFrom.effectiveDate === input.effectiveDate)
      return answerPolicy(deps, trx, policy, today);
    const scheduled = statusOn(policy, today) !== 'cancelled';
    if (!scheduled || input.effectiveDate >= movedFrom.effectiveDate)
      throw new DomainError(
        'policy_not_cancellable',
        scheduled
          ? `Policy ${policy.policy_number} is to be cancelled from ${movedFrom.effectiveDate} (${movedFrom.reason}); a scheduled cancellation can only be moved earlier.`
          : `Policy ${policy.policy_number} is already cancelled from ${movedFrom.effectiveDate} (${movedFrom.reason}).`,
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
  // from a day to come, the policy stays in force until then; from its inception, it never was
  const atOnce = input.effectiveDate <= today || input.effectiveDate === policy.effective_date;
  const cancelled = await repo.markCancelled(trx, policy.id, {
    reason: input.reason,
    date: input.effectiveDate,
    at: now,
    atOnce,
  });
  const renewals = await cancelRenewals(trx, caller, policy, input.reason, now);
  await auditPolicyChange(
    trx,
    caller,
    policy,
    'cancelled',
    {
      reason: input.reason,
      effectiveDate: input.effectiveDate,
      previousStatus: policy.status,
      ...(atOnce ? {} : { scheduled: true }),
      ...(movedFrom ? { movedFrom } : {}),
      ...(renewals.length ? { renewalsCancelled: renewals } : {}),
    },
    now,
  );
  if (
    previous &&
    input.effectiveDate === policy.effective_date &&
    previous.renewed_by_policy_number === policy.policy_number
  ) {
    await repo.releaseRenewal(trx, previous.id, policy.policy_number, now);
    await auditPolicyChange(trx, caller, previous, 'renewal_cancelled', { renewal: policy.policy_number }, now);
  }
  return answerPolicy(deps, trx, cancelled, today);
}

/** Cancels from inception the renewals of a policy being cancelled, term after term; their numbers. */
async function cancelRenewals(
  trx: Trx,
  caller: Caller,
  policy: repo.PolicyRow,
  reason: CancelReason,
  now: Date,
): Promise<string[]> {
  const cancelled: string[] = [];
  for (let next = policy.renewed_by_policy_number; next;) {
    const renewal = await repo.findPolicy(trx, caller, next, { forUpdate: true });
    if (!renewal) break;
    // not started while the policy runs: cancelled from its inception at once (a cancellation it had scheduled replaced)
    if (renewal.status !== 'cancelled') {
      await repo.markCancelled(trx, renewal.id, { reason, date: renewal.effective_date, at: now, atOnce: true });
      await auditPolicyChange(
        trx,
        caller,
        renewal,
        'cancelled',
        {
          reason,
          effectiveDate: renewal.effective_date,
          previousStatus: renewal.status,
          withPolicy: policy.policy_number,
        },
        now,
      );
      cancelled.push(renewal.policy_number);
    }
    next = renewal.renewed_by_policy_number;
  }
  return cancelled;
}
