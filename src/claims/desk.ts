import { customerPhoneError, customerPhoneRefusal } from '../notify/index.ts';
import { actionTokenError } from '../platform/action-token.ts';
import { audit, auditTrail, type AuditRow } from '../platform/audit.ts';
import { decrypt, encrypt, type Keyring } from '../platform/crypto.ts';
import type { Executor } from '../platform/db.ts';
import { DomainError, type ErrorCode, type FieldError } from '../platform/errors.ts';
import { largestTransfer } from '../platform/money.ts';
import {
  keptTooLong,
  maskClaimReasonIn,
  REASON_LENGTH,
  typedTooLong,
  type TypedBound,
} from '../platform/personal-text.ts';
import * as repo from './claims-repo.ts';
import { isSettledClaim, waitsForBankDetails } from './model.ts';
import { notifyClaimIn, type NotifyDeps } from './notify-claim.ts';

/**
 * The operator's claim desk (docs/OPERATOR.md, "The claim desk"): actions on one claim, each with a
 * reason, audited with it and the operator, each done once per one-time token (the form's, or the
 * CLI run's: a double submit does nothing the second time), refused with a 409 of its own code
 * (`claim_settled`, `claim_past_due`…, `DeskRefusal`) when the claim's state does not allow it. Resending the link and correcting the phone are here; putting a
 * claim under manual review and approving its payout are payouts/manual-review.ts, correcting its amount
 * payouts/correct-compensation.ts, voiding it payouts/void-claim.ts (they read the payout). A settled
 * claim (paid, expired, voided: `isSettledClaim`) refuses every action but one: a voided claim's
 * cause may be corrected (void-cause.ts).
 */

export interface DeskAction {
  claimNumber: string;
  /** `operator:<email>` */
  actor: string;
  reason: string;
  /** The one-time token of the form (or CLI run) that asks: the same token twice does the action once. */
  actionToken: string;
}

/** `done`: the action was done now; `replayed`: its token had been used already, nothing done again. */
export type DeskOutcome = { claimNumber: string; outcome: 'done' | 'replayed' };

export const REASON_MIN = 3;
export const REASON_MAX = REASON_LENGTH.kept;
/**
 * A reason's bound as typed (platform/personal-text.ts `REASON_LENGTH`: 2,000 read, 500 kept): past it,
 * refused `too_long` before it is masked. Generous: a reason within 500 characters once masked may be
 * longer as typed (an account quoted spaced, masked shorter).
 */
const REASON_BOUND: TypedBound = { field: '/reason', ...REASON_LENGTH };

/**
 * The reason and the token, checked before anything is read: the reason's length as typed (at most
 * `REASON_BOUND`, before its spaces are collapsed or any mask), then as it will be kept, masked (`maskDeskReason`: a masked
 * email or account can be longer than what it replaces). Answers
 * the action with its reason as typed (spaces collapsed): `beginDeskAction` masks it, with the claim's
 * own account first. `others`: what is wrong with the action's other fields (its phone, its cause…),
 * told in the same 422 when the reason or the token is wrong too — a form with two faults says both
 * at once; alone, they are the caller's to refuse (with their own code: `phone_not_mobile`…).
 */
export function checkDeskAction(action: DeskAction, others: readonly (FieldError | undefined)[] = []): DeskAction {
  const errors: FieldError[] = [];
  const typed = action.reason.trim();
  // its length as typed first, before any pattern — the spaces' collapsing too: a text too long to be a
  // reason is never read further
  const tooLong = typedTooLong(typed, REASON_BOUND);
  const reason = tooLong ? typed : typed.replace(/\s+/g, ' ');
  const reasonError = tooLong ?? checkReason(maskDeskReason(reason, {}));
  if (reasonError) errors.push(reasonError);
  const tokenError = actionTokenError(action.actionToken);
  if (tokenError) errors.push(tokenError);
  if (errors.length)
    throw new DomainError('validation_failed', 'The action is not valid.', {
      errors: [...errors, ...others.filter((e): e is FieldError => e !== undefined)],
    });
  return { ...action, reason, claimNumber: action.claimNumber.trim().toUpperCase() };
}

/** The length of a reason as kept (masked): 3 to 500 characters. */
function checkReason(masked: string): FieldError | undefined {
  if (masked.length < REASON_MIN)
    return { field: '/reason', code: 'required', message: `give the reason (at least ${REASON_MIN} characters)` };
  return keptTooLong(masked, REASON_BOUND);
}

