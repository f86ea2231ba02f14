import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  operatorToken,
  post,
  productionSmsLink,
  runCliOn,
  sepaPayoutsEnv,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { upsertPendingPayout } from '../../src/payouts/payouts-repo.ts';
import { formatDate } from '../../src/web/layout.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';

const ADMIN = { email: 'ops-bic-tests@parasol.test', password: 'operator password 42' };

/**
 * A cross-border payout (another currency than EUR) names the creditor's bank by its BIC: the
 * bank-details page requires it for such a claim whatever the IBAN's country, and an operator gives
 * it to a pending payout left out of its file without one (`parasol payouts set-bic`), which the next
 * batch then takes. Left-out payouts say since when and why (`parasol payouts list --left-out`).
 */
describe('the BIC of a cross-border payout', () => {
  let t: TestApp;
  let euros: TestPartner;
  let pounds: TestPartner;
  let payoutsDir: string;
  let operator: { authorization: string };
  let seq = 6100 + (process.pid % 300);
  const GERMAN_IBAN = 'DE89 3704 0044 0532 0130 00';
  const cli = (...argv: string[]) => runCliOn(t, ['--json', ...argv], { actor: 'operator:bic-test' });
  const codeOf = (res: { err: string }) => (JSON.parse(res.err) as { error: { code: string } }).error.code;

  before(async () => {
    payoutsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-payout-bic-'));
    t = await buildTestApp({
      env: {
        PARASOL_ADMIN_EMAIL: ADMIN.email,
        PARASOL_ADMIN_PASSWORD: ADMIN.password,
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        ...sepaPayoutsEnv(payoutsDir),
      },
    });
    euros = await createTestPartner(t.db, { environment: 'production' });
    pounds = await createTestPartner(t.db, { environment: 'production', agreement: { currency: 'GBP' } });
    operator = (await operatorToken(t, 'bic test')).auth;
  });
  after(async () => {
    await t.close();
    await fs.rm(payoutsDir, { recursive: true, force: true });
  });

  /** A claim on a cancelled production flight of the partner, and the path of its bank-details link. */
  async function openClaim(who: TestPartner): Promise<{ claimId: string; claimNumber: string; path: string }> {
    const flightNumber = `AF${seq++}`;
    const { departureDate } = await insureFlight(t.app, who, { flightNumber });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber, departureDate, status: 'cancelled' },
      operator,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const claimNumber = (opened.body.claimsOpened as { claimNumber: string }[])[0]?.claimNumber;
    assert.ok(claimNumber, JSON.stringify(opened.body));
    const claim = await t.db
      .selectFrom('claims')
      .select('id')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    return {
      claimId: claim.id,
      claimNumber: claimNumber,
      path: new URL(await productionSmsLink(t, claim.id)).pathname,
    };
  }

  const submit = (linkPath: string, bic: string) =>
    t.app.inject({
      method: 'POST',
      url: linkPath,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ accountHolder: 'Helene Muller', iban: GERMAN_IBAN, bic }).toString(),
    });

  const payoutOf = (claimId: string) =>
    t.db
      .selectFrom('payouts')
      .select(['id', 'status', 'end_to_end_id', 'left_out_at', 'left_out_code', 'batch_id'])
      .where('claim_id', '=', claimId)
      .executeTakeFirstOrThrow();

  it('the form: a GBP claim to a German IBAN without a BIC is refused, said in the label and the error; with one it is taken; an EUR claim is unchanged', async () => {
    const gbp = await openClaim(pounds);
    const page = await t.app.inject({ method: 'GET', url: gbp.path });
    assert.equal(page.statusCode, 200);
    assert.match(
      page.body,
      /<label for="f-bic">Your bank’s BIC \(required: your compensation is paid in GBP\)<\/label>/,
    );
    assert.match(page.body, /id="f-bic" name="bic" value="" [^>]*aria-required="true"/);
    const refused = await submit(gbp.path, '');
    assert.equal(refused.statusCode, 422);
    assert.match(
      refused.body,
      /id="f-bic-error">Your compensation is paid in a currency other than the euro: give your bank’s BIC/,
    );
    assert.equal(
      await t.db.selectFrom('payouts').select('id').where('claim_id', '=', gbp.claimId).executeTakeFirst(),
      undefined,
    );
    // a BIC of another country than the IBAN's is refused as before
    const mismatch = await submit(gbp.path, 'NWBKGB2L');
    assert.equal(mismatch.statusCode, 422);
    assert.match(mismatch.body, /id="f-bic-error">This BIC does not match the IBAN’s country\./);
    const taken = await submit(gbp.path, 'cobadeff xxx');
    assert.equal(taken.statusCode, 200, taken.body.slice(0, 300));
    const details = await t.db
      .selectFrom('claim_bank_details')
      .select('bic')
      .where('claim_id', '=', gbp.claimId)
      .executeTakeFirstOrThrow();
    assert.equal(details.bic, 'COBADEFFXXX');
    assert.equal((await payoutOf(gbp.claimId)).status, 'pending');

    const eur = await openClaim(euros);
    const eurPage = await t.app.inject({ method: 'GET', url: eur.path });
    assert.match(
      eurPage.body,
      /<label for="f-bic">BIC \(if your bank is outside the European Economic Area\)<\/label>/,
    );
    assert.doesNotMatch(eurPage.body, /id="f-bic"[^>]*aria-required/);
    const eurTaken = await submit(eur.path, '');
    assert.equal(eurTaken.statusCode, 200, eurTaken.body.slice(0, 300));
  });

  it('a GBP payout without a BIC is left out (since when, why, in the list), the operator sets its BIC, the next batch takes it; refused once in a file or paid', async () => {
    const gbp = await openClaim(pounds);
    assert.equal((await submit(gbp.path, 'COBADEFFXXX')).statusCode, 200);
    // details given before the page asked the BIC of such a claim
    await t.db.updateTable('claim_bank_details').set({ bic: null }).where('claim_id', '=', gbp.claimId).execute();
    const { end_to_end_id: endToEndId } = await payoutOf(gbp.claimId);

    const first = await runCliOn(t, ['payouts', 'batch']);
    assert.equal(first.code, 0, first.err);
    assert.match(
      first.out,
      new RegExp(
        `LEFT OUT ${endToEndId} \\(GBP, claim ${gbp.claimNumber}, from now\\): creditorBic is required .*parasol payouts set-bic ${gbp.claimNumber} <BIC>`,
      ),
    );
    const left = await payoutOf(gbp.claimId);
    assert.equal(left.status, 'pending');
    assert.equal(left.left_out_code, 'no_bic');
    assert.ok(left.left_out_at);
    // a run later: the same since, said as a duration
    await t.db
      .updateTable('payouts')
      .set({ left_out_at: new Date(Date.now() - 3 * 86_400_000) })
      .where('id', '=', left.id)
      .execute();
    const again = await runCliOn(t, ['payouts', 'batch']);
    assert.match(again.out, new RegExp(`LEFT OUT ${endToEndId} \\(GBP, claim ${gbp.claimNumber}, for 3 d\\)`));
    const listed = await runCliOn(t, ['payouts', 'list', '--left-out']);
    assert.equal(listed.code, 0, listed.err);
    // one mark, the same in both listings: why (and what to do), since when, for how long
    const mark = /no BIC \(parasol payouts set-bic\) since (\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ) \(3 d\)/;
    assert.match(listed.out, new RegExp(`${gbp.claimNumber} .*${endToEndId} .* ${mark.source}`), listed.out);
    const shown = await runCliOn(t, ['claims', 'show', gbp.claimNumber]);
    assert.match(shown.out, new RegExp(`left out: ${mark.source}`), shown.out);
    assert.equal(
      mark.exec(shown.out)?.[1],
      mark.exec(listed.out)?.[1],
      'the same since in both: the one the first batch left it out at',
    );
    const json = JSON.parse((await cli('payouts', 'list', '--left-out')).out) as {
      payouts: { endToEndId: string; leftOut: { code: string } | null }[];
    };
    assert.equal(json.payouts.find((p) => p.endToEndId === endToEndId)?.leftOut?.code, 'no_bic');

    // checked as the file will: a BIC's format, its country the IBAN's; a reason
    const bad = await cli('payouts', 'set-bic', gbp.claimNumber, 'NOTABIC', '--reason', 'customer called');
    assert.equal(bad.code, 1);
    assert.equal(codeOf(bad), 'validation_failed');
    const foreign = await cli('payouts', 'set-bic', gbp.claimNumber, 'NWBKGB2L', '--reason', 'customer called');
    assert.equal(foreign.code, 1);
    assert.match(foreign.err, /does not match the IBAN country DE/);
    const noReason = await cli('payouts', 'set-bic', gbp.claimNumber, 'COBADEFFXXX', '--reason', '');
    assert.equal(codeOf(noReason), 'validation_failed');
    const unknown = await cli('payouts', 'set-bic', 'PSLNOSUCHPAYOUT', 'COBADEFFXXX', '--reason', 'customer called');
    assert.equal(codeOf(unknown), 'not_found');

    // by end-to-end id, as the batch reported it (in any case), with a one-time token
    const once = 'set-bic-once-token-0001';
    const set = await cli(
      'payouts',
      'set-bic',
      endToEndId.toLowerCase(),
      'cobadeffxxx',
      '--reason',
      'BIC confirmed by the customer',
      '--once',
      once,
    );
    assert.equal(set.code, 0, set.err);
    assert.deepEqual(JSON.parse(set.out), {
      claimNumber: gbp.claimNumber,
      outcome: 'done',
      endToEndId,
      bic: 'COBADEFFXXX',
    });
    assert.equal((await payoutOf(gbp.claimId)).left_out_at, null, 'no longer marked left out');
    const bicAudits = () =>
      t.db
        .selectFrom('audit_log')
        .select(['actor', 'data'])
        .where('entity', '=', 'claim')
        .where('entity_id', '=', gbp.claimNumber)
        .where('action', '=', 'payout_bic_set')
        .execute();
    const audited = await bicAudits();
    assert.equal(audited.length, 1);
    assert.equal(audited[0]!.actor, 'operator:bic-test');
    assert.deepEqual(
      { ...(audited[0]!.data as Record<string, unknown>) },
      {
        reason: 'BIC confirmed by the customer',
        endToEndId,
        currency: 'GBP',
        ibanLast4: '3000',
        from: null,
        to: 'COBADEFFXXX',
      },
    );
    assert.doesNotMatch(JSON.stringify(audited), /DE89|370400440532013000/, 'no IBAN in clear');
    // the same BIC again: nothing more (no second audit row)
    const same = await cli('payouts', 'set-bic', gbp.claimNumber, 'COBADEFFXXX', '--reason', 'again');
    assert.equal(same.code, 0, same.err);
    assert.equal(JSON.parse(same.out).outcome, 'replayed');
    // the same token again (a retried run), even with another BIC: done once
    const retried = await cli('payouts', 'set-bic', gbp.claimNumber, 'DEUTDEFF', '--reason', 'again', '--once', once);
    assert.equal(retried.code, 0, retried.err);
    assert.equal(JSON.parse(retried.out).outcome, 'replayed');
    assert.equal((await bicAudits()).length, 1, 'no second audit row');
    const kept = await t.db
      .selectFrom('claim_bank_details')
      .select('bic')
      .where('claim_id', '=', gbp.claimId)
      .executeTakeFirstOrThrow();
    assert.equal(kept.bic, 'COBADEFFXXX');

    const next = await runCliOn(t, ['--json', 'payouts', 'batch']);
    assert.equal(next.code, 0, next.err);
    const payout = await payoutOf(gbp.claimId);
    assert.equal(payout.status, 'instructed');
    const batch = await t.db
      .selectFrom('sepa_batches')
      .select(['currency', 'file_path'])
      .where('id', '=', payout.batch_id!)
      .executeTakeFirstOrThrow();
    assert.equal(batch.currency, 'GBP');
    const xml = await fs.readFile(batch.file_path!, 'utf8');
    assert.ok(xml.includes(`<EndToEndId>${endToEndId}</EndToEndId>`));
    assert.match(xml, /<BICFI>COBADEFFXXX<\/BICFI>/);
    const skipped = (JSON.parse(next.out) as { skipped: { endToEndId: string }[] }).skipped;
    assert.ok(!skipped.some((s) => s.endToEndId === endToEndId));

    // in a file sent to the bank: its BIC stands
    const inFile = await cli('payouts', 'set-bic', gbp.claimNumber, 'DEUTDEFF', '--reason', 'another bank');
    assert.equal(inFile.code, 1);
    assert.equal(codeOf(inFile), 'payout_instructed');
    // paid: the claim is settled
    await t.db.updateTable('payouts').set({ status: 'paid' }).where('id', '=', payout.id).execute();
    await t.db
      .updateTable('claims')
      .set({ status: 'paid', paid_at: new Date() })
      .where('id', '=', gbp.claimId)
      .execute();
    const paid = await cli('payouts', 'set-bic', gbp.claimNumber, 'DEUTDEFF', '--reason', 'another bank');
    assert.equal(codeOf(paid), 'claim_settled');
  });

  it('the console: the payouts list and the claim page say the payout is left out for want of a BIC; the claim desk sets it', async () => {
    const gbp = await openClaim(pounds);
    assert.equal((await submit(gbp.path, 'COBADEFFXXX')).statusCode, 200);
    await t.db.updateTable('claim_bank_details').set({ bic: null }).where('claim_id', '=', gbp.claimId).execute();
    assert.equal((await runCliOn(t, ['payouts', 'batch'])).code, 0);
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const list = await browser.get('/admin/payouts?status=pending');
    assert.equal(list.statusCode, 200);
    // since when: the instant in the page's language with its zone (no header says it), ISO in <time datetime>;
    // the text as the product writes that instant (any month: en-GB's September is 'Sept')
    const since =
      /left out: no BIC \(since <time datetime="(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)">([^<]*)<\/time>\)/.exec(
        list.body,
      );
    assert.ok(since, 'left out: no BIC (since <time>…)');
    assert.equal(since[2], formatDate(new Date(since[1]!), 'en', ''));
    assert.match(since[2]!, /^\d{1,2} \S+ \d{4}, \d\d:\d\d UTC$/);

    const desk = await browser.get(`/admin/claims/${gbp.claimNumber}`);
    assert.equal(desk.statusCode, 200);
    assert.match(desk.body, /pending, left out: no BIC \(since /);
    assert.match(
      desk.body,
      /<form method="post" action="\/admin\/claims\/[A-Z0-9-]+\/bic" class="card" id="desk-bic">/,
    );
    const form = {
      _csrf: csrfOf(desk.body)!,
      actionToken: /name="actionToken" value="([^"]+)"/.exec(desk.body)![1]!,
    };
    const mismatch = await browser.post(`/admin/claims/${gbp.claimNumber}/bic`, {
      ...form,
      bic: 'NWBKGB2L',
      reason: 'customer called',
    });
    assert.equal(mismatch.statusCode, 422);
    assert.match(mismatch.body, /bic: BIC country GB does not match the IBAN country DE/);
    const set = await browser.post(`/admin/claims/${gbp.claimNumber}/bic`, {
      ...form,
      bic: 'COBADEFFXXX',
      reason: 'customer called',
    });
    assert.equal(set.statusCode, 303);
    const details = await t.db
      .selectFrom('claim_bank_details')
      .select('bic')
      .where('claim_id', '=', gbp.claimId)
      .executeTakeFirstOrThrow();
    assert.equal(details.bic, 'COBADEFFXXX');
    const after = await browser.get(`/admin/claims/${gbp.claimNumber}?done=done`);
    assert.doesNotMatch(after.body, /left out: no BIC/);
  });

  /** A GBP claim whose payout is pending without a BIC, left out by a batch. */
  async function leftOutClaim(): Promise<Awaited<ReturnType<typeof openClaim>>> {
    const gbp = await openClaim(pounds);
    assert.equal((await submit(gbp.path, 'COBADEFFXXX')).statusCode, 200);
    await t.db.updateTable('claim_bank_details').set({ bic: null }).where('claim_id', '=', gbp.claimId).execute();
    assert.equal((await runCliOn(t, ['payouts', 'batch'])).code, 0);
    assert.equal((await payoutOf(gbp.claimId)).left_out_code, 'no_bic');
    return gbp;
  }

  it('the left-out mark goes with the pending payout: voided, it is cleared and no longer shown; a new attempt clears it', async () => {
    const gbp = await leftOutClaim();
    const voided = await cli('claims', 'void', gbp.claimNumber, '--reason', 'opened on wrong flight data');
    assert.equal(voided.code, 0, voided.err);
    const payout = await payoutOf(gbp.claimId);
    assert.equal(payout.status, 'cancelled');
    assert.equal(payout.left_out_at, null);
    assert.equal(payout.left_out_code, null);
    const listed = await runCliOn(t, ['payouts', 'list']);
    const line = listed.out.split('\n').find((l) => l.includes(payout.end_to_end_id));
    assert.ok(line, listed.out);
    assert.doesNotMatch(line, /no BIC/);
    assert.ok(!(await runCliOn(t, ['payouts', 'list', '--left-out'])).out.includes(payout.end_to_end_id));
    const shown = await runCliOn(t, ['claims', 'show', gbp.claimNumber]);
    assert.doesNotMatch(shown.out, /left out/);

    // a payout that failed while marked (as before the mark was cleared on settling): its new attempt is not
    const other = await leftOutClaim();
    const before = await payoutOf(other.claimId);
    await t.db.updateTable('payouts').set({ status: 'failed' }).where('id', '=', before.id).execute();
    const claim = await t.db
      .selectFrom('claims')
      .select(['partner_id', 'environment', 'compensation_amount', 'currency'])
      .where('id', '=', other.claimId)
      .executeTakeFirstOrThrow();
    const retried = await upsertPendingPayout(t.db, {
      claimId: other.claimId,
      partnerId: claim.partner_id,
      environment: claim.environment,
      rail: 'sepa',
      amount: Number(claim.compensation_amount),
      currency: claim.currency,
      accountKind: 'iban',
      at: new Date(),
    });
    assert.equal(retried?.attempt, 2);
    const after = await payoutOf(other.claimId);
    assert.equal(after.status, 'pending');
    assert.equal(after.left_out_at, null);
    assert.equal(after.left_out_code, null);
  });

  it('left-out payouts go last: under --limit, a payout the file can hold is filed before them', async () => {
    assert.equal((await runCliOn(t, ['payouts', 'batch'])).code, 0); // what earlier tests left pending
    await leftOutClaim();
    await leftOutClaim();
    const good = await openClaim(pounds);
    assert.equal((await submit(good.path, 'COBADEFFXXX')).statusCode, 200);
    const run = await runCliOn(t, ['payouts', 'batch', '--limit', '1']);
    assert.equal(run.code, 0, run.err);
    assert.equal((await payoutOf(good.claimId)).status, 'instructed');
  });

  it('a sandbox payout (the simulated bank, in no file) has no BIC to set: payout_not_bank_transfer', async () => {
    const gbp = await leftOutClaim();
    // the simulated bank's rail, pending (a sandbox payout the simulated bank has not paid yet)
    await t.db.updateTable('payouts').set({ rail: 'simulated_bank' }).where('claim_id', '=', gbp.claimId).execute();
    const refused = await cli('payouts', 'set-bic', gbp.claimNumber, 'COBADEFFXXX', '--reason', 'customer called');
    assert.equal(refused.code, 1);
    assert.equal(codeOf(refused), 'payout_not_bank_transfer');
    assert.match(refused.err, /simulated bank/);
  });
});
