import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql, type KyselyPlugin } from 'kysely';
import { decrypt } from '../../src/platform/crypto.ts';
import { deliverWebhook, type DeliveryDeps } from '../../src/webhooks/webhook-delivery.ts';
import { pauseFailingEndpoints } from '../../src/webhooks/pause-failing.ts';
import {
  addEndpoint,
  endpointsHealth,
  getEndpoint,
  listDeliveries,
  redeliver,
  removeEndpoint,
  setEndpointEnabled,
  updateEndpointSettings,
  type WebhookDeps,
} from '../../src/webhooks/webhooks.ts';
import { pauseEndedReason } from '../../src/webhooks/model.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  usingPostgres,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { Receiver } from './receiver.ts';
import {
  attemptsOf as attemptsOfDelivery,
  deliveriesOf as deliveriesOfEndpoint,
  emitCancellations,
  queuedAttempts as queuedAttemptsOf,
} from './webhook-rows.ts';

/**
 * Why an endpoint is paused (manual, gone, failing) and since when; a pause while an attempt is being
 * sent records that attempt; the sweep pausing the endpoints that failed for days. Workers off: each
 * attempt is one call of the delivery job.
 */

let t: TestApp;
let receiver: Receiver;
let deps: WebhookDeps;
let delivery: DeliveryDeps;
const created: string[] = [];
let pathSeq = 0;
const operator = { actor: 'operator:test' };
const DAY = 24 * 3600 * 1000;

