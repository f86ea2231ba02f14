import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expireClaims, openClaimsForFlightEvent } from '../../src/claims/index.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * A claim's first message is a `claims_notify` job queued with the claim. When that job is lost (its
 * retries exhausted: a database outage of hours), the claim must not stay `opened` for ever — no link,
 * no due date, never reminded nor expired, its contract never completed: the expiry job's sweep queues
 * its notification again an hour after its opening, and the customer is texted once.
 */
describe('a claim whose first notification job was lost', () => {
  let t: TestApp;
  let a: TestPartner;
  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
    a = await createTestPartner(t.db);
  });
  after(async () => {
    await t.close();
  });

  const messagesOf = async (contractNumber: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
      headers: a.auth,
    });
    assert.equal(res.statusCode, 200);
    return (JSON.parse(res.body) as { messages: { link: string | null }[] }).messages;
  };
  const claimOf = (contractNumber: string) =>
    t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select(['cl.id', 'cl.status', 'cl.opened_at', 'cl.updated_at', 'cl.bank_details_due_at'])
      .where('c.contract_number', '=', contractNumber)
      .executeTakeFirstOrThrow();

  it('is notified by the sweep an hour after its opening, once, whatever the sweeps', async () => {
    const c = await insureFlight(t.app, a, { flightNumber: `AF${7900 + (process.pid % 90)}` });
    // the claim and its job commit together; the job is then lost (here: a queue that drops it)
    const lost = { sendMany: async () => undefined, send: async () => undefined } as unknown as JobQueue;
    const opened = await openClaimsForFlightEvent(
      { db: t.db, jobs: lost, now: () => new Date() },
      {
        environment: 'sandbox',
        partnerId: a.id,
        flightNumber: c.flightNumber,
        departureDate: c.departureDate,
        status: 'cancelled',
        source: 'test',
      },
    );
    assert.equal(opened.length, 1);
    const claim = await claimOf(c.contractNumber);
    assert.equal(claim.status, 'opened');
    const sweep = (at: Date) => expireClaims({ db: t.db, jobs: t.app.parasol.jobs, now: () => at });

    // within the hour: a job may still be retrying, nothing is queued again (the claim is not marked)
    await sweep(new Date(claim.opened_at.getTime() + 30 * 60_000));
    const untouched = await claimOf(c.contractNumber);
    assert.equal(untouched.status, 'opened');
    assert.equal(untouched.updated_at.getTime(), claim.updated_at.getTime());

    // past the hour: queued again, the customer texted, the claim waits for bank details with a due date
    const later = new Date(claim.opened_at.getTime() + 61 * 60_000);
    await Promise.all([sweep(later), sweep(later)]);
    const notified = await eventually(async () => {
      const row = await claimOf(c.contractNumber);
      return row.status === 'awaiting_bank_details' ? row : undefined;
    });
    assert.ok(notified.bank_details_due_at);
    await sweep(new Date(later.getTime() + 2 * 60 * 60_000));
    const messages = await messagesOf(c.contractNumber);
    assert.equal(messages.length, 1, 'one message, whatever the sweeps');
    assert.ok(messages[0]!.link);
  });
});