/**
 * A reason as kept (on the claim, in the audit trail): the claim's own account masked first, wherever
 * and however the operator typed it — its IBAN whole, spaced, dotted, with a wrong check digit or as its
 * bare national number (`maskKnownIbanIn`), its US account number bare (`maskAccountNumberIn`) — then
 * the IBANs, US account numbers (next to a routing number or after a word naming an account:
 * `maskUsAccountsIn`), email addresses and phone numbers it quotes: an operator writing "customer
 * called from +33 6…, new account FR76…" keeps none of it in clear.
 */
export function maskDeskReason(
  reason: string,
  own: { iban?: string | undefined; usAccount?: string | undefined },
): string {
  return maskClaimReasonIn(reason, own);
}

/**
 * Opens a desk action in the caller's transaction: the claim locked (the lock every writer of a
 * claim takes first), then the action's token recorded. `replayed` when the token was used already.
 * Answers the action to carry on with: its reason masked (`maskDeskReason`) with the claim's own
 * account — its IBAN or US account number, unsealed here — and checked again at that length (422
 * `validation_failed` on `/reason` when the masks make it longer than 500 characters).
 */
export async function beginDeskAction(
  trx: Executor,
  keys: Pick<Keyring, 'encryption'>,
  checked: DeskAction,
  name: string,
): Promise<{ claim: repo.DeskClaimRow; replayed: boolean; action: DeskAction }> {
  const claim = await repo.findClaimForDesk(trx, checked.claimNumber, true);
  if (!claim) throw new DomainError('claim_not_found', `No claim ${checked.claimNumber}.`);
  // its length as typed before the claim's account is unsealed and the masks read it
  const tooLong = typedTooLong(checked.reason, REASON_BOUND);
  if (tooLong) throw new DomainError('validation_failed', 'The action is not valid.', { errors: [tooLong] });
  const reason = maskDeskReason(checked.reason, await claimOwnAccount(trx, keys, claim.id));
  const reasonError = checkReason(reason);
  if (reasonError) throw new DomainError('validation_failed', 'The action is not valid.', { errors: [reasonError] });
  const recorded = await repo.recordDeskAction(trx, {
    actionToken: checked.actionToken,
    claimId: claim.id,
    action: name,
    actor: checked.actor,
  });
  const action = { ...checked, reason };
  if (recorded === 'recorded') return { claim, replayed: false, action };
  // the page's token spent on another action (or claim): a stale page, not a double submit
  if (recorded.claimId !== claim.id || recorded.action !== name)
    throw refuseDeskAction('desk_form_used', 'This form was used for another action already: open the page again.');
  return { claim, replayed: true, action };
}

/** The claim's own account (IBAN, US account number), unsealed; none without bank details. */
export async function claimOwnAccount(
  db: Executor,
  keys: Pick<Keyring, 'encryption'>,
  claimId: string,
): Promise<{ iban?: string; usAccount?: string }> {
  const sealed = await repo.findClaimSealedAccount(db, claimId);
  return {
    ...(sealed?.iban_enc ? { iban: decrypt(keys.encryption, sealed.iban_enc) } : {}),
    ...(sealed?.us_account_enc ? { usAccount: decrypt(keys.encryption, sealed.us_account_enc) } : {}),
  };
}

/**
 * A claim's audit trail as the desk shows it (`parasol claims show`, the claim page), newest first:
 * the rows of the claim and of its contract, and the flight's `claims_opened` row of the event that
 * opened it — who reported it (an operator, a partner's key, the monitoring) — found, as written by
 * openClaimsInTransaction, under the flight that flies (the leg's operating flight, else its number)
 * at the claim's `opened_at` (the opening transaction's start, which that row repeats). Two openings
 * may start in the same millisecond (two partners' reports at once): the row is the claim's partner's
 * or no partner's (a partner's report writes its partner_id), and its actor the claim's reporter
 * (`evidence.reportedBy`, stored by an operator's or a partner's report) when the claim names one.
 */
export async function claimTrail(
  db: Executor,
  claim: Pick<
    repo.DeskClaimRow,
    | 'claim_number'
    | 'contract_number'
    | 'contract_id'
    | 'environment'
    | 'opened_at'
    | 'flight_number'
    | 'operating_flight_number'
    | 'departure_date'
    | 'partner_id'
    | 'evidence'
  >,
): Promise<AuditRow[]> {
  const flight = `${claim.operating_flight_number ?? claim.flight_number}/${claim.departure_date}`;
  const reportedBy = (claim.evidence as { reportedBy?: unknown } | null)?.reportedBy;
  return auditTrail(db, [
    { entity: 'claim', ids: [claim.claim_number] },
    // a contract's rows are under its number; under its id too: the contact changes a process of the
    // release before migration 0063 still writes during a rolling update
    { entity: 'contract', ids: [claim.contract_number, claim.contract_id] },
    {
      entity: 'flight',
      ids: [flight],
      action: 'claims_opened',
      at: claim.opened_at,
      environment: claim.environment,
      partnerOrNone: claim.partner_id,
      ...(typeof reportedBy === 'string' ? { actor: reportedBy } : {}),
    },
  ]);
}

