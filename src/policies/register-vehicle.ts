import { encrypt } from '../platform/crypto.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { invalid } from './create-policy.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { statusOn, storedRisk, todayOf, type PolicyView } from './policy.ts';
import { answerPolicy } from './policy-answer.ts';
import { auditPolicyChange, lockPolicy, type ExpectedVersions } from './policy-change.ts';
import { checkFirstRegistration, samePlate, type MotorRisk } from './vehicle.ts';

export interface VehicleRegistration {
  vehicleRegistration: string;
  firstRegistrationDate: string;
}

/**
 * PATCH /policies/{policyNumber}/vehicle: the new car of a motor policy recorded by its VIN alone is
 * registered; its registration and first registration date join the risk. The same registration
 * again (vehicle.ts, samePlate: a space or a dash, the same groups) answers the policy unchanged (a retry); a
 * vehicle already registered otherwise, a policy that is not motor, or a cancelled one is a 409
 * policy_not_changeable (one whose cancellation is scheduled is not cancelled yet). Audited with the field names, never their values (the risk is sealed).
 *
 * The same car is insured by the policy's renewals, which copied its risk unregistered: the
 * registration reaches them too, term after term up to the first cancelled one, each locked after the
 * term it renews, each with its own `vehicle_registered` audit row naming the policy registered
 * (`withPolicy`), the policy's own row listing them (`renewalsRegistered`) — only where the renewal
 * still insures that car unregistered (its VIN, no registration): a renewal registered on its own
 * keeps its registration, and so do its renewals, which copied it (carryRegistration). Never back to
 * the term a renewal renews (docs/DECISIONS.md, "A renewal carries the current policy").
 */
export async function registerVehicle(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  input: VehicleRegistration,
  expected?: ExpectedVersions,
): Promise<PolicyView> {
  const policy = await lockPolicy(trx, caller, policyNumber, expected);
  const key = deps.keys.encryption;
  const now = deps.now();
  const today = todayOf(now);
  const refuse = (why: string) => new DomainError('policy_not_changeable', `Policy ${policy.policy_number} ${why}.`);
  if (policy.product !== 'motor') throw refuse(`insures no vehicle (${policy.product})`);
  // a cancellation scheduled from a day to come: in force until then, the car can still be registered
  if (statusOn(policy, today) === 'cancelled') throw refuse(`is cancelled from ${policy.cancellation_date}`);
  const risk = storedRisk(policy, key) as unknown as MotorRisk;
  if (risk.vehicleRegistration !== undefined) {
    if (
      samePlate(risk.vehicleRegistration, input.vehicleRegistration) &&
      risk.firstRegistrationDate === input.firstRegistrationDate
    )
      return answerPolicy(deps, trx, policy, today);
    throw refuse('insures a vehicle already registered');
  }
  const errors = checkFirstRegistration(input.firstRegistrationDate, today, '/firstRegistrationDate');
  if (errors.length) throw invalid(errors);
  const updated = await repo.updateRisk(trx, policy.id, encrypt(key, JSON.stringify(registered(risk, input))), now);
  const renewals = await carryRegistration(deps, trx, caller, policy, risk, input, now);
  await auditPolicyChange(
    trx,
    caller,
    policy,
    'vehicle_registered',
    { fields: FIELDS, ...(renewals.length ? { renewalsRegistered: renewals } : {}) },
    now,
  );
  return answerPolicy(deps, trx, updated, today);
}

const FIELDS = ['vehicleRegistration', 'firstRegistrationDate'];

const registered = (risk: MotorRisk, input: VehicleRegistration): MotorRisk => ({
  ...risk,
  vehicleRegistration: input.vehicleRegistration,
  firstRegistrationDate: input.firstRegistrationDate,
});

/**
 * Registers the car of the policy registered (`before`: its risk unregistered) on the policy's
 * renewals, term after term along `renewedBy`, up to the first cancelled one, and only while the
 * renewal still insures that car unregistered (the same VIN, no registration): one registered on its
 * own keeps its registration and stops the walk. Each renewal is locked before it is read, after the
 * term it renews (the lock order of renew, cancel and a policyholder's change). Their numbers.
 */
async function carryRegistration(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policy: repo.PolicyRow,
  before: MotorRisk,
  input: VehicleRegistration,
  now: Date,
): Promise<string[]> {
  const key = deps.keys.encryption;
  const today = todayOf(now);
  const carried: string[] = [];
  for (let next = policy.renewed_by_policy_number; next;) {
    const renewal = await repo.findPolicy(trx, caller, next, { forUpdate: true });
    if (!renewal || statusOn(renewal, today) === 'cancelled') break;
    const risk = storedRisk(renewal, key) as unknown as MotorRisk;
    if (risk.vehicleRegistration !== undefined || risk.vin !== before.vin) break;
    await repo.updateRisk(trx, renewal.id, encrypt(key, JSON.stringify(registered(risk, input))), now);
    await auditPolicyChange(
      trx,
      caller,
      renewal,
      'vehicle_registered',
      { fields: FIELDS, withPolicy: policy.policy_number },
      now,
    );
    carried.push(renewal.policy_number);
    next = renewal.renewed_by_policy_number;
  }
  return carried;
}
