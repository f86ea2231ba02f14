import { encrypt } from '../platform/crypto.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { invalid } from './create-policy.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { policyholderOf, todayOf, type Address, type CorrectionReason, type PolicyView } from './policy.ts';
import { answerPolicy } from './policy-answer.ts';
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
 *
 * A correction of a name or the birth date corrects the person's record: it reaches the policy's
 * renewals too, term after term up to the first cancelled one, each locked after the term it renews
 * (the order of renew and cancel), each with its own sealed correction and audit row naming the
 * policy corrected (`withPolicy`), in the same transaction; a renewal holding another value than the
 * policy held before keeps it (correctRenewals). It never flows back to the term a renewal renews:
 * that term stays as it was insured (docs/DECISIONS.md, "A correction reaches the renewals").
 *
 * A name or the birth date given with the value the policy holds is no correction (a retry without
 * Idempotency-Key): no correction row, not audited, not carried; with no contact field given either,
 * nothing is written. The contact fields given are written and audited as given.
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
  const before = policyholderOf(policy, key);
  const after: Identity = {
    firstName: change.firstName?.trim(),
    lastName: change.lastName?.trim(),
    birthDate: change.birthDate,
  };
  // a field given with the value it holds is no correction (a retry without Idempotency-Key): no empty correction
  const corrected = identity.filter((f) => after[f] !== before[f]);
  const contact = CONTACT.filter((f) => change[f] !== undefined);
  const fields = [...corrected, ...contact];
  if (!fields.length) return answerPolicy(deps, trx, policy, today);
  const updated = await repo.updatePolicyholder(trx, policy.id, {
    ...(corrected.includes('firstName')
      ? { holder_first_name_enc: encrypt(key, after.firstName!), holder_first_name: null }
      : {}),
    ...(corrected.includes('lastName')
      ? { holder_last_name_enc: encrypt(key, after.lastName!), holder_last_name: null }
      : {}),
    ...(corrected.includes('birthDate') ? { holder_birth_date_enc: encrypt(key, after.birthDate!) } : {}),
    ...(change.email !== undefined ? { holder_email_enc: encrypt(key, normalEmail(change.email)) } : {}),
    ...(change.phone !== undefined ? { holder_phone_enc: encrypt(key, change.phone) } : {}),
    ...(change.address !== undefined
      ? { holder_address_enc: encrypt(key, JSON.stringify(trimAddress(change.address))) }
      : {}),
    updated_at: now,
  });
  const correction =
    corrected.length && change.reason !== undefined
      ? await repo.insertCorrection(trx, {
          policyId: policy.id,
          reason: change.reason,
          beforeEnc: sealed(key, corrected, before),
          afterEnc: sealed(key, corrected, after),
          at: now,
        })
      : undefined;
  const renewals =
    correction && change.reason !== undefined
      ? await correctRenewals(deps, trx, caller, updated, { fields: corrected, before, after, reason: change.reason })
      : [];
  await auditPolicyChange(trx, caller, policy, 'policyholder_changed', {
    fields,
    ...(correction ? { reason: change.reason, correction } : {}),
    ...(renewals.length ? { renewalsCorrected: renewals } : {}),
  });
  return answerPolicy(deps, trx, updated, today);
}

type Identity = Partial<Record<(typeof IDENTITY)[number], string>>;

/** The identity fields corrected, with their values, as one sealed JSON (a side of a `policy_corrections` row). */
const sealed = (key: PolicyDeps['keys']['encryption'], fields: readonly (keyof Identity)[], values: Identity) =>
  encrypt(key, JSON.stringify(Object.fromEntries(fields.map((f) => [f, values[f]]))));

/**
 * Carries a correction of the policyholder's identity to the renewals of the policy corrected, term
 * after term, up to the first cancelled one (its own renewals were cancelled with it); the numbers of
 * those corrected. A field is carried to a renewal only where it still holds the value the policy
 * corrected held before (`before`, which it copied): a renewal holding another value keeps it (it was
 * corrected on its own, to the same value or another), and the field is carried no further, its
 * renewals having copied that value. Each renewal is locked before it is read, after the term it
 * renews (the lock order of renew and cancel): a renewal committed while the correction waited for the
 * policy's lock is found and corrected. A birth date carried to a renewal that no longer passes on its
 * effective date (120 or older) is a 422 naming the renewal (`policyNumber`): nothing is corrected.
 */
async function correctRenewals(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policy: repo.PolicyRow,
  correction: { fields: readonly (keyof Identity)[]; before: Identity; after: Identity; reason: CorrectionReason },
): Promise<string[]> {
  const key = deps.keys.encryption;
  const now = deps.now();
  const today = todayOf(now);
  const { before, after, reason } = correction;
  let carried = [...correction.fields];
  const corrected: string[] = [];
  for (let next = policy.renewed_by_policy_number; next && carried.length;) {
    const renewal = await repo.findPolicy(trx, caller, next, { forUpdate: true });
    if (!renewal || renewal.status === 'cancelled') break;
    next = renewal.renewed_by_policy_number;
    const current = policyholderOf(renewal, key);
    carried = carried.filter((f) => current[f] === before[f]);
    if (!carried.length) break;
    if (carried.includes('birthDate')) {
      const age = checkBirthDate(after.birthDate!, renewal.effective_date, today, '/birthDate');
      if (age.length)
        throw invalid(
          age.map((e) => ({
            ...e,
            message: `${e.message} of ${renewal.policy_number}, a renewal of this policy corrected with it`,
          })),
          { policyNumber: renewal.policy_number },
        );
    }
    await repo.updatePolicyholder(trx, renewal.id, {
      ...(carried.includes('firstName')
        ? { holder_first_name_enc: encrypt(key, after.firstName!), holder_first_name: null }
        : {}),
      ...(carried.includes('lastName')
        ? { holder_last_name_enc: encrypt(key, after.lastName!), holder_last_name: null }
        : {}),
      ...(carried.includes('birthDate') ? { holder_birth_date_enc: encrypt(key, after.birthDate!) } : {}),
      updated_at: now,
    });
    const id = await repo.insertCorrection(trx, {
      policyId: renewal.id,
      reason,
      beforeEnc: sealed(key, carried, current),
      afterEnc: sealed(key, carried, after),
      at: now,
    });
    await auditPolicyChange(trx, caller, renewal, 'policyholder_changed', {
      fields: carried,
      reason,
      correction: id,
      withPolicy: policy.policy_number,
    });
    corrected.push(renewal.policy_number);
  }
  return corrected;
}
