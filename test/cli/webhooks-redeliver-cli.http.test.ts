import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startOperatorCommands } from '../../src/cli/operator-commands.ts';
import { runRemote } from '../../src/cli/remote.ts';
import { deliverWebhook, type DeliveryDeps } from '../../src/webhooks/webhook-delivery.ts';
import { addEndpoint, removeEndpoint, type WebhookDeps } from '../../src/webhooks/webhooks.ts';
import { buildTestApp, createTestPartner, runCliOn, type TestApp, type TestPartner } from '../helper.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { deliveriesOf, emitCancellations, queuedAttempts } from '../webhooks/webhook-rows.ts';

/**
 * `parasol webhooks redeliver <delivery-id>`: the operator page's "Send again" on the command line,
 * through the same use case (redeliver: refusals, audit under the operator, `--once`, as `webhooks test`'s), run alone and
 * through the running server's operator socket. Workers off: each attempt is one call of the job.
 */

describe('parasol webhooks redeliver', () => {
  let t: TestApp;
  let receiver: Receiver;
  let deps: WebhookDeps;
  let delivery: DeliveryDeps;
  let dataDir: string;
  const created: string[] = [];
  let seq = 0;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-webhooks-cli-'));
    t = await buildTestApp({
      env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on', PARASOL_WORKERS: 'off', PARASOL_DATA_DIR: dataDir },
    });
    receiver = await Receiver.start();
    const { jobs, keys } = t.app.parasol;
    deps = { db: t.db, jobs, keys, allowPrivate: true, now: () => new Date() };
    delivery = { ...deps, timeoutMs: 60_000 };
  });
  after(async () => {
    for (const id of created) await removeEndpoint(deps, { actor: 'operator:test' }, id).catch(() => undefined);
    await receiver.close();
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** An endpoint of the partner's sandbox and one delivery to it, its first attempt made (`status` answered). */
  async function attempted(partner: TestPartner, status: number) {
    const hookPath = `/redeliver-cli/${process.pid}/${++seq}`;
    const hook = await addEndpoint(
      deps,
      { actor: 'operator:test', partnerId: partner.id, environment: 'sandbox' },
      { url: receiver.url(hookPath) },
    );
    receiver.secret(hookPath, hook.secret);
    receiver.answer(hookPath, () => ({ status }));
    created.push(hook.endpoint.id);
    await emitCancellations(t, partner, 1, 'RDCL');
    const [d] = await deliveriesOf(t, hook.endpoint.id);
    await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 });
    return { endpointId: hook.endpoint.id, deliveryId: d!.id, hookPath };
  }

  const queued = (deliveryId: string) => queuedAttempts(t, deliveryId);

  const audits = (endpointId: string) =>
    t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'webhook_endpoint')
      .where('entity_id', '=', endpointId)
      .where('action', '=', 'redelivery_requested')
      .execute();

  it('queues an ended delivery again with its next attempt, audited; refuses a pending one and an unknown id', async () => {
    const partner = await createTestPartner(t.db);
    const { endpointId, deliveryId, hookPath } = await attempted(partner, 204);

    const run = await runCliOn(t, ['webhooks', 'redeliver', deliveryId]);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, new RegExp(`Queued delivery ${deliveryId} again \\(event msg_[^,]+, attempt 2\\)`));
    assert.deepEqual(await queued(deliveryId), [1, 2]);
    const [row] = await audits(endpointId);
    assert.equal(row?.actor, 'operator:test');
    assert.equal((row!.data as { attempt: number }).attempt, 2);

    // pending again: refused, as on the page (409 webhook_delivery_pending), nothing queued
    const pending = await runCliOn(t, ['webhooks', 'redeliver', deliveryId]);
    assert.equal(pending.code, 1);
    assert.match(pending.err, /still being attempted/);
    assert.deepEqual(await queued(deliveryId), [1, 2]);

    assert.equal(await deliverWebhook(delivery, { deliveryId, attempt: 2 }), 'succeeded');
    const received = receiver.received(hookPath);
    assert.equal(received.length, 2);
    assert.equal(received[1]!.headers['webhook-id'], received[0]!.headers['webhook-id'], 'the same webhook-id');

    const unknown = await runCliOn(t, ['webhooks', 'redeliver', '5d0c6a52-8f0e-4a43-9d4c-1b8f2a7e3c10']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /No webhook delivery 5d0c6a52/);
  });

  it('--once: the same token twice sends it again once; a malformed token is refused', async () => {
    const partner = await createTestPartner(t.db);
    const { endpointId, deliveryId } = await attempted(partner, 500);
    await t.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', deliveryId).execute();
    const queuedBefore = await queued(deliveryId); // its first attempt, and the retry the failure queued
    const once = 'cli-retry-0123456789';
    const first = await runCliOn(t, ['--json', 'webhooks', 'redeliver', deliveryId, '--once', once]);
    assert.equal(first.code, 0, first.err);
    assert.equal(JSON.parse(first.out).attempt, 2);
    const second = await runCliOn(t, ['webhooks', 'redeliver', deliveryId, '--once', once]);
    assert.equal(second.code, 0, second.err);
    assert.match(second.out, /sent again already with this --once token \(attempt 2\), nothing queued again/);
    assert.deepEqual(await queued(deliveryId), [...queuedBefore, 2], 'one attempt queued by the two runs');
    assert.equal((await audits(endpointId)).length, 1);

    const other = await attempted(await createTestPartner(t.db), 500);
    await t.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', other.deliveryId).execute();
    const otherBefore = await queued(other.deliveryId);
    const foreign = await runCliOn(t, ['webhooks', 'redeliver', other.deliveryId, '--once', once]);
    assert.equal(foreign.code, 1);
    assert.match(foreign.err, /--once: this token was used for another partner's endpoint; use a new one/);
    assert.doesNotMatch(foreign.err, /open the page/);
    assert.deepEqual(await queued(other.deliveryId), otherBefore, 'nothing queued with the other partner’s token');

    const bad = await runCliOn(t, ['webhooks', 'redeliver', deliveryId, '--once', 'short']);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /--once: must be 16 to 64 letters, digits, - or _/);
  });

  it('test --once: the same token twice queues one test event; a token of another partner is refused', async () => {
    const partner = await createTestPartner(t.db);
    const { endpointId } = await attempted(partner, 204);
    const before = (await deliveriesOf(t, endpointId)).length;
    const once = 'cli-test-0123456789';
    const first = await runCliOn(t, ['--json', 'webhooks', 'test', endpointId, '--once', once]);
    assert.equal(first.code, 0, first.err);
    const sent = JSON.parse(first.out) as { eventId: string; deliveryId: string };
    const second = await runCliOn(t, ['webhooks', 'test', endpointId, '--once', once]);
    assert.equal(second.code, 0, second.err);
    assert.match(
      second.out,
      new RegExp(
        `test event ${sent.eventId} sent already with this --once token \\(delivery ${sent.deliveryId}\\), nothing queued again`,
      ),
    );
    assert.equal((await deliveriesOf(t, endpointId)).length, before + 1, 'one test event for the two runs');

    const other = await attempted(await createTestPartner(t.db), 204);
    const foreign = await runCliOn(t, ['webhooks', 'test', other.endpointId, '--once', once]);
    assert.equal(foreign.code, 1);
    assert.match(foreign.err, /--once: this token was used for another partner's endpoint; use a new one/);
    assert.doesNotMatch(foreign.err, /open the page/);
    assert.equal((await deliveriesOf(t, other.endpointId)).length, 1, 'nothing queued with the other partner’s token');

    const bad = await runCliOn(t, ['webhooks', 'test', endpointId, '--once', 'short']);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /--once: must be 16 to 64 letters, digits, - or _/);
  });

  it('runs in the server while it holds the database: through the operator socket, audited under the caller', async () => {
    const partner = await createTestPartner(t.db);
    const { endpointId, deliveryId } = await attempted(partner, 204);
    const close = await startOperatorCommands(t.app);
    try {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runRemote(dataDir, ['webhooks', 'redeliver', deliveryId], 'operator:remote-ops', {
        out: (line) => out.push(line),
        err: (line) => err.push(line),
      });
      assert.equal(code, 0, err.join('\n'));
      assert.match(out.join('\n'), new RegExp(`Queued delivery ${deliveryId} again`));
    } finally {
      await close();
    }
    assert.deepEqual(await queued(deliveryId), [1, 2]);
    assert.equal((await audits(endpointId))[0]?.actor, 'operator:remote-ops');
  });
});
