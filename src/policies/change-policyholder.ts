import { encrypt } from '../platform/crypto.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { invalid } from './create-policy.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { policyView, todayOf, type Address, type CorrectionReason, type PolicyView } from './policy.ts';
import { auditPolicyChange, lockPolicy } from './policy-change.ts';
import { checkAddress, checkBirthDate, checkNames, checkPhone, normalEmail, trimAddress } from './policyholder.ts';

/** At least one of them (the schema says so); `reason` with, and only with, a name or the birth date. */
export interface PolicyholderChange {
  firstName?: string | undefined;
  lastName?: string | undefined;
  birthDate?: string | undefined;
  reason?: CorrectionReason | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  address?: Address | undefined;
}

/** The policyholder's identity: corrected only with a reason, its values sealed in the audit row. */
const IDENTITY = ['firstName', 'lastName', 'birthDate'] as const;
const CONTACT = ['email', 'phone', 'address'] as const;

/**
 * PATCH /policies/{policyNumber}/policyholder: the policyholder moved, or changed email or phone, or
 * a name or the birth date was recorded wrong. The fields given replace the stored ones (the address
 * as a whole); the others stay. A name or the birth date is corrected only with a `reason`, and the
 * audit row keeps the reason and names a `policy_corrections` row holding those fields before and
 * after, sealed like the policy's own in columns the master-key rotation re-seals (docs/DECISIONS.md,
 * "Correcting a policyholder's identity"); the contact fields are audited by name
 * only. Allowed while the policy is pending, active or expired (a claim may come after the end of
 * cover), not once it is cancelled: 409 policy_not_changeable.
 */
export async function changePolicyholder(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  change: PolicyholderChange,
): Promise<PolicyView> {
  const identity = IDENTITY.filter((f) => change[f] !== undefined);
  const errors: FieldError[] = [
    ...checkNames(change, ''),
    ...(identity.length && change.reason === undefined
      ? [{ field: '/reason', code: 'required' as const, message: 'is required to correct a name or the birth date' }]
      : []),
    ...(!identity.length && change.reason !== undefined
      ? [{ field: '/reason', code: 'not_allowed' as const, message: 'only applies to a name or the birth date' }]
      : []),
    ...(change.phone !== undefined ? checkPhone(change.phone, '/phone') : []),
    ...(change.address !== undefined ? checkAddress(change.address, '/address') : []),
  ];
  if (errors.length) throw invalid(errors);
  const policy = await lockPolicy(trx, caller, policyNumber);
  if (policy.status === 'cancelled')
    throw new DomainError(
      'policy_not_changeable',
      `Policy ${policy.policy_number} is cancelled from ${policy.cancellation_date}; its policyholder can no longer be changed.`,
    );
  const key = deps.keys.encryption;
  const now = deps.now();
  const today = todayOf(now);
  if (change.birthDate !== undefined) {
    const age = checkBirthDate(change.birthDate, policy.effective_date, today, '/birthDate');
    if (age.length) throw invalid(age);
  }
  const before = policyView(policy, key, today).policyholder;
  const after = {
    firstName: change.firstName?.trim(),
    lastName: change.lastName?.trim(),
    birthDate: change.birthDate,
  };
  const updated = await repo.updatePolicyholder(trx, policy.id, {
    ...(after.firstName !== undefined
      ? { holder_first_name_enc: encrypt(key, after.firstName), holder_first_name: null }
      : {}),
    ...(after.lastName !== undefined
      ? { holder_last_name_enc: encrypt(key, after.lastName), holder_last_name: null }
      : {}),
    ...(after.birthDate !== undefined ? { holder_birth_date_enc: encrypt(key, after.birthDate) } : {}),
    ...(change.email !== undefined ? { holder_email_enc: encrypt(key, normalEmail(change.email)) } : {}),
    ...(change.phone !== undefined ? { holder_phone_enc: encrypt(key, change.phone) } : {}),
    ...(change.address !== undefined
      ? { holder_address_enc: encrypt(key, JSON.stringify(trimAddress(change.address))) }
      : {}),
    updated_at: now,
  });
  const fields = [...identity, ...CONTACT.filter((f) => change[f] !== undefined)];
  const sealed = (values: Partial<Record<(typeof IDENTITY)[number], string>>) =>
    encrypt(key, JSON.stringify(Object.fromEntries(identity.map((f) => [f, values[f]]))));
  const correction =
    identity.length && change.reason !== undefined
      ? await repo.insertCorrection(trx, {
          policyId: policy.id,
          reason: change.reason,
          beforeEnc: sealed(before),
          afterEnc: sealed(after),
          at: now,
        })
      : undefined;
  await auditPolicyChange(trx, caller, policy, 'policyholder_changed', {
    fields,
    ...(correction ? { reason: change.reason, correction } : {}),
  });
  return policyView(updated, key, today);
}
