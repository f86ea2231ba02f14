import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expireClaims, openClaimsForFlightEvent, requeueNeverNotified } from '../../src/claims/index.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  runCliOn,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

const HOUR = 60 * 60_000;

/**
 * A claim's first message is a `claims_notify` job queued with the claim. When that job is lost (its
 * retries exhausted: a database outage of hours), the claim must not stay `opened` for ever — no link,
 * no due date, never reminded nor expired, its contract never completed: the expiry job's sweep queues
 * its notification again once the job cannot be retrying any more (8 hours on), a few times at most,
 * each audited; a claim that can never be notified, or one opened long before, is left for the desk.
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
      .select(['cl.id', 'cl.claim_number', 'cl.status', 'cl.opened_at', 'cl.updated_at', 'cl.bank_details_due_at'])
      .where('c.contract_number', '=', contractNumber)
      .executeTakeFirstOrThrow();
  const trailOf = async (claimNumber: string, action: string) =>
    (
      await t.db
        .selectFrom('audit_log')
        .select(['data'])
        .where('entity', '=', 'claim')
        .where('entity_id', '=', claimNumber)
        .where('action', '=', action)
        .orderBy('id')
        .execute()
    ).map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as Record<string, unknown>);
  /** A queue that records the `claims_notify` jobs queued for `claimId`, and passes them on to `to` (none: dropped, a lost job). */
  const recording = (claimId: string, to?: JobQueue) => {
    const queued: unknown[] = [];
    const queue = {
      send: async () => undefined,
      sendMany: async (name: string, data: { claimId: string }[], options: object) => {
        if (name === 'claims_notify') queued.push(...data.filter((d) => d.claimId === claimId));
        if (to) await to.sendMany(name as 'claims_notify', data, options);
      },
    } as unknown as JobQueue;
    return { queue, queued };
  };
  /** A claim opened while its first job is lost (the queue drops it). */
  const openWithLostJob = async (flightNumber: string) => {
    const c = await insureFlight(t.app, a, { flightNumber });
    const lost = recording('none').queue;
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
    return { c, claim };
  };

  it('is queued again once its job cannot be retrying any more (8 hours on), once whatever the sweeps, and texted once', async () => {
    const { c, claim } = await openWithLostJob(`AF${7100 + (process.pid % 90)}`);
    const { queue, queued } = recording(claim.id, t.app.parasol.jobs);
    const sweep = async (at: Date) => {
      await expireClaims({ db: t.db, jobs: queue, now: () => at });
      return requeueNeverNotified({ db: t.db, jobs: queue, now: () => at });
    };

    // within claims_notify's retry window (3.4 to 6.8 h) the job may still be retrying: nothing queued
    for (const hours of [0.5, 1.1, 2, 6.9]) await sweep(new Date(claim.opened_at.getTime() + hours * HOUR));
    assert.equal(queued.length, 0, 'nothing queued while the first job may still be retrying');
    assert.deepEqual(await trailOf(claim.claim_number, 'claim_notification_requeued'), []);
    assert.equal((await claimOf(c.contractNumber)).updated_at.getTime(), claim.updated_at.getTime());

    // past it: queued again exactly once by two sweeps at the same instant, one audit row
    const later = new Date(claim.opened_at.getTime() + 8 * HOUR + 60_000);
    await Promise.all([sweep(later), sweep(later)]);
    assert.equal(queued.length, 1, 'one job queued, whatever the sweeps');
    assert.deepEqual(await trailOf(claim.claim_number, 'claim_notification_requeued'), [{ requeue: 1, of: 3 }]);
    const notified = await eventually(async () => {
      const row = await claimOf(c.contractNumber);
      return row.status === 'awaiting_bank_details' ? row : undefined;
    });
    assert.ok(notified.bank_details_due_at);
    await sweep(new Date(later.getTime() + 20 * HOUR));
    assert.equal(queued.length, 1, 'a notified claim is not queued again');
    const messages = await messagesOf(c.contractNumber);
    assert.equal(messages.length, 1, 'one message, whatever the sweeps');
    assert.ok(messages[0]!.link);
  });

  it('is queued again at most 3 times, 8 hours apart, then left for the desk once (audited), never queued again', async () => {
    const { c, claim } = await openWithLostJob(`AF${7200 + (process.pid % 90)}`);
    // every job queued again is lost too (a message that can never be sent)
    const { queue, queued } = recording(claim.id);
    const at = (hours: number) => () => new Date(claim.opened_at.getTime() + hours * HOUR);
    const results = [];
    for (const hours of [8.1, 12, 16.2, 20, 24.3, 32.4, 40.5, 48.6, 60])
      results.push(await requeueNeverNotified({ db: t.db, jobs: queue, now: at(hours) }));
    assert.equal(queued.length, 3, 'three jobs queued again in all');
    assert.deepEqual(
      (await trailOf(claim.claim_number, 'claim_notification_requeued')).map((d) => d['requeue']),
      [1, 2, 3],
    );
    assert.deepEqual(await trailOf(claim.claim_number, 'claim_notification_abandoned'), [
      { requeues: 3, reason: 'requeues_exhausted' },
    ]);
    assert.deepEqual(
      results.map((r) => r.abandoned.includes(claim.claim_number)),
      [false, false, false, false, false, true, false, false, false],
      'named once, by the sweep that left it',
    );
    assert.equal((await claimOf(c.contractNumber)).status, 'opened', 'it stays opened, for the desk');
  });

  it('opened more than 3 days before the sweep (an old claim on the first run): left for the desk, not texted', async () => {
    const { claim } = await openWithLostJob(`AF${7300 + (process.pid % 90)}`);
    const { queue, queued } = recording(claim.id);
    const now = new Date(claim.opened_at.getTime() + 3 * 24 * HOUR + HOUR);
    const result = await requeueNeverNotified({ db: t.db, jobs: queue, now: () => now });
    assert.equal(queued.length, 0);
    assert.ok(result.abandoned.includes(claim.claim_number));
    assert.deepEqual(await trailOf(claim.claim_number, 'claim_notification_requeued'), []);
    assert.deepEqual(await trailOf(claim.claim_number, 'claim_notification_abandoned'), [
      { requeues: 0, reason: 'opened_too_long_ago' },
    ]);
  });

  it('parasol claims expire says how many first messages it queued again', async () => {
    const { c, claim } = await openWithLostJob(`AF${7400 + (process.pid % 90)}`);
    const past = new Date(Date.now() - 9 * HOUR);
    await t.db.updateTable('claims').set({ opened_at: past, updated_at: past }).where('id', '=', claim.id).execute();
    const run = await runCliOn(t, ['claims', 'expire']);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /Queued again the first message of 1 claim\(s\) never notified\./);
    assert.deepEqual(await trailOf(claim.claim_number, 'claim_notification_requeued'), [{ requeue: 1, of: 3 }]);
    await eventually(async () => (await claimOf(c.contractNumber)).status === 'awaiting_bank_details' || undefined);
    const again = await runCliOn(t, ['--json', 'claims', 'expire']);
    assert.equal(again.code, 0, again.err);
    assert.equal((JSON.parse(again.out) as { requeued: number }).requeued, 0);
  });
});
