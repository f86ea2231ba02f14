import { encrypt } from '../platform/crypto.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { invalid } from './create-policy.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { policyholderOf, statusOn, todayOf, type Address, type CorrectionReason, type PolicyView } from './policy.ts';
import { answerPolicy } from './policy-answer.ts';
import { auditPolicyChange, lockPolicy, type ExpectedVersions } from './policy-change.ts';
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
 * cover) — and until the date of a cancellation scheduled —, not once it is cancelled: 409 policy_not_changeable.
 *
 * A correction of a name or the birth date corrects the person's record, and a new email, phone or
 * address is where the same person is now reached: either reaches the policy's renewals too, term
 * after term up to the first cancelled one, each locked after the term it renews (the order of renew
 * and cancel), each with its own audit row naming the policy changed (`withPolicy`) — and for a
 * correction its own sealed correction — in the same transaction; a renewal holding another value
 * than the policy held before keeps it (carryToRenewals). It never flows back to the term a renewal
 * renews: that term stays as it was insured (docs/DECISIONS.md, "A correction reaches the renewals",
 * "A renewal carries the current policy").
 *
 * A name or the birth date given with the value the policy holds is no correction (a retry without
 * Idempotency-Key): no correction row, not audited, not carried; with no contact field given either,
 * nothing is written. The contact fields given are written and audited as given; one given with the
 * value the policy holds is carried nowhere.
 */
export async function changePolicyholder(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  change: PolicyholderChange,
  expected?: ExpectedVersions,
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
  const policy = await lockPolicy(trx, caller, policyNumber, expected);
  const key = deps.keys.encryption;
  const now = deps.now();
  const today = todayOf(now);
  // a cancellation scheduled from a day to come: in force until then, changes allowed
  if (statusOn(policy, today) === 'cancelled')
    throw new DomainError(
      'policy_not_changeable',
      `Policy ${policy.policy_number} is cancelled from ${policy.cancellation_date}; its policyholder can no longer be changed.`,
    );
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
  const given: Holder = {
    ...after,
    email: contactValue('email', change),
    phone: change.phone,
    address: change.address,
  };
  const updated = await repo.updatePolicyholder(trx, policy.id, holderPatch(key, fields, given, now));
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
  // a contact field given with the value it holds is written and audited, but nothing is carried for it
  const moved = contact.filter((f) => contactValue(f, change) !== contactValue(f, before));
  const renewals = await carryToRenewals(deps, trx, caller, updated, {
    fields: [...(correction ? corrected : []), ...moved],
    before,
    after: given,
    reason: change.reason,
    now,
  });
  await auditPolicyChange(
    trx,
    caller,
    policy,
    'policyholder_changed',
    {
      fields,
      ...(correction ? { reason: change.reason, correction } : {}),
      ...(renewals.corrected.length ? { renewalsCorrected: renewals.corrected } : {}),
      ...(renewals.changed.length ? { renewalsChanged: renewals.changed } : {}),
    },
    now,
  );
  return answerPolicy(deps, trx, updated, today);
}

type Identity = Partial<Record<(typeof IDENTITY)[number], string>>;
type Field = (typeof IDENTITY)[number] | (typeof CONTACT)[number];
type Holder = Identity & { email?: string | undefined; phone?: string | undefined; address?: Address | undefined };

/** A contact field as stored, comparable as text: the email normalised, the address trimmed and serialised. */
function contactValue(field: (typeof CONTACT)[number], holder: Holder): string | undefined {
  if (field === 'email') return holder.email === undefined ? undefined : normalEmail(holder.email);
  if (field === 'address')
    return holder.address === undefined ? undefined : JSON.stringify(trimAddress(holder.address));
  return holder.phone;
}

const valueOf = (field: Field, holder: Holder): string | undefined =>
  (IDENTITY as readonly string[]).includes(field)
    ? holder[field as keyof Identity]
    : contactValue(field as (typeof CONTACT)[number], holder);

