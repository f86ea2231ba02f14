import type { ClaimVoidCause } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { emitClaimWebhookEvents } from '../webhooks/index.ts';
import * as repo from './claims-repo.ts';
import { completeSettledContracts } from './contract-completion.ts';
import { type NotifyJob } from './notify-claim.ts';

/**
 * A claim's payment outcome, the only way another domain changes a claim's state (payouts call
 * these when the bank reports, and when the claim desk voids a claim). All run in the caller's transaction.
 */

/**
 * The claim was paid: `paid`, the customer's receipt queued (`paid`, sent once whatever the retries),
 * partners told (claim.paid), its contract completed if every leg is over.
 */
export async function markClaimPaid(
  trx: Executor,
  jobs: JobQueue,
  claim: { id: string; contractId: string; attempt: number },
  at: Date,
): Promise<void> {
  await repo.markClaimPaid(trx, claim.id, at);
  const receipt: NotifyJob = { claimId: claim.id, kind: 'paid', attempt: claim.attempt };
  await jobs.send('claims_notify', receipt, { trx });
  await emitClaimWebhookEvents(trx, jobs, 'claim.paid', [claim.id], at);
  await completeSettledContracts(trx, [claim.contractId], at);
}

/**
 * The payment failed: `failed` with a new deadline for new bank details, the customer texted a new
 * link (`payment_failed`, once per payout attempt), partners told (claim.failed).
 */
export async function markClaimFailed(
  trx: Executor,
  jobs: JobQueue,
  claim: { id: string },
  /** `at`: the use case's clock, the claim's `updated_at` (claim.failed's `failedAt`). */
  failure: { reason: string; dueAt: Date; attempt: number; at: Date },
): Promise<void> {
  await repo.markClaimFailed(trx, claim.id, failure.reason, failure.dueAt, failure.at);
  const job: NotifyJob = { claimId: claim.id, kind: 'payment_failed', attempt: failure.attempt };
  await jobs.send('claims_notify', job, { trx });
  await emitClaimWebhookEvents(trx, jobs, 'claim.failed', [claim.id], failure.at);
}

/**
 * A paid claim's transfer came back from the customer's bank (an R-transaction, days after it was
 * reported paid): the claim goes back to `failed` — waiting for new bank details by a new due date,
 * `paid_at` cleared — exactly as after a rejected payment: the customer texted a new link
 * (`payment_failed` for this attempt: none was sent for it, since it had been paid), partners told by
 * `claim.failed` (with `paymentReturned: true`). Its contract, `completed` when the claim was paid,
 * is `active` again until the claim settles again (paid on a new attempt, or expired): a contract is
 * completed only while every leg is over.
 */
export async function markClaimPaymentReturned(
  trx: Executor,
  jobs: JobQueue,
  claim: { id: string; claimNumber: string; contractId: string },
  failure: { reason: string; dueAt: Date; attempt: number; actor: string; at: Date },
): Promise<void> {
  await repo.markClaimReturned(trx, claim.id, failure.reason, failure.dueAt, failure.at);
  await repo.reopenCompletedContracts(
    trx,
    [claim.contractId],
    failure.actor,
    { claimNumber: claim.claimNumber, reason: 'payment_returned' },
    failure.at,
  );
  const job: NotifyJob = { claimId: claim.id, kind: 'payment_failed', attempt: failure.attempt };
  await jobs.send('claims_notify', job, { trx });
  await emitClaimWebhookEvents(trx, jobs, 'claim.failed', [claim.id], failure.at);
}

/**
 * The claim desk voided the claim before any money left (payouts/void-claim.ts checks when, and
 * cancels its pending payout): `voided`, its link closed; the customer texted that the claim is
 * withdrawn (`voided`, once) when a message had given them a link — never the desk's reason, which
 * may be internal; partners told (claim.voided); its contract completed if every leg is over (a
 * voided claim's leg is settled, as a paid or expired one's). The leg keeps the void's time and cause
 * (`flight_data`: an operator's event may open it a new claim; `other`: never).
 */
export async function markClaimVoided(
  trx: Executor,
  jobs: JobQueue,
  claim: { id: string; contractId: string; legId: string; texted: boolean },
  cause: ClaimVoidCause,
  at: Date,
): Promise<void> {
  // the contract, then the leg, then the claim: the order claims' opening locks them (markLegClaimVoided)
  await repo.markLegClaimVoided(trx, claim, cause, at);
  await repo.markClaimVoided(trx, claim.id, at);
  if (claim.texted) {
    const job: NotifyJob = { claimId: claim.id, kind: 'voided' };
    await jobs.send('claims_notify', job, { trx });
  }
  await emitClaimWebhookEvents(trx, jobs, 'claim.voided', [claim.id], at);
  await completeSettledContracts(trx, [claim.contractId], at);
}
