import { encrypt } from '../platform/crypto.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { policyView, todayOf, type Address, type PolicyView } from './policy.ts';
import { auditPolicyChange, lockPolicy } from './policy-change.ts';
import { checkAddress, checkPhone, normalEmail, trimAddress } from './policyholder.ts';

/** At least one of them (the schema says so). */
export interface PolicyholderChange {
  email?: string | undefined;
  phone?: string | undefined;
  address?: Address | undefined;
}

/**
 * PATCH /policies/{policyNumber}/policyholder: the policyholder moved, or changed email or phone.
 * The fields given replace the stored ones (the address as a whole); the others stay. Allowed while
 * the policy is pending, active or expired (a claim may come after the end of cover), not once it is
 * cancelled: 409 policy_not_changeable. Audited with the names of the fields changed, never their values.
 */
export async function changePolicyholder(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  change: PolicyholderChange,
): Promise<PolicyView> {
  const errors = [
    ...(change.phone !== undefined ? checkPhone(change.phone, '/phone') : []),
    ...(change.address !== undefined ? checkAddress(change.address, '/address') : []),
  ];
  if (errors.length)
    throw new DomainError(
      'validation_failed',
      errors.length === 1 ? `${errors[0]!.field} ${errors[0]!.message}.` : `${errors.length} fields are invalid.`,
      { errors },
    );
  const policy = await lockPolicy(trx, caller, policyNumber);
  if (policy.status === 'cancelled')
    throw new DomainError(
      'policy_not_changeable',
      `Policy ${policy.policy_number} is cancelled from ${policy.cancellation_date}; its policyholder can no longer be changed.`,
    );
  const key = deps.keys.encryption;
  const now = deps.now();
  const fields = (['email', 'phone', 'address'] as const).filter((f) => change[f] !== undefined);
  const updated = await repo.updatePolicyholder(trx, policy.id, {
    ...(change.email !== undefined ? { holder_email_enc: encrypt(key, normalEmail(change.email)) } : {}),
    ...(change.phone !== undefined ? { holder_phone_enc: encrypt(key, change.phone) } : {}),
    ...(change.address !== undefined
      ? { holder_address_enc: encrypt(key, JSON.stringify(trimAddress(change.address))) }
      : {}),
    updated_at: now,
  });
  await auditPolicyChange(trx, caller, policy, 'policyholder_changed', { fields });
  return policyView(updated, key, todayOf(now));
}
