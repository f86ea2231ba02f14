import type { Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import * as repo from './claims-repo.ts';
import {
  auditDeskAction,
  beginDeskAction,
  checkDeskAction,
  refuseDeskAction,
  type DeskAction,
  type DeskOutcome,
} from './desk.ts';
import { checkVoidCause, voidCauseError } from './model.ts';

/**
 * Correct a void's cause (the claim desk; docs/OPERATOR.md): a claim voided with the wrong cause —
 * `other` when the flight data was in fact wrong (the leg could never get a new claim), or
 * `flight_data` when it was a fraud or a duplicate (an operator's event could reopen it) — gets the
 * right one, kept on its leg (`contract_legs.claim_void_cause`, which claims' opening reads: from
 * then on an operator's event opens the leg a new claim, or no longer does). The void's time stays.
 * Audited `void_cause_corrected` with both causes. Done once per one-time token (`replayed`).
 *
 * Refused (409): `claim_not_voided` (nothing to correct), `void_cause_unchanged` (the cause is already
 * the one asked), `claim_replaced` — an operator's event already opened the leg a new claim that
 * replaced this one: its cause no longer decides anything (the leg's mark is the latest void's), and
 * changing it to `other` would leave that replacement standing on a cause that says it should not
 * exist. Either way it is refused: to withdraw the replacement, void it (with its own cause).
 * `cause` is required: anything but `flight_data` or `other` is 422 `validation_failed` (`/cause`).
 *
 * Refused `contract_cancelled` when the claim's contract is cancelled: a contract with a voided claim
 * is cancelled only when the void's cause was `flight_data` (flight/contracts-repo's hasClaims), and
 * the premium was refunded on that cause. A correction would not take the refund back (and the opener
 * never reads a cancelled contract's legs): a fraud found afterwards is the claim desk's to pursue
 * (recovering the refund outside Parasol), not a change of the cause.
 *
 * Locks as the void does (the claim, then its contract and leg: `lockLegOfVoidedClaim`): an opening
 * on the leg that share-locked them first commits first and is seen (refused `claim_replaced`). An
 * event already running reads the old cause: the opener's statement picks the legs on the cause it
 * reads before it takes any lock. A leg it picked (`flight_data`) that a correction to `other`
 * changes meanwhile is waited for and dropped (its lock re-checks the locked row); a leg it left out
 * (`other`) that a correction to `flight_data` opens meanwhile stays left out — that event opens
 * nothing on it: record the event again after the correction.
 */
export async function correctVoidCause(
  deps: { db: Db; keys: Pick<Keyring, 'encryption'>; now: () => Date },
  input: DeskAction & { cause?: string | undefined },
): Promise<DeskOutcome> {
  const checked = checkDeskAction(input, [voidCauseError(input.cause)]);
  const cause = checkVoidCause(input.cause);
  return deps.db.transaction().execute(async (trx) => {
    const { claim, replayed, action } = await beginDeskAction(trx, deps.keys, checked, 'void_cause');
    if (replayed) return { claimNumber: claim.claim_number, outcome: 'replayed' };
    if (claim.status !== 'voided')
      throw refuseDeskAction(
        'claim_not_voided',
        `Claim ${claim.claim_number} is ${claim.status}: it is not voided, its void has no cause to correct.`,
      );
    const leg = await repo.lockLegOfVoidedClaim(trx, {
      contractId: claim.contract_id,
      legId: claim.leg_id,
      claimNumber: claim.claim_number,
    });
    if (leg.contractStatus === 'cancelled')
      throw refuseDeskAction(
        'contract_cancelled',
        `Claim ${claim.claim_number}: its contract ${claim.contract_number} is cancelled and its premium refunded${leg.cause === 'flight_data' ? ', as the void for wrong flight data allowed' : ''}; correcting the cause would not take the refund back. A fraud found since is for the claim desk to recover outside Parasol.`,
      );
    if (leg.replacedBy)
      throw refuseDeskAction(
        'claim_replaced',
        `Claim ${claim.claim_number} was replaced by ${leg.replacedBy}: its void's cause no longer decides anything (void ${leg.replacedBy} if it should not stand).`,
      );
    if (leg.cause === cause)
      throw refuseDeskAction('void_cause_unchanged', `Claim ${claim.claim_number} was voided for ${cause} already.`);
    await repo.setLegClaimVoidCause(trx, claim.leg_id, cause);
    await auditDeskAction(trx, claim, action, 'void_cause_corrected', { from: leg.cause, to: cause }, deps.now());
    return { claimNumber: claim.claim_number, outcome: 'done' };
  });
}
