import { markClaimFailed, markClaimPaid, markClaimPaymentReturned } from '../claims/index.ts';
import { payoutMovement, recordMovements, recordPayoutReturn } from '../ledger/index.ts';
import { audit } from '../platform/audit.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Db, Executor } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { decrypt, openField, type EncryptionKeys } from '../platform/crypto.ts';
import { sameDecimal, toDecimalString } from '../platform/money.ts';
import { maskPersonalDataIn } from '../platform/personal-text.ts';
import {
  findPayout,
  findPayoutAccount,
  findPayoutByEndToEndId,
  payoutInWrittenFile,
  lockPayoutClaim,
  markPayoutFailed,
  markPayoutPaid,
  markPayoutReturned,
  upsertPendingPayout,
  type Rail,
} from './payouts-repo.ts';
import type { ReportedAmount } from './reconciliation.ts';

/**
 * Payouts: one per claim. In sandbox and preproduction the simulated bank pays within seconds (a
 * job); in production payouts wait for the next SEPA credit transfer batch (`parasol payouts
 * batch`) and are settled by the bank's report (`parasol payouts reconcile`). Both ends call
 * `settlePayout`, which moves the claim to `paid`, or to `failed` with a new link for new details.
 */

/**
 * The simulated bank rejects this one account (closed account, ISO 20022 reason AC04), so partners
 * can rehearse a failed payment and the new-details flow; it pays every other valid IBAN.
 */
export const SIMULATED_BANK_REJECTED_IBAN = 'NL91ABNA0417164300';
export const SIMULATED_BANK_REJECTION = 'AC04 closed account number (simulated bank)';

/**
 * The simulated bank pays this one account, then returns the transfer SIMULATED_BANK_RETURN_DELAY_MS
 * later (an R-transaction, ISO 20022 return reason AC04), so partners can rehearse a payment returned
 * after `claim.paid`: `claim.failed` with `paymentReturned`, the new-details flow. The return goes
 * through `settlePayout` like a production camt.054 return.
 */
export const SIMULATED_BANK_RETURNED_IBAN = 'NL02ABNA0123456789';
export const SIMULATED_BANK_RETURN = 'AC04 closed account number (simulated bank: transfer returned)';
export const SIMULATED_BANK_RETURN_DELAY_MS = 5_000;

/**
 * The same two rehearsals for a US account (a claim in USD, paid by ACH in production): routing number
 * 021000021 with account number 000000000004 is rejected (ACH return reason R03, no account); with
 * 000000000005 it is paid, then returned SIMULATED_BANK_RETURN_DELAY_MS later (R02, account closed),
 * through `settlePayout` like a production NACHA return. Every other valid US account is paid.
 */
export const SIMULATED_BANK_US_ROUTING = '021000021';
export const SIMULATED_BANK_REJECTED_US_ACCOUNT = '000000000004';
export const SIMULATED_BANK_US_REJECTION = 'R03 no account / unable to locate account (simulated bank)';
export const SIMULATED_BANK_RETURNED_US_ACCOUNT = '000000000005';
export const SIMULATED_BANK_US_RETURN = 'R02 account closed (simulated bank: entry returned)';

/** Sandbox and preproduction: the simulated bank; production: ACH for a US account, else a credit transfer (pain.001). */
export function railFor(environment: Environment, accountKind: 'iban' | 'us' = 'iban'): Rail {
  if (environment !== 'production') return 'simulated_bank';
  return accountKind === 'us' ? 'ach' : 'sepa';
}

/**
 * Called in the transaction that accepts a claim's bank details: the claim's payout (new, or the
 * failed one again with a new attempt), and for the simulated bank its job — both or neither.
 */
export async function requestPayout(
  trx: Executor,
  jobs: JobQueue,
  claim: {
    id: string;
    claimNumber: string;
    partnerId: string;
    environment: Environment;
    amount: number;
    currency: string;
    /** The account the customer gave: an IBAN, or a US account (paid by ACH in production). */
    accountKind: 'iban' | 'us';
  },
  /** The use case's clock: the audit row's time (`payout_requested`). */
  at: Date,
): Promise<void> {
  const rail = railFor(claim.environment, claim.accountKind);
  const payout = await upsertPendingPayout(trx, {
    claimId: claim.id,
    partnerId: claim.partnerId,
    environment: claim.environment,
    rail,
    amount: claim.amount,
    currency: claim.currency,
    accountKind: claim.accountKind,
    at,
  });
  if (!payout) return;
  if (rail === 'simulated_bank') await jobs.send('payouts_simulated_bank', { payoutId: payout.id }, { trx });
  await audit(trx, {
    actor: 'system',
    partnerId: claim.partnerId,
    environment: claim.environment,
    entity: 'payout',
    entityId: payout.end_to_end_id,
    action: 'payout_requested',
    at,
    data: {
      claimNumber: claim.claimNumber,
      rail,
      attempt: payout.attempt,
      amount: payout.amount,
      currency: payout.currency,
    },
  });
}

