import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { expireClaims } from '../../src/claims/expire-claims.ts';
import { notifyClaim, type ResendRequest } from '../../src/claims/notify-claim.ts';
import { resendLinks } from '../../src/claims/resend-links.ts';
import { reviewClaim } from '../../src/payouts/manual-review.ts';
import { payWithSimulatedBank } from '../../src/payouts/payouts.ts';
import { insertSepaBatch, lockPendingSepaPayouts, markPayoutsInstructed } from '../../src/payouts/payouts-repo.ts';
import { MAX_BATCH } from '../../src/payouts/sepa-batch.ts';
import { decrypt } from '../../src/platform/crypto.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import { formatMoney } from '../../src/platform/money.ts';
import { createUser } from '../../src/partners/users.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  operatorToken,
  post,
  productionSmsLink,
  runCliOn,
  sepaPayoutsEnv,
  uniqueSlug,
  usingPostgres,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';

/**
 * Issue 14 §4: the operator's claim desk. The claim page shows the claim (personal data masked), its
 * messages, payout attempts and audit trail; each action takes a reason, is audited with it and the
 * operator, is done once per form (a double submit does nothing more), and is refused with the
 * problem on the page when the claim's state does not allow it. Sandbox: the outbox and the
 * simulated bank, the app's own worker.
 */

const ADMIN = { email: 'ops-desk-tests@parasol.test', password: 'operator password 42' };
const ACTOR = `operator:${ADMIN.email}`;
const IBAN = 'DE89 3704 0044 0532 0130 00';

