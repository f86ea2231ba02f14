import {
  auditDeskAction,
  beginDeskAction,
  checkDeskAction,
  CLAIM_NUMBER,
  isSettledClaim,
  refuseDeskAction,
  type DeskAction,
  type DeskOutcome,
} from '../claims/index.ts';
import { decrypt, type Keyring } from '../platform/crypto.ts';
import type { Db, Executor } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { checkSepaAccount, type BankAccountIssue } from './bank-account.ts';
import { isValidEndToEndId } from './end-to-end-id.ts';
import { leftOutBicFault } from './sepa-batch.ts';
import { claimNumberOfPayout, findClaimPayout, findPayoutAccount, setPayoutAccountBic } from './payouts-repo.ts';
import { bankFileOf } from './model.ts';

export interface PayoutBicInput extends DeskAction {
  /** The creditor's BIC: 8 or 11 characters, spaces and case ignored. */
  bic: string;
}

/**
 * Give a pending payout the creditor's BIC (the claim desk; docs/OPERATOR.md, "Cross-border payouts
 * and the BIC"): a payout in another currency than EUR is a cross-border transfer, which names the
 * customer's bank by its BIC; details given without one (before the bank-details page asked it for
 * such claims, or an IBAN the form accepted without) leave the payout out of every file. The operator
 * gets the BIC (from the customer, or the bank's directory for the IBAN) and sets it here: checked as
 * the file will (`checkSepaAccount` with the claim's currency: BIC format, the BIC's country the
 * IBAN's), only while the payout is `pending` — in no file yet (the batch locks the claim with the
 * payout while it takes one: this waits for it, then finds it instructed and refuses). The payout's
 * left-out mark is cleared when the BIC was its only fault (`leftOutBicFault`): the next batch takes
 * it; left out for something else too (a name the file refuses), the mark stays, with its time and
 * reason (`stillLeftOut`), and the gauge keeps counting it. Audited `payout_bic_set` with the old and the new
 * BIC (bank identifiers, not personal data), the end-to-end id and the IBAN's last four only. The same
 * BIC again, or the same one-time token, does nothing more (`replayed`).
 *
 * Why this and not a new bank-details link for the customer: the customer gave a valid account and
 * the claim is `payment_pending`; what is missing is their bank's public identifier, which the
 * operator can obtain without asking the customer to type the IBAN again, and which a link cannot ask
 * of a claim whose payout is already queued.
 */
export async function setPayoutBic(
  deps: { db: Db; keys: Pick<Keyring, 'encryption'>; now: () => Date },
  input: PayoutBicInput,
): Promise<
  DeskOutcome & {
    endToEndId?: string;
    bic?: string;
    /** The payout stays left out of its file for another fault than its BIC (why, as the batch said). */
    stillLeftOut?: string;
  }
> {
  const bic = input.bic.replace(/\s+/g, '').toUpperCase();
  // a BIC left empty is told with the reason's fault, in one 422
  const missing: FieldError | undefined =
    bic === '' ? { field: '/bic', code: 'required', message: 'is required' } : undefined;
  const checked = checkDeskAction(input, [missing]);
  if (missing)
    throw new DomainError('validation_failed', 'The BIC is not valid for this payout.', { errors: [missing] });
  return deps.db.transaction().execute(async (trx) => {
    const { claim, replayed, action } = await beginDeskAction(trx, deps.keys, checked, 'set_bic');
    if (replayed) return { claimNumber: claim.claim_number, outcome: 'replayed' };
    if (isSettledClaim(claim.status))
      throw refuseDeskAction('claim_settled', `Claim ${claim.claim_number} is ${claim.status}: its payout is over.`);
    const payout = await findClaimPayout(trx, claim.id);
    if (payout?.status === 'instructed')
      throw refuseDeskAction(
        'payout_instructed',
        `Claim ${claim.claim_number}: its payout is in ${bankFileOf(payout.rail)} sent to the bank already; its BIC stands.`,
      );
    if (payout?.status !== 'pending')
      throw refuseDeskAction(
        'payout_not_pending',
        `Claim ${claim.claim_number}: its payout is ${payout?.status ?? 'missing'}, not pending: no BIC to set.`,
      );
    // a sandbox payout goes to the simulated bank, in no file: it has no use for a BIC
    if (payout.rail !== 'sepa')
      throw refuseDeskAction(
        'payout_not_bank_transfer',
        `Claim ${claim.claim_number}: its payout goes ${payout.rail === 'ach' ? 'to a US account by ACH (a NACHA file)' : `to the simulated bank (${payout.rail})`}, in no credit transfer file: no BIC to set.`,
      );
    const account = await findPayoutAccount(trx, claim.id);
    const check = checkSepaAccount({
      iban: decrypt(deps.keys.encryption, account.iban_enc ?? ''), // a `sepa` payout's account is an IBAN
      bic,
      currency: payout.currency,
    });
    if (!check.ok) throw invalidBic(check.issues);
    if (account.bic === bic) return { claimNumber: claim.claim_number, outcome: 'replayed' };
    // the mark goes only when the BIC was all that kept the payout out of its file
    const stillLeftOut =
      payout.left_out_code !== null && leftOutBicFault(payout.left_out_code, payout.left_out_reason) !== 'all';
    await setPayoutAccountBic(trx, { claimId: claim.id, payoutId: payout.id, bic, clearLeftOut: !stillLeftOut });
    await auditDeskAction(
      trx,
      claim,
      action,
      'payout_bic_set',
      {
        endToEndId: payout.end_to_end_id,
        currency: payout.currency,
        ibanLast4: account.iban_last4,
        from: account.bic,
        to: bic,
      },
      deps.now(),
    );
    return {
      claimNumber: claim.claim_number,
      outcome: 'done',
      endToEndId: payout.end_to_end_id,
      bic,
      ...(stillLeftOut ? { stillLeftOut: payout.left_out_reason ?? '' } : {}),
    };
  });
}

/** The claim number of a payout named by its end-to-end id (any attempt's), or the claim number as given. */
export async function claimNumberFor(db: Executor, claimNumberOrEndToEndId: string): Promise<string> {
  const text = claimNumberOrEndToEndId.trim().toUpperCase();
  if (CLAIM_NUMBER.test(text)) return text;
  // ours are capitals (PSL + base32): one typed or pasted in small letters is the same id
  const found = isValidEndToEndId(text) ? await claimNumberOfPayout(db, text) : undefined;
  if (!found) throw new DomainError('not_found', `No claim or payout ${text}.`);
  return found;
}

function invalidBic(issues: BankAccountIssue[]): DomainError {
  const errors: FieldError[] = issues.map((issue) => ({
    field: issue.field === 'bic' ? '/bic' : '/iban',
    code: issue.code === 'bic_country_mismatch' ? 'not_allowed' : 'invalid_format',
    message: issue.message,
  }));
  return new DomainError('validation_failed', 'The BIC is not valid for this payout.', { errors });
}
