import { randomUUID } from 'node:crypto';
import type { Executor } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { claimsAwaitingBankDetailsOf } from './claims-repo.ts';

/**
 * The customer's phone or email changed (the partner's PATCH /contracts/{n}/customer): each claim of
 * the contract still waiting for bank details before its due date, or past it under manual review
 * (`waitsForBankDetails`), gets its link again — a new link until the same due date, the old one takes
 * no more details (`notifyClaim`'s `resend`, as the claim desk's, by a `claims_notify` job queued in
 * the change's transaction). `changed: 'phone'`: texted to the new number (the partner's answer to
 * `claim.customer_unreachable`). `changed: 'email'` (the phone did not change): texted to the same
 * phone and emailed to the new address — one live link per claim, on both channels (emailing it alone
 * would leave the phone's link dead). A replay of the PATCH (its Idempotency-Key) answers the first
 * response and queues nothing; another change sends again. Returns how many were queued.
 */
export async function resendLinks(
  trx: Executor,
  jobs: JobQueue,
  contractId: string,
  actor: string,
  now: Date,
  changed: 'phone' | 'email',
): Promise<number> {
  const claimIds = await claimsAwaitingBankDetailsOf(trx, contractId, now);
  // one action per change: a retry of the job sends once, another change sends again
  const actionToken = randomUUID();
  await jobs.sendMany(
    'claims_notify',
    claimIds.map((claimId) => ({
      claimId,
      kind: 'resend' as const,
      actionToken,
      actor,
      reason: `customer ${changed} changed`,
      ...(changed === 'email' ? { alsoEmail: true } : {}),
    })),
    { trx },
  );
  return claimIds.length;
}
