import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  buildTestApp,
  cancelledFlightClaim,
  createTestPartner,
  eventually,
  FLIGHT,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * Every link the platform texted for a claim keeps answering: an earlier one — replaced by the link
 * a rejected payment, a returned transfer or a contact change sends — says where the claim stands
 * and that the newest message holds the link to use (410), never "unknown", never the newer link,
 * and takes no bank details. Only a token never issued is unknown (404).
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
      .select(['cl.status', 'cl.updated_at', 'b.iban_last4', 'b.received_at'])
      .where('cl.claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();

  /** The earlier link: 410, the status, the newest message named, no form, not the newer token; its POST changes nothing. */
  async function assertEarlier(earlier: string, newer: string, claimNumber: string, status: string) {
    const page = await t.app.inject({ method: 'GET', url: earlier });
    assert.equal(page.statusCode, 410, `the earlier link is closed, not unknown: ${page.body.slice(0, 300)}`);
    assert.match(page.body, new RegExp(`id="claim-status" data-status="${status}"`), 'where the claim stands');
    assert.match(
      page.body,
      /id="newest-message"[^>]*>This link no longer works: use the link in the most recent message we have sent you\./,
      'the newest message holds the link to use',
    );
    assert.doesNotMatch(page.body, /<form/, 'no form on the earlier link');
    assert.ok(!page.body.includes(newer.slice('/c/'.length)), 'the newer token never shown on the earlier link');
    assert.doesNotMatch(page.body, /Unknown link/, 'not "unknown"');

    const before = await claimOf(claimNumber);
    const posted = await form(earlier, 'FR76 3000 6000 0112 3456 7890 189');
    assert.equal(posted.statusCode, 410, `the earlier link takes no bank details: ${posted.body.slice(0, 300)}`);
    assert.doesNotMatch(posted.body, /<form/, 'no form after the refused post');
    assert.deepEqual(await claimOf(claimNumber), before, 'nothing changed: status, bank details');

    const current = await t.app.inject({ method: 'GET', url: newer });
    assert.equal(current.statusCode, 200, 'the newest link still takes bank details');
    assert.match(current.body, /<form method="post"/, 'the newest link: the form');
  }

  it('a rejected payment: the first link, used, answers 410 with the claim failed and the newest message named', async () => {
    const { c, claimNumber } = await cancelledFlightClaim(t, a, a.auth, { flightNumber: `AF${seq++}` });
    const first = await firstLink(c.contractNumber);
    const sent = await form(first, 'NL91 ABNA 0417 1643 00');
    assert.equal(sent.statusCode, 200, sent.body);
    const second = await newerLink(c.contractNumber, first);
    assert.equal((await claimOf(claimNumber)).status, 'failed', 'the payment failed');
    await assertEarlier(first, second, claimNumber, 'failed');
  });

  it('a returned transfer: the first link answers 410 with the claim failed and the newest message named', async () => {
    const { c, claimNumber } = await cancelledFlightClaim(t, a, a.auth, { flightNumber: `AF${seq++}` });
    const first = await firstLink(c.contractNumber);
    const sent = await form(first, 'NL02 ABNA 0123 4567 89');
    assert.equal(sent.statusCode, 200, sent.body);
    const second = await newerLink(c.contractNumber, first);
    assert.equal((await claimOf(claimNumber)).status, 'failed', 'the transfer came back');
    await assertEarlier(first, second, claimNumber, 'failed');
  });

  it('a contact change: the first link, never used, answers 410 with the claim awaiting details and the newest message named', async () => {
    const { c, claimNumber } = await cancelledFlightClaim(t, a, a.auth, { flightNumber: `AF${seq++}` });
    const first = await firstLink(c.contractNumber);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `${FLIGHT}/contracts/${c.contractNumber}/customer`,
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: { phone: '+33611223344' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const second = await newerLink(c.contractNumber, first);
    await assertEarlier(first, second, claimNumber, 'awaiting_bank_details');
    const legal = await t.app.inject({ method: 'GET', url: `${first}/legal` });
    assert.equal(legal.statusCode, 200, 'the legal notice still hangs from the earlier link');
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
