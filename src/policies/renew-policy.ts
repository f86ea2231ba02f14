import type { PremiumFrequency } from '../platform/db-schema.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { checkTerms, invalid, MAX_YEARS_AHEAD, recordPolicy } from './create-policy.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { plusYears, policyView, statusOn, storedRisk, todayOf, type PolicyView, type Product } from './policy.ts';
import { auditPolicyChange, lockPolicy } from './policy-change.ts';

export interface RenewPolicyInput {
  /** Your own id of the new term (a policy of its own). */
  externalReference: string;
  /** The premium of the new term. */
  premium: { amount: number; currency: string; frequency: PremiumFrequency };
  /** First day no longer covered by the new term; by default as long after the previous expiry as the previous term lasted. */
  expiryDate?: string | undefined;
  status?: 'active' | 'pending' | undefined;
}

/** A trip's cover (travel, flight_delay) is for that trip: the next trip is a new policy, not a renewal. */
export const RENEWABLE_PRODUCTS: readonly Product[] = ['home', 'motor', 'other'];

/**
 * POST /policies/{policyNumber}/renew: records the next term of an active policy as a policy of its
 * own (a new policy number), from the previous expiry date, for the same policyholder and risk, with
 * the premium given; both are linked (`renews`, `renewedBy`). 409 policy_not_renewable for a policy
 * cancelled, pending, expired (its cover lapsed), of a trip product, or whose new term would start
 * more than a year ahead; 409 policy_already_renewed, naming the renewal, for the second renewal of
 * a term. The previous policy gets a `renewed` audit row, the renewal its `created` one.
 */
export async function renewPolicy(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  input: RenewPolicyInput,
): Promise<PolicyView> {
  const policy = await lockPolicy(trx, caller, policyNumber);
  const now = deps.now();
  const today = todayOf(now);
  const refuse = (why: string) => new DomainError('policy_not_renewable', `Policy ${policy.policy_number} ${why}.`);
  if (policy.renewed_by_policy_number)
    throw new DomainError(
      'policy_already_renewed',
      `Policy ${policy.policy_number} is already renewed by ${policy.renewed_by_policy_number}.`,
      { policyNumber: policy.renewed_by_policy_number },
    );
  const status = statusOn(policy, today);
  if (status === 'cancelled') throw refuse(`is cancelled from ${policy.cancellation_date}`);
  if (!RENEWABLE_PRODUCTS.includes(policy.product))
    throw refuse(`covers a trip (${policy.product}): record a new policy for the next one`);
  if (status === 'pending') throw refuse('is not in force: activate it before renewing it');
  if (status === 'expired') throw refuse(`expired on ${policy.expiry_date}: its cover lapsed, record a new policy`);
  const start = policy.expiry_date;
  if (start > plusYears(today, MAX_YEARS_AHEAD))
    throw refuse(`ends on ${start}: a renewal starts at most ${MAX_YEARS_AHEAD} year ahead`);

  const key = deps.keys.encryption;
  const terms = {
    product: policy.product,
    externalReference: input.externalReference,
    policyholder: policyView(policy, key, today).policyholder,
    effectiveDate: start,
    expiryDate: input.expiryDate ?? nextTermExpiry(policy.effective_date, policy.expiry_date),
    premium: input.premium,
    risk: storedRisk(policy, key),
    status: input.status,
  };
  const errors = checkTerms(terms, today);
  if (errors.length) throw invalid(errors);
  const renewal = await recordPolicy(deps, trx, caller, terms, { renews: policy.policy_number });
  await repo.markRenewed(trx, policy.id, renewal.policy_number, now);
  await auditPolicyChange(trx, caller, policy, 'renewed', {
    renewal: renewal.policy_number,
    effectiveDate: renewal.effective_date,
    expiryDate: renewal.expiry_date,
  });
  return policyView(renewal, key, today);
}

/**
 * The expiry date of the term after [effective, expiry): as many calendar months after `expiry` when
 * the term is a whole number of months (a year from 29 February ends on 28 February), else as many days.
 */
export function nextTermExpiry(effective: string, expiry: string): string {
  const months = monthsBetween(effective, expiry);
  if (months > 0 && plusMonths(effective, months) === expiry) return plusMonths(expiry, months);
  const days = (Date.parse(expiry) - Date.parse(effective)) / 86_400_000;
  return new Date(Date.parse(expiry) + days * 86_400_000).toISOString().slice(0, 10);
}

const monthsBetween = (from: string, to: string): number =>
  (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 + Number(to.slice(5, 7)) - Number(from.slice(5, 7));

/** 'YYYY-MM-DD' plus whole months, the day kept or, past the month's end, its last day. */
function plusMonths(date: string, months: number): string {
  const index = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1 + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const day = Math.min(Number(date.slice(8, 10)), lastDay);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
