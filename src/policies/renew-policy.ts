import type { PremiumFrequency } from '../platform/db-schema.ts';
import type { Trx } from '../platform/db.ts';
import { storedHomeRiskFindings, type HomeRisk } from '../home/index.ts';
import { DomainError } from '../platform/errors.ts';
import { checkTerms, invalid, MAX_YEARS_AHEAD, recordPolicy } from './create-policy.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import {
  plusYears,
  policyholderOf,
  policyView,
  statusOn,
  storedRisk,
  todayOf,
  type PolicyView,
  type Product,
} from './policy.ts';
import { auditPolicyChange, lockPolicy, type ExpectedVersions } from './policy-change.ts';

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
 * cancelled (or whose cancellation is scheduled), pending, expired (its cover lapsed), of a trip product, or whose new term would start
 * more than a year ahead; 409 policy_already_renewed, naming the renewal, for the second renewal of
 * a term. The previous policy gets a `renewed` audit row, the renewal its `created` one.
 *
 * The renewal copies the policy as it is now, in this locked row: the policyholder (names and birth
 * date as corrected, the current email, phone and address) and the risk (a vehicle registered since
 * creation with its registration). Changes made on the policy after its renewal reach the renewal
 * where it still holds the value copied (change-policyholder.ts, register-vehicle.ts).
 */
export async function renewPolicy(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  input: RenewPolicyInput,
  expected?: ExpectedVersions,
): Promise<PolicyView> {
  const policy = await lockPolicy(trx, caller, policyNumber, expected);
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
  // a cancellation scheduled ends the term before its expiry date: no next term follows it
  if (status === 'cancelled' || policy.cancellation_date !== null)
    throw refuse(`is cancelled from ${policy.cancellation_date}`);
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
    policyholder: policyholderOf(policy, key),
    effectiveDate: start,
    expiryDate: input.expiryDate ?? nextTermExpiry(soldTerm(policy)),
    premium: input.premium,
    risk: storedRisk(policy, key),
    status: input.status,
  };
  const errors = checkTerms(terms, today, { renewal: true });
  // The request's own fields are a 422; what is stored (the policyholder, the risk, the dates drawn
  // from the previous term) cannot be fixed by resending the request: 409, naming what fails.
  const asked = errors.filter((e) => requestField(e.field, input));
  if (asked.length) throw invalid(asked);
  if (errors.length) {
    // no call changes a home risk: what blocks it cannot be corrected, only insured anew
    const homeRisk = policy.product === 'home' && errors.some((e) => e.field.startsWith('/risk'));
    throw refuse(
      `cannot be renewed as stored, for a term from ${start}: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')} (${homeRisk ? 'no call changes a home risk: record a new policy' : 'correct it first, or record a new policy'})`,
    );
  }
  // the rules of a quote a stored home risk no longer meets do not block its renewal (tacit renewal,
  // code des assurances L113-12; a wrong declaration is raised at a claim, L113-8/9): recorded for the insurer
  const findings =
    policy.product === 'home'
      ? storedHomeRiskFindings(terms.risk as unknown as HomeRisk, '/risk', new Date(`${today}T12:00:00Z`))
      : [];
  const renewal = await recordPolicy(deps, trx, caller, terms, now, {
    renews: { policyNumber: policy.policy_number, anniversaryDate: policy.anniversary_date },
  });
  await repo.markRenewed(trx, policy.id, renewal.policy_number, now);
  await auditPolicyChange(
    trx,
    caller,
    policy,
    'renewed',
    {
      renewal: renewal.policy_number,
      effectiveDate: renewal.effective_date,
      expiryDate: renewal.expiry_date,
      ...(findings.length ? { storedRiskFindings: findings } : {}),
    },
    now,
  );
  return policyView(renewal, key, today, undefined); // just recorded: not renewed
}

/** Whether a field checked on a renewal is one the renew request gave (else it comes from the stored policy). */
function requestField(field: string, input: RenewPolicyInput): boolean {
  if (field === '/expiryDate') return input.expiryDate !== undefined;
  return field === '/externalReference' || field === '/status' || field.startsWith('/premium');
}

/** A term as sold: its start as recorded (not moved by a late activation), its end, and the chain's anniversary. */
export interface SoldTerm {
  start: string;
  expiry: string;
  anniversary: string;
}

export const soldTerm = (policy: repo.PolicyRow): SoldTerm => ({
  start: policy.term_start_date,
  expiry: policy.expiry_date,
  anniversary: policy.anniversary_date,
});

/**
 * The expiry date of the term after a term as sold. A term of whole months (counted from the
 * anniversary's day of month, each date clamped to its month's end) is followed by as many months,
 * on the anniversary's day clamped anew: a term from 31 January ends on 28 February, then 31 March; a
 * yearly term from 29 February ends on 28 February, then again on 29 February in a leap year. Any
 * other term is followed by as many days.
 */
export function nextTermExpiry(term: SoldTerm): string {
  const onAnniversary = (date: string) => plusMonths(term.anniversary, monthsBetween(term.anniversary, date)) === date;
  const months = monthsBetween(term.start, term.expiry);
  if (months > 0 && onAnniversary(term.start) && onAnniversary(term.expiry))
    return plusMonths(term.anniversary, monthsBetween(term.anniversary, term.expiry) + months);
  const days = (Date.parse(term.expiry) - Date.parse(term.start)) / 86_400_000;
  return new Date(Date.parse(term.expiry) + days * 86_400_000).toISOString().slice(0, 10);
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
