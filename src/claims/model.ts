/** The vocabulary of claims: the database schema, the CLI's choices and the pages derive from it. */

import { DomainError, type FieldError } from '../platform/errors.ts';

/** A claim number as the platform writes it (`CLM-` and eight digits: claims-repo.ts's sequence). */
export const CLAIM_NUMBER = /^[A-Z]{3}-[0-9]{8}$/;

export const CLAIM_STATUSES = [
  'opened',
  'awaiting_bank_details',
  'payment_pending',
  'paid',
  'expired',
  'failed',
  'voided',
] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/**
 * A settled claim is over: nothing more is paid, sent or changed on it — `paid`, `expired`, or
 * `voided` (withdrawn by the insurer's claim desk before any money left, migration 0052).
 */
export const SETTLED_CLAIM_STATUSES = ['paid', 'expired', 'voided'] as const satisfies readonly ClaimStatus[];
export const isSettledClaim = (status: ClaimStatus): boolean =>
  (SETTLED_CLAIM_STATUSES as readonly ClaimStatus[]).includes(status);

/**
 * A claim waiting for (new) bank details whose link still takes them at `now`: before its due date, or
 * past it while under the desk's manual review — the review stops the clock (the claim does not expire,
 * its link still works: payouts/bank-details.ts; approved, its due date moves later by the review). What
 * a resend of its link (the desk's, a contact change's) asks: a link to a claim past due and not under
 * review would be dead on arrival (it expires).
 */
export function waitsForBankDetails(
  claim: { status: ClaimStatus; bank_details_due_at: Date | null; manual_review_at: Date | null },
  now: Date,
): boolean {
  if (claim.status !== 'awaiting_bank_details' && claim.status !== 'failed') return false;
  if (!claim.bank_details_due_at) return false;
  return claim.manual_review_at !== null || claim.bank_details_due_at.getTime() > now.getTime();
}

/**
 * The statuses in which a message carrying the customer's bank-details link (the first message, a
 * rejected payment's, a reminder, a resend — by SMS or by email) is no longer worth sending: the claim
 * is settled (the link page says where it stands), or `payment_pending` (the details were given, the
 * money is on its way: the link asks for what the insurer already has, and its page takes no more).
 * Not `failed`: a rejected payment asks for new details through its link. Not `opened` or
 * `awaiting_bank_details`: the link is what the claim waits on. The send jobs of both channels drop
 * such a message still queued (notify/, given by the job registry: `linkUselessClaimStatuses`).
 */
export const LINK_USELESS_CLAIM_STATUSES = [
  'payment_pending',
  ...SETTLED_CLAIM_STATUSES,
] as const satisfies readonly ClaimStatus[];

/**
 * The statuses the claim desk may void a claim in: no money has left for it yet — `payment_pending`
 * only while its payout is still `pending` (`isVoidableClaim`).
 */
export const VOIDABLE_CLAIM_STATUSES = [
  'opened',
  'awaiting_bank_details',
  'failed',
  'payment_pending',
] as const satisfies readonly ClaimStatus[];

/**
 * Whether the claim desk may void the claim (payouts/void-claim.ts decides with it, under the claim's
 * lock; the claim page offers the form with it): a voidable status, and — payment pending — its payout
 * (`payoutStatus`, none before bank details) still `pending`, in no SEPA file sent to the bank.
 */
export const isVoidableClaim = (status: ClaimStatus, payoutStatus: string | null | undefined): boolean =>
  (VOIDABLE_CLAIM_STATUSES as readonly ClaimStatus[]).includes(status) &&
  (status !== 'payment_pending' || payoutStatus === 'pending');

/**
 * Why the claim desk voided a claim, kept on its leg (`contract_legs.claim_void_cause`, migration 0057):
 * `flight_data` (the flight data that opened it was wrong: an operator's event may open the leg a new
 * claim) or `other` (fraud, sanctions, a duplicate…: never replaced). `parasol claims void --cause`,
 * `parasol claims void-cause`, the claim page's choices.
 */
export const VOID_CAUSES = ['flight_data', 'other'] as const;
export type ClaimVoidCause = (typeof VOID_CAUSES)[number];

/**
 * A void's cause as given: `fallback` when none is given (`other` for a void: never replaced, the safe
 * reading; none for a correction, which must say the cause); anything else 422 `validation_failed` (`/cause`).
 */
export function checkVoidCause(cause: string | undefined, fallback?: ClaimVoidCause): ClaimVoidCause {
  const error = voidCauseError(cause, fallback);
  if (error) throw new DomainError('validation_failed', 'The action is not valid.', { errors: [error] });
  return (cause?.trim() || fallback) as ClaimVoidCause;
}

/** What is wrong with a void's cause as given (`checkVoidCause`), or undefined. */
export function voidCauseError(cause: string | undefined, fallback?: ClaimVoidCause): FieldError | undefined {
  const given = cause?.trim() || fallback;
  if (given && (VOID_CAUSES as readonly string[]).includes(given)) return undefined;
  return given
    ? { field: '/cause', code: 'not_allowed', message: `must be one of ${VOID_CAUSES.join(', ')}` }
    : { field: '/cause', code: 'required', message: `give the cause: one of ${VOID_CAUSES.join(', ')}` };
}

/** What happened to the insured flight. */
export const CLAIM_EVENTS = ['delayed', 'cancelled', 'diverted'] as const;
export type ClaimEventKind = (typeof CLAIM_EVENTS)[number];

/** What the claim pays for (a diversion pays as a cancellation when cancellation is covered, else as a delay). */
export const CLAIM_REASONS = ['delay', 'cancellation'] as const;
export type ClaimReason = (typeof CLAIM_REASONS)[number];