export interface SettleDeps {
  jobs: JobQueue;
  now: () => Date;
  bankDetailsDays: number;
  /** Opens the claim's bank details: the account holder's name is masked in the bank's reason. */
  encryption: EncryptionKeys;
  /**
   * Told of each bank reason masked without the account holder's name (`HOLDER_NOT_OPENED`): the
   * worker logs it (the simulated bank), the bank report's import lists it in its report, which the
   * CLI prints (reconcile.ts). Nothing is told when absent.
   */
  warn?: ((warning: SettleWarning) => void) | undefined;
}

/**
 * A bank reason kept masked without the account holder's name: the claim's sealed holder opens with
 * none of the keys held (its master key removed from PARASOL_MASTER_KEYS_PREVIOUS). IBANs, emails and
 * phones are masked all the same, and the report is settled. No personal data in it.
 */
export interface SettleWarning {
  code: 'holder_not_opened';
  claimId: string;
  endToEndId: string;
  message: string;
}

export const HOLDER_NOT_OPENED = "bank reason masked without the account holder's name: it cannot be opened";

export type SettleOutcome =
  'paid' | 'failed' | 'returned' | 'unchanged' | 'superseded' | 'conflict' | 'amount_mismatch' | 'not_sent' | 'unknown';

/** What a bank report can say of a transfer: paid, rejected (failed), or paid then sent back (returned). */
export type BankOutcome = 'paid' | 'failed' | 'returned';

/**
 * What the bank says happened to one transfer, by end-to-end id. Idempotent: the same report twice
 * changes nothing the second time (`unchanged`). A report about an earlier attempt of a payout that
 * has since been retried is `superseded`. On `failed` the claim becomes `failed` and the customer is
 * texted a new link. `returned` (an R-transaction: the customer's bank sent a paid transfer back)
 * turns a `paid` payout `returned` and its claim `failed` the same way (settleReturn); a return of a
 * transfer not reported paid yet is a rejection (`failed`). A return and a rejection say the same of
 * the money (it is not with the customer): one reported after the other is `unchanged`, and `paid`
 * reported again for a returned payout (the same report imported again) too. `paid` then `failed`
 * (or the reverse) is a `conflict` left to an operator, and so is any report about a `cancelled` payout
 * (its claim voided before it was sent). A report giving another amount or currency than the payout's
 * (`report.amount`, camt.054) changes nothing either: `amount_mismatch`, audited (`bank_report_mismatch`)
 * and left to an operator, whatever the report says happened. The bank's free-text reason is kept as
 * `bankReason` leaves it (the account holder's name, IBANs, emails and phones masked).
 * Locks the claim, then the payout, as every writer of a claim does (docs/DECISIONS.md, "Voiding a
 * claim").
 */
