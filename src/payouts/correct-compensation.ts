import {
  auditDeskAction,
  beginDeskAction,
  checkDeskAction,
  isSettledClaim,
  maxCompensation,
  refuseDeskAction,
  setClaimCompensation,
  type DeskAction,
  type DeskOutcome,
} from '../claims/index.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { amountOrError, largestTransfer, MAJOR_AMOUNT_MAX_LENGTH, toDecimalString } from '../platform/money.ts';
import { findClaimPayout, setPayoutAmountBeforeInstruction } from './payouts-repo.ts';
import { bankFileOf } from './model.ts';

export interface CompensationCorrection extends DeskAction {
  /** The new compensation in the claim's currency, major units as a decimal string ("100.00", or "100,00": `parseMajorAmount`). */
  amount: string;
}

/**
 * Correct a claim's compensation (the claim desk; docs/OPERATOR.md). An event never changes a claim
 * once opened (one claim per leg, as first decided): when the flight data it was opened on proves
 * wrong — the delay reached a higher tier, the flight was in fact cancelled — the operator puts the
 * claim under manual review (nothing is paid meanwhile), corrects the amount with the reason, then
 * approves. Only under review, before payment: refused once the claim is settled or its payout is in
 * a transfer file sent to the bank (pain.001 or NACHA). The amount is at most what the contract's terms pay for the leg (the
 * highest of its cancellation amount and top delay tier, times the passengers), and at most what one
 * transfer carries (`largestTransfer`: a NACHA entry for USD, the SEPA rulebook for EUR). The payout, if the
 * customer gave bank details already and it is pending, takes the new amount (a failed or returned
 * one keeps the amount it failed with; the next attempt, on new details, takes the claim's); the
 * customer's receipt states what is paid. Audited `compensation_corrected` with both amounts.
 */
export async function correctClaimCompensation(
  deps: { db: Db; keys: Pick<Keyring, 'encryption'>; now: () => Date },
  input: CompensationCorrection,
): Promise<DeskOutcome & { compensation?: { amount: number; currency: string } }> {
  // an amount that is no number in any currency is told with the reason's fault, in one 422
  const checked = checkDeskAction(input, [amountShapeFault(input.amount)]);
  return deps.db.transaction().execute(async (trx) => {
    const { claim, replayed, action } = await beginDeskAction(trx, deps.keys, checked, 'correct_compensation');
    if (replayed) return { claimNumber: claim.claim_number, outcome: 'replayed' };
    if (isSettledClaim(claim.status))
      throw refuseDeskAction('claim_settled', `Claim ${claim.claim_number} is ${claim.status}: its amount stands.`);
    if (!claim.manual_review_at)
      throw refuseDeskAction(
        'claim_not_under_review',
        `Claim ${claim.claim_number} is not under manual review: put it under review first (it could be paid meanwhile).`,
      );
    const payout = await findClaimPayout(trx, claim.id);
    if (payout?.status === 'instructed')
      throw refuseDeskAction(
        'payout_instructed',
        `Claim ${claim.claim_number}: its payout is in ${bankFileOf(payout.rail)} sent to the bank already; its amount stands.`,
      );
    const current = Number(claim.compensation_amount);
    const amount = checkAmount(input.amount, claim.currency, current, maxCompensation(claim));
    const now = deps.now();
    await setClaimCompensation(trx, claim.id, amount, now);
    const payoutChanged = payout ? await setPayoutAmountBeforeInstruction(trx, payout.id, amount) : false;
    await auditDeskAction(
      trx,
      claim,
      action,
      'compensation_corrected',
      {
        from: current,
        to: amount,
        currency: claim.currency,
        payout: payout ? { status: payout.status, changed: payoutChanged } : null,
      },
      now,
    );
    return { claimNumber: claim.claim_number, outcome: 'done', compensation: { amount, currency: claim.currency } };
  });
}

/**
 * The fault of an amount that is an amount in no currency (too long, not digits with one decimal point
 * or comma): known before the claim, so told with the reason's. The rest (the claim's currency's
 * decimals, the terms) is `checkAmount`'s.
 */
function amountShapeFault(text: string): FieldError | undefined {
  const trimmed = text.trim();
  if (trimmed.length > MAJOR_AMOUNT_MAX_LENGTH)
    return { field: '/amount', code: 'too_long', message: `must be at most ${MAJOR_AMOUNT_MAX_LENGTH} characters` };
  if (!/^\d+(?:[.,]\d+)?$/.test(trimmed))
    return { field: '/amount', code: 'invalid_format', message: 'must be an amount such as 50.00' };
  return undefined;
}

/** The new amount in minor units: well formed, more than zero, within the terms, not the current one. */
function checkAmount(text: string, currency: string, current: number, max: number): number {
  const refuse = (code: FieldError['code'], message: string) =>
    new DomainError('validation_failed', 'The correction is not valid.', {
      errors: [{ field: '/amount', code, message }],
    });
  const errors: FieldError[] = [];
  const amount = amountOrError(text, currency, '/amount', errors);
  if (errors.length > 0) throw new DomainError('validation_failed', 'The correction is not valid.', { errors });
  if (amount < 1) throw refuse('out_of_range', 'must be more than zero');
  if (amount > max) {
    // the lower of the terms and what one transfer carries (`maxCompensation`): the rule that holds it
    const largest = largestTransfer(currency);
    throw refuse(
      'out_of_range',
      `at most ${toDecimalString(max, currency)} ${currency}: ${
        max === largest.amount ? largest.rule : "what the contract's terms pay for this leg"
      }`,
    );
  }
  if (amount === current) throw refuse('not_allowed', 'is the claim’s compensation already');
  return amount;
}
