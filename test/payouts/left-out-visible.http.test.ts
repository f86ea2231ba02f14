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
import { DatabaseGauges } from '../../src/platform/metrics.ts';
import { LEFT_OUT_PAYOUT, leftOutBicFault } from '../../src/payouts/index.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';

const ADMIN = { email: 'ops-left-out-tests@parasol.test', password: 'operator password 42' };

/**
 * Payouts a SEPA batch left out of its file are seen by operations: the gauges
 * parasol_payouts_left_out{environment,currency} and their oldest age on /metrics, and the console's
 * payouts page filter `left_out` (a card per currency, each payout with its claim, currency, amount,
 * since when, why, and the claim page's Set the BIC form).
 */
describe('payouts left out of their files, for operations', () => {
  let t: TestApp;
  let pounds: TestPartner;
  let payoutsDir: string;
  let operator: { authorization: string };
  let seq = 6500 + (process.pid % 300);
  const GERMAN_IBAN = 'DE89 3704 0044 0532 0130 00';
  const SERIES = 'parasol_payouts_left_out\\{environment="production",currency="GBP"\\}';
  const AGE = 'parasol_payouts_left_out_oldest_age_seconds\\{environment="production",currency="GBP"\\}';
  const valueOf = (text: string, series: string) => {
    const found = new RegExp(`^${series} (\\S+)$`, 'm').exec(text);
    return found ? Number(found[1]) : undefined;
  };

  before(async () => {
    payoutsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-left-out-'));
    t = await buildTestApp({
      env: {
        PARASOL_ADMIN_EMAIL: ADMIN.email,
        PARASOL_ADMIN_PASSWORD: ADMIN.password,
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        ...sepaPayoutsEnv(payoutsDir),
      },
    });
    pounds = await createTestPartner(t.db, { environment: 'production', agreement: { currency: 'GBP' } });
    operator = (await operatorToken(t, 'left-out test')).auth;
  });
  after(async () => {
    await t.close();
    await fs.rm(payoutsDir, { recursive: true, force: true });
  });

  /** A GBP claim on a cancelled production flight whose payout is pending without a BIC; left out by a batch when asked. */
  async function gbpClaimWithoutBic(
    leaveOut = true,
  ): Promise<{ claimId: string; claimNumber: string; batchOut: string }> {
    const flightNumber = `AF${seq++}`;
    const { departureDate } = await insureFlight(t.app, pounds, { flightNumber });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber, departureDate, status: 'cancelled' },
      operator,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const claimNumber = (opened.body.claimsOpened as { claimNumber: string }[])[0]?.claimNumber;
    assert.ok(claimNumber, JSON.stringify(opened.body));
    const { id: claimId } = await t.db
      .selectFrom('claims')
      .select('id')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    const link = new URL(await productionSmsLink(t, claimId)).pathname;
    const given = await t.app.inject({
      method: 'POST',
      url: link,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        accountHolder: 'Helene Muller',
        iban: GERMAN_IBAN,
        bic: 'COBADEFFXXX',
      }).toString(),
    });
    assert.equal(given.statusCode, 200, given.body.slice(0, 300));
    // details given before the page required the BIC of a claim in another currency than EUR
    await t.db.updateTable('claim_bank_details').set({ bic: null }).where('claim_id', '=', claimId).execute();
    let batchOut = '';
    if (leaveOut) {
      const run = await runCliOn(t, ['payouts', 'batch']);
      assert.equal(run.code, 0, run.err);
      batchOut = run.out;
      const payout = await t.db
        .selectFrom('payouts')
        .select('left_out_code')
        .where('claim_id', '=', claimId)
        .executeTakeFirstOrThrow();
      assert.equal(payout.left_out_code, 'no_bic', 'left out for want of a BIC');
    }
    return { claimId, claimNumber, batchOut };
  }

  it('/metrics: a left-out payout is counted by environment and currency with the age of the oldest; fixed, its series is gone', async () => {
    const gauges = new DatabaseGauges(t.db, { leftOutPayout: LEFT_OUT_PAYOUT, ttlMs: 0 });
    const none = await gauges.metrics();
    assert.equal(valueOf(none, SERIES), undefined, `no left-out payout yet, no series:\n${none}`);

    const claim = await gbpClaimWithoutBic();
    // the batch made no file, and says so without pretending nothing waits: the payout left out waits
    assert.doesNotMatch(claim.batchOut, /No payout is waiting/, claim.batchOut);
    assert.match(
      claim.batchOut,
      /^No file written: 1 pending payout waiting could not be filed \(below\)\.$/m,
      claim.batchOut,
    );
    assert.match(
      claim.batchOut,
      new RegExp(`^LEFT OUT \\S+ \\(GBP, claim ${claim.claimNumber}, from now\\)`, 'm'),
      claim.batchOut,
    );
    // left out three days ago (the mark keeps the first run's time)
    await t.db
      .updateTable('payouts')
      .set({ left_out_at: new Date(Date.now() - 3 * 86_400_000) })
      .where('claim_id', '=', claim.claimId)
      .execute();
    const scraped = await gauges.metrics();
    assert.equal(valueOf(scraped, SERIES), 1, scraped);
    const age = valueOf(scraped, AGE);
    assert.ok(age !== undefined && age >= 3 * 86_400, `oldest age at least 3 days: ${age}`);
    // pending but not left out (not yet through a batch): not counted
    const other = await gbpClaimWithoutBic(false);
    assert.equal(valueOf(await gauges.metrics(), SERIES), 1, 'a pending payout no batch left out is not counted');

    const fixed = await runCliOn(
      t,
      ['payouts', 'set-bic', claim.claimNumber, 'COBADEFFXXX', '--reason', 'BIC confirmed by the customer'],
      { actor: 'operator:left-out-test' },
    );
    assert.equal(fixed.code, 0, fixed.err);
    const after = await gauges.metrics();
    assert.equal(valueOf(after, SERIES), undefined, `fixed: no series any more\n${after}`);
    assert.equal(valueOf(after, AGE), undefined, 'nor its age');
    // the batch takes both (one had its BIC set; the other is left out now)
    assert.equal((await runCliOn(t, ['payouts', 'batch'])).code, 0);
    assert.equal(valueOf(await gauges.metrics(), SERIES), 1, 'the other one, left out by this run');
    const otherFixed = await runCliOn(
      t,
      ['payouts', 'set-bic', other.claimNumber, 'COBADEFFXXX', '--reason', 'BIC confirmed by the customer'],
      { actor: 'operator:left-out-test' },
    );
    assert.equal(otherFixed.code, 0, otherFixed.err);
    assert.equal(valueOf(await gauges.metrics(), SERIES), undefined, 'none left out');
  });

  it('the console: the payouts page’s left_out filter lists each left-out payout (claim, currency, amount, since, why, escaped) with the Set the BIC form, which fixes it', async () => {
    assert.equal((await runCliOn(t, ['payouts', 'batch'])).code, 0); // what the test before left pending
    const claim = await gbpClaimWithoutBic();
    const marker = '<script>alert("left")</script>';
    await t.db
      .updateTable('payouts')
      .set({ left_out_reason: `creditorBic is required ${marker}`, left_out_at: new Date('2026-03-02T09:30:41Z') })
      .where('claim_id', '=', claim.claimId)
      .execute();
    const { amount } = await t.db
      .selectFrom('payouts')
      .select('amount')
      .where('claim_id', '=', claim.claimId)
      .executeTakeFirstOrThrow();
    assert.ok(Number(amount) > 0, `a compensation to pay: ${amount}`);
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);

    const all = await browser.get('/admin/payouts');
    assert.equal(all.statusCode, 200);
    assert.match(all.body, /<a href="\/admin\/payouts\?status=left_out">left_out<\/a>/, 'the filter');
    assert.match(all.body, /<span>left out \(GBP\)<\/span><strong>[1-9]\d* · /, 'the count card');

    const page = await browser.get('/admin/payouts?status=left_out');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h2 id="left-out">Payouts left out of their files<\/h2>/);
    const row = new RegExp(`<tr><td><a href="/admin/claims/${claim.claimNumber}">.*?</tr>`, 's').exec(page.body)?.[0];
    assert.ok(row, `a row for claim ${claim.claimNumber}`);
    assert.match(row, /<td>GBP<\/td>/, 'its currency');
    const cells = [...row.matchAll(/<td>(.*?)<\/td>/gs)].map((m) => m[1]);
    assert.equal(
      cells[3],
      `<span class="nowrap">£${(Number(amount) / 100).toFixed(2)}</span>`,
      'its amount, in pounds',
    );
    assert.equal(
      cells[4],
      '<span class="nowrap"><time datetime="2026-03-02T09:30:41.000Z">2 Mar 2026, 09:30</time></span>',
      'left out since, UTC to the minute in the page’s language (the header says UTC), the instant for machines',
    );
    assert.match(row, /production/, 'its environment');
    assert.match(row, /<strong class="left-out">no_bic<\/strong>/, 'why');
    assert.ok(row.includes('&lt;script&gt;alert(&quot;left&quot;)&lt;/script&gt;'), 'the reason escaped');
    assert.ok(!page.body.includes(marker), 'never raw');
    assert.match(
      row,
      new RegExp(
        `<form method="post" action="/admin/claims/${claim.claimNumber}/bic" class="card" id="left-out-bic-${claim.claimNumber}">`,
      ),
      'the claim page’s Set the BIC form',
    );
    assert.doesNotMatch(page.body, /DE89|3704 ?0044|0532 ?0130/, 'no IBAN');
    // the statuses' filters still list only their status: an instructed payout is not left out
    const instructed = await browser.get('/admin/payouts?status=instructed');
    assert.ok(!instructed.body.includes(`/admin/claims/${claim.claimNumber}"`), 'not among instructed payouts');

    const token = new RegExp(`id="left-out-bic-${claim.claimNumber}">.*?name="actionToken" value="([^"]+)"`, 's').exec(
      page.body,
    )?.[1];
    assert.ok(token, 'the row’s one-time token');
    const set = await browser.post(`/admin/claims/${claim.claimNumber}/bic`, {
      _csrf: csrfOf(page.body)!,
      actionToken: token,
      bic: 'COBADEFFXXX',
      reason: 'customer called',
    });
    assert.equal(set.statusCode, 303, set.body.slice(0, 300));
    assert.equal(set.headers.location, `/admin/claims/${claim.claimNumber}?done=done`);
    const again = await browser.get('/admin/payouts?status=left_out');
    assert.ok(!again.body.includes(`/admin/claims/${claim.claimNumber}"`), 'fixed: no longer listed');
    assert.doesNotMatch(again.body, /left out \(GBP\)/, 'nor counted');
  });

  it('the console: the payouts page pages by the CLI’s cursor, never an offset — its next page lists only payouts older than the cursor', async () => {
    // two payouts of its own, whatever the tests before left (set aside at the end)
    const own = [await gbpClaimWithoutBic(false), await gbpClaimWithoutBic(false)];
    const listed = await runCliOn(t, ['--json', 'payouts', 'list', '--limit', '1']);
    assert.equal(listed.code, 0, listed.err);
    const { payouts, nextCursor } = JSON.parse(listed.out) as {
      payouts: { endToEndId: string }[];
      nextCursor: string | null;
    };
    assert.ok(nextCursor, 'more than one payout: a next page');
    const all = (
      JSON.parse((await runCliOn(t, ['--json', 'payouts', 'list', '--limit', '500'])).out) as {
        payouts: { endToEndId: string }[];
      }
    ).payouts.map((p) => p.endToEndId);
    assert.equal(all[0], payouts[0]!.endToEndId, 'newest first');
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const first = await browser.get('/admin/payouts');
    assert.doesNotMatch(first.body, /offset=/, 'no offset link');
    const next = await browser.get(`/admin/payouts?cursor=${encodeURIComponent(nextCursor)}`);
    assert.equal(next.statusCode, 200, next.body.slice(0, 300));
    assert.ok(!next.body.includes(all[0]!), 'the newest payout, before the cursor, is not on its page');
    for (const id of all.slice(1, 50)) assert.ok(next.body.includes(id), `${id}, older than the cursor, is listed`);
    assert.match(next.body, /First page/);
    // a cursor of another listing (the left-out order) is refused, not compared with another key
    const leftOutPage = await browser.get(`/admin/payouts?status=left_out&cursor=${encodeURIComponent(nextCursor)}`);
    assert.equal(leftOutPage.statusCode, 422);
    assert.match(leftOutPage.body, /other filters/, 'the refusal of every list’s cursor of another list');
    await t.db
      .updateTable('payouts')
      .set({ status: 'failed', failure_reason: 'test: set aside' })
      .where(
        'claim_id',
        'in',
        own.map((c) => c.claimId),
      )
      .execute();
  });

  /** The left-out payouts `parasol payouts list --left-out --json` lists, by claim number. */
  async function leftOutListed(): Promise<string[]> {
    const listed = await runCliOn(t, ['--json', 'payouts', 'list', '--left-out', '--limit', '500']);
    assert.equal(listed.code, 0, listed.err);
    return (JSON.parse(listed.out) as { payouts: { claimNumber: string }[] }).payouts.map((p) => p.claimNumber);
  }

  it('a claim held for review: its left-out payout leaves the gauge, the cards and the listings (no batch tries it); approved, it is back at once, since its first time (the mark is kept)', async () => {
    const gauges = new DatabaseGauges(t.db, { leftOutPayout: LEFT_OUT_PAYOUT, ttlMs: 0 });
    const base = valueOf(await gauges.metrics(), SERIES) ?? 0;
    const claim = await gbpClaimWithoutBic();
    const since = new Date(Date.now() - 2 * 86_400_000);
    await t.db.updateTable('payouts').set({ left_out_at: since }).where('claim_id', '=', claim.claimId).execute();
    assert.equal(valueOf(await gauges.metrics(), SERIES), base + 1, 'left out: counted');
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const card = async () =>
      Number(
        /<span>left out \(GBP\)<\/span><strong>(\d+) · /.exec((await browser.get('/admin/payouts')).body)?.[1] ?? 0,
      );
    const listedOnPage = async () =>
      (await browser.get('/admin/payouts?status=left_out')).body.includes(`/admin/claims/${claim.claimNumber}"`);
    assert.equal(await card(), base + 1, 'the card counts it');
    assert.equal(await listedOnPage(), true, 'the console lists it');
    assert.ok((await leftOutListed()).includes(claim.claimNumber), 'the CLI lists it');

    const held = await runCliOn(t, ['claims', 'review', claim.claimNumber, '--reason', 'booking to check'], {
      actor: 'operator:left-out-test',
    });
    assert.equal(held.code, 0, held.err);
    const whileHeld = await gauges.metrics();
    assert.equal(
      valueOf(whileHeld, SERIES) ?? 0,
      base,
      `held for review: not counted, as the pending gauge\n${whileHeld}`,
    );
    assert.equal(await card(), base, 'nor on the card');
    assert.equal(await listedOnPage(), false, 'nor listed on the console');
    assert.ok(!(await leftOutListed()).includes(claim.claimNumber), 'nor by the CLI');
    const kept = await t.db
      .selectFrom('payouts')
      .select(['left_out_at', 'left_out_code'])
      .where('claim_id', '=', claim.claimId)
      .executeTakeFirstOrThrow();
    assert.equal(kept.left_out_at?.getTime(), since.getTime(), 'the mark is kept while held');
    assert.equal(kept.left_out_code, 'no_bic', 'with its reason');
    // the batch does not try a held claim: nothing changes
    assert.equal((await runCliOn(t, ['payouts', 'batch'])).code, 0);
    assert.equal(valueOf(await gauges.metrics(), SERIES) ?? 0, base, 'still not counted after a batch');

    const approved = await runCliOn(t, ['claims', 'approve', claim.claimNumber, '--reason', 'booking checked'], {
      actor: 'operator:left-out-test',
    });
    assert.equal(approved.code, 0, approved.err);
    const back = await gauges.metrics();
    assert.equal(valueOf(back, SERIES), base + 1, `approved: counted again at once (its BIC still missing)\n${back}`);
    const age = valueOf(back, AGE);
    assert.ok(age !== undefined && age >= 2 * 86_400, `its age counts from the first time it was left out: ${age}`);
    assert.equal(await card(), base + 1, 'on the card again');
    assert.equal(await listedOnPage(), true, 'listed again');
    assert.ok((await leftOutListed()).includes(claim.claimNumber), 'by the CLI too');
    const fixed = await runCliOn(
      t,
      ['payouts', 'set-bic', claim.claimNumber, 'COBADEFFXXX', '--reason', 'BIC confirmed by the customer'],
      { actor: 'operator:left-out-test' },
    );
    assert.equal(fixed.code, 0, fixed.err);
    assert.equal(valueOf(await gauges.metrics(), SERIES) ?? 0, base, 'fixed');
  });

  it('leftOutBicFault reads the batch’s reasons: all the BIC’s, some, none', () => {
    assert.equal(leftOutBicFault('no_bic', 'creditorBic is required for a transfer outside SEPA'), 'all');
    assert.equal(leftOutBicFault('invalid', 'creditorBic is not a valid BIC'), 'all');
    assert.equal(
      leftOutBicFault(
        'invalid',
        'creditorBic BIC country FR does not match the IBAN country DE; creditorName is required',
      ),
      'some',
    );
    assert.equal(leftOutBicFault('invalid', 'creditorName is required (in SEPA Latin characters)'), 'none');
    assert.equal(leftOutBicFault('invalid', null), 'none', 'no reason: not the BIC');
  });

  it('the Set the BIC form only where the BIC is at fault; setting a BIC clears the mark only when the BIC was the only fault', async () => {
    const gauges = new DatabaseGauges(t.db, { leftOutPayout: LEFT_OUT_PAYOUT, ttlMs: 0 });
    const base = valueOf(await gauges.metrics(), SERIES) ?? 0;
    const since = new Date('2026-03-02T09:30:00Z');
    const faults = {
      name: 'creditorName is required (in SEPA Latin characters)',
      bic: 'creditorBic is not a valid BIC',
      both: 'creditorBic is not a valid BIC; creditorName is required (in SEPA Latin characters)',
    };
    const claims: Record<keyof typeof faults, { claimId: string; claimNumber: string }> = {
      name: await gbpClaimWithoutBic(false),
      bic: await gbpClaimWithoutBic(false),
      both: await gbpClaimWithoutBic(false),
    };
    for (const [fault, claim] of Object.entries(claims))
      await t.db
        .updateTable('payouts')
        .set({ left_out_at: since, left_out_code: 'invalid', left_out_reason: faults[fault as keyof typeof faults] })
        .where('claim_id', '=', claim.claimId)
        .execute();
    assert.equal(valueOf(await gauges.metrics(), SERIES), base + 3, 'the three counted');

    // the CLI's mark says why and what to do, the same way: set-bic only where the BIC is at fault
    const listed = await runCliOn(t, ['payouts', 'list', '--left-out']);
    assert.equal(listed.code, 0, listed.err);
    const lineOf = (claimNumber: string) => {
      const line = listed.out.split('\n').find((l) => l.includes(claimNumber));
      assert.ok(line, `a line for claim ${claimNumber}:\n${listed.out}`);
      return line;
    };
    assert.match(lineOf(claims.name.claimNumber), /invalid: creditorName is required/, 'the reason, not the BIC');
    assert.doesNotMatch(lineOf(claims.name.claimNumber), /set-bic/, 'no set-bic where the BIC is not at fault');
    assert.match(
      lineOf(claims.bic.claimNumber),
      /invalid: creditorBic is not a valid BIC \(parasol payouts set-bic\)/,
      'the BIC alone: set-bic',
    );
    assert.match(
      lineOf(claims.both.claimNumber),
      /\(parasol payouts set-bic, then the other fault stays\)/,
      'both: set-bic, and more',
    );
    const shown = await runCliOn(t, ['claims', 'show', claims.bic.claimNumber, '--json']);
    assert.equal(shown.code, 0, shown.err);
    const attempts = (JSON.parse(shown.out) as { payoutAttempts: { leftOut: { reason: string | null } | null }[] })
      .payoutAttempts;
    assert.equal(attempts.at(-1)?.leftOut?.reason, faults.bic, `claims show --json gives the reason: ${shown.out}`);

    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const page = (await browser.get('/admin/payouts?status=left_out')).body;
    const rowOf = (claimNumber: string) => {
      const row = new RegExp(`<tr><td><a href="/admin/claims/${claimNumber}">.*?</tr>`, 's').exec(page)?.[0];
      assert.ok(row, `a row for claim ${claimNumber}`);
      return row;
    };
    const form = (claimNumber: string) => `action="/admin/claims/${claimNumber}/bic"`;
    assert.ok(!rowOf(claims.name.claimNumber).includes(form(claims.name.claimNumber)), 'not the BIC: no form');
    assert.match(
      rowOf(claims.name.claimNumber),
      new RegExp(`<a href="/admin/claims/${claims.name.claimNumber}">Not the BIC: open the claim</a>`),
      'the claim page instead',
    );
    assert.ok(rowOf(claims.bic.claimNumber).includes(form(claims.bic.claimNumber)), 'a BIC refused: the form');
    assert.ok(
      rowOf(claims.both.claimNumber).includes(form(claims.both.claimNumber)),
      'the BIC among the faults: the form',
    );

    const setBic = (claimNumber: string) =>
      runCliOn(t, ['payouts', 'set-bic', claimNumber, 'COBADEFFXXX', '--reason', 'BIC from the bank directory'], {
        actor: 'operator:left-out-test',
      });
    const markOf = (claimId: string) =>
      t.db
        .selectFrom('payouts')
        .select(['left_out_at', 'left_out_reason'])
        .where('claim_id', '=', claimId)
        .executeTakeFirstOrThrow();
    for (const fault of ['name', 'both'] as const) {
      const set = await setBic(claims[fault].claimNumber);
      assert.equal(set.code, 0, set.err);
      assert.match(set.out, /stays left out of its file for another fault/, `${fault}: said`);
      const mark = await markOf(claims[fault].claimId);
      assert.equal(mark.left_out_at?.getTime(), since.getTime(), `${fault}: the mark and its time kept`);
      assert.equal(mark.left_out_reason, faults[fault], `${fault}: and its reason`);
    }
    const bicAdded = await t.db
      .selectFrom('claim_bank_details')
      .select('bic')
      .where('claim_id', '=', claims.name.claimId)
      .executeTakeFirstOrThrow();
    assert.equal(bicAdded.bic, 'COBADEFFXXX', 'the BIC is set all the same');
    assert.equal(valueOf(await gauges.metrics(), SERIES), base + 3, 'still counted: no BIC fixes them');

    const set = await setBic(claims.bic.claimNumber);
    assert.equal(set.code, 0, set.err);
    assert.match(set.out, /the next batch takes it/, 'the BIC was the fault');
    assert.equal((await markOf(claims.bic.claimId)).left_out_at, null, 'its mark cleared');
    assert.equal(valueOf(await gauges.metrics(), SERIES), base + 2, 'no longer counted');
    // their names are fine in truth: the next batch files them all
    assert.equal((await runCliOn(t, ['payouts', 'batch'])).code, 0);
    assert.equal(valueOf(await gauges.metrics(), SERIES) ?? 0, base, 'filed');
  });

  it('left out for want of the insurer’s address (no_debtor_address): its own mark and action, the CLI’s and the console’s in English and French — no BIC form', async () => {
    const { claimId, claimNumber } = await gbpClaimWithoutBic(false);
    const since = new Date('2026-03-02T09:30:00Z');
    await t.db
      .updateTable('payouts')
      .set({
        left_out_at: since,
        left_out_code: 'no_debtor_address', // migration 0093's code
        left_out_reason:
          "debtorAddress is required for a bank outside the EEA (CH): set PARASOL_SEPA_DEBTOR_ADDRESS, the insurer's postal address",
      })
      .where('claim_id', '=', claimId)
      .execute();
    assert.equal(leftOutBicFault('no_debtor_address', null), 'none', 'no BIC fixes it');

    const listed = await runCliOn(t, ['payouts', 'list', '--left-out']);
    assert.equal(listed.code, 0, listed.err);
    const line = listed.out.split('\n').find((l) => l.includes(claimNumber));
    assert.match(
      line ?? listed.out,
      /no insurer address for a bank outside the EEA \(set PARASOL_SEPA_DEBTOR_ADDRESS, then restart\)/,
    );
    assert.doesNotMatch(line!, /set-bic|invalid/);

    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const rowOf = (page: string) => {
      const row = new RegExp(`<tr><td><a href="/admin/claims/${claimNumber}">.*?</tr>`, 's').exec(page)?.[0];
      assert.ok(row, `a row for claim ${claimNumber}`);
      return row;
    };
    const english = rowOf((await browser.get('/admin/payouts?status=left_out')).body);
    assert.match(english, /no_debtor_address/);
    assert.match(english, /Set PARASOL_SEPA_DEBTOR_ADDRESS, then restart/);
    assert.ok(!english.includes(`action="/admin/claims/${claimNumber}/bic"`), 'no BIC form');
    assert.match(
      (await browser.get(`/admin/claims/${claimNumber}`)).body,
      /left out: the insurer’s address is not set \(since <time datetime="2026-03-02T09:30:00\.000Z">2 Mar 2026, 09:30 UTC<\/time>\)/,
    );

    browser.cookies.set('psl_lang', 'fr');
    const french = (await browser.get('/admin/payouts?status=left_out')).body;
    assert.match(french, /<html lang="fr"/);
    assert.match(rowOf(french), /Renseignez PARASOL_SEPA_DEBTOR_ADDRESS, puis redémarrez/);
    assert.match(
      (await browser.get(`/admin/claims/${claimNumber}`)).body,
      /écarté\u202f: adresse de l’assureur non renseignée \(depuis le <time datetime="2026-03-02T09:30:00\.000Z">2 mars 2026, 09:30 UTC<\/time>\)/,
    );
    await t.db
      .updateTable('payouts')
      .set({ status: 'failed', failure_reason: 'test: set aside' })
      .where('claim_id', '=', claimId)
      .execute();
  });

  it('payouts batch --limit: a run that files none counts every payout waiting, not only those its limit took', async () => {
    for (let i = 0; i < 3; i++) await gbpClaimWithoutBic(false);
    // what waits for a file: every pending payout by bank transfer whose claim is not held for review
    const waiting = await t.db
      .selectFrom('payouts as p')
      .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('p.rail', '=', 'sepa')
      .where('p.status', '=', 'pending')
      .where('cl.manual_review_at', 'is', null)
      .executeTakeFirstOrThrow();
    const n = Number(waiting.n);
    assert.ok(n >= 3, `the three GBP payouts without a BIC wait: ${n}`);
    const run = await runCliOn(t, ['payouts', 'batch', '--limit', '1']);
    assert.equal(run.code, 0, run.err);
    assert.match(
      run.out,
      new RegExp(`^No file written: ${n} pending payouts waiting could not be filed \\(below\\)\\.$`, 'm'),
      run.out,
    );
    assert.equal(run.out.match(/^LEFT OUT /gm)?.length, 1, `the one its limit took: ${run.out}`);
  });

  it('the console: an unknown filter is refused', async () => {
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const refused = await browser.get('/admin/payouts?status=left-out');
    assert.equal(refused.statusCode, 400, refused.body.slice(0, 300));
  });
});
