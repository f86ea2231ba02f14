import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createAchBatch, type BatchDeps } from '../../src/payouts/sepa-batch.ts';
import {
  FLIGHT,
  insureFlight,
  post,
  productionSmsLink,
  sepaPayoutsEnv,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * What the ACH tests (test/payouts/ach-*.http.test.ts) share: the insurer configured as an ACH
 * originator, a production USD claim whose customer gives a US account on the bank-details page, and
 * the dependencies of `createAchBatch` / `createPayoutBatches` at a given time.
 */

/** The insurer's ACH originator (PARASOL_ACH_*): immediate origin and company id 1123456789, ODFI 02600959. */
export const ACH_ORIGINATOR_ENV: Readonly<Record<string, string>> = Object.freeze({
  PARASOL_ACH_IMMEDIATE_DESTINATION: '026009593',
  PARASOL_ACH_IMMEDIATE_DESTINATION_NAME: 'Bank of America',
  PARASOL_ACH_COMPANY_NAME: 'Parasol',
  PARASOL_ACH_COMPANY_ID: '1123456789',
});

/** Production payouts written to `payoutsDir`: pain.001 files (sepaPayoutsEnv) and NACHA files (ACH_ORIGINATOR_ENV). */
export function achPayoutsEnv(payoutsDir: string): Record<string, string> {
  return { PARASOL_PUBLIC_URL: 'https://claims.parasol.test', ...sepaPayoutsEnv(payoutsDir), ...ACH_ORIGINATOR_ENV };
}

/** The bank-details form's fields for a US account. */
export interface UsAccountForm {
  accountHolder: string;
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
}

export const US_ACCOUNT: Readonly<UsAccountForm> = Object.freeze({
  accountHolder: 'Jane Doe',
  routingNumber: '121000358',
  accountNumber: '4455667788',
  accountType: 'checking',
});

/** Posts a US account on a claim's bank-details page (`link`: its URL or path); the page's answer. */
export async function submitUsAccount(t: TestApp, link: string, account: Partial<UsAccountForm> = {}) {
  return t.app.inject({
    method: 'POST',
    url: new URL(link, 'https://claims.parasol.test').pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ accountKind: 'us', ...US_ACCOUNT, ...account }).toString(),
  });
}

export interface UsClaim {
  id: string;
  claimNumber: string;
  compensationAmount: number;
  contractNumber: string;
}

/**
 * A production USD claim (the flight cancelled, reported by `operator`) whose customer gave a US account
 * through the link of the claim's SMS: its payout pending, rail `ach`. `account` changes the form's fields.
 */
export async function usAccountClaim(
  t: TestApp,
  partner: TestPartner,
  options: { flightNumber: string; operator: { authorization: string }; account?: Partial<UsAccountForm> },
): Promise<UsClaim> {
  const c = await insureFlight(t.app, partner, { flightNumber: options.flightNumber });
  const opened = await post(
    t.app,
    `${FLIGHT}/claims`,
    { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
    options.operator,
  );
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const claim = await t.db
    .selectFrom('claims as cl')
    .innerJoin('contracts as ct', 'ct.id', 'cl.contract_id')
    .select(['cl.id', 'cl.claim_number', 'cl.compensation_amount'])
    .where('ct.contract_number', '=', c.contractNumber)
    .executeTakeFirstOrThrow();
  const form = await submitUsAccount(t, await productionSmsLink(t, claim.id), options.account);
  assert.equal(form.statusCode, 200, form.body.slice(0, 400));
  return {
    id: claim.id,
    claimNumber: claim.claim_number,
    compensationAmount: Number(claim.compensation_amount),
    contractNumber: c.contractNumber,
  };
}

/** The batch's dependencies on the test app, ACH configured, at `at` (an ISO instant; default: now). */
export function achBatchDeps(t: TestApp, directory: string, at?: string): BatchDeps {
  return {
    db: t.db,
    keys: t.app.parasol.keys,
    now: () => (at ? new Date(at) : new Date()),
    debtor: undefined,
    directory,
    ach: t.app.parasol.config.achOriginator,
  };
}

/**
 * A NACHA batch made at `at` that commits, then cannot write its file (the payouts directory is a
 * plain file): as if the process had stopped between the commit and the write. Its payouts are
 * `instructed`, its file never recorded.
 */
export async function achBatchWithoutFile(t: TestApp, dir: string, at: string): Promise<void> {
  const blocked = path.join(dir, `not-a-directory-${process.pid}`);
  await fs.writeFile(blocked, '');
  try {
    await assert.rejects(
      createAchBatch({ ...achBatchDeps(t, dir, at), directory: blocked }, { actor: 'operator:test' }),
    );
  } finally {
    await fs.rm(blocked);
  }
}
