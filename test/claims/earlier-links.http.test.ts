import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { issueClaimToken } from '../../src/claims/claims-repo.ts';
import { formatAmount } from '../../src/i18n/index.ts';
import { randomToken, sha256Hex } from '../../src/platform/crypto.ts';
import {
  buildTestApp,
  cancelledFlightClaim,
  createTestPartner,
  eventually,
  FLIGHT,
  type TestApp,
  type TestPartner,
  usingPostgres,
} from '../helper.ts';

/**
 * Every link the platform texted for a claim keeps answering: an earlier one — replaced by the link
 * a rejected payment, a returned transfer or a contact change sends — answers 410, never "unknown",
 * with none of the claim's details (a resend may mean it went to a wrong number): while the claim
 * waits for details, only that the newest message holds the link to use (never the newer link); and
 * it takes no bank details. Only a token never issued is unknown (404).
 */
describe('a claim’s earlier links: 410 with where the claim stands, never unknown', () => {
  let t: TestApp;
  let a: TestPartner;
  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
    a = await createTestPartner(t.db);
  });
  after(() => t.close());

  let seq = 6100 + (process.pid % 300);
  const linksOf = async (contractNumber: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
      headers: a.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    const messages = (res.json() as { messages: { link: string | null }[] }).messages;
    return messages.flatMap((m) => (m.link ? [new URL(m.link).pathname] : []));
  };
  const firstLink = async (contractNumber: string) => eventually(async () => (await linksOf(contractNumber))[0]);
  const newerLink = async (contractNumber: string, earlier: string) =>
    eventually(async () => (await linksOf(contractNumber)).find((l) => l !== earlier), 60_000);
  const form = (url: string, iban: string) =>
    t.app.inject({
      method: 'POST',
      url,
      payload: new URLSearchParams({ accountHolder: 'Camille Martin', iban, bic: '' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  const claimOf = (claimNumber: string) =>
    t.db
      .selectFrom('claims as cl')
      .leftJoin('claim_bank_details as b', 'b.claim_id', 'cl.id')
      .select(['cl.id', 'cl.status', 'cl.updated_at', 'cl.compensation_amount', 'b.iban_last4', 'b.received_at'])
      .where('cl.claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();

  /** A replaced link's page shows none of the claim's details: no amount, flight, passengers, account digits. */
  function assertNoDetails(body: string, flightNumber: string, amount: number, last4: string | null, what: string) {
    assert.ok(!body.includes(flightNumber), `${what}: no flight number`);
    assert.doesNotMatch(body, /class="amount"|id="passengers"|id="why"/, `${what}: no amount, passengers, why`);
    const shown = formatAmount(amount, 'EUR', 'en');
    assert.ok(!body.replace(/[\u00A0\u202F\u2009]/g, ' ').includes(shown), `${what}: no amount (${shown})`);
    if (last4) assert.ok(!body.includes(last4), `${what}: no IBAN last 4 (${last4})`);
  }

  /** The earlier link: 410, only the newest message named, no details, no form, not the newer token; its POST changes nothing. */
  async function assertEarlier(earlier: string, newer: string, claimNumber: string, flightNumber: string) {
    const page = await t.app.inject({ method: 'GET', url: earlier });
    assert.equal(page.statusCode, 410, `the earlier link is closed, not unknown: ${page.body.slice(0, 300)}`);
    assert.match(
      page.body,
      /id="newest-message"[^>]*>This link no longer works: use the link in the most recent message we have sent you\./,
      'the newest message holds the link to use',
    );
    const claim = await claimOf(claimNumber);
    assertNoDetails(page.body, flightNumber, claim.compensation_amount, claim.iban_last4, 'GET');
    assert.doesNotMatch(page.body, /<form/, 'no form on the earlier link');
    assert.ok(!page.body.includes(newer.slice('/c/'.length)), 'the newer token never shown on the earlier link');
    assert.doesNotMatch(page.body, /Unknown link/, 'not "unknown"');

    const before = await claimOf(claimNumber);
    const posted = await form(earlier, 'FR76 3000 6000 0112 3456 7890 189');
    assert.equal(posted.statusCode, 410, `the earlier link takes no bank details: ${posted.body.slice(0, 300)}`);
    assert.doesNotMatch(posted.body, /<form/, 'no form after the refused post');
    assertNoDetails(posted.body, flightNumber, claim.compensation_amount, claim.iban_last4, 'POST');
    assert.deepEqual(await claimOf(claimNumber), before, 'nothing changed: status, bank details');

    const current = await t.app.inject({ method: 'GET', url: newer });
    assert.equal(current.statusCode, 200, 'the newest link still takes bank details');
    assert.match(current.body, /<form method="post"/, 'the newest link: the form');
  }

  it('a rejected payment: the first link, used, answers 410 with the claim failed and the newest message named', async () => {
    const flightNumber = `AF${seq++}`;
    const { c, claimNumber } = await cancelledFlightClaim(t, a, a.auth, { flightNumber });
    const first = await firstLink(c.contractNumber);
    const sent = await form(first, 'NL91 ABNA 0417 1643 00');
    assert.equal(sent.statusCode, 200, sent.body);
    const second = await newerLink(c.contractNumber, first);
    assert.equal((await claimOf(claimNumber)).status, 'failed', 'the payment failed');
    await assertEarlier(first, second, claimNumber, flightNumber);
  });

  it('a returned transfer: the first link answers 410 with the claim failed and the newest message named', async () => {
    const flightNumber = `AF${seq++}`;
    const { c, claimNumber } = await cancelledFlightClaim(t, a, a.auth, { flightNumber });
    const first = await firstLink(c.contractNumber);
    const sent = await form(first, 'NL02 ABNA 0123 4567 89');
    assert.equal(sent.statusCode, 200, sent.body);
    const second = await newerLink(c.contractNumber, first);
    assert.equal((await claimOf(claimNumber)).status, 'failed', 'the transfer came back');
    await assertEarlier(first, second, claimNumber, flightNumber);
  });

  it('a contact change: the first link, never used, answers 410 with the claim awaiting details and the newest message named', async () => {
    const flightNumber = `AF${seq++}`;
    const { c, claimNumber } = await cancelledFlightClaim(t, a, a.auth, { flightNumber });
    const first = await firstLink(c.contractNumber);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `${FLIGHT}/contracts/${c.contractNumber}/customer`,
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: { phone: '+33611223344' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const second = await newerLink(c.contractNumber, first);
    assert.equal((await claimOf(claimNumber)).status, 'awaiting_bank_details', 'the claim still waits');
    await assertEarlier(first, second, claimNumber, flightNumber);
    const legal = await t.app.inject({ method: 'GET', url: `${first}/legal` });
    assert.equal(legal.statusCode, 200, 'the legal notice still hangs from the earlier link');
  });

  it('rejected, then paid through the second link: the first link names no newest message and shows no details', async () => {
    const flightNumber = `AF${seq++}`;
    const { c, claimNumber } = await cancelledFlightClaim(t, a, a.auth, { flightNumber });
    const first = await firstLink(c.contractNumber);
    assert.equal((await form(first, 'NL91 ABNA 0417 1643 00')).statusCode, 200, 'the first details');
    const second = await newerLink(c.contractNumber, first);
    const paid = await form(second, 'FR76 3000 6000 0112 3456 7890 189');
    assert.equal(paid.statusCode, 200, `the second details: ${paid.body.slice(0, 300)}`);
    await eventually(async () => ((await claimOf(claimNumber)).status === 'paid' ? true : undefined));
    const claim = await claimOf(claimNumber);
    for (const url of [first, second]) {
      const page = await t.app.inject({ method: 'GET', url });
      assert.equal(page.statusCode, 410, `${url}: closed`);
      assert.doesNotMatch(page.body, /newest-message/, `${url}: the claim is paid, no newer link to use`);
    }
    const page = await t.app.inject({ method: 'GET', url: first });
    assert.match(
      page.body,
      /id="claim-status" data-status="paid">This compensation has been paid\.<\/p>/,
      'the replaced link: one neutral line',
    );
    assertNoDetails(page.body, flightNumber, claim.compensation_amount, claim.iban_last4, 'paid, replaced');
    const used = await t.app.inject({ method: 'GET', url: second });
    assert.match(used.body, /class="amount"/, 'the link that served (not replaced) keeps its status page');
    assert.match(used.body, /data-status="paid"/, 'the used link: where the claim stands');
  });

  it('a token never issued is unknown (404)', async () => {
    const random = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
    for (const method of ['GET', 'POST'] as const) {
      const res =
        method === 'GET'
          ? await t.app.inject({ method, url: `/c/${random}` })
          : await form(`/c/${random}`, 'FR76 3000 6000 0112 3456 7890 189');
      assert.equal(res.statusCode, 404, `${method}: unknown`);
      assert.match(res.body, /Unknown link/, `${method}: the unknown-link page`);
    }
  });
});

describe(
  'a POST on a link a concurrent resend replaces (PostgreSQL)',
  { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite runs one transaction at a time' },
  () => {
    let t: TestApp;
    let a: TestPartner;
    before(async () => {
      t = await buildTestApp({
        env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
      });
      a = await createTestPartner(t.db);
    });
    after(() => t.close());

    it('waits on the claim, then sees its link replaced: 410, nothing changed, the new link still shows the form', async () => {
      const { c, claimNumber } = await cancelledFlightClaim(t, a, a.auth, {
        flightNumber: `AF${7700 + (process.pid % 200)}`,
      });
      const first = await eventually(async () => {
        const res = await t.app.inject({
          method: 'GET',
          url: `${FLIGHT}/sandbox/messages?contractNumber=${c.contractNumber}`,
          headers: a.auth,
        });
        const link = (res.json() as { messages: { link: string | null }[] }).messages.find((m) => m.link)?.link;
        return link ? new URL(link).pathname : undefined;
      });
      const stateOf = () =>
        t.db
          .selectFrom('claims as cl')
          .innerJoin('claim_tokens as tk', 'tk.claim_id', 'cl.id')
          .leftJoin('claim_bank_details as b', 'b.claim_id', 'cl.id')
          .select(['cl.id', 'cl.status', 'cl.updated_at', 'tk.token_hash', 'tk.used_at', 'b.iban_last4'])
          .where('cl.claim_number', '=', claimNumber)
          .executeTakeFirstOrThrow();
      const before = await stateOf();
      const newer = randomToken(32);

      // a resend's transaction: the claim locked, link B issued, not committed yet
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => (commit = resolve));
      let issued!: () => void;
      const isIssued = new Promise<void>((resolve) => (issued = resolve));
      const swap = t.db.transaction().execute(async (trx) => {
        await trx.selectFrom('claims').select('id').where('id', '=', before.id).forUpdate().execute();
        await issueClaimToken(trx, before.id, sha256Hex(newer), new Date(Date.now() + 7 * 86_400_000));
        issued();
        await committing;
      });
      await isIssued;
      // the customer posts on link A: it waits on the claim's lock
      const posting = t.app.inject({
        method: 'POST',
        url: first,
        payload: new URLSearchParams({
          accountHolder: 'Camille Martin',
          iban: 'FR76 3000 6000 0112 3456 7890 189',
          bic: '',
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      await eventually(async () => {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(t.db);
        return rows[0]!.n > 0 ? true : undefined;
      });
      commit();
      await swap;
      const posted = await posting;
      assert.equal(posted.statusCode, 410, `link A, replaced while the POST waited: ${posted.body.slice(0, 300)}`);
      assert.doesNotMatch(posted.body, /<form/, 'no form');
      const after = await stateOf();
      assert.deepEqual(
        { ...after, token_hash: undefined },
        { ...before, token_hash: undefined },
        'nothing changed: status, bank details, link B unused',
      );
      assert.equal(after.token_hash, sha256Hex(newer), 'link B is the claim’s link');
      const b = await t.app.inject({ method: 'GET', url: `/c/${newer}` });
      assert.equal(b.statusCode, 200, 'link B still takes bank details');
      assert.match(b.body, /<form method="post"/, 'link B: the form');
    });
  },
);