before(async () => {
  t = await buildTestApp({ env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on', PARASOL_WORKERS: 'off' } });
  receiver = await Receiver.start();
  const { jobs, keys } = t.app.parasol;
  deps = { db: t.db, jobs, keys, allowPrivate: true, now: () => new Date(), publicUrl: 'https://parasol.test' };
  delivery = { ...deps, timeoutMs: 60_000 };
});
after(async () => {
  for (const id of created) await removeEndpoint(deps, operator, id).catch(() => undefined);
  await receiver.close();
  await t.close();
});

async function endpoint(partner: TestPartner) {
  const path = `/pause/${process.pid}/${++pathSeq}`;
  const result = await addEndpoint(
    deps,
    { ...operator, partnerId: partner.id, environment: 'sandbox' },
    { url: receiver.url(path) },
  );
  receiver.secret(path, result.secret);
  created.push(result.endpoint.id);
  return { ...result, path };
}

const emit = (partner: TestPartner, count = 1) => emitCancellations(t, partner, count, 'PAUS');

const deliveriesOf = (endpointId: string) => deliveriesOfEndpoint(t, endpointId);
const attemptsOf = (deliveryId: string) => attemptsOfDelivery(t, deliveryId);

const queuedAttempts = (deliveryId: string) => queuedAttemptsOf(t, deliveryId);

async function pauseAudits(endpointId: string) {
  return t.db
    .selectFrom('audit_log')
    .select(['actor', 'data'])
    .where('entity', '=', 'webhook_endpoint')
    .where('entity_id', '=', endpointId)
    .where('action', '=', 'disabled')
    .execute();
}

/** The endpoint as if registered `days` ago (the sweep leaves younger endpoints alone). */
async function registeredDaysAgo(endpointId: string, days: number) {
  await t.db
    .updateTable('webhook_endpoints')
    .set({ created_at: new Date(Date.now() - days * DAY) })
    .where('id', '=', endpointId)
    .execute();
}

/** Makes `count` failed attempts of the endpoint's first delivery, the first `daysAgo` days ago, a day apart. */
async function failedAttempts(endpointId: string, count: number, daysAgo: number) {
  const [d] = await deliveriesOf(endpointId);
  for (let n = 1; n <= count; n++) {
    const at = new Date(Date.now() - (daysAgo - (n - 1)) * DAY);
    const outcome = await deliverWebhook({ ...delivery, now: () => at }, { deliveryId: d!.id, attempt: n });
    assert.equal(outcome, 'retry_scheduled');
  }
  return d!;
}

let userSeq = 0;
/** A user of the partner, as an operator or an accepted invitation leaves it (activated unless `invited`). */
async function user(
  partner: TestPartner,
  role: 'admin' | 'developer' | 'viewer',
  o: { lang?: 'fr'; invited?: true } = {},
) {
  const email = `${role}${++userSeq}@${partner.slug}.example`;
  await t.db
    .insertInto('users')
    .values({
      partner_id: partner.id,
      email,
      password_hash: o.invited ? null : 'scrypt$not-used-here',
      role,
      activated_at: o.invited ? null : new Date(),
      language: o.lang ?? null,
    })
    .execute();
  return email;
}

/** The pause emails queued for the partner, opened: recipient, subject, body. */
async function pauseEmails(partner: TestPartner) {
  const rows = await t.db
    .selectFrom('emails')
    .select(['to_enc', 'subject_enc', 'text_enc'])
    .where('kind', '=', 'webhook_endpoint_paused')
    .where('partner_id', '=', partner.id)
    .execute();
  const open = (sealed: string) => decrypt(t.app.parasol.keys.encryption, sealed);
  return rows
    .map((r) => ({ to: open(r.to_enc), subject: open(r.subject_enc), text: open(r.text_enc) }))
    .sort((a, b) => a.to.localeCompare(b.to));
}

describe('why an endpoint is paused', () => {
  it('manual: paused by the partner or an operator, since then; resuming clears it', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    assert.deepEqual([hook.endpoint.pausedReason, hook.endpoint.pausedAt], [null, null]);
    const before = Date.now();
    const paused = await setEndpointEnabled(deps, operator, hook.endpoint.id, false);
    assert.equal(paused.pausedReason, 'manual');
    assert.ok(Date.parse(paused.pausedAt!) >= before - 1000, paused.pausedAt!);
    assert.deepEqual((await getEndpoint(deps, operator, hook.endpoint.id)).pausedReason, 'manual');
    const resumed = await setEndpointEnabled(deps, operator, hook.endpoint.id, true);
    assert.deepEqual([resumed.enabled, resumed.pausedReason, resumed.pausedAt], [true, null, null]);
  });

  it('gone: the receiver answered 410 Gone; the users who may change the webhooks are emailed', async () => {
    const partner = await createTestPartner(t.db);
    const admin = await user(partner, 'admin');
    const hook = await endpoint(partner);
    receiver.answer(hook.path, () => ({ status: 410, body: 'gone' }));
    await emit(partner);
    const [d] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'failed');
    const paused = await getEndpoint(deps, operator, hook.endpoint.id);
    assert.deepEqual([paused.enabled, paused.pausedReason], [false, 'gone']);
    assert.ok(paused.pausedAt);
    const emails = await pauseEmails(partner);
    assert.deepEqual(
      emails.map((e) => e.to),
      [admin],
    );
    assert.match(emails[0]!.text, /410 Gone/);
    assert.ok(emails[0]!.text.includes(hook.endpoint.url));
    const resumed = await setEndpointEnabled(deps, operator, hook.endpoint.id, true);
    assert.deepEqual([resumed.pausedReason, resumed.pausedAt], [null, null]);
  });
});

