import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  SIMULATED_BANK_REJECTED_US_ACCOUNT,
  SIMULATED_BANK_US_REJECTION,
  SIMULATED_BANK_US_ROUTING,
} from '../../src/payouts/payouts.ts';
import { approveManualPayout, reviewClaim } from '../../src/payouts/manual-review.ts';
import { checkUsBankAccount } from '../../src/payouts/us-bank-account.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  sandboxClaimLink,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * A claim paid in USD asks for a US account (routing number, account number, checking or savings),
 * or an IBAN instead; the account number is sealed and shown by its last four only; the simulated
 * bank pays a US account, and rejects its documented one.
 */
describe('a US bank account on the bank-details page', () => {
  let t: TestApp;
  let dollars: TestPartner;
  let euros: TestPartner;
  let seq = 6100 + (process.pid % 400);

  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
    dollars = await createTestPartner(t.db, { agreement: { currency: 'USD' } });
    euros = await createTestPartner(t.db);
  });
  after(() => t.close());

  /** A sandbox claim of the partner on a cancelled flight: its bank-details link path. */
  const claimLink = (partner: TestPartner) => sandboxClaimLink(t, partner, { flightNumber: `AF${seq++}` });

  const send = (path: string, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: path,
      payload: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

  const rowsOf = (contractNumber: string) =>
    t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as ct', 'ct.id', 'cl.contract_id')
      .innerJoin('claim_bank_details as b', 'b.claim_id', 'cl.id')
      .innerJoin('payouts as p', 'p.claim_id', 'cl.id')
      .select([
        'cl.id',
        'cl.claim_number',
        'cl.status as claim_status',
        'b.account_kind',
        'b.iban_enc',
        'b.iban_last4',
        'b.routing_number',
        'b.us_account_enc',
        'b.us_account_type',
        'b.country',
        'p.rail',
        'p.status',
        'p.end_to_end_id',
        'p.failure_reason',
      ])
      .where('ct.contract_number', '=', contractNumber)
      .executeTakeFirstOrThrow();

  it('documents a valid US account that the simulated bank rejects', () => {
    const check = checkUsBankAccount({
      routingNumber: SIMULATED_BANK_US_ROUTING,
      accountNumber: SIMULATED_BANK_REJECTED_US_ACCOUNT,
      accountType: 'checking',
    });
    assert.ok(check.ok, JSON.stringify(check));
  });

  it('asks a USD claim for a US account, with the IBAN form one link away; a EUR claim for an IBAN only', async () => {
    const { path } = await claimLink(dollars);
    const page = await t.app.inject({ method: 'GET', url: path });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /name="accountKind" value="us"/);
    assert.match(page.body, /<label for="f-routingNumber">Routing number \(ABA, 9 digits\)<\/label>/);
    assert.match(page.body, /id="f-accountNumber" name="accountNumber"/);
    assert.match(page.body, /<option value="checking" >Checking<\/option>/);
    assert.doesNotMatch(page.body, /name="iban"/);
    assert.match(page.body, new RegExp(`<a id="use-iban" href="${path}\\?account=iban">`));

    const iban = await t.app.inject({ method: 'GET', url: `${path}?account=iban` });
    assert.match(iban.body, /name="accountKind" value="iban"/);
    assert.match(iban.body, /name="iban"/);
    assert.doesNotMatch(iban.body, /name="routingNumber"/);
    assert.match(iban.body, new RegExp(`<a id="use-us" href="${path}">`));

    const eur = await t.app.inject({ method: 'GET', url: (await claimLink(euros)).path });
    assert.match(eur.body, /name="iban"/);
    assert.doesNotMatch(eur.body, /routingNumber|use-iban|use-us/);
    // a US account sent for a EUR claim is not taken: the IBAN is asked for
    const refused = await send((await claimLink(euros)).path, {
      accountKind: 'us',
      accountHolder: 'Jordan Smith',
      routingNumber: '021000021',
      accountNumber: '000123456789',
      accountType: 'checking',
    });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /id="f-iban-error">Give your IBAN\.</);
  });

  it('words each field error, the form kept as sent', async () => {
    const { path } = await claimLink(dollars);
    const res = await send(path, {
      accountKind: 'us',
      accountHolder: 'Jordan Smith',
      routingNumber: '021000022',
      accountNumber: '',
      accountType: 'savings',
    });
    assert.equal(res.statusCode, 422);
    assert.match(
      res.body,
      /id="f-routingNumber-error">This routing number is not valid \(its last digit does not match\): please check it\.</,
    );
    assert.match(res.body, /id="f-accountNumber-error">Give your account number\.</);
    assert.match(res.body, /value="021000022"/);
    assert.match(res.body, /<option value="savings" selected>Savings<\/option>/);
    assert.doesNotMatch(res.body, /f-accountType-error/);
    const type = await send(path, {
      accountKind: 'us',
      accountHolder: 'Jordan Smith',
      routingNumber: '021000021',
      accountNumber: '12345',
      accountType: 'brokerage',
    });
    assert.match(type.body, /id="f-accountType-error">Choose checking or savings\.</);
    // the list opens on an empty choice: a customer who picks no type is told so, not sent as checking
    const page = await t.app.inject({ method: 'GET', url: path });
    assert.match(page.body, /<select id="f-accountType"[^>]*>\s*<option value="" selected>Choose…<\/option>/);
    const none = await send(path, {
      accountKind: 'us',
      accountHolder: 'Jordan Smith',
      routingNumber: '021000021',
      accountNumber: '12345',
      accountType: '',
    });
    assert.equal(none.statusCode, 422);
    assert.match(none.body, /id="f-accountType-error">Choose checking or savings\.</);
    assert.match(none.body, /<option value="" selected>Choose…<\/option>/);
  });

  it('keeps the account number sealed and shown by its last four; the simulated bank pays it', async () => {
    const { path, contractNumber } = await claimLink(dollars);
    const res = await send(path, {
      accountKind: 'us',
      accountHolder: 'Jordan Smith',
      routingNumber: '0210-0002 1',
      accountNumber: '0001 2345-6789',
      accountType: 'checking',
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    assert.match(res.body, /account ending 6789/);
    assert.doesNotMatch(res.body, /000123456789/);
    const row = await eventually(async () => {
      const r = await rowsOf(contractNumber);
      return r.status === 'paid' ? r : undefined;
    }, 30_000);
    assert.deepEqual(
      [row.account_kind, row.iban_enc, row.iban_last4, row.routing_number, row.us_account_type, row.country, row.rail],
      ['us', null, '6789', '021000021', 'checking', 'US', 'simulated_bank'],
    );
    assert.ok(row.us_account_enc && !row.us_account_enc.includes('123456789'), 'sealed');
    assert.equal(row.claim_status, 'paid');
    assert.match(row.end_to_end_id, /^PSL[A-Z2-7]{12}$/, 'a NACHA individual id: 15 characters');
    const audits = await t.db
      .selectFrom('audit_log')
      .select(['action', 'data'])
      .where('entity_id', '=', row.claim_number)
      .where('action', '=', 'bank_details_received')
      .execute();
    assert.deepEqual(
      audits.map((a) => a.data),
      [{ accountLast4: '6789', country: 'US', accountType: 'checking' }],
    );
  });

  /** The claim desk on a contract's claim: its number, the use cases' deps and a desk action's input. */
  async function deskOn(contractNumber: string) {
    const { claim_number: claimNumber } = await t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as ct', 'ct.id', 'cl.contract_id')
      .select('cl.claim_number')
      .where('ct.contract_number', '=', contractNumber)
      .executeTakeFirstOrThrow();
    const deps = { db: t.db, jobs: t.app.parasol.jobs, keys: t.app.parasol.keys, now: () => new Date() };
    const desk = (reason: string, token: string) => ({
      claimNumber,
      actor: 'operator:desk@insurer.test',
      reason,
      actionToken: `${token}-${process.pid}-${claimNumber}`,
    });
    return { claimNumber, deps, desk };
  }

  it("the claim desk never keeps the claim's own account number in clear, even typed bare in a reason", async () => {
    const { path, contractNumber } = await claimLink(dollars);
    const { claimNumber, deps, desk } = await deskOn(contractNumber);
    // under review first: the simulated bank holds the payout, so the approval below finds it pending
    assert.equal((await reviewClaim(deps, desk('check the booking', 'us-review'))).outcome, 'done');
    const res = await send(path, {
      accountKind: 'us',
      accountHolder: 'Jordan Smith',
      routingNumber: '021000021',
      accountNumber: '000123456789',
      accountType: 'checking',
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    // no word naming an account, no routing number next to it: only the claim's own number tells it
    const said = 'customer confirmed 0001 2345 6789 by phone, and 000123456789 again';
    assert.equal((await approveManualPayout(deps, desk(said, 'us-approve'))).outcome, 'done');
    const [approved] = await t.db
      .selectFrom('audit_log')
      .select('data')
      .where('entity', '=', 'claim')
      .where('entity_id', '=', claimNumber)
      .where('action', '=', 'manual_payout_approved')
      .execute();
    assert.equal(
      (approved!.data as { reason: string }).reason,
      'customer confirmed •••• 6789 by phone, and •••• 6789 again',
    );
  });

  it('a reason the masks make longer than 500 characters is refused, not kept longer', async () => {
    const { path, contractNumber } = await claimLink(dollars);
    const { deps, desk } = await deskOn(contractNumber);
    assert.equal((await reviewClaim(deps, desk('check the booking', 'long-review'))).outcome, 'done');
    const res = await send(path, {
      accountKind: 'us',
      accountHolder: 'Jordan Smith',
      routingNumber: '021000021',
      accountNumber: '12345678',
      accountType: 'checking',
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    // 500 characters as typed; the account (8) masked as "•••• 5678" (9) makes 501
    const said = `${'x'.repeat(491)} 12345678`;
    assert.equal(said.length, 500);
    await assert.rejects(approveManualPayout(deps, desk(said, 'long-approve')), (error: unknown) => {
      const e = error as { code?: string; extra?: { errors?: { field: string; code: string }[] } };
      assert.equal(e.code, 'validation_failed', String(error));
      assert.deepEqual(
        e.extra?.errors?.map((x) => `${x.field} ${x.code}`),
        ['/reason too_long'],
      );
      return true;
    });
  });

  it('rejects the documented account: the claim fails with the ACH return reason', async () => {
    const { path, contractNumber } = await claimLink(dollars);
    const res = await send(path, {
      accountKind: 'us',
      accountHolder: 'Jordan Smith',
      routingNumber: SIMULATED_BANK_US_ROUTING,
      accountNumber: SIMULATED_BANK_REJECTED_US_ACCOUNT,
      accountType: 'savings',
    });
    assert.equal(res.statusCode, 200);
    const row = await eventually(async () => {
      const r = await rowsOf(contractNumber);
      return r.status === 'failed' ? r : undefined;
    }, 30_000);
    assert.deepEqual([row.failure_reason, row.claim_status], [SIMULATED_BANK_US_REJECTION, 'failed']);
  });

  it('takes an IBAN for a USD claim from a customer abroad (the BIC required: a cross-border transfer)', async () => {
    const { path, contractNumber } = await claimLink(dollars);
    const noBic = await send(path, {
      accountKind: 'iban',
      accountHolder: 'Camille Martin',
      iban: 'DE89 3704 0044 0532 0130 00',
    });
    assert.equal(noBic.statusCode, 422);
    assert.match(noBic.body, /id="f-bic-error"/);
    assert.match(noBic.body, /name="accountKind" value="iban"/, 'the IBAN form again');
    const res = await send(path, {
      accountKind: 'iban',
      accountHolder: 'Camille Martin',
      iban: 'DE89 3704 0044 0532 0130 00',
      bic: 'COBADEFFXXX',
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    const row = await eventually(async () => {
      const r = await rowsOf(contractNumber);
      return r.status === 'paid' ? r : undefined;
    }, 30_000);
    assert.deepEqual(
      [row.account_kind, row.routing_number, row.us_account_enc, row.country],
      ['iban', null, null, 'DE'],
    );
    assert.equal(row.end_to_end_id.length, 29);
  });
});