export async function settlePayout(
  trx: Executor,
  deps: SettleDeps,
  report: {
    endToEndId: string;
    outcome: BankOutcome;
    reason?: string | null | undefined;
    amount?: ReportedAmount | null | undefined;
    actor: string;
    /**
     * The rails the report can speak of, always said (a caller cannot forget it): a payout of another
     * rail is `unknown` to it, left as it is. A bank's report (reconcile.ts): `sepa` and `ach`, the
     * transfers a bank was sent — never a sandbox or preproduction payout; the simulated bank:
     * `simulated_bank`; the ACH settlement: `ach`.
     */
    rails: readonly Rail[];
    /**
     * A bank's own report (camt.054, a NACHA return file): it can only speak of a transfer the bank
     * was sent. A payout whose attempt was never in a written file (still pending, or of a batch
     * committed without its file) is `not_sent`, audited (`bank_report_not_sent`) and left as it is.
     * Not for an operator's CSV row, which may record a payout paid another way.
     */
    sentInFile: boolean;
  },
): Promise<SettleOutcome> {
  const found = await findPayoutByEndToEndId(trx, report.endToEndId);
  if (!found) return 'unknown';
  if (!report.rails.includes(found.rail)) return 'unknown';
  // the claim's lock first, then the payout's: the order every writer of a claim uses (the desk voiding
  // it, the SEPA batch), so a bank report imported during a void never deadlocks with it. A payout's
  // claim never changes: the unlocked read above names the right one.
  const claim = await lockPayoutClaim(trx, found.claim_id);
  const payout = (await findPayoutByEndToEndId(trx, report.endToEndId, true))!;
  if (payout.reported_attempt !== payout.attempt) return 'superseded';
  // its claim was voided before the payout was sent: no bank can report on it, an operator looks
  if (payout.status === 'cancelled') return 'conflict';
  // a bank cannot report a transfer it was never sent: an operator looks, nothing changes
  if (report.sentInFile && !(await payoutInWrittenFile(trx, payout.id))) {
    await auditBankReport(trx, deps, report, payout, 'bank_report_not_sent', {
      outcome: report.outcome,
      status: payout.status,
    });
    return 'not_sent';
  }
  const reported = comparableAmount(payout, report.amount);
  if (reported && !sameAmount(payout, reported)) {
    await auditBankReport(trx, deps, report, payout, 'bank_report_mismatch', {
      reported: { amount: reported.value.slice(0, 40), currency: reported.currency.slice(0, 10) },
      payout: { amount: toDecimalString(payout.amount, payout.currency), currency: payout.currency },
      outcome: report.outcome,
      status: payout.status,
    });
    return 'amount_mismatch';
  }
  if (payout.status === 'returned') return 'unchanged';
  if (report.outcome === 'returned') {
    if (payout.status === 'paid') return settleReturn(trx, deps, payout, claim, report);
    if (payout.status === 'failed') return 'unchanged';
  }
  const outcome = report.outcome === 'returned' ? 'failed' : report.outcome;
  if (payout.status === outcome) return 'unchanged';
  if (payout.status === 'paid' || payout.status === 'failed') return 'conflict';

  const now = deps.now();
  // the bank's reason, masked once: kept on the payout and the claim, and audited
  const bankText = outcome === 'failed' ? await bankReason(trx, deps, payout, report.reason) : '';
  if (outcome === 'paid') {
    await markPayoutPaid(trx, payout.id, now);
    await markClaimPaid(trx, deps.jobs, { id: claim.id, contractId: claim.contract_id, attempt: payout.attempt }, now);
  } else {
    const reason = bankText || 'rejected by the bank';
    await markPayoutFailed(trx, payout.id, now, reason);
    await markClaimFailed(
      trx,
      deps.jobs,
      { id: claim.id },
      { reason, dueAt: new Date(now.getTime() + deps.bankDetailsDays * 86_400_000), attempt: payout.attempt, at: now },
    );
  }
  // compensation paid (or the failed attempt, a memorandum entry) enters the ledger in this transaction
  await recordMovements(trx, [payoutMovement(ledgerPayout(payout, claim), outcome, now, report.actor)]);
  await audit(trx, {
    actor: report.actor,
    partnerId: payout.partner_id,
    environment: payout.environment,
    entity: 'claim',
    entityId: claim.claim_number,
    action: outcome === 'paid' ? 'paid' : 'payment_failed',
    at: now,
    data: {
      endToEndId: payout.end_to_end_id,
      rail: payout.rail,
      attempt: payout.attempt,
      amount: payout.amount,
      ...(outcome === 'failed' ? { reason: report.reason == null ? null : bankText } : {}),
    },
  });
  return outcome;
}

/** A bank report that changes nothing, audited on its payout with the report's actor. */
async function auditBankReport(
  trx: Executor,
  deps: Pick<SettleDeps, 'now'>,
  report: { actor: string },
  payout: ReportedPayout,
  action: 'bank_report_not_sent' | 'bank_report_mismatch',
  data: Record<string, unknown>,
): Promise<void> {
  await audit(trx, {
    actor: report.actor,
    partnerId: payout.partner_id,
    environment: payout.environment,
    entity: 'payout',
    entityId: payout.end_to_end_id,
    action,
    at: deps.now(),
    data,
  });
}

type ReportedPayout = NonNullable<Awaited<ReturnType<typeof findPayoutByEndToEndId>>>;
type LockedClaim = Awaited<ReturnType<typeof lockPayoutClaim>>;

