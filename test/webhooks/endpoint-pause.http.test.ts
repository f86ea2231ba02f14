import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { deliverWebhook, type DeliveryDeps } from '../../src/webhooks/webhook-delivery.ts';
import { emitWebhookEvents, type AnyWebhookEventInput } from '../../src/webhooks/webhook-events.ts';
import { pauseFailingEndpoints } from '../../src/webhooks/pause-failing.ts';
import {
  addEndpoint,
  endpointsHealth,
  getEndpoint,
  listDeliveries,
  removeEndpoint,
  setEndpointEnabled,
  type WebhookDeps,
} from '../../src/webhooks/webhooks.ts';
import { buildTestApp, createTestPartner, type TestApp, type TestPartner } from '../helper.ts';
import { Receiver } from './receiver.ts';

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
  deps = { db: t.db, jobs, keys, allowPrivate: true, now: () => new Date() };
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

let contractSeq = 1000;
async function emit(partner: TestPartner, count = 1) {
  const events: AnyWebhookEventInput[] = Array.from({ length: count }, () => ({
    partnerId: partner.id,
    environment: 'sandbox',
    type: 'contract.cancelled',
    occurredAt: new Date(),
    data: {
      contractNumber: `FD-PAUS-${++contractSeq}`,
      status: 'cancelled',
      reason: 'customer_request',
      cancelledAt: new Date().toISOString(),
      refund: { amount: 100, currency: 'EUR' },
    },
  }));
  await t.db
    .transaction()
    .execute((trx) => emitWebhookEvents(trx, t.app.parasol.jobs, t.app.parasol.keys.encryption, events));
}

async function deliveriesOf(endpointId: string) {
  return t.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

async function attemptsOf(deliveryId: string) {
  return t.db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).execute();
}

async function queuedAttempts(deliveryId: string) {
  const rows = await sql<{ attempt: number }>`
    SELECT (data->>'attempt')::int AS attempt FROM pgboss.job
    WHERE name = 'webhooks_deliver' AND data->>'deliveryId' = ${deliveryId} ORDER BY 1`.execute(t.db);
  return rows.rows.map((r) => Number(r.attempt));
}

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

  it('gone: the receiver answered 410 Gone', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, () => ({ status: 410, body: 'gone' }));
    await emit(partner);
    const [d] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'failed');
    const paused = await getEndpoint(deps, operator, hook.endpoint.id);
    assert.deepEqual([paused.enabled, paused.pausedReason], [false, 'gone']);
    assert.ok(paused.pausedAt);
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
    assert.deepEqual(health, { failing: false, failedLastDay: 0, succeededLastDay: 1 });
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
    const health = (await endpointsHealth(deps, [hook.endpoint.id])).get(hook.endpoint.id)!;
    assert.deepEqual(health, { failing: true, failedLastDay: 1, succeededLastDay: 0 }, 'its last attempt failed');
  });
});

describe('the failing sweep', () => {
  const rule = { days: 5, attempts: 3 };

  it(`pauses an endpoint with no success for ${rule.days} days and at least ${rule.attempts} failed attempts: reason failing, pending deliveries ended, audited, once`, async () => {
    const partner = await createTestPartner(t.db);
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
      paused.map((p) => [p.id, p.failed]),
      [[hook.endpoint.id, 3]],
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
  });

  it('leaves alone an endpoint with a success in the window, too few failures, too young, or resumed since', async () => {
    const partner = await createTestPartner(t.db);
    const succeeded = await endpoint(partner);
    const few = await endpoint(partner);
    const young = await endpoint(partner);
    const resumed = await endpoint(partner);
    for (const h of [succeeded, few, young, resumed])
      receiver.answer(h.path, (n) => (h === succeeded && n === 3 ? { status: 204 } : { status: 500, body: 'down' }));
    await emit(partner);
    for (const h of [succeeded, few, resumed]) await registeredDaysAgo(h.endpoint.id, 10);
    await registeredDaysAgo(young.endpoint.id, 4);
    const [d] = await deliveriesOf(succeeded.endpoint.id);
    for (let n = 1; n <= 3; n++) {
      const at = new Date(Date.now() - (4 - n) * DAY);
      await deliverWebhook({ ...delivery, now: () => at }, { deliveryId: d!.id, attempt: n });
    }
    await failedAttempts(few.endpoint.id, 2, 4);
    await failedAttempts(young.endpoint.id, 3, 3);
    await failedAttempts(resumed.endpoint.id, 3, 4);
    await setEndpointEnabled(deps, operator, resumed.endpoint.id, false);
    await setEndpointEnabled(deps, operator, resumed.endpoint.id, true);

    const paused = (await pauseFailingEndpoints(deps, rule)).filter((p) => p.partnerId === partner.id);
    assert.deepEqual(paused, []);
    for (const h of [succeeded, few, young, resumed])
      assert.equal((await getEndpoint(deps, operator, h.endpoint.id)).enabled, true, h.path);
  });
});
