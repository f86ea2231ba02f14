import type { Executor } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';

export type ClaimEventType = 'claim.opened' | 'claim.bank_details_received' | 'claim.paid' | 'claim.expired' | 'claim.failed';

/**
 * Tells the partners what happened to their claims (webhooks), set-wise: one call for any number of
 * claims of one event type, in the transaction that made the change.
 */
export async function emitClaimEvents(_trx: Executor, _jobs: JobQueue, _type: ClaimEventType, _claimIds: readonly string[]): Promise<void> {
  // wired to the partner webhooks in the next step
}