/**
 * Whether a bank report's amount is the payout's: the same currency, and the same decimal value
 * (`sameDecimal`: exact, trailing zeros dropped — "500000.00" HUF, "150.000" EUR, "5000.00" JPY are the
 * payout's 500000 HUF, 150.00 EUR, 5000 JPY). An amount the report does not give in the payout's
 * currency is not compared (`comparableAmount`).
 */
export function sameAmount(payout: { amount: number; currency: string }, reported: ReportedAmount): boolean {
  return (
    reported.currency === payout.currency &&
    sameDecimal(reported.value, toDecimalString(Number(payout.amount), payout.currency))
  );
}

/**
 * The reported amount to compare with the payout's, null when there is none to compare. A payout in
 * another currency than EUR may be paid from the EUR debtor account (PARASOL_SEPA_DEBTOR_ACCOUNTS
 * without one in its currency): only the instructed amount (`AmtDtls/InstdAmt`) is then in the
 * payout's currency; the transaction's or entry's amount is in the account's, converted, perhaps with
 * the bank's charges — no amount of the payout's, so the row applies as a CSV row would
 * (docs/DECISIONS.md, "Bank report amounts"). An instructed amount is always compared, and so is any
 * amount of a EUR payout (a SEPA transfer is EUR from end to end).
 */
export function comparableAmount(
  payout: { currency: string },
  reported: ReportedAmount | null | undefined,
): ReportedAmount | null {
  if (!reported) return null;
  if (reported.currency !== payout.currency && !reported.instructed && payout.currency !== 'EUR') return null;
  return reported;
}

/**
 * A paid transfer returned, in the caller's transaction: payout `returned` (with the masked reason),
 * claim back to `failed` with a new due date and a new link (markClaimPaymentReturned: SMS,
 * `claim.failed`, the contract active again), the payment reversed in the ledger
 * (recordPayoutReturn), an audit row `payment_returned`. New details then pay a new attempt.
 */
async function settleReturn(
  trx: Executor,
  deps: SettleDeps,
  payout: ReportedPayout,
  claim: LockedClaim,
  report: { reason?: string | null | undefined; actor: string },
): Promise<'returned'> {
  const now = deps.now();
  const bankText = await bankReason(trx, deps, payout, report.reason);
  const reason = bankText || 'returned by the bank';
  await markPayoutReturned(trx, payout.id, now, reason);
  await markClaimPaymentReturned(
    trx,
    deps.jobs,
    { id: claim.id, claimNumber: claim.claim_number, contractId: claim.contract_id },
    {
      reason,
      dueAt: new Date(now.getTime() + deps.bankDetailsDays * 86_400_000),
      attempt: payout.attempt,
      actor: report.actor,
      at: now,
    },
  );
  await recordPayoutReturn(trx, ledgerPayout(payout, claim), now, report.actor);
  await audit(trx, {
    actor: report.actor,
    partnerId: payout.partner_id,
    environment: payout.environment,
    entity: 'claim',
    entityId: claim.claim_number,
    action: 'payment_returned',
    at: now,
    data: {
      endToEndId: payout.end_to_end_id,
      rail: payout.rail,
      attempt: payout.attempt,
      amount: payout.amount,
      reason: report.reason == null ? null : bankText,
    },
  });
  return 'returned';
}

/**
 * A bank's free-text reason as it is kept (trimmed; '' when there is none): it may quote the account
 * holder, known here — IBANs, emails and phones masked, then the holder's name (maskPersonalDataIn
 * with the name), so no reason stored or audited names the customer. Computed once per settlement.
 * When the holder's name cannot be opened (its key removed), the reason is masked without it and
 * `deps.warn` told (`SettleWarning`, no personal data in it): the bank's report is settled all the same.
 */
async function bankReason(
  trx: Executor,
  deps: SettleDeps,
  payout: { claim_id: string; end_to_end_id: string },
  reason: string | null | undefined,
): Promise<string> {
  const text = (reason ?? '').trim();
  if (text === '') return '';
  const account = await findPayoutAccount(trx, payout.claim_id);
  let holder = '';
  if (account.account_holder_enc !== null || account.account_holder !== null) {
    try {
      holder = openField(deps.encryption, account.account_holder_enc, account.account_holder);
    } catch {
      deps.warn?.({
        code: 'holder_not_opened',
        claimId: payout.claim_id,
        endToEndId: payout.end_to_end_id,
        message: HOLDER_NOT_OPENED,
      });
    }
  }
  // a US account's number, known too: a bank's return may quote it (no form tells it from other numbers)
  let accountNumber: string | undefined;
  if (account.us_account_enc !== null)
    try {
      accountNumber = decrypt(deps.encryption, account.us_account_enc);
    } catch {
      // masked without it, as without the name (the warning above is the same key's)
    }
  return maskPersonalDataIn(text, holder, accountNumber);
}

