import {
  auditDeskAction,
  beginDeskAction,
  checkDeskAction,
  isSettledClaim,
  refuseDeskAction,
  releaseClaimReview,
  setClaimReview,
  type DeskAction,
  type DeskOutcome,
} from '../claims/index.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { findClaimPayout } from './payouts-repo.ts';
import { bankFileOf } from './model.ts';

/**
 * The claim desk's payment actions (claims/desk.ts has the others). A claim under manual review is
 * not paid automatically: the simulated bank's job and the SEPA batch skip its payout, even one
 * queued before the review, until an operator approves — which releases the payout through the
 * normal path (the simulated bank's job again, or the next SEPA batch), so the ledger, the
 * customer's receipt and the partners' webhooks follow as for any payout.
 */

/**
 * Mark for manual review: any claim not settled yet (opened, waiting for bank details, payment
 * pending, failed) and not under review already; refused once its payout is instructed (in a SEPA
 * file sent to the bank: too late to hold it here). While under review the claim does not expire:
 * the customer does not lose it because the insurer takes its time.
 */
export async function reviewClaim(
  deps: { db: Db; keys: Pick<Keyring, 'encryption'>; now: () => Date },
  input: DeskAction,
): Promise<DeskOutcome> {
  const checked = checkDeskAction(input);
  return deps.db.transaction().execute(async (trx) => {
    const { claim, replayed, action } = await beginDeskAction(trx, deps.keys, checked, 'review');
    if (replayed) return { claimNumber: claim.claim_number, outcome: 'replayed' };
    // settled first: a claim voided while under review is over, not "under review" (docs/OPERATOR.md)
    if (isSettledClaim(claim.status))
      throw refuseDeskAction(
        'claim_settled',
        `Claim ${claim.claim_number} is ${claim.status}: there is nothing left to hold.`,
      );
    if (claim.manual_review_at)
      throw refuseDeskAction('claim_under_review', `Claim ${claim.claim_number} is under manual review already.`);
    const payout = await findClaimPayout(trx, claim.id);
    if (payout?.status === 'instructed')
      throw refuseDeskAction(
        'payout_instructed',
        `Claim ${claim.claim_number}: its payout is in ${bankFileOf(payout.rail)} sent to the bank already; reconcile it instead.`,
      );
    const now = deps.now();
    await setClaimReview(trx, claim.id, { at: now, by: action.actor, reason: action.reason });
    await auditDeskAction(
      trx,
      claim,
      action,
      'manual_review_started',
      { status: claim.status, payout: payout?.status ?? null },
      now,
    );
    return { claimNumber: claim.claim_number, outcome: 'done' };
  });
}

/**
 * Approve the manual payout: ends the review of a claim. One whose customer gave bank details
 * (payment pending, its payout pending) is paid through the normal path (the simulated bank's job
 * is queued again; a SEPA payout goes in the next batch). One still waiting for (new) bank details
 * goes on as any claim: paid automatically once they come, and its due date, which stood still
 * during the review, moved later by the time the review took (claims' `releaseClaimReview`).
 */
export async function approveManualPayout(
  deps: { db: Db; jobs: JobQueue; keys: Pick<Keyring, 'encryption'>; now: () => Date },
  input: DeskAction,
): Promise<DeskOutcome & { endToEndId?: string; bankDetailsDueAt?: string }> {
  const checked = checkDeskAction(input);
  return deps.db.transaction().execute(async (trx) => {
    const { claim, replayed, action } = await beginDeskAction(trx, deps.keys, checked, 'approve');
    if (replayed) return { claimNumber: claim.claim_number, outcome: 'replayed' };
    // settled first: a voided claim (under review or not) is over, whatever its review says
    if (isSettledClaim(claim.status))
      throw refuseDeskAction(
        'claim_settled',
        `Claim ${claim.claim_number} is ${claim.status}: there is nothing left to approve.`,
      );
    const now = deps.now();
    if (!claim.manual_review_at)
      throw refuseDeskAction(
        'claim_not_under_review',
        `Claim ${claim.claim_number} is not under manual review: it is paid automatically.`,
      );
    if (claim.status !== 'payment_pending') {
      // no bank details yet: the review ends, the customer gets back the time it took
      const due = await releaseClaimReview(trx, claim.id, now);
      await auditDeskAction(
        trx,
        claim,
        action,
        'manual_review_released',
        { reviewedBy: claim.manual_review_by, status: claim.status, bankDetailsDueAt: due?.toISOString() ?? null },
        now,
      );
      return {
        claimNumber: claim.claim_number,
        outcome: 'done',
        ...(due ? { bankDetailsDueAt: due.toISOString() } : {}),
      };
    }
    const payout = await findClaimPayout(trx, claim.id);
    if (payout?.status !== 'pending')
      throw refuseDeskAction(
        'payout_not_pending',
        `Claim ${claim.claim_number}: its payout is ${payout?.status ?? 'missing'}, not pending: nothing to release.`,
      );
    await releaseClaimReview(trx, claim.id, now);
    if (payout.rail === 'simulated_bank')
      await deps.jobs.send('payouts_simulated_bank', { payoutId: payout.id }, { trx });
    await auditDeskAction(
      trx,
      claim,
      action,
      'manual_payout_approved',
      {
        reviewedBy: claim.manual_review_by,
        endToEndId: payout.end_to_end_id,
        rail: payout.rail,
        amount: payout.amount,
        currency: payout.currency,
      },
      now,
    );
    return { claimNumber: claim.claim_number, outcome: 'done', endToEndId: payout.end_to_end_id };
  });
}
