import { encrypt } from '../platform/crypto.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { invalid } from './create-policy.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { storedRisk, todayOf, type PolicyView } from './policy.ts';
import { answerPolicy } from './policy-answer.ts';
import { auditPolicyChange, lockPolicy } from './policy-change.ts';
import { checkFirstRegistration, type MotorRisk } from './vehicle.ts';

export interface VehicleRegistration {
  vehicleRegistration: string;
  firstRegistrationDate: string;
}

/**
 * PATCH /policies/{policyNumber}/vehicle: the new car of a motor policy recorded by its VIN alone is
 * registered; its registration and first registration date join the risk. The same registration
 * again answers the policy unchanged (a retry); a vehicle already registered otherwise, a policy
 * that is not motor, or a cancelled one is a 409 policy_not_changeable. Audited with the field names,
 * never their values (the risk is sealed).
 */
export async function registerVehicle(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  input: VehicleRegistration,
): Promise<PolicyView> {
  const policy = await lockPolicy(trx, caller, policyNumber);
  const key = deps.keys.encryption;
  const now = deps.now();
  const today = todayOf(now);
  const refuse = (why: string) => new DomainError('policy_not_changeable', `Policy ${policy.policy_number} ${why}.`);
  if (policy.product !== 'motor') throw refuse(`insures no vehicle (${policy.product})`);
  if (policy.status === 'cancelled') throw refuse(`is cancelled from ${policy.cancellation_date}`);
  const risk = storedRisk(policy, key) as unknown as MotorRisk;
  if (risk.vehicleRegistration !== undefined) {
    if (
      risk.vehicleRegistration === input.vehicleRegistration &&
      risk.firstRegistrationDate === input.firstRegistrationDate
    )
      return answerPolicy(deps, trx, policy, today);
    throw refuse('insures a vehicle already registered');
  }
  const errors = checkFirstRegistration(input.firstRegistrationDate, today, '/firstRegistrationDate');
  if (errors.length) throw invalid(errors);
  const registered = {
    ...risk,
    vehicleRegistration: input.vehicleRegistration,
    firstRegistrationDate: input.firstRegistrationDate,
  };
  const updated = await repo.updateRisk(trx, policy.id, encrypt(key, JSON.stringify(registered)), now);
  await auditPolicyChange(trx, caller, policy, 'vehicle_registered', {
    fields: ['vehicleRegistration', 'firstRegistrationDate'],
  });
  return answerPolicy(deps, trx, updated, today);
}