function ledgerPayout(payout: ReportedPayout, claim: { id: string; contract_id: string }) {
  return {
    id: payout.id,
    attempt: payout.attempt,
    partnerId: payout.partner_id,
    environment: payout.environment,
    amount: payout.amount,
    currency: payout.currency,
    claimId: claim.id,
    contractId: claim.contract_id,
  };
}

/**
 * The simulated bank (sandbox, preproduction): takes a pending payout and settles it at once —
 * paid, unless the account is the documented rejected one. A job, retried like any other; a payout
 * no longer pending (already settled, retried since, or cancelled: its claim voided) is left alone. For
 * the documented returned account it pays, and queues its own return of that transfer (`returnOf`, the
 * attempt's end-to-end id) SIMULATED_BANK_RETURN_DELAY_MS later, in the same transaction: both or neither.
 */
export async function payWithSimulatedBank(
  deps: SettleDeps & { db: Db },
  payoutId: string,
  /** The end-to-end id of the transfer the simulated bank now returns (its second job). */
  returnOf?: string,
): Promise<SettleOutcome | 'skipped'> {
  return deps.db.transaction().execute(async (trx) => {
    const found = await findPayout(trx, payoutId);
    if (!found) return 'skipped';
    // the claim's lock first, as every writer of a claim (the desk voiding it holds it, then its payout)
    const claim = await lockPayoutClaim(trx, found.claim_id);
    const payout = await findPayout(trx, payoutId, true);
    if (!payout || payout.rail !== 'simulated_bank') return 'skipped';
    if (returnOf !== undefined) {
      // the return of a paid transfer, as a bank report says it: settlePayout decides (a later attempt: superseded)
      if (payout.status !== 'paid' || payout.end_to_end_id !== returnOf) return 'skipped';
      const returned = await findPayoutAccount(trx, payout.claim_id);
      return settlePayout(trx, deps, {
        endToEndId: returnOf,
        outcome: 'returned',
        reason: returned.account_kind === 'us' ? SIMULATED_BANK_US_RETURN : SIMULATED_BANK_RETURN,
        actor: 'system:simulated-bank',
        rails: ['simulated_bank'],
        sentInFile: false,
      });
    }
    // not pending: settled, retried since, or cancelled (its claim voided)
    if (payout.status !== 'pending') return 'skipped';
    // a claim under manual review is not paid automatically: approving it queues this job again
    if (claim.manual_review_at) return 'skipped';
    const account = await findPayoutAccount(trx, payout.claim_id);
    const us = account.account_kind === 'us';
    // the documented accounts: an IBAN, or a US account (routing number and account number)
    const number = us
      ? account.routing_number === SIMULATED_BANK_US_ROUTING
        ? decrypt(deps.encryption, account.us_account_enc ?? '')
        : ''
      : decrypt(deps.encryption, account.iban_enc ?? '');
    const rejected = number === (us ? SIMULATED_BANK_REJECTED_US_ACCOUNT : SIMULATED_BANK_REJECTED_IBAN);
    const outcome = await settlePayout(trx, deps, {
      endToEndId: payout.end_to_end_id,
      outcome: rejected ? 'failed' : 'paid',
      reason: rejected ? (us ? SIMULATED_BANK_US_REJECTION : SIMULATED_BANK_REJECTION) : null,
      actor: 'system:simulated-bank',
      rails: ['simulated_bank'],
      sentInFile: false,
    });
    if (outcome === 'paid' && number === (us ? SIMULATED_BANK_RETURNED_US_ACCOUNT : SIMULATED_BANK_RETURNED_IBAN))
      await deps.jobs.send(
        'payouts_simulated_bank',
        { payoutId: payout.id, returnOf: payout.end_to_end_id },
        { trx, startAfter: new Date(deps.now().getTime() + SIMULATED_BANK_RETURN_DELAY_MS) },
      );
    return outcome;
  });
}
