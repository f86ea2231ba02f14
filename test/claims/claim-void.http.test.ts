import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { LINK_USELESS_CLAIM_STATUSES } from '../../src/claims/model.ts';
import { notifyClaim } from '../../src/claims/notify-claim.ts';
import { requeueStaleSms, sendQueuedSms } from '../../src/notify/sms/sms-queue.ts';
import type { SmsProvider } from '../../src/notify/sms/sms.ts';
import { createUser } from '../../src/partners/users.ts';
import { payWithSimulatedBank, SIMULATED_BANK_REJECTED_IBAN } from '../../src/payouts/payouts.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import {
  allClaims,
  buildTestApp,
  cancelledFlightClaim,
  consoleClaimRows,
  createTestPartner,
  eventually,
  FLIGHT,
  operatorToken,
  productionSmsLink,
  runCliOn,
  sepaPayoutsEnv,
  uniqueSlug,
  usingPostgres,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';
import { camt054 } from '../payouts/camt054-sample.ts';

/**
 * The claim desk voids a claim opened on wrong flight data (or on a fraud or sanctions finding)
 * before any money left: `voided`, never paid (its pending payout cancelled: no SEPA batch, no
 * simulated bank), its link closed (the page says the claim is withdrawn), the customer texted
 * without the reason, partners told once (claim.voided), the contract left active (its flight, days
 * ahead, has not departed: the sweep completes it once flown), nothing in the ledger. Refused
 * (`claim_not_voidable`) once the money is with the bank or the claim is settled.
 */

const ADMIN = { email: 'ops-void-tests@parasol.test', password: 'operator password 42' };
const ACTOR = `operator:${ADMIN.email}`;
const IBAN = 'DE89 3704 0044 0532 0130 00';
const REASON = 'Opened on wrong flight data: the airline record shows an on-time arrival';