/**
 * The audit row of a desk action on the claim: the operator, the reason, and what else `data` says,
 * dated `at` by the use case's clock (`deps.now()`, the time it writes with the change).
 */
export async function auditDeskAction(
  trx: Executor,
  claim: Pick<repo.DeskClaimRow, 'partner_id' | 'environment' | 'claim_number'>,
  action: Pick<DeskAction, 'actor' | 'reason'>,
  name: string,
  data: Record<string, unknown>,
  at: Date,
): Promise<void> {
  await audit(trx, {
    at,
    actor: action.actor,
    partnerId: claim.partner_id,
    environment: claim.environment,
    entity: 'claim',
    entityId: claim.claim_number,
    action: name,
    data: { reason: action.reason, ...data },
  });
}

/** Why a claim's state refuses a desk action: stable codes, 409, operator-only (platform/errors.ts). */
export type DeskRefusal = Extract<
  ErrorCode,
  | 'desk_form_used'
  | 'claim_settled'
  | 'claim_not_awaiting_bank_details'
  | 'claim_past_due'
  | 'phone_unchanged'
  | 'claim_under_review'
  | 'claim_not_under_review'
  | 'payout_instructed'
  | 'payout_not_pending'
  | 'payout_not_bank_transfer'
  | 'claim_not_voidable'
  | 'claim_not_voided'
  | 'void_cause_unchanged'
  | 'claim_replaced'
  | 'claim_voided_for_other_cause'
  | 'contract_cancelled'
>;

export const refuseDeskAction = (code: DeskRefusal, detail: string) => new DomainError(code, detail);

/** `firstMessageQueued`: the claim was still `opened`, its first message queued again (not texted yet). */
export type ResendOutcome = DeskOutcome & { firstMessageQueued?: true };

/**
 * Resend the link: for a claim waiting for (new) bank details before its due date — or past it while
 * under manual review, which stops the clock (`waitsForBankDetails`) — a new link (the old one takes no
 * more details: one live link per claim) until the same due date (moved by the review when it ends),
 * texted now to the contract's current phone, in this transaction — one SMS per action. Past due and
 * not under review: 409 `claim_past_due` (it expires).
 *
 * For a claim still `opened` — its first message never written: its `claims_notify` job lost or
 * failing (a key missing from the keyring to open the customer's contact, a database error: never
 * Twilio, production only queues the SMS), the sweep having left it for the
 * desk (`requeueNeverNotified`, `claim_notification_abandoned`) or not yet — its first message is
 * queued again once the cause is fixed: the same `claims_notify` job (kind `opened`) in this
 * transaction, audited as the operator's (`claim_notification_requeued_by_desk`, with the reason).
 * The job sends it once whoever runs it and however many are queued (the claim locked, its status
 * checked: only an `opened` claim is texted, then it waits for bank details); the claim's
 * `updated_at` is touched so the sweep, for a claim it has not left yet, waits its retry window again.
 */
export async function resendClaimLink(deps: NotifyDeps, input: DeskAction): Promise<ResendOutcome> {
  const checked = checkDeskAction(input);
  return deps.db.transaction().execute(async (trx) => {
    const { claim, replayed, action } = await beginDeskAction(trx, deps.keys, checked, 'resend_link');
    if (replayed) return { claimNumber: claim.claim_number, outcome: 'replayed' };
    if (claim.status === 'opened') {
      const now = deps.now();
      await repo.touchClaim(trx, claim.id, now);
      await auditDeskAction(trx, claim, action, repo.NOTIFICATION_REQUEUED_BY_DESK, {}, now);
      await deps.jobs.send('claims_notify', { claimId: claim.id }, { trx });
      return { claimNumber: claim.claim_number, outcome: 'done', firstMessageQueued: true };
    }
    if (claim.status !== 'awaiting_bank_details' && claim.status !== 'failed')
      throw refuseDeskAction(
        isSettledClaim(claim.status) ? 'claim_settled' : 'claim_not_awaiting_bank_details',
        `Claim ${claim.claim_number} is ${claim.status}: it does not wait for bank details, no link to resend.`,
      );
    // past due under manual review, the clock stands still: the claim does not expire, its link works
    if (!waitsForBankDetails(claim, deps.now()))
      throw refuseDeskAction(
        'claim_past_due',
        `Claim ${claim.claim_number} is past its due date for bank details: it expires.`,
      );
    const sent = await notifyClaimIn(trx, deps, {
      claimId: claim.id,
      kind: 'resend',
      actionToken: action.actionToken,
      actor: action.actor,
      reason: action.reason,
    });
    if (sent !== 'sent')
      throw refuseDeskAction('claim_not_awaiting_bank_details', `Claim ${claim.claim_number}: no link could be sent.`);
    return { claimNumber: claim.claim_number, outcome: 'done' };
  });
}