describe('the claim desk', () => {
  let t: TestApp;
  let partner: TestPartner;
  let operator: Browser;
  let payoutsDir: string;
  before(async () => {
    payoutsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-desk-payouts-'));
    t = await buildTestApp({
      env: {
        PARASOL_ADMIN_EMAIL: ADMIN.email,
        PARASOL_ADMIN_PASSWORD: ADMIN.password,
        PARASOL_JOB_POLL_SECONDS: '1',
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        ...sepaPayoutsEnv(payoutsDir),
      },
    });
    partner = await createTestPartner(t.db);
    operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
  });
  after(async () => {
    await t.close();
    await fs.rm(payoutsDir, { recursive: true, force: true });
  });

  const messagesOf = async (contractNumber: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
      headers: partner.auth,
    });
    assert.equal(res.statusCode, 200);
    return (JSON.parse(res.body) as { messages: { to: string; body: string; link: string | null }[] }).messages;
  };
  const linkPath = (link: string) => new URL(link).pathname;
  let seq = 6100 + (process.pid % 500);

  /** A cancelled flight's claim with its first SMS written; answers the contract, the claim and the link. */
  async function openClaim() {
    const c = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}` });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const claimNumber = opened.body.claimsOpened[0].claimNumber as string;
    const [first] = await eventually(async () => {
      const m = await messagesOf(c.contractNumber);
      return m.length ? m : undefined;
    });
    const claim = await t.db
      .selectFrom('claims')
      .select(['id', 'contract_id'])
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    return { c, claimNumber, claim, link: first!.link! };
  }

  /** The claim page and the fields of its forms (CSRF and the one-time token). */
  async function desk(claimNumber: string) {
    const res = await operator.get(`/admin/claims/${claimNumber}`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    const actionToken = /name="actionToken" value="([^"]+)"/.exec(res.body)?.[1];
    assert.ok(actionToken);
    return { body: res.body, form: { _csrf: csrfOf(res.body)!, actionToken } };
  }

  async function act(claimNumber: string, action: string, fields: Record<string, string>) {
    return operator.post(`/admin/claims/${claimNumber}/${action}`, fields);
  }

  async function auditOf(claimNumber: string, action: string) {
    return t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'claim')
      .where('entity_id', '=', claimNumber)
      .where('action', '=', action)
      .execute();
  }

  async function sendBankDetails(link: string, iban = IBAN) {
    const res = await t.app.inject({
      method: 'POST',
      url: linkPath(link),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ accountHolder: 'Camille Martin', iban, bic: '' }).toString(),
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
  }

  const cli = (...argv: string[]) => runCliOn(t, ['--json', ...argv], { actor: 'operator:cli-test' });

  const statusOf = async (claimId: string) =>
    (await t.db.selectFrom('claims').select('status').where('id', '=', claimId).executeTakeFirstOrThrow()).status;

  it('shows the claim, its messages, its audit trail, the phone and nothing of it in clear', async () => {
    const { claimNumber, c } = await openClaim();
    const { body } = await desk(claimNumber);
    assert.match(body, new RegExp(c.contractNumber));
    assert.match(body, /id="claim-phone">\+33 •••• \d\d</);
    assert.match(body, /id="claim-messages"/);
    assert.match(body, /<td>opened<\/td><td>outbox<\/td>/);
    assert.match(body, /id="claim-audit"/);
    assert.match(body, /awaiting_bank_details/);
    assert.match(body, /id="evidence"/);
    for (const form of ['desk-resend', 'desk-phone', 'desk-review']) assert.match(body, new RegExp(`id="${form}"`));
  });

  it('resend the link: a second SMS with a new working link, the old one closed, once per form, audited with the reason', async () => {
    const { c, claimNumber, link } = await openClaim();
    const { form } = await desk(claimNumber);
    const first = await act(claimNumber, 'resend-link', { ...form, reason: 'Customer lost the SMS' });
    assert.equal(first.statusCode, 303);
    assert.equal(first.headers.location, `/admin/claims/${claimNumber}?done=done`);
    // the same form again (a double submit): nothing more
    const again = await act(claimNumber, 'resend-link', { ...form, reason: 'Customer lost the SMS' });
    assert.equal(again.headers.location, `/admin/claims/${claimNumber}?done=replayed`);
    assert.match((await operator.get(again.headers.location as string)).body, /sent already: nothing was done again/);
    // the same page's token for another action: refused, the page is to be opened again
    const stale = await act(claimNumber, 'review', { ...form, reason: 'Hold it' });
    assert.equal(stale.statusCode, 409);
    assert.match(stale.body, /open the page again/);

    const messages = await messagesOf(c.contractNumber);
    assert.equal(messages.length, 2, 'the first message and one resent');
    const resent = messages[1]!;
    assert.ok(resent.link && resent.link !== link, 'a new link');
    const old = await t.app.inject({ method: 'GET', url: linkPath(link) });
    assert.equal(old.statusCode, 410, 'the old one is closed, not unknown');
    assert.match(old.body, /id="newest-message"/, 'its page sends the customer to the newest message');
    assert.ok(!old.body.includes(linkPath(resent.link)), 'never the new link on the old one');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: linkPath(resent.link) })).statusCode,
      200,
      'the new one works',
    );

    const audited = await auditOf(claimNumber, 'bank_details_link_resent');
    assert.equal(audited.length, 1);
    assert.equal(audited[0]!.actor, ACTOR);
    assert.equal((audited[0]!.data as { reason: string }).reason, 'Customer lost the SMS');
    const page = await desk(claimNumber);
    assert.match(page.body, /<td>resend<\/td>/);
  });

  it('correct the phone: the next SMS goes to the new number, the database and the audit hold no clear number', async () => {
    const { c, claimNumber, claim } = await openClaim();
    const refused = await act(claimNumber, 'phone', {
      ...(await desk(claimNumber)).form,
      phone: '+33 1',
      reason: 'typo',
    });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /role="alert"/);
    assert.match(refused.body, /valid phone number/);
    // a paste longer than 40 characters is refused as such: cut at 40 first, this one became +33698765432
    const pasted = `+33698765432${' '.repeat(28)}${'7'.repeat(20)}`;
    assert.equal(pasted.length, 60);
    const tooLong = await act(claimNumber, 'phone', {
      ...(await desk(claimNumber)).form,
      phone: pasted,
      reason: 'Customer pasted a number',
    });
    assert.equal(tooLong.statusCode, 422);
    assert.match(
      tooLong.body,
      /must be at most 40 characters as typed \(a number in E\.164 format, e\.g\. \+33612345678\); 60 given/,
    );
    assert.doesNotMatch(tooLong.body, /id="desk-phone-number"[^>]*maxlength=/, 'nor cut by the browser: no maxlength');
    // a reason is read whole, its length checked before it is masked (the masks are slow on 16,000 letters)
    const longReason = await act(claimNumber, 'review', {
      ...(await desk(claimNumber)).form,
      reason: 'a'.repeat(16_000),
    });
    assert.equal(longReason.statusCode, 422);
    assert.match(longReason.body, /must be at most 500 characters/);
    assert.equal((await auditOf(claimNumber, 'manual_review_started')).length, 0, 'nothing done');
    assert.equal((await auditOf(claimNumber, 'phone_corrected')).length, 0, 'nothing changed');

    const phone = '+33698765432';
    const done = await act(claimNumber, 'phone', {
      ...(await desk(claimNumber)).form,
      phone,
      reason: 'Customer called from a new number',
    });
    assert.equal(done.statusCode, 303);
    const contract = await t.db
      .selectFrom('contracts')
      .select('customer_phone_enc')
      .where('id', '=', claim.contract_id)
      .executeTakeFirstOrThrow();
    assert.equal(decrypt(t.app.parasol.keys.encryption, contract.customer_phone_enc), phone);
    const audited = await auditOf(claimNumber, 'phone_corrected');
    assert.equal(audited.length, 1);
    assert.equal(audited[0]!.actor, ACTOR);
    assert.equal((audited[0]!.data as { reason: string }).reason, 'Customer called from a new number');

    await act(claimNumber, 'resend-link', { ...(await desk(claimNumber)).form, reason: 'To the new number' });
    const messages = await messagesOf(c.contractNumber);
    assert.equal(messages.length, 2);
    assert.equal(messages[1]!.to, phone, 'the next message goes to the new number');
    assert.notEqual(messages[0]!.to, phone);
    assert.match((await desk(claimNumber)).body, /id="claim-phone">\+33 •••• 32</);

    // nowhere in clear: not in any text column of the claim's rows, nor in the audit log
    const digits = phone.slice(1);
    const found = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM (
        SELECT row_to_json(c)::text AS t FROM contracts c WHERE c.id = ${claim.contract_id}
        UNION ALL SELECT data::text FROM audit_log
        UNION ALL SELECT row_to_json(o)::text FROM sms_outbox o WHERE o.claim_id = ${claim.id}
        UNION ALL SELECT row_to_json(a)::text FROM claim_desk_actions a
      ) x WHERE x.t LIKE ${`%${digits}%`}`.execute(t.db);
    assert.equal(found.rows[0]!.n, 0);
  });

  it('review holds the payout, even one queued afterwards; approve pays it through the normal path (ledger, receipt)', async () => {
    const { c, claimNumber, claim, link } = await openClaim();
    const reviewed = await act(claimNumber, 'review', {
      ...(await desk(claimNumber)).form,
      reason: 'Suspicious booking',
    });
    assert.equal(reviewed.statusCode, 303);
    const page = await desk(claimNumber);
    assert.match(page.body, /id="claim-review">Under review since/);
    assert.match(page.body, /id="desk-approve"/);

    // the customer gives bank details: the payout is queued, the worker's job leaves it alone
    await sendBankDetails(link);
    const payout = await t.db
      .selectFrom('payouts')
      .select(['id', 'status'])
      .where('claim_id', '=', claim.id)
      .executeTakeFirstOrThrow();
    const settle = {
      db: t.db,
      jobs: t.app.parasol.jobs,
      now: () => new Date(),
      bankDetailsDays: 30,
      encryption: t.app.parasol.keys.encryption,
    };
    assert.equal(await payWithSimulatedBank(settle, payout.id), 'skipped');
    assert.equal(await statusOf(claim.id), 'payment_pending');
    assert.equal(
      (await t.db.selectFrom('payouts').select('status').where('id', '=', payout.id).executeTakeFirstOrThrow()).status,
      'pending',
    );

    // a second review is refused, with the problem on the page
    const twice = await act(claimNumber, 'review', { ...(await desk(claimNumber)).form, reason: 'again' });
    assert.equal(twice.statusCode, 409);
    assert.match(twice.body, /under manual review already/);
    const twiceCli = await cli('claims', 'review', claimNumber, '--reason', 'again');
    assert.equal((JSON.parse(twiceCli.err) as { error: { code: string } }).error.code, 'claim_under_review');

    const approved = await act(claimNumber, 'approve', {
      ...(await desk(claimNumber)).form,
      reason: 'Booking checked with the partner',
    });
    assert.equal(approved.statusCode, 303);
    await eventually(async () => ((await statusOf(claim.id)) === 'paid' ? true : undefined));
    const ledger = await t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount'])
      .where('claim_id', '=', claim.id)
      .execute();
    assert.deepEqual(
      ledger.map((e) => e.kind),
      ['compensation_paid'],
      'the payout is in the ledger, once',
    );
    await eventually(async () => {
      const m = await messagesOf(c.contractNumber);
      return m.some((x) => x.body.includes('we have paid')) ? true : undefined;
    });
    const approvals = await auditOf(claimNumber, 'manual_payout_approved');
    assert.equal(approvals.length, 1);
    assert.equal(approvals[0]!.actor, ACTOR);
    assert.equal((approvals[0]!.data as { reason: string }).reason, 'Booking checked with the partner');
    assert.equal((await auditOf(claimNumber, 'manual_review_started')).length, 1);
    assert.match((await desk(claimNumber)).body, /id="claim-payouts"/);

    // settled: every action is refused now, the problem on the page
    for (const [action, extra] of [
      ['resend-link', {}],
      ['review', {}],
      ['approve', {}],
      ['phone', { phone: '+33612345670' }],
    ] as const) {
      const res = await act(claimNumber, action, { ...(await desk(claimNumber)).form, ...extra, reason: 'late' });
      assert.equal(res.statusCode, 409, `${action}: ${res.body.slice(0, 200)}`);
      assert.match(res.body, /role="alert"/);
    }
    // each refusal has its own stable code (the CLI's --json shows it; a French page words it by it)
    const codeOf = async (...argv: string[]) => {
      const res = await cli('claims', ...argv, claimNumber, '--reason', 'late');
      assert.equal(res.code, 1, res.out);
      return (JSON.parse(res.err) as { error: { code: string } }).error.code;
    };
    assert.equal(await codeOf('resend-link'), 'claim_settled');
    assert.equal(await codeOf('review'), 'claim_settled');
    assert.equal(await codeOf('correct-phone', '--phone', '+33612345670'), 'claim_settled');
    // a landline is refused as at subscription (checked with the number's format, before the claim)
    assert.equal(await codeOf('correct-phone', '--phone', '+33123456789'), 'phone_not_mobile');
    // settled is checked first: a paid claim is over, whatever its review says
    assert.equal(await codeOf('approve'), 'claim_settled');
    assert.doesNotMatch((await desk(claimNumber)).body, /id="desk-(review|approve)"/, 'no review form once paid');
    operator.cookies.set('psl_lang', 'fr');
    try {
      const fr = await act(claimNumber, 'review', { ...(await desk(claimNumber)).form, reason: 'tard' });
      assert.equal(fr.statusCode, 409);
      assert.match(fr.body, /Ce sinistre est réglé/);
    } finally {
      operator.cookies.delete('psl_lang');
    }
  });

  it('correct the compensation: only under review and within the terms; the payout takes it, the ledger and receipt state it', async () => {
    const { c, claimNumber, claim, link } = await openClaim();
    const row = await t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as k', 'k.id', 'cl.contract_id')
      .select(['cl.compensation_amount', 'cl.currency', 'k.coverage', 'k.passengers'])
      .where('cl.id', '=', claim.id)
      .executeTakeFirstOrThrow();
    const current = Number(row.compensation_amount);
    const max =
      Math.max(row.coverage.cancellationAmount, ...row.coverage.delayTiers.map((x) => x.amount)) * row.passengers;
    const lower = current - 1_000;
    const decimal = (minor: number) => (minor / 100).toFixed(2);
    assert.ok(lower > 0 && row.currency === 'EUR');

    // not under review: refused (it could be paid meanwhile), and the page offers no form
    assert.doesNotMatch((await desk(claimNumber)).body, /id="desk-amount"/);
    const early = await cli('claims', 'correct-amount', claimNumber, '--amount', decimal(lower), '--reason', 'x data');
    assert.equal((JSON.parse(early.err) as { error: { code: string } }).error.code, 'claim_not_under_review');

    await act(claimNumber, 'review', { ...(await desk(claimNumber)).form, reason: 'Delay data checked' });
    await sendBankDetails(link);
    const page = await desk(claimNumber);
    assert.match(page.body, /id="desk-amount"/);
    for (const [amount, pattern] of [
      [decimal(max + 1), /at most/],
      [decimal(current), /compensation already/],
      ['0', /more than zero/],
      ['12.345', /at most 2 decimals/],
    ] as const) {
      const res = await act(claimNumber, 'amount', { ...(await desk(claimNumber)).form, amount, reason: 'wrong data' });
      assert.equal(res.statusCode, 422, `${amount}: ${res.body.slice(0, 200)}`);
      assert.match(res.body, pattern);
    }
    // the CLI reads one decimal comma as the point, as every CLI amount: "12,34" is 12.34, refused here as the current amount
    const comma = await cli(
      'claims',
      'correct-amount',
      claimNumber,
      '--amount',
      decimal(current).replace('.', ','),
      '--reason',
      'x data',
    );
    assert.equal(comma.code, 1);
    assert.match(comma.err, /compensation already/);
    const corrected = await act(claimNumber, 'amount', {
      ...(await desk(claimNumber)).form,
      amount: decimal(lower),
      reason: 'Airline record: the flight left the next day',
    });
    assert.equal(corrected.statusCode, 303, corrected.body.slice(0, 300));
    const stored = await t.db
      .selectFrom('claims as cl')
      .innerJoin('payouts as p', 'p.claim_id', 'cl.id')
      .select(['cl.compensation_amount', 'p.amount', 'p.status'])
      .where('cl.id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [Number(stored.compensation_amount), Number(stored.amount), stored.status],
      [lower, lower, 'pending'],
    );
    const audits = await auditOf(claimNumber, 'compensation_corrected');
    assert.equal(audits.length, 1);
    assert.equal(audits[0]!.actor, ACTOR);
    assert.deepEqual(audits[0]!.data, {
      reason: 'Airline record: the flight left the next day',
      from: current,
      to: lower,
      currency: 'EUR',
      payout: { status: 'pending', changed: true },
    });

    await act(claimNumber, 'approve', { ...(await desk(claimNumber)).form, reason: 'Amount corrected' });
    await eventually(async () => ((await statusOf(claim.id)) === 'paid' ? true : undefined));
    const ledger = await t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount'])
      .where('claim_id', '=', claim.id)
      .execute();
    assert.deepEqual(
      ledger.map((e) => [e.kind, Math.abs(Number(e.amount))]),
      [['compensation_paid', lower]],
    );
    const receipt = await eventually(async () =>
      (await messagesOf(c.contractNumber)).find((x) => x.body.includes('we have paid')),
    );
    assert.ok(receipt.body.includes(decimal(lower)) && !receipt.body.includes(decimal(current)), receipt.body);
    const late = await cli(
      'claims',
      'correct-amount',
      claimNumber,
      '--amount',
      decimal(lower - 100),
      '--reason',
      'late',
    );
    assert.equal((JSON.parse(late.err) as { error: { code: string } }).error.code, 'claim_settled');
  });

  it('correct the compensation: never above what one transfer carries, whatever terms agreed before that cap allow', async () => {
    const { claimNumber, claim } = await openClaim();
    await act(claimNumber, 'review', { ...(await desk(claimNumber)).form, reason: 'Delay data checked' });
    // terms of a contract sold before the agreement's bounds were capped (partners.ts, checkAgreement)
    await sql`UPDATE contracts SET coverage = jsonb_set(coverage::jsonb, '{cancellationAmount}', '200000000000')
              WHERE id = ${claim.contract_id}`.execute(t.db);
    // the desk's hint says the lower of the terms and what one transfer carries, as the check does
    assert.ok(
      (await desk(claimNumber)).body.includes(`at most ${formatMoney(99_999_999_999, 'EUR', 'en')} (`),
      'the hint names the SEPA ceiling',
    );
    // 1,000,000,000.00 EUR: within those terms, above SEPA's 999,999,999.99 — a payout no file would ever take
    const res = await act(claimNumber, 'amount', {
      ...(await desk(claimNumber)).form,
      amount: '1000000000.00',
      reason: 'wrong data',
    });
    assert.equal(res.statusCode, 422, res.body.slice(0, 300));
    assert.match(res.body, /at most 999999999\.99 EUR: a SEPA transfer carries at most/);
    const stored = await t.db
      .selectFrom('claims')
      .select('compensation_amount')
      .where('id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(Number(stored.compensation_amount), 100_000_000_000, 'the amount is not set');
  });

  it("a reason quoting the customer's IBAN, email or phone is kept masked, on the claim and in its audit trail", async () => {
    const { claimNumber } = await openClaim();
    const said = `Customer camille.martin@example.com called from +33 6 12 34 56 78: new account ${IBAN}`;
    const reviewed = await act(claimNumber, 'review', { ...(await desk(claimNumber)).form, reason: said });
    assert.equal(reviewed.statusCode, 303);
    const kept = 'Customer [email] called from [phone]: new account •••• 3000';
    const claim = await t.db
      .selectFrom('claims')
      .select('manual_review_reason')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    assert.equal(claim.manual_review_reason, kept);
    const [audited] = await auditOf(claimNumber, 'manual_review_started');
    assert.equal((audited!.data as { reason: string }).reason, kept);
    // the CLI's reason is the same free text
    const approved = await cli(
      'claims',
      'approve',
      claimNumber,
      '--reason',
      `checked, paid to ${IBAN.replace(/ /g, '')}`,
    );
    assert.equal(approved.code, 0, approved.err);
    const [released] = await auditOf(claimNumber, 'manual_review_released');
    assert.equal((released!.data as { reason: string }).reason, 'checked, paid to •••• 3000');
  });

  it("a reason quoting the claim's own IBAN spaced, dotted, mistyped or as its bare national number keeps none of it in clear", async () => {
    const { claimNumber, link } = await openClaim();
    // under review first: the payout waits for the approval below, whose reason quotes the account
    const reviewed = await act(claimNumber, 'review', { ...(await desk(claimNumber)).form, reason: 'check it' });
    assert.equal(reviewed.statusCode, 303, reviewed.body.slice(0, 300));
    await sendBankDetails(link, 'FR76 3000 6000 0112 3456 7890 189');
    const said =
      'new details FR 76 3000 6000 0112 3456 7890 189, or FR76.3000.6000.0112.3456.7890.189, ' +
      'bank wrote 30006000011234567890189 and fr77-3000-6000-0112-3456-7890-189';
    const approved = await act(claimNumber, 'approve', { ...(await desk(claimNumber)).form, reason: said });
    assert.equal(approved.statusCode, 303, approved.body.slice(0, 300));
    const [audited] = await auditOf(claimNumber, 'manual_payout_approved');
    assert.equal(
      (audited!.data as { reason: string }).reason,
      'new details •••• 0189, or •••• 0189, bank wrote •••• 0189 and •••• 0189',
    );
  });

  it("a reason quoting a customer's US account number is kept masked, in every language's words", async () => {
    const { claimNumber } = await openClaim();
    const said = 'Customer gave routing 021000021 / 123456789012, old Konto 55554444 and cuenta nº 9988776655';
    const reviewed = await act(claimNumber, 'review', { ...(await desk(claimNumber)).form, reason: said });
    assert.equal(reviewed.statusCode, 303);
    const kept = 'Customer gave routing 021000021 / •••• 9012, old Konto •••• 4444 and cuenta nº •••• 6655';
    const [audited] = await auditOf(claimNumber, 'manual_review_started');
    assert.equal((audited!.data as { reason: string }).reason, kept);
  });

  it('approving a claim that is not under review is refused', async () => {
    const { claimNumber } = await openClaim();
    const notReviewed = await act(claimNumber, 'approve', { ...(await desk(claimNumber)).form, reason: 'pay it' });
    assert.equal(notReviewed.statusCode, 409);
    assert.match(notReviewed.body, /not under manual review/);
  });

  it('a claim under review does not expire and its link still takes bank details; approved without them, its due date moves by the review', async () => {
    const DAY = 86_400_000;
    const expire = () => expireClaims({ db: t.db, jobs: t.app.parasol.jobs, now: () => new Date() });
    const pastDue = async (claimId: string, due: Date, reviewedAt?: Date) => {
      await t.db
        .updateTable('claims')
        .set({ bank_details_due_at: due, ...(reviewedAt ? { manual_review_at: reviewedAt } : {}) })
        .where('id', '=', claimId)
        .execute();
      await t.db.updateTable('claim_tokens').set({ expires_at: due }).where('claim_id', '=', claimId).execute();
    };
    const dueOf = async (claimId: string) =>
      await t.db
        .selectFrom('claims as cl')
        .innerJoin('claim_tokens as tk', 'tk.claim_id', 'cl.id')
        .select(['cl.bank_details_due_at', 'tk.expires_at'])
        .where('cl.id', '=', claimId)
        .executeTakeFirstOrThrow();

    // not under review: past its due date, the claim expires (as before)
    const control = await openClaim();
    await pastDue(control.claim.id, new Date(Date.now() - 2 * DAY));
    await expire();
    assert.equal(await statusOf(control.claim.id), 'expired');

    // under review for 10 days, its due date passed 2 days ago: it does not expire
    const { claimNumber, claim, link } = await openClaim();
    assert.equal(
      (await act(claimNumber, 'review', { ...(await desk(claimNumber)).form, reason: 'Check the booking' })).statusCode,
      303,
    );
    const reviewedAt = new Date(Date.now() - 10 * DAY);
    const due = new Date(Date.now() - 2 * DAY);
    await pastDue(claim.id, due, reviewedAt);
    await expire();
    assert.equal(
      await statusOf(claim.id),
      'awaiting_bank_details',
      'the insurer reviews it: the customer keeps the claim',
    );
    const page = await t.app.inject({ method: 'GET', url: linkPath(link) });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /name="iban"/, 'the link still takes bank details');

    // approved without bank details: the review ends, the due date moves later by the 10 days it took
    const before = Date.now();
    const approved = await act(claimNumber, 'approve', {
      ...(await desk(claimNumber)).form,
      reason: 'Booking is fine',
    });
    assert.equal(approved.statusCode, 303, approved.body.slice(0, 300));
    const after = Date.now();
    const moved = await dueOf(claim.id);
    const expected = (at: number) => due.getTime() + (at - reviewedAt.getTime());
    assert.ok(
      moved.bank_details_due_at!.getTime() >= expected(before) &&
        moved.bank_details_due_at!.getTime() <= expected(after),
    );
    assert.equal(moved.expires_at.getTime(), moved.bank_details_due_at!.getTime(), 'the link lasts as long');
    const released = await auditOf(claimNumber, 'manual_review_released');
    assert.equal(released.length, 1);
    assert.equal(
      (released[0]!.data as { bankDetailsDueAt: string }).bankDetailsDueAt,
      moved.bank_details_due_at!.toISOString(),
    );
    await expire();
    assert.equal(await statusOf(claim.id), 'awaiting_bank_details', '8 days left, as when the review began');

    // no longer under review: the bank details are paid automatically
    await sendBankDetails(link);
    await eventually(async () => ((await statusOf(claim.id)) === 'paid' ? true : undefined));
  });

  it('resend the link past its due date: refused (claim_past_due) unless under review, whose clock stands still — then a new working link, as on a contact change', async () => {
    const DAY = 86_400_000;
    const pastDue = async (claimId: string, reviewedAt?: Date) => {
      const due = new Date(Date.now() - 2 * DAY);
      await t.db
        .updateTable('claims')
        .set({ bank_details_due_at: due, ...(reviewedAt ? { manual_review_at: reviewedAt } : {}) })
        .where('id', '=', claimId)
        .execute();
      await t.db.updateTable('claim_tokens').set({ expires_at: due }).where('claim_id', '=', claimId).execute();
    };

    // what a contact change queues (resend-links.ts), recorded rather than run
    const queuedBy = async (contractId: string) => {
      const queued: ResendRequest[] = [];
      const jobs = {
        sendMany: async (name: string, data: ResendRequest[]) => {
          assert.equal(name, 'claims_notify');
          queued.push(...data);
          return [];
        },
      } as unknown as JobQueue;
      assert.equal(await resendLinks(t.db, jobs, contractId, ACTOR, new Date(), 'phone'), queued.length);
      return queued;
    };
    const notifyDeps = {
      db: t.db,
      jobs: t.app.parasol.jobs,
      keys: t.app.parasol.keys,
      publicUrl: 'https://claims.parasol.test',
      bankDetailsDays: 30,
      insurer: t.app.parasol.config.insurer,
      now: () => new Date(),
    };

    // not under review: it expires, no link to resend
    const control = await openClaim();
    // a phone change before its due date queues a resend; the job runs after the due date: skipped
    const queuedBefore = await queuedBy(control.claim.contract_id);
    assert.deepEqual(
      queuedBefore.map((j) => [j.claimId, j.kind]),
      [[control.claim.id, 'resend']],
    );
    await pastDue(control.claim.id);
    const refused = await act(control.claimNumber, 'resend-link', {
      ...(await desk(control.claimNumber)).form,
      reason: 'Customer lost the SMS',
    });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /role="alert"/);
    const refusedCli = await cli('claims', 'resend-link', control.claimNumber, '--reason', 'Customer lost the SMS');
    assert.equal(refusedCli.code, 1, refusedCli.out);
    assert.equal((JSON.parse(refusedCli.err) as { error: { code: string } }).error.code, 'claim_past_due');
    assert.equal(await notifyClaim(notifyDeps, queuedBefore[0]!), 'skipped', 'queued before, run after: no link');
    // a phone change once it is past due queues none (claims-repo.ts claimsAwaitingBankDetailsOf)
    assert.deepEqual(await queuedBy(control.claim.contract_id), [], 'no resend queued past due');
    assert.equal((await messagesOf(control.c.contractNumber)).length, 1, 'nothing sent');
    assert.equal((await auditOf(control.claimNumber, 'bank_details_link_resent')).length, 0);

    // under review, past its due date: the claim waits (its link still works), so a resend sends one
    const { c, claimNumber, claim, link } = await openClaim();
    assert.equal(
      (await act(claimNumber, 'review', { ...(await desk(claimNumber)).form, reason: 'Check the booking' })).statusCode,
      303,
    );
    await pastDue(claim.id, new Date(Date.now() - 10 * DAY));
    assert.deepEqual(
      (await queuedBy(claim.contract_id)).map((j) => j.claimId),
      [claim.id],
      'under review, a phone change queues its resend',
    );
    const resent = await act(claimNumber, 'resend-link', {
      ...(await desk(claimNumber)).form,
      reason: 'Customer lost the SMS',
    });
    assert.equal(resent.statusCode, 303, resent.body.slice(0, 500));
    assert.equal(resent.headers.location, `/admin/claims/${claimNumber}?done=done`);
    const messages = await messagesOf(c.contractNumber);
    assert.equal(messages.length, 2, 'the first message and one resent');
    const fresh = messages[1]!.link!;
    assert.ok(fresh && fresh !== link, 'a new link');
    const page = await t.app.inject({ method: 'GET', url: linkPath(fresh) });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /name="iban"/, 'the new link takes bank details while the review lasts');
    assert.equal((await auditOf(claimNumber, 'bank_details_link_resent')).length, 1);

    // the partner changes the customer's phone: the claim under review gets its link at the new number too
    const changed = await t.app.inject({
      method: 'PATCH',
      url: `${FLIGHT}/contracts/${c.contractNumber}/customer`,
      headers: { ...partner.auth, 'content-type': 'application/json' },
      payload: { phone: '+33698765432' },
    });
    assert.equal(changed.statusCode, 200, changed.body.slice(0, 300));
    const after = await eventually(async () => {
      const m = await messagesOf(c.contractNumber);
      return m.length === 3 ? m : undefined;
    });
    assert.ok(
      after.some((m) => m.to === '+33698765432' && m.link && m.link !== fresh),
      'a new link to the new number',
    );
  });

  it('a form with two faults says both at once: the reason and the phone, the cause, the BIC or the amount', async () => {
    const { claimNumber, claim } = await openClaim();
    const { form } = await desk(claimNumber);
    for (const [action, fields, other] of [
      ['phone', { phone: '12345' }, /must be a valid phone number in E\.164 format/],
      ['void', { cause: 'mistake' }, /must be one of flight_data, other/],
      ['void-cause', { cause: '' }, /give the cause: one of flight_data, other/],
      ['bic', { bic: ' ' }, /is required/],
      ['amount', { amount: 'ten euros' }, /must be an amount such as 50\.00/],
      // read whole: cut at 30 characters first, this was 0 (or, shorter, 15.00 instead of 1500)
      ['amount', { amount: `${'0'.repeat(30)}1500` }, /must be at most 30 characters/],
    ] as const) {
      const res = await act(claimNumber, action, { ...form, ...fields, reason: ' ' });
      assert.equal(res.statusCode, 422, action);
      assert.match(res.body, /give the reason \(at least 3 characters\)/, action);
      assert.match(res.body, other, `${action}: its other field's fault, told with the reason's`);
    }
    // one fault alone keeps its own code: a landline is phone_not_mobile, not a validation failure
    const cli_ = await runCliOn(t, [
      'claims',
      'correct-phone',
      claimNumber,
      '--phone',
      '+33145678901',
      '--reason',
      'customer called',
    ]);
    assert.equal(cli_.code, 1);
    assert.match(cli_.err, /cannot receive an SMS/);
    const both = await runCliOn(t, ['claims', 'void', claimNumber, '--cause', 'mistake', '--reason', ' ']);
    assert.equal(both.code, 1);
    assert.match(both.err, /--reason: give the reason/);
    assert.match(both.err, /--cause: must be one of/);
    assert.equal(await statusOf(claim.id), 'awaiting_bank_details', 'nothing done');
  });

  it('a reason is required, the CSRF token too, and only operators open the desk', async () => {
    const { claimNumber } = await openClaim();
    const { form } = await desk(claimNumber);
    const noReason = await act(claimNumber, 'review', { ...form, reason: ' ' });
    assert.equal(noReason.statusCode, 422);
    assert.match(noReason.body, /reason/);
    const tooLong = await act(claimNumber, 'review', { ...form, reason: 'x'.repeat(501) });
    assert.equal(tooLong.statusCode, 422);
    const noCsrf = await act(claimNumber, 'review', { actionToken: form.actionToken, reason: 'hold it' });
    assert.equal(noCsrf.statusCode, 403);
    assert.equal((await auditOf(claimNumber, 'manual_review_started')).length, 0);
    assert.equal((await act('CLM-99999999', 'review', { ...form, reason: 'hold it' })).statusCode, 404);

    // a partner's user: 403 on the page and on its actions
    const email = `${uniqueSlug('desk')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: 'partner password 42' });
    const user = new Browser(t.app);
    assert.equal((await user.signIn(email, 'partner password 42')).statusCode, 303);
    assert.equal((await user.get(`/admin/claims/${claimNumber}`)).statusCode, 403);
    assert.equal((await user.post(`/admin/claims/${claimNumber}/review`, { reason: 'x' })).statusCode, 403);
  });

  it('the CLI does the same: show, resend-link, correct-phone, review (once per --once), approve', async () => {
    const { c, claimNumber } = await openClaim();
    const shown = await cli('claims', 'show', claimNumber);
    assert.equal(shown.code, 0, shown.err);
    const data = JSON.parse(shown.out) as {
      status: string;
      phone: string;
      messages: { kind: string }[];
      bankDetailsDueAt: string;
      evidence: { source: string; rule: { trigger: string; passengers: number } };
    };
    assert.equal(data.status, 'awaiting_bank_details');
    // the evidence the claim was decided on, as the claim page shows it (docs/OPERATOR.md, the claim desk)
    assert.equal(data.evidence.source, 'partner_report');
    assert.equal(data.evidence.rule.trigger, 'cancellation');
    const text = (await runCliOn(t, ['claims', 'show', claimNumber])).out;
    const due = new Date(data.bankDetailsDueAt)
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, 'Z');
    assert.ok(text.includes(`bank details due ${due}`), text);
    assert.match(text, /^Evidence:\n {2}source +partner_report\n/m, text);
    assert.match(text, /^ {2}rule +cancellation → \d+\.\d\d EUR × 1 \(configuration v\d+\)$/m, text);
    assert.match(text, /^ {2}decided +\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/m, text);
    assert.match(data.phone, /^\+33 •••• \d\d$/);
    assert.deepEqual(
      data.messages.map((m) => m.kind),
      ['opened'],
    );

    const noReason = await cli('claims', 'resend-link', claimNumber, '--reason', '');
    assert.equal(noReason.code, 1);
    assert.match(noReason.err, /--reason/);
    assert.equal((await cli('claims', 'resend-link', claimNumber, '--reason', 'asked by phone')).code, 0);
    assert.equal((await messagesOf(c.contractNumber)).length, 2);

    const badPhone = await cli('claims', 'correct-phone', claimNumber, '--phone', '12', '--reason', 'typo');
    assert.equal(badPhone.code, 1);
    assert.match(badPhone.err, /--phone/);
    assert.equal(
      (await cli('claims', 'correct-phone', claimNumber, '--phone', '+33611223344', '--reason', 'typo')).code,
      0,
    );

    const once = ['--once', 'cli-review-token-0001'];
    const first = await cli('claims', 'review', claimNumber, '--reason', 'held from the CLI', ...once);
    assert.equal(first.code, 0, first.err);
    assert.equal(JSON.parse(first.out).outcome, 'done');
    const again = await cli('claims', 'review', claimNumber, '--reason', 'held from the CLI', ...once);
    assert.equal(JSON.parse(again.out).outcome, 'replayed');
    const reviews = await auditOf(claimNumber, 'manual_review_started');
    assert.equal(reviews.length, 1);
    assert.equal(reviews[0]!.actor, 'operator:cli-test');

    const approve = await cli('claims', 'approve', claimNumber, '--reason', 'booking checked');
    assert.equal(approve.code, 0, approve.err);
    assert.equal(JSON.parse(approve.out).outcome, 'done');
    assert.equal((await auditOf(claimNumber, 'manual_review_released')).length, 1);
    assert.equal((await cli('claims', 'show', 'CLM-99999999')).code, 1);
  });

  /** A production claim (operator token, sealed SMS): answers its number, its id and its link. */
  async function openProductionClaim() {
    const production = await createTestPartner(t.db, { environment: 'production' });
    const operatorAuth = (await operatorToken(t, 'desk test')).auth;
    const c = await insureFlight(t.app, production, { flightNumber: `AF${seq++}` });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      operatorAuth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const claimNumber = opened.body.claimsOpened[0].claimNumber as string;
    const claim = await t.db
      .selectFrom('claims')
      .select('id')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    const link = await productionSmsLink(t, claim.id);
    return { claimNumber, claim, link };
  }

  it("the trail starts at the claim's opening: the flight event's row, with who reported it (CLI and page)", async () => {
    const production = await createTestPartner(t.db, { environment: 'production' });
    const names = { reporter: `reporter ${seq}`, other: `other ${seq}` };
    const reporter = await operatorToken(t, names.reporter);
    const flightNumber = `AF${seq++}`;
    const report = async (who: { authorization: string }) => {
      const c = await insureFlight(t.app, production, { flightNumber });
      const opened = await post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
        who,
      );
      assert.equal(opened.status, 200, JSON.stringify(opened.body));
      assert.equal(opened.body.claimsOpened.length, 1, 'one new claim: the new contract');
      return opened.body.claimsOpened[0].claimNumber as string;
    };
    const first = await report(reporter.auth);
    // a second contract on the same flight, its claim opened later by another operator's report
    const second = await report((await operatorToken(t, names.other)).auth);

    type Trail = { actor: string; entity: string; entityId: string; action: string; data: { claims?: number } }[];
    const shown = await cli('claims', 'show', first);
    assert.equal(shown.code, 0, shown.err);
    const trail = (JSON.parse(shown.out) as { audit: Trail }).audit;
    const openings = trail.filter((a) => a.action === 'claims_opened');
    assert.equal(
      openings.length,
      1,
      `only the event that opened this claim, not the later one: ${JSON.stringify(trail)}`,
    );
    assert.equal(openings[0]!.actor, `operator:${names.reporter}`, 'the operator who reported the event');
    assert.equal(openings[0]!.entity, 'flight');
    assert.match(openings[0]!.entityId, new RegExp(`^${flightNumber}/\\d{4}-\\d{2}-\\d{2}$`), 'the flight');
    const opening = trail.findIndex((a) => a.action === 'claims_opened');
    const claimRows = trail.flatMap((a, i) => (a.entity === 'claim' ? [i] : []));
    assert.ok(claimRows.length > 0, 'the claim has rows of its own');
    assert.ok(
      claimRows.every((i) => i < opening),
      `newest first: the opening comes before every row of the claim: ${JSON.stringify(trail)}`,
    );
    const text = await runCliOn(t, ['claims', 'show', first], { actor: 'operator:cli-test' });
    assert.match(text.out, new RegExp(`operator:${names.reporter} +flight +claims_opened`), text.out);

    const other = (JSON.parse((await cli('claims', 'show', second)).out) as { audit: Trail }).audit;
    assert.deepEqual(
      other.filter((a) => a.action === 'claims_opened').map((a) => a.actor),
      [`operator:${names.other}`],
      "the second claim's trail has its own opening",
    );

    const { body } = await desk(first);
    assert.match(
      body,
      new RegExp(`operator:${names.reporter}</td><td>claims_opened<br><span class="muted">flight</span>`),
      'the claim page shows the opening with its operator',
    );
  });

  it("two partners' reports of one flight at once: each claim's trail shows its own reporter, never the other's", async () => {
    const flightNumber = `AF${seq++}`;
    const a = await createTestPartner(t.db);
    const b = await createTestPartner(t.db);
    const ca = await insureFlight(t.app, a, { flightNumber });
    const cb = await insureFlight(t.app, b, { flightNumber });
    assert.equal(ca.departureDate, cb.departureDate, 'one flight');
    const report = (p: TestPartner) =>
      post(t.app, `${FLIGHT}/claims`, { flightNumber, departureDate: ca.departureDate, status: 'cancelled' }, p.auth);
    // concurrent on PostgreSQL: two openings may start in the same millisecond
    const [ra, rb] = await Promise.all([report(a), report(b)]);
    assert.equal(ra.status, 200, JSON.stringify(ra.body));
    assert.equal(rb.status, 200, JSON.stringify(rb.body));
    const numbers = [ra.body.claimsOpened, rb.body.claimsOpened].map((opened: { claimNumber: string }[]) => {
      assert.equal(opened.length, 1, "each partner's report opens its own contract's claim only");
      return opened[0]!.claimNumber;
    });
    const claims = await Promise.all(
      numbers.map((n) =>
        t.db
          .selectFrom('claims')
          .select(['claim_number', 'partner_id', 'opened_at', 'evidence'])
          .where('claim_number', '=', n)
          .executeTakeFirstOrThrow(),
      ),
    );
    const [claimA, claimB] = claims as [(typeof claims)[0], (typeof claims)[0]];
    const reporterOf = (c: (typeof claims)[0]) => (c.evidence as { reportedBy?: string }).reportedBy;
    assert.match(String(reporterOf(claimA)), /^key:/, "the claim names the partner's key that reported it");
    assert.notEqual(reporterOf(claimA), reporterOf(claimB), 'two keys');
    const flight = `${flightNumber}/${ca.departureDate}`;
    const rows = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'partner_id'])
      .where('entity', '=', 'flight')
      .where('entity_id', '=', flight)
      .where('action', '=', 'claims_opened')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.partner_id).sort(),
      [a.id, b.id].sort(),
      "each report's flight row carries its partner",
    );
    // the collision, made certain: B's opening and an operator's dated at A's opening's instant
    await t.db
      .insertInto('audit_log')
      .values([
        {
          actor: reporterOf(claimB)!,
          partner_id: b.id,
          environment: 'sandbox',
          entity: 'flight',
          entity_id: flight,
          action: 'claims_opened',
          data: JSON.stringify({ status: 'cancelled', delayMinutes: null, claims: 1 }),
          at: claimA.opened_at,
        },
        {
          actor: 'operator:someone-else',
          partner_id: null,
          environment: 'sandbox',
          entity: 'flight',
          entity_id: flight,
          action: 'claims_opened',
          data: JSON.stringify({ status: 'cancelled', delayMinutes: null, claims: 1 }),
          at: claimA.opened_at,
        },
      ])
      .execute();
    type Trail = { actor: string; action: string }[];
    for (const [claim, other] of [
      [claimA, claimB],
      [claimB, claimA],
    ] as const) {
      const shown = await cli('claims', 'show', claim.claim_number);
      assert.equal(shown.code, 0, shown.err);
      const openings = (JSON.parse(shown.out) as { audit: Trail }).audit.filter((r) => r.action === 'claims_opened');
      // B's added row is dated at A's instant: when the two openings really fell in the same millisecond,
      // it is a second opening of B's own at B's instant, which B's trail rightly shows
      const ownRows = claim === claimB && claimB.opened_at.getTime() === claimA.opened_at.getTime() ? 2 : 1;
      assert.deepEqual(
        openings.map((r) => r.actor),
        Array<string | undefined>(ownRows).fill(reporterOf(claim)),
        `${claim.claim_number}: only its own reporter's opening, not ${String(reporterOf(other))}'s nor an operator's`,
      );
    }
  });

  it('production: a claim under review stays out of the SEPA batch until approved', async () => {
    const { claimNumber, claim, link } = await openProductionClaim();

    assert.equal((await cli('claims', 'review', claimNumber, '--reason', 'hold the transfer')).code, 0);
    await sendBankDetails(link);
    assert.equal(await statusOf(claim.id), 'payment_pending');
    const held = await cli('payouts', 'batch');
    assert.equal(held.code, 0, held.err);
    assert.deepEqual(JSON.parse(held.out).batches, [], 'no transfer for a claim under review');

    assert.equal((await cli('claims', 'approve', claimNumber, '--reason', 'checked')).code, 0);
    const released = await cli('payouts', 'batch');
    assert.equal(released.code, 0, released.err);
    assert.equal(JSON.parse(released.out).batches[0].payouts, 1, 'approved: the next batch pays it');
  });

  it('production: a review racing the SEPA batch holds the payout or is refused — never under review with its transfer sent', async (ctx) => {
    if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
    const { claimNumber, claim, link } = await openProductionClaim();
    await sendBankDetails(link);
    assert.equal(await statusOf(claim.id), 'payment_pending');
    // the batch's transaction (createSepaBatch's statements), held open while the operator asks for a review
    let review: Promise<unknown> | undefined;
    let settled = false;
    await t.db.transaction().execute(async (trx) => {
      const backend = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
      const batchPid = backend.rows[0]!.pid;
      const payouts = await lockPendingSepaPayouts(trx, 'EUR', MAX_BATCH);
      const ours = payouts.find((p) => p.claim_number === claimNumber);
      assert.ok(ours, 'the batch takes the pending payout');
      const batch = await insertSepaBatch(trx, {
        message_id: `PSL-RACE-${process.pid}`,
        created_by: 'test',
        execution_date: '2030-01-02',
        payouts_count: 1,
        control_sum: Number(ours.amount),
        xml_enc: 'not read',
      });
      await markPayoutsInstructed(trx, [ours.id], batch.id, new Date());
      review = reviewClaim(
        { db: t.db, keys: t.app.parasol.keys, now: () => new Date() },
        { claimNumber, actor: ACTOR, reason: 'hold the transfer', actionToken: `race-review-${process.pid}-x` },
      ).finally(() => (settled = true));
      review.catch(() => {}); // awaited below, once the batch commits
      // the review either finished already (nothing held it) or waits for a lock the batch's transaction holds
      await eventually(async () => {
        if (settled) return true;
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${batchPid}::int = ANY(pg_blocking_pids(pid))`.execute(
          t.db,
        );
        return rows[0]!.n > 0 || undefined;
      });
    });
    await assert.rejects(review!, (error: Error & { code?: string }) => {
      assert.equal(error.code, 'payout_instructed', error.message);
      return true;
    });
    const row = await t.db
      .selectFrom('claims')
      .select('manual_review_at')
      .where('id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.manual_review_at, null, 'not under review: its transfer is in the file sent to the bank');
  });
});