describe('the claim desk voids a claim', () => {
  let t: TestApp;
  let partner: TestPartner;
  let operator: Browser;
  let payoutsDir: string;
  before(async () => {
    payoutsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-void-payouts-'));
    t = await buildTestApp({
      env: {
        PARASOL_ADMIN_EMAIL: ADMIN.email,
        PARASOL_ADMIN_PASSWORD: ADMIN.password,
        PARASOL_JOB_POLL_SECONDS: '1',
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        ...sepaPayoutsEnv(payoutsDir),
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on',
      },
    });
    partner = await createTestPartner(t.db);
    const endpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...partner.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/hooks' },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
  });
  after(async () => {
    await t.close();
    await fs.rm(payoutsDir, { recursive: true, force: true });
  });

  let seq = 6700 + (process.pid % 500);
  const linkPath = (link: string) => new URL(link).pathname;
  const messagesOf = async (contractNumber: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
      headers: partner.auth,
    });
    assert.equal(res.statusCode, 200);
    return (JSON.parse(res.body) as { messages: { body: string; link: string | null }[] }).messages;
  };
  const eventsOf = async (type: string, claimNumber: string) =>
    (await t.db.selectFrom('webhook_events').select('payload').where('type', '=', type).execute())
      .map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).data)
      .filter((d: { claimNumber: string }) => d.claimNumber === claimNumber);
  const cli = (...argv: string[]) => runCliOn(t, ['--json', ...argv], { actor: 'operator:cli-test' });
  const codeOf = (res: { err: string }) => (JSON.parse(res.err) as { error: { code: string } }).error.code;
  const claimRow = (claimId: string) =>
    t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select(['cl.status', 'c.status as contract_status'])
      .where('cl.id', '=', claimId)
      .executeTakeFirstOrThrow();
  const payoutOf = (claimId: string) =>
    t.db.selectFrom('payouts').select(['id', 'status']).where('claim_id', '=', claimId).executeTakeFirstOrThrow();
  const auditOf = (claimNumber: string) =>
    t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'claim')
      .where('entity_id', '=', claimNumber)
      .where('action', '=', 'claim_voided')
      .execute();

  /** A cancelled flight's claim with its first SMS written: the contract, the claim and the link. */
  async function openClaim(language: 'en' | 'fr' = 'en') {
    const { c, claimNumber } = await cancelledFlightClaim(t, partner, partner.auth, {
      flightNumber: `AF${seq++}`,
      language,
    });
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

  async function desk(claimNumber: string) {
    const res = await operator.get(`/admin/claims/${claimNumber}`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    const actionToken = /name="actionToken" value="([^"]+)"/.exec(res.body)?.[1];
    assert.ok(actionToken, 'the desk page carries its action token');
    return { body: res.body, form: { _csrf: csrfOf(res.body)!, actionToken } };
  }

  async function sendBankDetails(link: string, iban = IBAN) {
    const res = await t.app.inject({
      method: 'POST',
      url: linkPath(link),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ accountHolder: 'Camille Martin', iban, bic: '' }).toString(),
    });
    return res;
  }

  it('waiting for bank details: voided from the claim page, once — link closed, customer texted without the reason, claim.voided once, contract still active before departure', async () => {
    const { c, claimNumber, claim, link } = await openClaim();
    const { body, form } = await desk(claimNumber);
    assert.match(body, /id="desk-void"/);
    // the cause is chosen on the form, `other` (never replaced) unless the operator picks wrong flight data
    assert.match(body, /name="cause" value="other" checked/);
    assert.match(body, /name="cause" value="flight_data">/);
    const done = await operator.post(`/admin/claims/${claimNumber}/void`, {
      ...form,
      reason: REASON,
      cause: 'flight_data',
    });
    assert.equal(done.statusCode, 303, done.body.slice(0, 300));
    assert.equal(done.headers.location, `/admin/claims/${claimNumber}?done=done`);
    // the same form again (a double submit), then a new CLI run: nothing more
    const again = await operator.post(`/admin/claims/${claimNumber}/void`, { ...form, reason: REASON });
    assert.equal(again.headers.location, `/admin/claims/${claimNumber}?done=replayed`);
    const cliAgain = await cli('claims', 'void', claimNumber, '--reason', 'again, from the CLI');
    assert.equal(cliAgain.code, 0, cliAgain.err);
    assert.equal(JSON.parse(cliAgain.out).outcome, 'replayed');

    assert.deepEqual(
      await claimRow(claim.id),
      { status: 'voided', contract_status: 'active' },
      'a leg whose claim is voided is not over before its departure',
    );
    const audited = await auditOf(claimNumber);
    assert.equal(audited.length, 1);
    assert.equal(audited[0]!.actor, ACTOR);
    assert.equal((audited[0]!.data as { reason: string }).reason, REASON);
    assert.equal((audited[0]!.data as { status: string }).status, 'awaiting_bank_details');
    assert.equal((audited[0]!.data as { cause: string }).cause, 'flight_data');
    const leg = await t.db
      .selectFrom('contract_legs as l')
      .innerJoin('claims as cl', 'cl.leg_id', 'l.id')
      .select('l.claim_void_cause')
      .where('cl.id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.equal(leg.claim_void_cause, 'flight_data', 'kept on the leg: an operator’s event may replace it');
    const page = await desk(claimNumber);
    assert.match(page.body, /id="claim-status">voided</);
    assert.doesNotMatch(page.body, /id="desk-void"/, 'no void form on a voided claim');
    assert.doesNotMatch(page.body, /id="desk-(review|approve)"/, 'no review form on a voided claim');

    // the link: the claim withdrawn (no amount, no bank-details form), and it takes no bank details
    const shown = await t.app.inject({ method: 'GET', url: linkPath(link) });
    assert.equal(shown.statusCode, 410);
    assert.match(shown.body, /data-status="voided"/);
    assert.match(shown.body, /withdrawn by the insurer/);
    assert.doesNotMatch(shown.body, /name="iban"/);
    const refused = await sendBankDetails(link);
    assert.equal(refused.statusCode, 410);
    assert.equal(
      await t.db.selectFrom('payouts').select('id').where('claim_id', '=', claim.id).executeTakeFirst(),
      undefined,
    );

    // the customer is told, once, without the desk's reason
    const withdrawn = await eventually(async () => {
      const m = (await messagesOf(c.contractNumber)).filter((x) => x.body.includes('withdrawn'));
      return m.length ? m : undefined;
    });
    assert.equal(withdrawn.length, 1);
    assert.equal(withdrawn[0]!.link, null);
    assert.doesNotMatch(withdrawn[0]!.body, /airline record/);

    // partners: claim.voided once, the status everywhere they read claims
    const events = await eventsOf('claim.voided', claimNumber);
    assert.equal(events.length, 1);
    assert.equal(events[0].status, 'voided');
    assert.ok(events[0].voidedAt, 'claim.voided says when');
    assert.equal(JSON.stringify(events[0]).includes('airline record'), false, 'never the reason');
    const listed = await allClaims(t.app, partner, { contractNumber: c.contractNumber, status: 'voided' });
    assert.ok(
      listed.some((x) => x.claimNumber === claimNumber && x.status === 'voided'),
      `${claimNumber} listed as voided: ${JSON.stringify(listed)}`,
    );
    // nothing entered the books for it: no reserve at opening, nothing paid
    const ledger = await t.db.selectFrom('ledger_entries').select('kind').where('claim_id', '=', claim.id).execute();
    assert.deepEqual(ledger, []);

    // settled: the other desk actions are refused, approve too (settled before "not under review")
    for (const argv of [
      ['review', claimNumber],
      ['approve', claimNumber],
      ['resend-link', claimNumber],
    ]) {
      const res = await cli('claims', ...argv, '--reason', 'late');
      assert.equal(res.code, 1);
      assert.equal(codeOf(res), 'claim_settled');
    }
  });

  it('under review, payment pending: the payout is cancelled; review and approve answer claim_settled; the ledger holds nothing', async () => {
    const { claimNumber, claim, link } = await openClaim();
    // held under review, so the simulated bank does not pay it at once
    assert.equal((await cli('claims', 'review', claimNumber, '--reason', 'fraud check')).code, 0);
    assert.equal((await sendBankDetails(link)).statusCode, 200);
    const payout = await payoutOf(claim.id);
    assert.equal(payout.status, 'pending');

    const voided = await cli('claims', 'void', claimNumber, '--reason', 'sanctions list match, confirmed');
    assert.equal(voided.code, 0, voided.err);
    assert.equal(JSON.parse(voided.out).outcome, 'done');
    assert.equal((await claimRow(claim.id)).status, 'voided');
    assert.equal((await payoutOf(claim.id)).status, 'cancelled');
    const [audited] = await auditOf(claimNumber);
    assert.deepEqual((audited!.data as { payout: unknown }).payout, {
      endToEndId: (
        await t.db.selectFrom('payouts').select('end_to_end_id').where('id', '=', payout.id).executeTakeFirstOrThrow()
      ).end_to_end_id,
      status: 'pending',
      cancelled: true,
    });

    // still marked under review, but voided: settled first (not claim_under_review), and approving pays nothing
    for (const action of ['review', 'approve']) {
      const res = await cli('claims', action, claimNumber, '--reason', 'late');
      assert.equal(res.code, 1);
      assert.equal(codeOf(res), 'claim_settled', action);
    }
    assert.equal((await payoutOf(claim.id)).status, 'cancelled');
    const ledger = await t.db.selectFrom('ledger_entries').select('kind').where('claim_id', '=', claim.id).execute();
    assert.deepEqual(ledger, []);
    const page = (await desk(claimNumber)).body;
    assert.match(page, /<td>cancelled<\/td>/);
    assert.doesNotMatch(
      page,
      /id="desk-(review|approve|amount)"/,
      'no review, approve or amount form on a voided claim',
    );
  });

  it('failed (the bank rejected the transfer): voided; paid: refused with claim_not_voidable', async () => {
    const failed = await openClaim();
    assert.equal((await sendBankDetails(failed.link, SIMULATED_BANK_REJECTED_IBAN)).statusCode, 200);
    await eventually(async () => ((await claimRow(failed.claim.id)).status === 'failed' ? true : undefined));
    const res = await cli('claims', 'void', failed.claimNumber, '--reason', 'fraud: booking never paid');
    assert.equal(res.code, 0, res.err);
    assert.equal((await claimRow(failed.claim.id)).status, 'voided');
    assert.equal((await payoutOf(failed.claim.id)).status, 'failed', 'a failed payout stays as the bank left it');

    const paid = await openClaim();
    assert.equal((await sendBankDetails(paid.link)).statusCode, 200);
    await eventually(async () => ((await claimRow(paid.claim.id)).status === 'paid' ? true : undefined));
    const refused = await cli('claims', 'void', paid.claimNumber, '--reason', 'too late');
    assert.equal(refused.code, 1);
    assert.equal(codeOf(refused), 'claim_not_voidable');
    const page = await desk(paid.claimNumber);
    assert.doesNotMatch(page.body, /id="desk-void"/);
    const form = await operator.post(`/admin/claims/${paid.claimNumber}/void`, { ...page.form, reason: 'too late' });
    assert.equal(form.statusCode, 409);
    assert.match(form.body, /role="alert"/);
    assert.equal((await claimRow(paid.claim.id)).status, 'paid');
    assert.equal((await auditOf(paid.claimNumber)).length, 0);
  });

  it('a reason is required and masked; only operators void (a partner user gets 403)', async () => {
    const { c, claimNumber, claim } = await openClaim();
    const noReason = await cli('claims', 'void', claimNumber, '--reason', ' ');
    assert.equal(noReason.code, 1);
    assert.match(noReason.err, /--reason/);
    const tooLong = await operator.post(`/admin/claims/${claimNumber}/void`, {
      ...(await desk(claimNumber)).form,
      reason: 'x'.repeat(501),
    });
    assert.equal(tooLong.statusCode, 422);
    const badCause = await operator.post(`/admin/claims/${claimNumber}/void`, {
      ...(await desk(claimNumber)).form,
      reason: REASON,
      cause: 'weather',
    });
    assert.equal(badCause.statusCode, 422);
    assert.match(badCause.body, /flight_data, other/);

    const email = `${uniqueSlug('void')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: 'partner password 42' });
    const user = new Browser(t.app);
    assert.equal((await user.signIn(email, 'partner password 42')).statusCode, 303);
    assert.equal((await user.post(`/admin/claims/${claimNumber}/void`, { reason: 'not mine' })).statusCode, 403);
    assert.notEqual((await claimRow(claim.id)).status, 'voided');

    const said = `Fraud: the customer camille.martin@example.com paid from ${IBAN}`;
    const done = await cli('claims', 'void', claimNumber, '--reason', said);
    assert.equal(done.code, 0, done.err);
    const [audited] = await auditOf(claimNumber);
    assert.equal((audited!.data as { reason: string }).reason, 'Fraud: the customer [email] paid from •••• 3000');
    // the partner's console lists it as voided (every page read: the void's SMS job may hold one short)
    const rows = await consoleClaimRows(user, `/console/claims?env=sandbox&contract=${c.contractNumber}`);
    assert.equal(rows.length, 1, `the contract's one claim: ${rows.join('\n')}`);
    assert.match(rows[0]!, new RegExp(`${claimNumber}</td><td><a [^>]+>[^<]+</a></td><td>voided<`), rows[0]);
  });

  /** A production claim (operator token), its first SMS queued (no provider in this app: it stays queued). */
  async function productionClaim() {
    const production = await createTestPartner(t.db, { environment: 'production' });
    const { auth } = await operatorToken(t, 'void test');
    const { claimNumber } = await cancelledFlightClaim(t, production, auth, { flightNumber: `AF${seq++}` });
    const claim = await t.db
      .selectFrom('claims')
      .select('id')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    return { claimNumber, claim, link: await productionSmsLink(t, claim.id) };
  }

  /** A production claim, its customer's bank details given: its SEPA payout pending. */
  async function productionClaimWithDetails() {
    const { claimNumber, claim, link } = await productionClaim();
    assert.equal((await sendBankDetails(link)).statusCode, 200);
    assert.equal((await claimRow(claim.id)).status, 'payment_pending');
    return { claimNumber, claim };
  }

  const smsOf = (claimId: string, word: string) =>
    t.db
      .selectFrom('sms_messages')
      .select(['id', 'status', 'last_error'])
      .where('claim_id', '=', claimId)
      .where('idempotency_key', 'like', `claim:${claimId}:${word}%`)
      .executeTakeFirst();
  /** The provider back after an outage: what it was asked to send. */
  const providerBack = () => {
    const bodies: string[] = [];
    const provider: SmsProvider = {
      name: 'twilio',
      send: async (m) => {
        bodies.push(m.body);
        return { providerMessageId: `SM${String(bodies.length).padStart(32, '0')}`, status: 'queued' };
      },
    };
    return {
      bodies,
      deps: { db: t.db, keys: t.app.parasol.keys, provider, linkUselessClaimStatuses: LINK_USELESS_CLAIM_STATUSES },
    };
  };
  /** The sweep after a long outage: the claim's messages made old, what it queues again. */
  async function sweepAfterOutage(claimId: string): Promise<string[]> {
    await t.db
      .updateTable('sms_messages')
      .set({ created_at: sql`created_at - interval '2 hours'` })
      .where('claim_id', '=', claimId)
      .execute();
    const requeued: string[] = [];
    const jobs = {
      sendMany: async (_queue: string, items: { smsId: string }[]) => void requeued.push(...items.map((i) => i.smsId)),
    } as unknown as JobQueue;
    await requeueStaleSms({ db: t.db, jobs });
    return requeued;
  }

  it('production, the SMS provider down: the link message still queued is never sent after the void; the sweep sends the withdrawal again, not the link', async () => {
    const { claimNumber, claim } = await productionClaim();
    const voided = await cli('claims', 'void', claimNumber, '--reason', 'wrong flight data');
    assert.equal(voided.code, 0, voided.err);
    const withdrawal = await eventually(() => smsOf(claim.id, 'voided'));
    const link = (await smsOf(claim.id, 'bank-details'))!;

    // the provider is back: the link message (still retrying) is dropped, not sent after the withdrawal
    const back = providerBack();
    assert.equal(await sendQueuedSms(back.deps, link.id), 'skipped');
    assert.deepEqual(back.bodies, [], 'no dead link texted');
    const dropped = (await smsOf(claim.id, 'bank-details'))!;
    assert.equal(dropped.status, 'rejected');
    assert.match(dropped.last_error ?? '', /^skipped: the claim is voided/);

    // a long outage: the send jobs gave up; the sweep queues the withdrawal again, which then goes out
    const requeued = await sweepAfterOutage(claim.id);
    assert.ok(requeued.includes(withdrawal.id), 'the withdrawal is queued again');
    assert.ok(!requeued.includes(link.id), 'the bank-details link of a voided claim is not queued again');
    assert.equal(await sendQueuedSms(back.deps, withdrawal.id), 'sent');
    assert.equal(back.bodies.length, 1);
    assert.match(back.bodies[0]!, /withdrawn by the insurer/);
  });

  it('a French customer: the link page and the SMS say, in French, that the claim was withdrawn', async () => {
    const { c, claimNumber, link } = await openClaim('fr');
    const res = await cli('claims', 'void', claimNumber, '--reason', 'données de vol fausses');
    assert.equal(res.code, 0, res.err);
    const shown = await t.app.inject({ method: 'GET', url: linkPath(link) });
    assert.equal(shown.statusCode, 410);
    assert.match(shown.body, /<html lang="fr">/);
    assert.match(shown.body, /retirée par l’assureur/);
    const sms = await eventually(async () =>
      (await messagesOf(c.contractNumber)).find((m) => m.body.includes("retirée par l'assureur")),
    );
    assert.doesNotMatch(sms.body, /données de vol/);
    const again = await runCliOn(t, ['claims', 'void', claimNumber, '--reason', 'encore']);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /done already, nothing done again/);
  });

  it('production: a voided claim’s payout is never in a SEPA batch; one instructed already is refused', async () => {
    const early = await productionClaimWithDetails();
    assert.equal((await cli('claims', 'void', early.claimNumber, '--reason', 'wrong flight data')).code, 0);
    const late = await productionClaimWithDetails();
    const batch = await cli('payouts', 'batch');
    assert.equal(batch.code, 0, batch.err);
    assert.equal(JSON.parse(batch.out).batches[0].payouts, 1, 'the late claim only');
    assert.equal((await payoutOf(early.claim.id)).status, 'cancelled');
    assert.equal((await payoutOf(late.claim.id)).status, 'instructed');

    const refused = await cli('claims', 'void', late.claimNumber, '--reason', 'wrong flight data');
    assert.equal(refused.code, 1);
    assert.equal(codeOf(refused), 'claim_not_voidable');
    assert.match(refused.err, /reconcile it/);
    assert.equal((await claimRow(late.claim.id)).status, 'payment_pending');

    // a bank report naming the cancelled payout (it was never sent): a conflict, nothing changed — CSV and camt.054
    const { end_to_end_id: cancelledId } = await t.db
      .selectFrom('payouts')
      .select('end_to_end_id')
      .where('claim_id', '=', early.claim.id)
      .executeTakeFirstOrThrow();
    const reports = [
      ['csv', `endToEndId,status,reason\n${cancelledId},paid,\n`],
      ['xml', camt054('08', [{ indicator: 'DBIT', transactions: [{ endToEndId: cancelledId }] }], `NTF-VOID-${seq}`)],
    ] as const;
    for (const [ext, content] of reports) {
      const file = path.join(payoutsDir, `report-void-${seq}.${ext}`);
      await fs.writeFile(file, content);
      const run = await cli('payouts', 'reconcile', file);
      assert.equal(run.code, 0, run.err);
      const report = JSON.parse(run.out) as { outcomes: Record<string, number>; issues: { outcome: string }[] };
      assert.equal(report.outcomes.conflict, 1, ext);
      assert.equal(report.outcomes.paid, 0, ext);
      assert.deepEqual(
        report.issues.map((i) => i.outcome),
        ['conflict'],
      );
    }
    assert.equal((await payoutOf(early.claim.id)).status, 'cancelled');
    assert.equal((await claimRow(early.claim.id)).status, 'voided');
    assert.deepEqual(
      await t.db.selectFrom('ledger_entries').select('kind').where('claim_id', '=', early.claim.id).execute(),
      [],
    );

    // the late claim paid while the SMS provider is down: the sweep queues its receipt again after a long outage
    const { end_to_end_id: lateId } = await t.db
      .selectFrom('payouts')
      .select('end_to_end_id')
      .where('claim_id', '=', late.claim.id)
      .executeTakeFirstOrThrow();
    const file = path.join(payoutsDir, `report-paid-${seq}.csv`);
    await fs.writeFile(file, `endToEndId,status,reason\n${lateId},paid,\n`);
    assert.equal((await cli('payouts', 'reconcile', file)).code, 0);
    assert.equal((await claimRow(late.claim.id)).status, 'paid');
    const receipt = await eventually(() => smsOf(late.claim.id, 'paid'));
    assert.ok((await sweepAfterOutage(late.claim.id)).includes(receipt.id), 'the receipt is queued again');
  });
});