describe('a pause while an attempt is being sent', () => {
  it('the attempt the receiver accepted is recorded: the delivery succeeded, the health and the log say so', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, async () => {
      await setEndpointEnabled(deps, operator, hook.endpoint.id, false);
      return { status: 200 };
    });
    await emit(partner);
    const [d] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'succeeded');
    const [row] = await deliveriesOf(hook.endpoint.id);
    assert.deepEqual([row!.status, row!.attempts, row!.last_status_code], ['succeeded', 1, 200]);
    assert.equal((await attemptsOf(d!.id)).length, 1, 'the attempt is in the log');
    const health = (await endpointsHealth(deps, [hook.endpoint.id])).get(hook.endpoint.id)!;
    assert.deepEqual(health, {
      failing: false,
      failedLastDay: 0,
      succeededLastDay: 1,
      failingSince: null,
      failingLonger: false,
    });
  });

  it('a failed attempt is recorded and the delivery ends there, with the pause as its reason: no retry queued', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, async () => {
      await setEndpointEnabled(deps, operator, hook.endpoint.id, false);
      return { status: 503, body: 'maintenance' };
    });
    await emit(partner, 2);
    const [sent, waiting] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: sent!.id, attempt: 1 }), 'failed');
    const byId = new Map((await deliveriesOf(hook.endpoint.id)).map((r) => [r.id, r]));
    const ended = byId.get(sent!.id)!;
    assert.deepEqual([ended.status, ended.attempts, ended.last_status_code], ['failed', 1, 503]);
    assert.match(ended.last_error!, /^endpoint disabled; last attempt: HTTP 503: maintenance$/);
    assert.ok(ended.completed_at && ended.last_attempt_at);
    assert.deepEqual(await queuedAttempts(sent!.id), [1], 'no job for a second attempt');
    const [attempt] = await attemptsOf(sent!.id);
    assert.deepEqual([attempt!.status_code, attempt!.error], [503, 'HTTP 503: maintenance']);
    const other = byId.get(waiting!.id)!;
    assert.deepEqual([other.status, other.attempts, other.last_error], ['failed', 0, 'endpoint disabled']);
    const log = await listDeliveries(deps, { ...operator, partnerId: partner.id, environment: 'sandbox' });
    assert.deepEqual(log.deliveries.map((x) => x.status).sort(), ['failed', 'failed']);
    const health = (await endpointsHealth(deps, [hook.endpoint.id], { failingSince: true })).get(hook.endpoint.id)!;
    assert.deepEqual(
      health,
      {
        failing: true,
        failedLastDay: 1,
        succeededLastDay: 0,
        failingSince: attempt!.at.toISOString(),
        failingLonger: false,
      },
      'its last attempt failed',
    );
  });
});

