import { audit } from '../platform/audit.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { Caller } from './deps.ts';
import * as repo from './policies-repo.ts';
import { canonicalPolicyNumber } from './policy-number.ts';

/** What every change to a recorded policy (activate, cancel, policyholder) starts and ends with. */

/**
 * The versions of the policy a change was made for (the route reads them from If-Match): the change is
 * applied only to a policy still at one of them. Undefined: any version (no If-Match, or `*`); empty:
 * none can match (only tags that are no version of ours were given).
 */
export type ExpectedVersions = readonly number[] | undefined;

/**
 * The caller's policy, locked for the change; 404 policy_not_found for another partner's or none; 412
 * policy_changed when it is no longer at a version `expected` names — compared under the lock, so of
 * two changes made from one version, the second to lock finds the first's and writes nothing.
 */
export async function lockPolicy(
  trx: Trx,
  caller: Caller,
  policyNumber: string,
  expected?: ExpectedVersions,
): Promise<repo.PolicyRow> {
  const policy = await repo.findPolicy(trx, caller, canonicalPolicyNumber(policyNumber), { forUpdate: true });
  if (!policy) throw new DomainError('policy_not_found', `No policy ${policyNumber}.`);
  if (expected && !expected.includes(policy.version))
    throw new DomainError(
      'policy_changed',
      `Policy ${policy.policy_number} changed since you read it (it is at version ${policy.version}): nothing was changed. Read it again, then send your change with its new ETag.`,
    );
  return policy;
}

/**
 * The change's audit row: the caller, the policy, what was done and `data`, at `at` — the use case's
 * clock (`deps.now()`, read once per call), as the policy's `updated_at` it writes (docs/ARCHITECTURE.md, "Clocks").
 */
export async function auditPolicyChange(
  trx: Trx,
  caller: Caller,
  policy: Pick<repo.PolicyRow, 'policy_number'>,
  action: string,
  data: Record<string, unknown>,
  at: Date,
): Promise<void> {
  await audit(trx, {
    at,
    actor: caller.actor,
    partnerId: caller.partnerId,
    environment: caller.environment,
    entity: 'policy',
    entityId: policy.policy_number,
    action,
    data,
  });
}