describe('the claim desk voids a claim, workers off (every job run by the test)', () => {
  let t: TestApp;
  let partner: TestPartner;
  let seq = 7400 + (process.pid % 500);
  before(async () => {
    // no workers: the claim stays `opened` until the test runs its first message's job; no simulated bank pays
    t = await buildTestApp({ env: { PARASOL_WORKERS: 'off', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' } });
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  const notifyDeps = () => {
    const { config, jobs, keys } = t.app.parasol;
    return {
      db: t.db,
      jobs,
      keys,
      publicUrl: config.publicUrl,
      bankDetailsDays: config.bankDetailsDays,
      insurer: config.insurer,
      now: () => new Date(),
    };
  };
  const messagesOf = async (contractNumber: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
      headers: partner.auth,
    });
    assert.equal(res.statusCode, 200);
    return (JSON.parse(res.body) as { messages: { body: string; link: string | null }[] }).messages;
  };
  const claimsNotifyJobs = async (claimId: string) =>
    (
      await sql<{ data: { claimId: string; kind?: string } }>`
        SELECT data FROM pgboss.job WHERE name = 'claims_notify'`.execute(t.db)
    ).rows
      .map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as { claimId: string; kind?: string })
      .filter((d) => d.claimId === claimId);

  async function openClaim() {
    const { c, claimNumber } = await cancelledFlightClaim(t, partner, partner.auth, { flightNumber: `AF${seq++}` });
    const claim = await t.db
      .selectFrom('claims')
      .select(['id', 'status'])
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    return { c, claimNumber, claim };
  }

  it('opened: voided; its first message is never sent, nor any other', async () => {
    const { c, claimNumber, claim } = await openClaim();
    assert.equal(claim.status, 'opened');
    assert.deepEqual(await claimsNotifyJobs(claim.id), [{ claimId: claim.id }], 'its first message, queued');

    const res = await runCliOn(t, ['--json', 'claims', 'void', claimNumber, '--reason', 'wrong flight data']);
    assert.equal(res.code, 0, res.err);
    // no withdrawal queued for a customer never told
    assert.deepEqual(
      (await claimsNotifyJobs(claim.id)).filter((j) => j.kind === 'voided'),
      [],
      'no withdrawal SMS queued',
    );
    // the queued first message, run late: nothing
    assert.equal(await notifyClaim(notifyDeps(), { claimId: claim.id }), 'skipped');
    assert.deepEqual(await messagesOf(c.contractNumber), []);
    const row = await t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as k', 'k.id', 'cl.contract_id')
      .select(['cl.status', 'k.status as contract_status'])
      .where('cl.id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'voided', contract_status: 'active' }, 'not over before its departure');
  });

  it('payment pending, not under review, its payout pending: voided, the payout cancelled; the simulated bank run late pays nothing', async () => {
    const { c, claimNumber, claim } = await openClaim();
    assert.equal(await notifyClaim(notifyDeps(), { claimId: claim.id }), 'sent');
    const [first] = await messagesOf(c.contractNumber);
    const details = await t.app.inject({
      method: 'POST',
      url: new URL(first!.link!).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ accountHolder: 'Camille Martin', iban: IBAN, bic: '' }).toString(),
    });
    assert.equal(details.statusCode, 200);
    const payout = await t.db
      .selectFrom('payouts')
      .select(['id', 'status'])
      .where('claim_id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.equal(payout.status, 'pending');

    const res = await runCliOn(t, ['--json', 'claims', 'void', claimNumber, '--reason', 'sanctions list match']);
    assert.equal(res.code, 0, res.err);
    const settle = {
      db: t.db,
      jobs: t.app.parasol.jobs,
      now: () => new Date(),
      bankDetailsDays: 30,
      encryption: t.app.parasol.keys.encryption,
    };
    // the simulated bank's job queued with the bank details, run only now: it finds the payout cancelled
    assert.equal(await payWithSimulatedBank(settle, payout.id), 'skipped');
    const after = await t.db
      .selectFrom('claims as cl')
      .innerJoin('payouts as p', 'p.claim_id', 'cl.id')
      .select(['cl.status', 'p.status as payout_status'])
      .where('cl.id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(after, { status: 'voided', payout_status: 'cancelled' });
    assert.deepEqual(
      await t.db.selectFrom('ledger_entries').select('kind').where('claim_id', '=', claim.id).execute(),
      [],
    );
  });
});

describe(
  'voiding races: the claim row decides (PostgreSQL)',
  { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): concurrent transactions' },
  () => {
    let t: TestApp;
    let partner: TestPartner;
    let production: TestPartner;
    let operatorAuth: Record<string, string>;
    let payoutsDir: string;
    let seq = 7900 + (process.pid % 500);
    const ROUNDS = 6;
    before(async () => {
      payoutsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-void-race-'));
      t = await buildTestApp({
        env: {
          PARASOL_WORKERS: 'off',
          PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
          ...sepaPayoutsEnv(payoutsDir),
        },
      });
      partner = await createTestPartner(t.db);
      production = await createTestPartner(t.db, { environment: 'production' });
      operatorAuth = (await operatorToken(t, 'void race')).auth;
    });
    after(async () => {
      await t.close();
      await fs.rm(payoutsDir, { recursive: true, force: true });
    });

    const notifyDeps = () => {
      const { config, jobs, keys } = t.app.parasol;
      return {
        db: t.db,
        jobs,
        keys,
        publicUrl: config.publicUrl,
        bankDetailsDays: config.bankDetailsDays,
        insurer: config.insurer,
        now: () => new Date(),
      };
    };
    /** A claim waiting for bank details, its link (the first message's job run by the test). */
    async function claimWithLink(who: TestPartner, auth: Record<string, string>) {
      const { c, claimNumber } = await cancelledFlightClaim(t, who, auth, { flightNumber: `AF${seq++}` });
      const claim = await t.db
        .selectFrom('claims')
        .select('id')
        .where('claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
      assert.equal(await notifyClaim(notifyDeps(), { claimId: claim.id }), 'sent');
      let link: string;
      if (who.environment === 'production') link = await productionSmsLink(t, claim.id);
      else {
        const res = await t.app.inject({
          method: 'GET',
          url: `${FLIGHT}/sandbox/messages?contractNumber=${c.contractNumber}`,
          headers: who.auth,
        });
        link = (JSON.parse(res.body) as { messages: { link: string }[] }).messages[0]!.link;
      }
      return { claimNumber, claimId: claim.id, path: new URL(link).pathname };
    }
    const bankDetails = (linkPath: string) =>
      t.app.inject({
        method: 'POST',
        url: linkPath,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ accountHolder: 'Camille Martin', iban: IBAN, bic: '' }).toString(),
      });
    const voidIt = (claimNumber: string) =>
      runCliOn(t, ['--json', 'claims', 'void', claimNumber, '--reason', 'race: wrong flight data']);
    const stateOf = async (claimId: string) => {
      const claim = await t.db
        .selectFrom('claims')
        .select('status')
        .where('id', '=', claimId)
        .executeTakeFirstOrThrow();
      const payout = await t.db
        .selectFrom('payouts')
        .select('status')
        .where('claim_id', '=', claimId)
        .executeTakeFirst();
      return { claim: claim.status, payout: payout?.status ?? null };
    };

    it('void against the customer entering bank details: never a voided claim with a payout that can still be paid', async (ctx) => {
      const seen = new Set<string>();
      for (let round = 0; round < ROUNDS; round += 1) {
        const { claimNumber, claimId, path: linkPath } = await claimWithLink(partner, partner.auth);
        const [voided, details] = await Promise.all([voidIt(claimNumber), bankDetails(linkPath)]);
        assert.equal(voided.code, 0, voided.err);
        assert.ok([200, 410].includes(details.statusCode), `bank details answered ${details.statusCode}`);
        const state = await stateOf(claimId);
        seen.add(`${details.statusCode}:${state.payout}`);
        assert.equal(state.claim, 'voided');
        assert.ok(state.payout === null || state.payout === 'cancelled', JSON.stringify(state));
      }
      ctx.diagnostic(`outcomes (bank details' answer:payout): ${[...seen].join(', ')}`);
    });

    it('void against the SEPA batch: never both a voided claim and an instructed payout', async (ctx) => {
      const seen = new Set<string>();
      for (let round = 0; round < ROUNDS; round += 1) {
        const { claimNumber, claimId, path: linkPath } = await claimWithLink(production, operatorAuth);
        assert.equal((await bankDetails(linkPath)).statusCode, 200);
        const [voided, batch] = await Promise.all([voidIt(claimNumber), runCliOn(t, ['--json', 'payouts', 'batch'])]);
        assert.equal(batch.code, 0, batch.err);
        const state = await stateOf(claimId);
        seen.add(`${state.claim}:${state.payout}`);
        if (voided.code === 0) assert.deepEqual(state, { claim: 'voided', payout: 'cancelled' });
        else {
          assert.equal(JSON.parse(voided.err).error.code, 'claim_not_voidable');
          assert.deepEqual(state, { claim: 'payment_pending', payout: 'instructed' });
        }
      }
      ctx.diagnostic(`outcomes (claim:payout): ${[...seen].join(', ')}`);
    });
  },
);