describe('failing since: the first failed attempt after the latest successful attempt of any delivery, re-sends included', () => {
  const HOUR = 3600 * 1000;
  const ago = (ms: number) => new Date(Date.now() - ms);
  const at = (when: Date) => ({ ...delivery, now: () => when });
  const since = async (endpointId: string) =>
    (await endpointsHealth(deps, [endpointId], { failingSince: true })).get(endpointId)!;
  const ended = (id: string) =>
    t.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null })
      .where('id', '=', id)
      .execute();

  it('a re-sent delivery that succeeded, then failed when sent again: failing since that failure, not since the old ones', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    let status = 500;
    receiver.answer(hook.path, () => ({ status }));
    await emit(partner, 2);
    const [d1, d2] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(at(ago(5 * DAY)), { deliveryId: d1!.id, attempt: 1 }), 'retry_scheduled');
    assert.equal(await deliverWebhook(at(ago(4 * DAY)), { deliveryId: d2!.id, attempt: 1 }), 'retry_scheduled');
    await ended(d1!.id);
    await ended(d2!.id);

    // the operator sends d1 again: it succeeds (the receiver is back) — the endpoint is not failing
    status = 204;
    await redeliver({ ...deps, now: () => ago(3 * DAY) }, operator, d1!.id);
    assert.equal(await deliverWebhook(at(ago(3 * DAY)), { deliveryId: d1!.id, attempt: 2 }), 'succeeded');
    // then again, and the receiver is down again: failing since that attempt, its success before it kept
    status = 500;
    await redeliver({ ...deps, now: () => ago(2 * HOUR) }, operator, d1!.id);
    const failedAt = ago(2 * HOUR);
    assert.equal(await deliverWebhook(at(failedAt), { deliveryId: d1!.id, attempt: 3 }), 'retry_scheduled');
    const health = await since(hook.endpoint.id);
    assert.equal(health.failing, true);
    assert.equal(health.failingSince, (await attemptsOf(d1!.id))[2]!.at.toISOString());
    assert.equal(health.failingLonger, false);
  });

  it('a re-sent delivery that succeeded: a later failure of another delivery is the start, the failures before the success are not', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    let status = 500;
    receiver.answer(hook.path, () => ({ status }));
    await emit(partner, 2);
    const [d1, d2] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(at(ago(5 * DAY)), { deliveryId: d1!.id, attempt: 1 }), 'retry_scheduled');
    // d2 fails before and after d1 is sent again (its retries going on)
    assert.equal(await deliverWebhook(at(ago(4 * DAY)), { deliveryId: d2!.id, attempt: 1 }), 'retry_scheduled');
    await ended(d1!.id);
    status = 204;
    await redeliver({ ...deps, now: () => ago(3 * HOUR) }, operator, d1!.id);
    assert.equal(await deliverWebhook(at(ago(3 * HOUR)), { deliveryId: d1!.id, attempt: 2 }), 'succeeded');
    assert.equal((await since(hook.endpoint.id)).failing, false, 'the re-sent success clears the flag');
    status = 500;
    assert.equal(await deliverWebhook(at(ago(1 * HOUR)), { deliveryId: d2!.id, attempt: 2 }), 'retry_scheduled');
    const health = await since(hook.endpoint.id);
    assert.equal(health.failing, true);
    assert.equal(health.failingSince, (await attemptsOf(d2!.id))[1]!.at.toISOString());
  });

  it('within the day: another delivery fails, a re-sent one succeeds, is sent again (not failing while queued), then fails: failing since that failure', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    let status = 500;
    receiver.answer(hook.path, () => ({ status }));
    await emit(partner, 2);
    const [d1, d2] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(at(ago(8 * HOUR)), { deliveryId: d1!.id, attempt: 1 }), 'retry_scheduled');
    await ended(d1!.id);
    // d2 fails before d1's success (its retry pending)
    assert.equal(await deliverWebhook(at(ago(6 * HOUR)), { deliveryId: d2!.id, attempt: 1 }), 'retry_scheduled');
    status = 204;
    await redeliver({ ...deps, now: () => ago(3 * HOUR) }, operator, d1!.id);
    assert.equal(await deliverWebhook(at(ago(3 * HOUR)), { deliveryId: d1!.id, attempt: 2 }), 'succeeded');
    // sent again: queued, its success kept — the flag and the date agree, neither says failing
    await redeliver({ ...deps, now: () => ago(2 * HOUR) }, operator, d1!.id);
    const queued = await since(hook.endpoint.id);
    assert.equal(queued.failing, false, 'the success of the delivery sent again still counts');
    assert.equal(queued.failingSince, null);
    status = 500;
    assert.equal(await deliverWebhook(at(ago(1 * HOUR)), { deliveryId: d1!.id, attempt: 3 }), 'retry_scheduled');
    const health = await since(hook.endpoint.id);
    assert.equal(health.failing, true);
    assert.equal(health.failingSince, (await attemptsOf(d1!.id))[2]!.at.toISOString());
    assert.equal(health.failingLonger, false);
  });
});

