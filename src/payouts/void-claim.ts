import {
  auditDeskAction,
  beginDeskAction,
  checkDeskAction,
  checkVoidCause,
  isVoidableClaim,
  markClaimVoided,
  refuseDeskAction,
  voidCauseError,
  type DeskAction,
  type DeskOutcome,
} from '../claims/index.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { cancelPendingPayout, findClaimPayout } from './payouts-repo.ts';

/**
 * Void a claim (the claim desk; docs/OPERATOR.md): the insurer withdraws a claim opened on wrong
 * flight data (an operator's correction lists it in `claimsNotChanged`) or on a fraud or sanctions
 * finding, before any money left — a claim `opened`, waiting for (new) bank details (`awaiting_bank_details`,
 * `failed`), or `payment_pending` while its payout is still `pending` (in no SEPA file sent to the
 * bank). Refused otherwise with `claim_not_voidable` (paid, expired, or its transfer with the bank:
 * reconcile it instead). In one transaction, under the claim's lock (the SEPA batch locks the claim
 * with its payout, so the two never both win): the pending payout `cancelled` (no batch, no simulated
 * bank pays it), the claim `voided` with its link closed, the customer texted if a message had given
 * them a link, partners told (`claim.voided`), the contract completed if every leg is over (claims'
 * `markClaimVoided`), audited `claim_voided` with the reason. The ledger has nothing to reverse: it
 * records no entry when a claim opens, only money paid (docs/DECISIONS.md, "Voiding a claim").
 * Voiding a voided claim again does nothing more: `replayed` — the same form (its token), or a new one
 * giving no cause or the cause it was voided for; a new one giving another cause is refused
 * `claim_voided_for_other_cause` (409: a void does not change a void's cause; `parasol claims
 * void-cause` does, claims/void-cause.ts).
 *
 * The void's cause (`cause`, default `other`), kept on the claim's leg and in the audit row:
 * `flight_data` — the flight data that opened the claim was wrong, and an operator's flight event
 * (the true outcome) may open the leg a new claim; `other` — fraud, sanctions, a duplicate, anything
 * else: the leg never gets another claim. Anything else: 422 `validation_failed` (`/cause`).
 */
export async function voidClaim(
  deps: { db: Db; jobs: JobQueue; keys: Pick<Keyring, 'encryption'>; now: () => Date },
  input: DeskAction & { cause?: string | undefined },
): Promise<DeskOutcome> {
  const checked = checkDeskAction(input, [voidCauseError(input.cause, 'other')]);
  const cause = checkVoidCause(input.cause, 'other');
  return deps.db.transaction().execute(async (trx) => {
    const { claim, replayed, action } = await beginDeskAction(trx, deps.keys, checked, 'void');
    if (replayed) return { claimNumber: claim.claim_number, outcome: 'replayed' };
    if (claim.status === 'voided') {
      // voided already (another form, another token): the same cause is done already; another cause
      // is not a void but a correction, which says so (void-cause). A replaced claim's leg carries a
      // later claim's state, not this void's cause: nothing to compare, done already.
      if (input.cause?.trim() && !claim.replaced_by && claim.claim_void_cause !== cause)
        throw refuseDeskAction(
          'claim_voided_for_other_cause',
          `Claim ${claim.claim_number} was voided already, for ${claim.claim_void_cause ?? 'other'}: voiding it again does not change its cause; correct it with parasol claims void-cause ${claim.claim_number} --cause ${cause}.`,
        );
      return { claimNumber: claim.claim_number, outcome: 'replayed' };
    }
    const payout = await findClaimPayout(trx, claim.id);
    // the void's time: its link closes at it, and its audit row is dated by it (the claims bordereau reads that)
    const now = deps.now();
    if (!isVoidableClaim(claim.status, payout?.status))
      throw refuseDeskAction(
        'claim_not_voidable',
        claim.status === 'payment_pending'
          ? `Claim ${claim.claim_number}: its payout is ${payout?.status ?? 'missing'}, in the bank's hands already; reconcile it instead.`
          : `Claim ${claim.claim_number} is ${claim.status}: it can no longer be voided.`,
      );
    // pending: not in any SEPA file (the batch holds the claim's lock while it takes one)
    const cancelled = payout?.status === 'pending' ? await cancelPendingPayout(trx, payout.id) : false;
    if (payout?.status === 'pending' && !cancelled)
      throw refuseDeskAction('claim_not_voidable', `Claim ${claim.claim_number}: its payout left pending meanwhile.`);
    await markClaimVoided(
      trx,
      deps.jobs,
      // `opened`: its first message is not written yet (its job finds the claim voided and sends nothing)
      { id: claim.id, contractId: claim.contract_id, legId: claim.leg_id, texted: claim.status !== 'opened' },
      cause,
      now,
    );
    await auditDeskAction(
      trx,
      claim,
      action,
      'claim_voided',
      {
        status: claim.status,
        cause,
        compensation: { amount: Number(claim.compensation_amount), currency: claim.currency },
        payout: payout ? { endToEndId: payout.end_to_end_id, status: payout.status, cancelled } : null,
      },
      now,
    );
    return { claimNumber: claim.claim_number, outcome: 'done' };
  });
}
