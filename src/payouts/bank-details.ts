import { claimEvidence, claimLink, type ClaimEventKind, type ClaimEvidence } from '../claims/index.ts';
import { emitClaimWebhookEvents } from '../webhooks/index.ts';
import { requestPayout } from './payouts.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { checkAccountHolder, type AccountHolderIssueCode } from './account-holder.ts';
import { checkSepaAccount, type BankAccountIssueCode, type BankAccountIssueFacts } from './bank-account.ts';
import { checkUsBankAccount, type UsBankAccountIssueCode } from './us-bank-account.ts';
import { audit } from '../platform/audit.ts';
import { encrypt, sha256Hex, type Keyring } from '../platform/crypto.ts';
import type { Db, Executor } from '../platform/db.ts';
import type { ClaimStatus, Environment } from '../platform/db-schema.ts';
import type { CustomerLang } from '../platform/language.ts';

/** What the customer page shows of a claim, found by its link token. */
export interface ClaimForCustomer {
  claimId: string;
  claimNumber: string;
  environment: Environment;
  /** The claim's status; `expired` from its due date on, before the expiry job records it (not under review). */
  status: ClaimStatus;
  event: ClaimEventKind;
  delayMinutes: number | null;
  amount: number;
  currency: string;
  flightNumber: string;
  departureDate: string;
  language: CustomerLang;
  /** The partner's brand name the customer knows (partners.brand_name, else its name). */
  brand: string;
  passengers: number;
  /** The link can still take bank details (the claim's newest link, unused, before its due date). */
  open: boolean;
  /**
   * A newer link (a reminder, a resend, a rejected payment's) replaced this one: its page shows none of
   * the claim's details (a resend may mean the earlier link went to a wrong number), only where the
   * claim stands in one neutral line (`replacedPage`).
   */
  replaced: boolean;
  /**
   * The page sends the customer to the newest message: the claim waits for details and this link was
   * replaced by a newer one or served (its new link's message is sent, or on its way). Never the newer
   * link itself: a forwarded link gives no access.
   */
  newestMessage: boolean;
  ibanLast4: string | null;
  departureAirport: string;
  arrivalAirport: string;
  paidAt: Date | null;
  /** Why the customer is paid: the flight facts and the rule (claims/evidence.ts). */
  evidence: ClaimEvidence;
}

export type LinkState = { kind: 'unknown' } | { kind: 'claim'; claim: ClaimForCustomer };

async function findByToken(db: Executor, token: string, now: Date, lock: boolean): Promise<LinkState> {
  if (!/^[A-Za-z0-9_-]{40,64}$/.test(token)) return { kind: 'unknown' };
  // The claim row is the lock every writer of a claim and its link takes first (notification job,
  // expiry, payment settlement): one lock order, and the status read here is the current one.
  const row = await claimLink.findClaimByTokenHash(db, sha256Hex(token), lock);
  if (!row) return { kind: 'unknown' };
  const replaced = Boolean(row.replaced);
  // past its due date and not under the desk's review, a claim still waiting is expired — as the expiry
  // job (every 15 minutes, `expireOverdueClaims`: the same test) will record: its page says so from
  // the due instant, never "being prepared" nor "use the newest message" while that job has not run yet
  const pastDue =
    (row.status === 'awaiting_bank_details' || row.status === 'failed') &&
    row.manual_review_at === null &&
    row.bank_details_due_at !== null &&
    row.bank_details_due_at.getTime() <= now.getTime();
  const status: ClaimStatus = pastDue ? 'expired' : row.status;
  const waiting = status === 'awaiting_bank_details' || status === 'failed';
  return {
    kind: 'claim',
    claim: {
      claimId: row.id,
      claimNumber: row.claim_number,
      environment: row.environment,
      status,
      event: row.event,
      delayMinutes: row.delay_minutes,
      amount: Number(row.compensation_amount),
      currency: row.currency,
      flightNumber: row.flight_number,
      departureDate: row.departure_date,
      language: row.customer_language,
      brand: row.brand,
      passengers: row.passengers,
      // waiting for bank details: the first ones, or new ones after a rejected payment; a claim under
      // the desk's manual review does not expire, and its link keeps taking them past its due date
      open:
        !replaced &&
        row.used_at === null &&
        (row.expires_at.getTime() > now.getTime() || row.manual_review_at !== null) &&
        waiting,
      replaced,
      // only while the claim waits for details: a paid, pending, withdrawn or expired claim's newest
      // message gives no link to use
      newestMessage: waiting && (replaced || row.used_at !== null),
      ibanLast4: row.iban_last4,
      departureAirport: row.departure_airport,
      arrivalAirport: row.arrival_airport,
      paidAt: row.paid_at,
      evidence: claimEvidence(row),
    },
  };
}

/** GET /c/<token>: the claim behind a link; never another claim, whatever the token. */
export function claimForLink(db: Db, token: string, now: Date): Promise<LinkState> {
  return findByToken(db, token, now, false);
}

/**
 * What the form sends: an IBAN (and BIC), or — for a claim paid in USD (`usAccountOffered`) — a US
 * account, `kind: 'us'`. A US account sent for a claim in another currency is not taken: the IBAN is
 * then asked for.
 */
export type BankDetailsInput =
  | { kind?: 'iban'; accountHolder: string; iban: string; bic?: string | undefined }
  | { kind: 'us'; accountHolder: string; routingNumber: string; accountNumber: string; accountType: string };

export type BankDetailsIssue = {
  field: 'accountHolder' | 'iban' | 'bic' | 'routingNumber' | 'accountNumber' | 'accountType';
  code: BankAccountIssueCode | UsBankAccountIssueCode | AccountHolderIssueCode;
  /** What the page words the issue with (an IBAN's country and lengths, a BIC's length): `checkSepaAccount`'s. */
  facts?: BankAccountIssueFacts;
};