describe('the failing sweep', () => {
  const rule = { days: 5, attempts: 3 };

  it(`pauses an endpoint with no success for ${rule.days} days and at least ${rule.attempts} failed attempts: reason failing, pending deliveries ended, audited, once`, async () => {
    const partner = await createTestPartner(t.db);
    const admin = await user(partner, 'admin', { lang: 'fr' });
    const developer = await user(partner, 'developer');
    await user(partner, 'viewer');
    await user(partner, 'developer', { invited: true });
    const hook = await endpoint(partner);
    const sibling = await endpoint(partner);
    receiver.answer(hook.path, () => ({ status: 500, body: 'down' }));
    await emit(partner, 2);
    await registeredDaysAgo(hook.endpoint.id, 10);
    await registeredDaysAgo(sibling.endpoint.id, 10);
    const retried = await failedAttempts(hook.endpoint.id, 3, 4);

    const [first, second] = await Promise.all([pauseFailingEndpoints(deps, rule), pauseFailingEndpoints(deps, rule)]);
    const paused = [...first, ...second].filter((p) => p.partnerId === partner.id);
    assert.deepEqual(
      paused.map((p) => [p.id, p.failed, p.emailed]),
      [[hook.endpoint.id, 3, 2]],
      'paused once, the sibling without attempts left alone',
    );
    const view = await getEndpoint(deps, operator, hook.endpoint.id);
    assert.deepEqual([view.enabled, view.pausedReason], [false, 'failing']);
    assert.equal((await getEndpoint(deps, operator, sibling.endpoint.id)).enabled, true);
    const rows = await deliveriesOf(hook.endpoint.id);
    assert.deepEqual(
      rows.map((r) => [r.status, r.last_error]),
      rows.map(() => ['failed', 'endpoint paused: no successful attempt for days (failing)']),
    );
    assert.ok(rows.every((r) => r.completed_at !== null));
    assert.equal(
      await deliverWebhook(delivery, { deliveryId: retried.id, attempt: 4 }),
      'skipped',
      'its queued retry sends nothing',
    );
    const audits = await pauseAudits(hook.endpoint.id);
    assert.deepEqual(audits, [
      {
        actor: 'system:webhooks',
        data: { reason: 'failing', days: 5, failedAttempts: 3, pendingDeliveriesEnded: 2 },
      },
    ]);
    assert.deepEqual(
      (await pauseFailingEndpoints(deps, rule)).filter((p) => p.partnerId === partner.id),
      [],
      'run again: nothing more',
    );
    // the users who may change the webhooks (an active admin, in French, and developer) are emailed, once
    const emails = await pauseEmails(partner);
    assert.deepEqual(
      emails.map((e) => e.to),
      [admin, developer].sort(),
    );
    const byTo = new Map(emails.map((e) => [e.to, e]));
    assert.match(
      byTo.get(admin)!.subject,
      /^Un point de terminaison de webhooks sandbox de Test Partner a été mis en pause$/,
    );
    assert.match(byTo.get(developer)!.subject, /^A sandbox webhook endpoint of Test Partner was paused$/);
    const text = byTo.get(developer)!.text;
    assert.ok(text.includes(hook.endpoint.url), text);
    assert.match(text, /no delivery to it succeeded for 5 days/);
    assert.match(text, /its 2 pending deliveries ended failed/);
    assert.ok(text.includes('https://parasol.test/console/webhooks'), text);
  });

  it('leaves alone an endpoint with a success in the window, too few failures, too young, or resumed since', async () => {
    const partner = await createTestPartner(t.db);
    const succeeded = await endpoint(partner);
    const few = await endpoint(partner);
    const young = await endpoint(partner);
    const resumed = await endpoint(partner);
    for (const h of [succeeded, few, young, resumed])
      receiver.answer(h.path, (n) =>
        h === succeeded && n > rule.attempts ? { status: 204 } : { status: 500, body: 'down' },
      );
    await emit(partner, 2);
    for (const h of [succeeded, few, resumed]) await registeredDaysAgo(h.endpoint.id, 10);
    await registeredDaysAgo(young.endpoint.id, 4);
    // enough failures for the rule (one delivery), and one success (another delivery) in the window
    await failedAttempts(succeeded.endpoint.id, rule.attempts, 4);
    const [, later] = await deliveriesOf(succeeded.endpoint.id);
    const yesterday = new Date(Date.now() - DAY);
    assert.equal(
      await deliverWebhook({ ...delivery, now: () => yesterday }, { deliveryId: later!.id, attempt: 1 }),
      'succeeded',
    );
    await failedAttempts(few.endpoint.id, 2, 4);
    await failedAttempts(young.endpoint.id, 3, 3);
    await failedAttempts(resumed.endpoint.id, 3, 4);
    await setEndpointEnabled(deps, operator, resumed.endpoint.id, false);
    await setEndpointEnabled(deps, operator, resumed.endpoint.id, true);

    const paused = (await pauseFailingEndpoints(deps, rule)).filter((p) => p.partnerId === partner.id);
    assert.deepEqual(paused, []);
    for (const h of [succeeded, few, young, resumed])
      assert.equal((await getEndpoint(deps, operator, h.endpoint.id)).enabled, true, h.path);
    assert.deepEqual(await pauseEmails(partner), [], 'no pause, no email');
  });

  it('an endpoint resumed by a process of the previous version (a rolling deploy: enabled, its pause left) starts a new window too', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, () => ({ status: 500, body: 'down' }));
    await emit(partner);
    await registeredDaysAgo(hook.endpoint.id, 10);
    await failedAttempts(hook.endpoint.id, rule.attempts, 4);
    await setEndpointEnabled(deps, operator, hook.endpoint.id, false);
    // the previous version resumes it: enabled, paused_reason and paused_at left, no resumed_at
    await t.db.updateTable('webhook_endpoints').set({ enabled: true }).where('id', '=', hook.endpoint.id).execute();
    assert.deepEqual(
      (await pauseFailingEndpoints(deps, rule)).filter((p) => p.partnerId === partner.id),
      [],
      'resumed after its pause, so after the failures: not judged on them',
    );
    const view = await getEndpoint(deps, operator, hook.endpoint.id);
    assert.deepEqual([view.enabled, view.pausedReason], [true, null]);
  });

  it('a new URL starts a new window: the failures at the old one do not count', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, () => ({ status: 500, body: 'down' }));
    await emit(partner);
    await registeredDaysAgo(hook.endpoint.id, 10);
    await failedAttempts(hook.endpoint.id, rule.attempts, 4);
    const moved = `${hook.path}/moved`;
    await updateEndpointSettings(deps, operator, hook.endpoint.id, { url: receiver.url(moved) });
    assert.deepEqual(
      (await pauseFailingEndpoints(deps, rule)).filter((p) => p.partnerId === partner.id),
      [],
    );
    assert.equal((await getEndpoint(deps, operator, hook.endpoint.id)).enabled, true);
  });

  it(
    'a success being recorded while the sweep runs keeps the endpoint live: the sweep waits for it',
    { skip: !usingPostgres && 'two transactions at once need PostgreSQL (PGlite has one connection)' },
    async () => {
      const partner = await createTestPartner(t.db);
      const admin = await user(partner, 'admin');
      const hook = await endpoint(partner);
      receiver.answer(hook.path, (n) => (n > rule.attempts ? { status: 200 } : { status: 500, body: 'down' }));
      await emit(partner, 2);
      await registeredDaysAgo(hook.endpoint.id, 10);
      await failedAttempts(hook.endpoint.id, rule.attempts, 4);
      const [, second] = await deliveriesOf(hook.endpoint.id);

      // the worker's transaction, its success written, not committed: the sweep starts then, and the
      // worker commits once the sweep is waiting for a lock (or, when it takes none, has finished)
      let sweep: Promise<Awaited<ReturnType<typeof pauseFailingEndpoints>>> | undefined;
      let swept = false;
      const recording = new Set<unknown>();
      const blocked = async () =>
        (
          await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0`.execute(t.db)
        ).rows[0]!.n;
      const meet: KyselyPlugin = {
        transformQuery: (args) => {
          const { sql: text } = t.db.getExecutor().compileQuery(args.node, args.queryId);
          if (/^insert into "webhook_delivery_attempts"/.test(text)) recording.add(args.queryId);
          return args.node;
        },
        transformResult: async (args) => {
          if (recording.delete(args.queryId)) {
            sweep = pauseFailingEndpoints(deps, rule).finally(() => (swept = true));
            await eventually(async () => (swept || (await blocked()) > 0 ? true : undefined));
          }
          return args.result;
        },
      };
      const outcome = await deliverWebhook(
        { ...delivery, db: t.db.withPlugin(meet) },
        { deliveryId: second!.id, attempt: 1 },
      );
      assert.equal(outcome, 'succeeded');
      assert.ok(sweep, 'the sweep ran during the recording');
      assert.deepEqual(
        (await sweep).filter((p) => p.partnerId === partner.id),
        [],
      );
      const view = await getEndpoint(deps, operator, hook.endpoint.id);
      assert.deepEqual([view.enabled, view.pausedReason], [true, null]);
      assert.deepEqual(await pauseEmails(partner), [], `no email to ${admin}`);
    },
  );
});

describe('an endpoint paused or removed before or during an attempt', () => {
  for (const reason of ['failing', 'gone'] as const)
    it(`a delivery whose job finds the endpoint paused (${reason}) ends with that reason`, async () => {
      const partner = await createTestPartner(t.db);
      const hook = await endpoint(partner);
      await emit(partner);
      const [d] = await deliveriesOf(hook.endpoint.id);
      // paused while this delivery was held by a worker that then died: the job comes again
      await t.db
        .updateTable('webhook_endpoints')
        .set({ enabled: false, paused_reason: reason, paused_at: new Date() })
        .where('id', '=', hook.endpoint.id)
        .execute();
      assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'failed');
      const [row] = await deliveriesOf(hook.endpoint.id);
      assert.deepEqual([row!.status, row!.last_error], ['failed', pauseEndedReason(reason)]);
    });

  it('removed during an attempt: the attempt is recorded, the delivery ends "endpoint removed"; DELETE answers the endpoint as it was', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    let removed: Awaited<ReturnType<typeof removeEndpoint>> | undefined;
    receiver.answer(hook.path, async () => {
      removed = await removeEndpoint(deps, operator, hook.endpoint.id);
      return { status: 503, body: 'maintenance' };
    });
    await emit(partner, 2);
    const [sent, waiting] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: sent!.id, attempt: 1 }), 'failed');
    const byId = new Map((await deliveriesOf(hook.endpoint.id)).map((r) => [r.id, r]));
    const ended = byId.get(sent!.id)!;
    assert.deepEqual([ended.status, ended.attempts, ended.last_status_code], ['failed', 1, 503]);
    assert.equal(ended.last_error, 'endpoint removed; last attempt: HTTP 503: maintenance');
    assert.equal((await attemptsOf(sent!.id)).length, 1, 'the attempt is in the log');
    assert.deepEqual(await queuedAttempts(sent!.id), [1], 'no job for a second attempt');
    assert.deepEqual(
      [byId.get(waiting!.id)!.status, byId.get(waiting!.id)!.last_error],
      ['failed', 'endpoint removed'],
    );
    assert.deepEqual([removed!.enabled, removed!.pausedReason, removed!.pausedAt], [true, null, null]);
  });
});

describe('migration 0067', () => {
  it('gives an endpoint resumed before it the time of its latest resume, so older failures do not count', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const never = await endpoint(partner);
    await setEndpointEnabled(deps, operator, hook.endpoint.id, false);
    await setEndpointEnabled(deps, operator, hook.endpoint.id, true);
    const [resume] = await t.db
      .selectFrom('audit_log')
      // in the column's precision (milliseconds, rounded)
      .select(sql<Date>`at::timestamptz(3)`.as('at'))
      .where('entity', '=', 'webhook_endpoint')
      .where('entity_id', '=', hook.endpoint.id)
      .where('action', '=', 'enabled')
      .execute();
    // as the previous version left them: no resumed_at
    await t.db
      .updateTable('webhook_endpoints')
      .set({ resumed_at: null })
      .where('id', 'in', [hook.endpoint.id, never.endpoint.id])
      .execute();
    const migration = readFileSync(
      new URL('../../migrations/0067_webhook_endpoints_paused.sql', import.meta.url),
      'utf8',
    );
    await sql.raw(migration.slice(migration.indexOf('-- the endpoints resumed before'))).execute(t.db);
    const rows = await t.db
      .selectFrom('webhook_endpoints')
      .select(['id', 'resumed_at'])
      .where('id', 'in', [hook.endpoint.id, never.endpoint.id])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r.resumed_at?.toISOString() ?? null]));
    assert.equal(byId.get(hook.endpoint.id), resume!.at.toISOString());
    assert.equal(byId.get(never.endpoint.id), null, 'never paused: none');
  });
});
