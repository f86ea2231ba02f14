import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decrypt } from '../../src/platform/crypto.ts';
import { buildTestApp, createTestPartner, eventually, FLIGHT, insureFlight, post, type TestApp } from '../helper.ts';

/**
 * Issue 12 §1: a claim's bank details → paid without waiting for a job poll. The workers poll every
 * 30 s here, so only the wake-up at enqueue (JobQueue.send's NOTIFY, the process's listener calling
 * JobQueue.wake) can run each job of the path within the few seconds `eventually` is given: the
 * claim's notification (SMS and link), then the simulated bank's payout. On PostgreSQL the listener
 * holds a connection of its own; on PGlite, LISTEN/NOTIFY works within the process.
 */
const POLL_SECONDS = 30;
/** Well under one poll interval: a job that waited for the poll would fail this. */
const WOKEN_WITHIN_MS = 10_000;

describe('claim path jobs are woken at enqueue, not at the next poll', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: String(POLL_SECONDS), PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
  });
  after(() => t.close());

  it('cancelled flight → SMS link → bank details → paid, each job run within seconds with a 30 s poll', async () => {
    const partner = await createTestPartner(t.db);
    const c = await insureFlight(t.app, partner, { flightNumber: 'AF8731' });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const claimNumber = (opened.body.claimsOpened as { claimNumber: string }[])[0]!.claimNumber;
    const claim = await t.db
      .selectFrom('claims')
      .select('id')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();

    // hop 1: claims_notify (sent with the claims) writes the SMS and its link
    const link = await eventually(async () => {
      const row = await t.db
        .selectFrom('sms_outbox')
        .select('link_enc')
        .where('claim_id', '=', claim.id)
        .executeTakeFirst();
      // the link is sealed at rest (migration 0042)
      return row?.link_enc ? decrypt(t.app.parasol.keys.encryption, row.link_enc) : undefined;
    }, WOKEN_WITHIN_MS);

    // hop 2: the bank details queue payouts_simulated_bank, whose job settles the claim as paid
    const sent = await t.app.inject({
      method: 'POST',
      url: new URL(link).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ accountHolder: 'Camille Martin', iban: 'DE89370400440532013000' }).toString(),
    });
    assert.equal(sent.statusCode, 200, sent.body);
    await eventually(async () => {
      const row = await t.db.selectFrom('claims').select('status').where('id', '=', claim.id).executeTakeFirstOrThrow();
      return row.status === 'paid' ? true : undefined;
    }, WOKEN_WITHIN_MS);
  });
});