/** Whether the claim's page offers a US account (routing and account numbers, paid by ACH): a claim paid in USD. */
export function usAccountOffered(currency: string): boolean {
  return currency === 'USD';
}

/** The last four characters of an account, as kept and shown (`iban_last4`); a shorter US account number padded with `*`. */
function lastFour(account: string): string {
  return account.slice(-4).padStart(4, '*');
}

export type BankDetailsOutcome =
  | { kind: 'unknown' }
  | { kind: 'closed'; claim: ClaimForCustomer }
  | { kind: 'invalid'; claim: ClaimForCustomer; issues: BankDetailsIssue[] }
  | { kind: 'accepted'; claim: ClaimForCustomer; ibanLast4: string };

/**
 * POST /c/<token>: checks the account (a SEPA IBAN, with a BIC where the IBAN's country or the claim's
 * currency needs one: `checkSepaAccount`; or, for a claim in USD, a US account: `checkUsBankAccount`) and,
 * in one transaction, stores it encrypted, uses up the link and moves the claim to
 * `payment_pending`, with the claim's payout requested (the simulated bank's job, or the next SEPA
 * batch). A link is single use once details are accepted; after a rejected payment the customer
 * gets a new link, and new details replace the old ones. A link a newer one replaced takes none (`closed`).
 */
export async function submitBankDetails(
  deps: { db: Db; jobs: JobQueue; keys: Keyring; now: () => Date },
  token: string,
  input: BankDetailsInput,
): Promise<BankDetailsOutcome> {
  const checkedHolder = checkAccountHolder(input.accountHolder);
  const holder = checkedHolder.ok ? checkedHolder.name : '';
  const issues: BankDetailsIssue[] = checkedHolder.ok ? [] : [{ field: 'accountHolder', code: checkedHolder.code }];

  return deps.db.transaction().execute(async (trx) => {
    const now = deps.now();
    const state = await findByToken(trx, token, now, true);
    if (state.kind === 'unknown') return state;
    const claim = state.claim;
    if (!claim.open) return { kind: 'closed', claim };
    const stored = checkAccount(input, claim.currency, deps.keys);
    if (!stored.ok) issues.push(...stored.issues);
    if (issues.length || !stored.ok) return { kind: 'invalid', claim, issues };
    const { last4, country, account, audited } = stored;
    await claimLink.saveBankDetails(trx, {
      claimId: claim.claimId,
      accountHolderEnc: encrypt(deps.keys.encryption, holder),
      ibanLast4: last4,
      country,
      account,
      receivedAt: now,
    });
    await claimLink.useClaimToken(trx, claim.claimId, now);
    const updated = await claimLink.markClaimPaymentPending(trx, claim.claimId, now);
    await requestPayout(
      trx,
      deps.jobs,
      {
        id: claim.claimId,
        claimNumber: claim.claimNumber,
        partnerId: updated.partner_id,
        environment: claim.environment,
        amount: Number(updated.compensation_amount),
        currency: updated.currency,
        accountKind: account.kind,
      },
      now,
    );
    await emitClaimWebhookEvents(trx, deps.jobs, 'claim.bank_details_received', [claim.claimId], now);
    await audit(trx, {
      actor: 'customer',
      partnerId: updated.partner_id,
      environment: claim.environment,
      entity: 'claim',
      entityId: claim.claimNumber,
      action: 'bank_details_received',
      at: now,
      data: audited,
    });
    return {
      kind: 'accepted',
      claim: { ...claim, status: 'payment_pending', open: false, ibanLast4: last4 },
      ibanLast4: last4,
    };
  });
}

type CheckedAccount =
  | {
      ok: true;
      last4: string;
      country: string;
      account: Parameters<typeof claimLink.saveBankDetails>[1]['account'];
      /** The audit row's data: the last four, the country (a US account: its type), never the account. */
      audited: Record<string, string>;
    }
  | { ok: false; issues: BankDetailsIssue[] };

/** The account given, checked, and sealed for storage: an IBAN (and BIC) or, for a claim in USD, a US account. */
function checkAccount(input: BankDetailsInput, currency: string, keys: Keyring): CheckedAccount {
  if (input.kind === 'us' && usAccountOffered(currency)) {
    const check = checkUsBankAccount(input);
    if (!check.ok) return { ok: false, issues: check.issues.map((i) => ({ field: i.field, code: i.code })) };
    const a = check.account;
    const last4 = lastFour(a.accountNumber);
    return {
      ok: true,
      last4,
      country: 'US',
      account: {
        kind: 'us',
        routingNumber: a.routingNumber,
        accountEnc: encrypt(keys.encryption, a.accountNumber),
        accountType: a.accountType,
      },
      audited: { accountLast4: last4, country: 'US', accountType: a.accountType },
    };
  }
  const iban = input.kind === 'us' ? '' : input.iban;
  const bic = input.kind === 'us' ? undefined : input.bic;
  // the claim's currency decides the BIC: another than EUR is a cross-border transfer, which needs it
  const check = checkSepaAccount({ iban, bic, currency });
  if (!check.ok)
    return {
      ok: false,
      issues: check.issues.map((i) => ({ field: i.field, code: i.code, ...(i.facts ? { facts: i.facts } : {}) })),
    };
  const a = check.account;
  const last4 = a.iban.slice(-4);
  return {
    ok: true,
    last4,
    country: a.country,
    account: { kind: 'iban', ibanEnc: encrypt(keys.encryption, a.iban), bic: a.bic },
    audited: { ibanLast4: last4, country: a.country },
  };
}