/** Each field's column. */
const COLUMN = {
  firstName: 'holder_first_name_enc',
  lastName: 'holder_last_name_enc',
  birthDate: 'holder_birth_date_enc',
  email: 'holder_email_enc',
  phone: 'holder_phone_enc',
  address: 'holder_address_enc',
} as const satisfies Record<Field, string>;

/**
 * The policy's update for the fields changed, each sealed from `holder` as stored (valueOf: the email
 * normalised, the address trimmed), a name's clear column emptied; and updated_at.
 */
function holderPatch(
  key: PolicyDeps['keys']['encryption'],
  fields: readonly Field[],
  holder: Holder,
  now: Date,
): Parameters<typeof repo.updatePolicyholder>[2] {
  const patch: Parameters<typeof repo.updatePolicyholder>[2] = { updated_at: now };
  for (const f of fields) patch[COLUMN[f]] = encrypt(key, valueOf(f, holder)!);
  if (fields.includes('firstName')) patch.holder_first_name = null;
  if (fields.includes('lastName')) patch.holder_last_name = null;
  return patch;
}

/** The identity fields corrected, with their values, as one sealed JSON (a side of a `policy_corrections` row). */
const sealed = (key: PolicyDeps['keys']['encryption'], fields: readonly (keyof Identity)[], values: Identity) =>
  encrypt(key, JSON.stringify(Object.fromEntries(fields.map((f) => [f, values[f]]))));

/**
 * Carries a change of the policyholder — a correction of the identity, a new email, phone or address —
 * to the renewals of the policy changed, term after term, up to the first cancelled one (its own
 * renewals were cancelled with it): the same person, whose record a renewal copied. A field is carried
 * to a renewal only where it still holds the value the policy changed held before (`before`, which it
 * copied): a renewal holding another value keeps it (changed on its own, to the same value or
 * another), and the field is carried no further, its renewals having copied that value. Each renewal
 * is locked before it is read, after the term it renews (the lock order of renew and cancel): a
 * renewal committed while the change waited for the policy's lock is found and changed. Each renewal
 * changed gets its own `policyholder_changed` audit row naming the policy changed (`withPolicy`) and,
 * for identity fields, its own sealed correction with the same reason. A birth date carried to a
 * renewal that no longer passes on its effective date (120 or older) is a 422 naming the renewal
 * (`policyNumber`): nothing is changed. The numbers of the renewals whose identity was corrected, and
 * of those whose contact changed.
 */
async function carryToRenewals(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policy: repo.PolicyRow,
  change: { fields: readonly Field[]; before: Holder; after: Holder; reason: CorrectionReason | undefined; now: Date },
): Promise<{ corrected: string[]; changed: string[] }> {
  const key = deps.keys.encryption;
  const { before, after, reason, now } = change;
  const today = todayOf(now);
  let carried = [...change.fields];
  const done = { corrected: [] as string[], changed: [] as string[] };
  for (let next = policy.renewed_by_policy_number; next && carried.length;) {
    const renewal = await repo.findPolicy(trx, caller, next, { forUpdate: true });
    if (!renewal || statusOn(renewal, today) === 'cancelled') break;
    next = renewal.renewed_by_policy_number;
    const current = policyholderOf(renewal, key);
    carried = carried.filter((f) => valueOf(f, current) === valueOf(f, before));
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
    await repo.updatePolicyholder(trx, renewal.id, holderPatch(key, carried, after, now));
    const identity = IDENTITY.filter((f) => carried.includes(f));
    const correction =
      identity.length && reason !== undefined
        ? await repo.insertCorrection(trx, {
            policyId: renewal.id,
            reason,
            beforeEnc: sealed(key, identity, current),
            afterEnc: sealed(key, identity, after),
            at: now,
          })
        : undefined;
    await auditPolicyChange(
      trx,
      caller,
      renewal,
      'policyholder_changed',
      {
        fields: carried,
        ...(correction ? { reason, correction } : {}),
        withPolicy: policy.policy_number,
      },
      now,
    );
    if (correction) done.corrected.push(renewal.policy_number);
    if (carried.some((f) => (CONTACT as readonly string[]).includes(f))) done.changed.push(renewal.policy_number);
  }
  return done;
}
