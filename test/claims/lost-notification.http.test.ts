import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  expireClaims,
  openClaimsForFlightEvent,
  requeueNeverNotified,
  resendClaimLink,
} from '../../src/claims/index.ts';
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
import { Browser, csrfOf } from '../web/inject-browser.ts';

const HOUR = 60 * 60_000;
const ADMIN = { email: 'ops-lost-notification@parasol.test', password: 'operator password 42' };

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
      env: {
        PARASOL_ADMIN_EMAIL: ADMIN.email,
        PARASOL_ADMIN_PASSWORD: ADMIN.password,
        PARASOL_JOB_POLL_SECONDS: '1',
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
      },
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
      send: async (name: string, data: { claimId: string }, options: object) => {
        if (name === 'claims_notify' && data.claimId === claimId) queued.push(data);
        return to ? to.send(name as 'claims_notify', data, options) : null;
      },
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
    const requeuedBy = await t.db
      .selectFrom('audit_log')
      .select('actor')
      .where('entity_id', '=', claim.claim_number)
      .where('action', '=', 'claim_notification_requeued')
      .executeTakeFirstOrThrow();
    assert.equal(requeuedBy.actor, 'operator:test', 'audited as the operator who ran the command, not system');
    await eventually(async () => (await claimOf(c.contractNumber)).status === 'awaiting_bank_details' || undefined);
    const again = await runCliOn(t, ['--json', 'claims', 'expire']);
    assert.equal(again.code, 0, again.err);
    assert.equal((JSON.parse(again.out) as { requeued: number }).requeued, 0);
  });

  /** A claim left for the desk by the sweep (opened over 3 days ago), never texted. */
  const abandonedClaim = async (flightNumber: string) => {
    const { c, claim } = await openWithLostJob(flightNumber);
    const dropped = recording(claim.id);
    const at = new Date(claim.opened_at.getTime() + 3 * 24 * HOUR + HOUR);
    const swept = await requeueNeverNotified({ db: t.db, jobs: dropped.queue, now: () => at });
    assert.ok(swept.abandoned.includes(claim.claim_number));
    assert.equal(dropped.queued.length, 0);
    assert.equal((await claimOf(c.contractNumber)).status, 'opened');
    return { c, claim };
  };
  /** Once no `claims_notify` job of the claim is left to run (queued, retrying or running): it was texted once and moved on. */
  const sentOnce = async (contractNumber: string) => {
    const { id } = await claimOf(contractNumber);
    await eventually(async () => {
      const pending = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pgboss.job
        WHERE name = ${'claims_notify'} AND state IN ('created', 'retry', 'active') AND data->>'claimId' = ${id}`.execute(
        t.db,
      );
      return pending.rows[0]!.n === 0 ? true : undefined;
    });
    const notified = await claimOf(contractNumber);
    assert.equal(notified.status, 'awaiting_bank_details', 'it moved on');
    assert.ok(notified.bank_details_due_at, 'a due date for bank details');
    const messages = await messagesOf(contractNumber);
    assert.equal(messages.length, 1, 'one message');
    assert.ok(messages[0]!.link);
  };

  it("left for the desk: the desk's resend (CLI) queues its first message again, audited as the operator's; texted once", async () => {
    const { c, claim } = await abandonedClaim(`AF${7500 + (process.pid % 90)}`);
    const run = await runCliOn(
      t,
      ['claims', 'resend-link', claim.claim_number, '--reason', 'key restored to the keyring'],
      { actor: 'operator:desk-cli' },
    );
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /its first message was queued again/);
    await sentOnce(c.contractNumber);
    const rows = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'claim')
      .where('entity_id', '=', claim.claim_number)
      .where('action', '=', 'claim_notification_requeued_by_desk')
      .execute();
    assert.deepEqual(
      rows.map((r) => ({ actor: r.actor, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data })),
      [{ actor: 'operator:desk-cli', data: { reason: 'key restored to the keyring' } }],
    );
    // the sweep leaves it alone still (it was handed to the desk), and counts no re-queue of its own
    assert.deepEqual(await trailOf(claim.claim_number, 'claim_notification_requeued'), []);
  });

  it("left for the desk: the console's resend does the same; resent twice before the job runs, texted once", async () => {
    const { c, claim } = await abandonedClaim(`AF${7600 + (process.pid % 90)}`);
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const page = await operator.get(`/admin/claims/${claim.claim_number}`);
    assert.equal(page.statusCode, 200, page.body.slice(0, 500));
    const actionToken = /name="actionToken" value="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(actionToken);
    const form = { _csrf: csrfOf(page.body)!, actionToken, reason: 'Twilio account fixed' };
    // two operators at once, each from their own page, before any job runs: two jobs, one message
    const held = recording(claim.id);
    const deps = {
      db: t.db,
      jobs: held.queue,
      keys: t.app.parasol.keys,
      publicUrl: 'https://claims.parasol.test',
      bankDetailsDays: 30,
      insurer: t.app.parasol.config.insurer,
      now: () => new Date(),
    };
    const other = { claimNumber: claim.claim_number, actor: 'operator:other', reason: 'customer called' };
    const outcomes = await Promise.all([
      resendClaimLink(deps, { ...other, actionToken: `lost-a-${process.pid}-0123456789` }),
      resendClaimLink(deps, { ...other, actionToken: `lost-b-${process.pid}-0123456789` }),
      resendClaimLink(deps, { ...other, actionToken: `lost-b-${process.pid}-0123456789` }),
    ]);
    assert.deepEqual(outcomes.map((o) => o.outcome).sort(), ['done', 'done', 'replayed'], 'a token twice: once');
    assert.equal(held.queued.length, 2);
    // the console's own resend, then the held jobs: all on the worker at once
    const posted = await operator.post(`/admin/claims/${claim.claim_number}/resend-link`, form);
    assert.equal(posted.statusCode, 303, posted.body.slice(0, 500));
    await t.app.parasol.jobs.sendMany('claims_notify', held.queued as { claimId: string }[]);
    await sentOnce(c.contractNumber);
    const actors = (
      await t.db
        .selectFrom('audit_log')
        .select(['actor'])
        .where('entity', '=', 'claim')
        .where('entity_id', '=', claim.claim_number)
        .where('action', '=', 'claim_notification_requeued_by_desk')
        .execute()
    ).map((r) => r.actor);
    assert.deepEqual(actors.sort(), [`operator:${ADMIN.email}`, 'operator:other', 'operator:other']);
    assert.equal((await trailOf(claim.claim_number, 'awaiting_bank_details')).length, 1, 'one first message');
  });
});