/**
 * The longest phone the desk reads, as typed (separators included: "+33 6 12 34 56 78"): an E.164 number
 * is at most 16 characters; a longer paste is refused `too_long`, never cut to a number it does not hold.
 */
export const PHONE_TYPED_MAX = 40;

/**
 * Correct the phone number: checked like at subscription (E.164, a valid number, one that can receive
 * an SMS: 422 phone_not_mobile for a landline…), sealed on the
 * contract; the messages written from then on go to it. The audit row says the phone changed and
 * why, never the number. Refused once the claim is settled (paid, expired: nothing more is sent).
 */
export async function correctClaimPhone(
  deps: Pick<NotifyDeps, 'db' | 'keys' | 'now'>,
  input: DeskAction & { phone: string },
): Promise<DeskOutcome> {
  const typed = input.phone.trim();
  const written = typed.replace(/[\s.()-]/g, '');
  // too long as typed: refused as such, never cut to a shorter number (or read without its separators)
  // the same rule as at subscription: a valid E.164 number the SMS can reach (not a landline…)
  const phoneError =
    typed.length > PHONE_TYPED_MAX
      ? ({
          field: '/phone',
          code: 'too_long',
          message: `must be at most ${PHONE_TYPED_MAX} characters as typed (a number in E.164 format, e.g. +33612345678); ${typed.length} given`,
        } as const)
      : customerPhoneError(written, '/phone');
  const checked = checkDeskAction(input, [phoneError]);
  if (phoneError) throw customerPhoneRefusal(phoneError);
  return deps.db.transaction().execute(async (trx) => {
    const { claim, replayed, action } = await beginDeskAction(trx, deps.keys, checked, 'correct_phone');
    if (replayed) return { claimNumber: claim.claim_number, outcome: 'replayed' };
    if (isSettledClaim(claim.status) || claim.contract_status === 'cancelled')
      throw refuseDeskAction(
        'claim_settled',
        `Claim ${claim.claim_number} is ${claim.contract_status === 'cancelled' ? 'on a cancelled contract' : claim.status}: nothing more is sent to its customer.`,
      );
    if (decrypt(deps.keys.encryption, claim.customer_phone_enc) === written)
      throw refuseDeskAction(
        'phone_unchanged',
        `Claim ${claim.claim_number}: the contract has this phone number already.`,
      );
    await repo.updateContractPhone(trx, claim.contract_id, encrypt(deps.keys.encryption, written));
    await auditDeskAction(
      trx,
      claim,
      action,
      'phone_corrected',
      { contractNumber: claim.contract_number, fields: ['phone'] },
      deps.now(),
    );
    return { claimNumber: claim.claim_number, outcome: 'done' };
  });
}

/**
 * The most a claim of this contract's leg can pay: what its terms pay (the highest of the cancellation
 * amount and the top delay tier, per passenger, times the passengers), and at most what one transfer
 * carries in its currency (`largestTransfer`: terms agreed before the agreement's bounds were capped
 * may allow more, a payout no file would take). The desk's hint and its check of a correction both.
 */
export function maxCompensation(claim: Pick<repo.DeskClaimRow, 'coverage' | 'passengers' | 'currency'>): number {
  const tiers = claim.coverage.delayTiers.map((t) => t.amount);
  const terms = Math.max(claim.coverage.cancellationAmount ?? 0, ...tiers) * claim.passengers;
  return Math.min(terms, largestTransfer(claim.currency).amount);
}

/** Sets the claim's compensation at `at` (payouts/correct-compensation.ts decides when). */
export async function setClaimCompensation(trx: Executor, claimId: string, amount: number, at: Date): Promise<void> {
  await repo.setCompensation(trx, claimId, amount, at);
}

/** Puts the claim under manual review (payouts/manual-review.ts decides when). */
export async function setClaimReview(
  trx: Executor,
  claimId: string,
  review: { at: Date; by: string; reason: string },
): Promise<void> {
  await repo.setManualReview(trx, claimId, review);
}

/**
 * Ends the claim's manual review. The review stops the clock of a claim waiting for (new) bank
 * details (it does not expire meanwhile): its due date and its link move later by the time the
 * review took. Answers the claim's due date after the release (null: none).
 */
export async function releaseClaimReview(trx: Executor, claimId: string, at: Date): Promise<Date | null> {
  return repo.releaseManualReview(trx, claimId, at);
}
