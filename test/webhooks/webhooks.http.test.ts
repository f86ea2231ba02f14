import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type KyselyPlugin } from 'kysely';
import { Webhook } from 'standardwebhooks';
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decrypt } from '../../src/platform/crypto.ts';
import { sealPersonalData } from '../../src/platform/seal-personal-data.ts';
import {
  deliverWebhook,
  requeueStaleDeliveries,
  signatureHeader,
  type DeliveryDeps,
} from '../../src/webhooks/webhook-delivery.ts';
import {
  emitClaimWebhookEvents,
  emitWebhookEvent,
  type AnyWebhookEventInput,
  eventRow,
  type ContractCancelledData,
  type ContractCreatedData,
} from '../../src/webhooks/webhook-events.ts';
import type { Resolver } from '../../src/webhooks/webhook-url.ts';
import {
  addEndpoint,
  endpointsHealth,
  FAILING_SINCE_LOOKBACK_DAYS,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  MAX_ENDPOINTS,
  newWebhookSecret,
  removeEndpoint,
  rotateSecret,
  sendTestEvent,
  setEndpointEnabled,
  updateEndpointSettings,
  type WebhookDeps,
} from '../../src/webhooks/webhooks.ts';
import type { Environment } from '../../src/platform/db-schema.ts';
import { DomainError } from '../../src/platform/errors.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  runCliOn,
  trip,
  type TestApp,
  type TestPartner,
  consent,
  eventually,
  usingPostgres,
} from '../helper.ts';
import { planNodes, statementOf } from '../query-plan.ts';
import { failingSince } from '../../src/webhooks/webhooks-repo.ts';
import { Receiver } from './receiver.ts';
import {
  attemptsOf as attemptsOfDelivery,
  deliveriesOf as deliveriesOfEndpoint,
  emitEvents,
  queuedAttempts,
} from './webhook-rows.ts';

/**
 * Webhook endpoints, emission and delivery, with the delivery job called directly (workers off) so
 * that retries need no waiting: each attempt is one call, the schedule is injectable. A local
 * receiver verifies every signature with standardwebhooks.
 */

let t: TestApp;
let receiver: Receiver;
let deps: WebhookDeps;
let delivery: DeliveryDeps;
const created: string[] = [];
let pathSeq = 0;

before(async () => {
  t = await buildTestApp({ env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on', PARASOL_WORKERS: 'off' } });
  receiver = await Receiver.start();
  const { jobs, keys } = t.app.parasol;
  deps = { db: t.db, jobs, keys, allowPrivate: true, now: () => new Date() };
  delivery = { ...deps, timeoutMs: 60_000 }; // real answers: all the time a loaded machine needs; the hanging receiver gets 300 ms
});
after(async () => {
  // no delivery of these tests is left for another test file's workers
  for (const id of created) await removeEndpoint(deps, { actor: 'operator:test' }, id).catch(() => undefined);
  await receiver.close();
  await t.close();
});

const operator = { actor: 'operator:test' };

/** A fresh path on the receiver, an endpoint to it, its secret registered with the receiver. */
async function endpoint(
  partner: TestPartner,
  options: { environment?: Environment; events?: string[]; d?: WebhookDeps } = {},
) {
  const path = `/hooks/${process.pid}/${++pathSeq}`;
  const result = await addEndpoint(
    options.d ?? deps,
    { ...operator, partnerId: partner.id, environment: options.environment ?? 'sandbox' },
    { url: receiver.url(path), eventTypes: options.events },
  );
  receiver.secret(path, result.secret);
  created.push(result.endpoint.id);
  return { ...result, path };
}

function cancelled(
  partner: TestPartner,
  contractNumber: string,
  environment: Environment = 'sandbox',
): AnyWebhookEventInput {
  const data: ContractCancelledData = {
    contractNumber,
    status: 'cancelled',
    reason: 'customer_request',
    cancelledAt: new Date().toISOString(),
    refund: { amount: 1234, currency: 'EUR' },
  };
  return { partnerId: partner.id, environment, type: 'contract.cancelled', occurredAt: new Date(), data };
}

/** A contract.created event: its booking reference is personal data (SEALED_WEBHOOK_EVENT_TYPES). */
function contractCreated(partner: TestPartner, contractNumber: string, reference: string) {
  const money = (amount: number) => ({ amount, currency: 'EUR' });
  const data: ContractCreatedData = {
    contractNumber,
    status: 'active',
    booking: { reference },
    passengers: 1,
    premium: { total: money(1200), net: money(1000), tax: money(100), commission: money(100) },
    flights: [
      {
        leg: 0,
        flightNumber: 'AF0006',
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        airline: 'AF',
        departureDateTime: '2026-06-01T10:00',
        departureAt: '2026-06-01T08:00:00.000Z',
      },
    ],
    createdAt: '2026-05-04T10:11:12.345Z',
  };
  return { partnerId: partner.id, environment: 'sandbox' as const, type: 'contract.created' as const, data };
}

const emit = (events: AnyWebhookEventInput[]) => emitEvents(t, events);
const deliveriesOf = (endpointId: string) => deliveriesOfEndpoint(t, endpointId);
const attemptsOf = (deliveryId: string) => attemptsOfDelivery(t, deliveryId);

async function queuedJobs(deliveryId: string) {
  const rows = await sql<{ data: { deliveryId: string; attempt: number }; start_after: Date }>`
    SELECT data, start_after FROM pgboss.job WHERE name = 'webhooks_deliver' AND data->>'deliveryId' = ${deliveryId} ORDER BY (data->>'attempt')::int`.execute(
    t.db,
  );
  return rows.rows;
}

async function rejects(promise: Promise<unknown>, code: string): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof DomainError, String(error));
    assert.equal(error.code, code, error.detail);
    return error;
  }
  assert.fail(`expected ${code}`);
}

describe('emitting events', () => {
  it('writes nothing for a partner without endpoints', async () => {
    const partner = await createTestPartner(t.db);
    const result = await emit([cancelled(partner, 'FD-NONE-0001'), cancelled(partner, 'FD-NONE-0002')]);
    assert.deepEqual(result, { events: 0, deliveries: 0 });
    const events = await t.db.selectFrom('webhook_events').select('id').where('partner_id', '=', partner.id).execute();
    assert.equal(events.length, 0);
  });

  it('creates one delivery per event and matching endpoint, set-wise, with one job each, respecting the event filter and the environment', async () => {
    const partner = await createTestPartner(t.db);
    const all = await endpoint(partner);
    const paidOnly = await endpoint(partner, { events: ['claim.paid', 'contract.cancelled'] });
    const createdOnly = await endpoint(partner, { events: ['contract.created'] });
    const production = await endpoint(partner, { environment: 'production' });
    const events = Array.from({ length: 250 }, (_, i) => cancelled(partner, `FD-BULK-${String(i).padStart(4, '0')}`));
    const result = await emit(events);
    assert.deepEqual(result, { events: 250, deliveries: 500 });
    assert.equal((await deliveriesOf(all.endpoint.id)).length, 250);
    assert.equal((await deliveriesOf(paidOnly.endpoint.id)).length, 250);
    assert.equal((await deliveriesOf(createdOnly.endpoint.id)).length, 0, 'filtered out');
    assert.equal((await deliveriesOf(production.endpoint.id)).length, 0, 'another environment');
    const first = (await deliveriesOf(all.endpoint.id))[0]!;
    assert.equal(first.status, 'pending');
    assert.equal(first.attempts, 0);
    assert.deepEqual(
      (await queuedJobs(first.id)).map((j) => j.data),
      [{ deliveryId: first.id, attempt: 1 }],
    );
    const stored = await t.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('id', '=', first.event_id)
      .executeTakeFirstOrThrow();
    assert.match(stored.id, /^msg_[A-Za-z0-9_-]{22}$/);
    // contract.cancelled carries no personal data: kept as sent, in clear (only SEALED_WEBHOOK_EVENT_TYPES are sealed)
    assert.equal(stored.payload_enc, null);
    assert.deepEqual(Object.keys(stored.payload!), ['type', 'timestamp', 'data']);
    assert.equal(stored.payload!.type, 'contract.cancelled');
  });

  it('writes nothing when the transaction rolls back', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    await assert.rejects(
      t.db.transaction().execute(async (trx) => {
        await emitWebhookEvent(
          trx,
          t.app.parasol.jobs,
          t.app.parasol.keys.encryption,
          cancelled(partner, 'FD-ROLL-BACK') as never,
        );
        throw new Error('the change failed');
      }),
      /the change failed/,
    );
    assert.equal((await deliveriesOf(hook.endpoint.id)).length, 0);
  });

  it('never delivers one partner’s events to another partner', async () => {
    const a = await createTestPartner(t.db);
    const b = await createTestPartner(t.db);
    const hookB = await endpoint(b);
    assert.deepEqual(await emit([cancelled(a, 'FD-AAAA-0001')]), { events: 0, deliveries: 0 });
    assert.equal((await deliveriesOf(hookB.endpoint.id)).length, 0);
  });
});

describe('delivering', () => {
  it('POSTs the signed payload; the receiver verifies it with standardwebhooks', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    await emit([cancelled(partner, 'FD-SIGN-0001')]);
    const [d] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'succeeded');
    const [request] = receiver.received(hook.path);
    assert.ok(request);
    assert.equal(request.verified, true, request.verifyError ?? '');
    assert.equal(request.headers['webhook-id'], d!.event_id);
    assert.match(request.headers['webhook-timestamp']!, /^\d{10}$/);
    assert.match(request.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/=]+$/);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(Object.keys(JSON.parse(request.body)), ['type', 'timestamp', 'data']);
    assert.equal(request.payload?.type, 'contract.cancelled');
    assert.deepEqual(request.payload?.data.refund, { amount: 1234, currency: 'EUR' });
    // a signature made with another secret does not verify
    assert.throws(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(request.body, request.headers),
    );

    const [after] = await deliveriesOf(hook.endpoint.id);
    assert.equal(after!.status, 'succeeded');
    assert.equal(after!.attempts, 1);
    assert.equal(after!.last_status_code, 200);
    assert.ok(after!.completed_at);
    const attempts = await attemptsOf(d!.id);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0]!.status_code, 200);
    assert.equal(attempts[0]!.error, null);
    // the queued job for attempt 1 runs later: a duplicate, it sends nothing
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'skipped');
    assert.equal(receiver.received(hook.path).length, 1);
  });

  it('stores a payload carrying personal data sealed, and sends the exact text emitted, signed as before', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const reference = `PNR${crypto.randomInt(100_000, 999_999)}`;
    const at = new Date('2026-05-04T10:11:12.345Z');
    const event = contractCreated(partner, 'FD-SEAL-0001', reference);
    await emit([{ ...event, occurredAt: at }]);
    // the text a partner receives, byte for byte: what the clear json column sent before 0056
    const text = JSON.stringify({ type: 'contract.created', timestamp: at.toISOString(), data: event.data });
    const [d] = await deliveriesOf(hook.endpoint.id);
    const stored = await t.db
      .selectFrom('webhook_events')
      .select(['payload', 'payload_enc'])
      .where('id', '=', d!.event_id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.payload, null, 'nothing in clear');
    assert.ok(stored.payload_enc && !stored.payload_enc.includes(reference));
    assert.equal(decrypt(t.app.parasol.keys.encryption, stored.payload_enc), text);

    receiver.answer(hook.path, (n) => (n === 1 ? { status: 500 } : { status: 200 }));
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'retry_scheduled');
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 2 }), 'succeeded');
    const requests = receiver.received(hook.path);
    assert.equal(requests.length, 2);
    for (const request of requests) {
      assert.equal(request.body, text, 'every attempt sends the bytes emitted');
      assert.equal(request.verified, true, request.verifyError ?? '');
      // the signature is that of those bytes, as the clear payload's was
      const sentAt = new Date(Number(request.headers['webhook-timestamp']) * 1000);
      assert.equal(request.headers['webhook-signature'], signatureHeader([hook.secret], d!.event_id, sentAt, text));
    }
  });

  it('an event stored in clear before migration 0056 sends the same bytes before and after the start seals it', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const reference = `PNR${crypto.randomInt(100_000, 999_999)}`;
    const event = contractCreated(partner, 'FD-SEAL-0002', reference);
    // the row as emitted before 0056: the payload's text in the json column
    const row = eventRow(partner.id, 'sandbox', event.type, event.data, new Date(), t.app.parasol.keys.encryption);
    const text = decrypt(t.app.parasol.keys.encryption, row.payload_enc!);
    await t.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('webhook_events')
        .values({ ...row, payload: text, payload_enc: null })
        .execute();
      await trx
        .insertInto('webhook_deliveries')
        .values({ event_id: row.id, endpoint_id: hook.endpoint.id, partner_id: partner.id, environment: 'sandbox' })
        .execute();
    });
    const [d] = await deliveriesOf(hook.endpoint.id);
    receiver.answer(hook.path, (n) => (n === 1 ? { status: 500 } : { status: 200 }));
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'retry_scheduled');

    // the start seals it (as buildApp does before serving); the next attempt sends the same bytes
    assert.ok((await sealPersonalData(t.db, t.app.parasol.keys.encryption)) >= 1);
    const sealed = await t.db
      .selectFrom('webhook_events')
      .select(['payload', 'payload_enc'])
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    assert.equal(sealed.payload, null);
    assert.equal(decrypt(t.app.parasol.keys.encryption, sealed.payload_enc!), text);
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 2 }), 'succeeded');
    const [before, after] = receiver.received(hook.path);
    assert.equal(before!.body, text);
    assert.equal(after!.body, before!.body, 'the same bytes once sealed');
    assert.equal(after!.verified, true, after!.verifyError ?? '');
    assert.equal(after!.headers['webhook-id'], before!.headers['webhook-id']);
  });

  it('retries a receiver answering 500, with the same webhook-id, and logs every attempt', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, (n) => (n === 1 ? { status: 500, body: 'database\nunavailable' } : { status: 204 }));
    await emit([cancelled(partner, 'FD-RTRY-0001')]);
    const [d] = await deliveriesOf(hook.endpoint.id);
    const start = Date.now();
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'retry_scheduled');
    const pending = (await deliveriesOf(hook.endpoint.id))[0]!;
    assert.equal(pending.status, 'pending');
    assert.equal(pending.attempts, 1);
    assert.equal(pending.last_status_code, 500);
    assert.equal(pending.last_error, 'HTTP 500: database unavailable');
    const wait = pending.next_attempt_at!.getTime() - start;
    assert.ok(wait >= 4_000 && wait <= 6_000, `first retry after 5 s, got ${wait} ms`);
    const jobs = await queuedJobs(d!.id);
    assert.deepEqual(
      jobs.map((j) => j.data.attempt),
      [1, 2],
    );
    assert.equal(
      jobs[1]!.start_after.getTime(),
      pending.next_attempt_at!.getTime(),
      'the next attempt is a job starting then',
    );

    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 2 }), 'succeeded');
    const requests = receiver.received(hook.path);
    assert.equal(requests.length, 2);
    assert.ok(requests.every((r) => r.verified));
    assert.equal(requests[0]!.headers['webhook-id'], d!.event_id);
    assert.equal(requests[1]!.headers['webhook-id'], d!.event_id, 'the same webhook-id on every attempt');
    assert.equal(requests[0]!.body, requests[1]!.body, 'the same bytes');
    const attempts = await attemptsOf(d!.id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.status_code, a.error]),
      [
        [1, 500, 'HTTP 500: database unavailable'],
        [2, 204, null],
      ],
    );
    assert.ok(attempts.every((a) => a.duration_ms >= 0));
    assert.equal((await deliveriesOf(hook.endpoint.id))[0]!.status, 'succeeded');
  });

  it('marks the delivery failed once the schedule is exhausted', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, () => ({ status: 503 }));
    await emit([cancelled(partner, 'FD-FAIL-0001')]);
    const [d] = await deliveriesOf(hook.endpoint.id);
    const short = { ...delivery, schedule: [60, 3600] };
    assert.equal(await deliverWebhook(short, { deliveryId: d!.id, attempt: 1 }), 'retry_scheduled');
    assert.equal(await deliverWebhook(short, { deliveryId: d!.id, attempt: 2 }), 'retry_scheduled');
    assert.equal(await deliverWebhook(short, { deliveryId: d!.id, attempt: 3 }), 'failed');
    const [final] = await deliveriesOf(hook.endpoint.id);
    assert.equal(final!.status, 'failed');
    assert.equal(final!.attempts, 3);
    assert.equal(final!.next_attempt_at, null);
    assert.ok(final!.completed_at);
    assert.deepEqual(
      (await attemptsOf(d!.id)).map((a) => a.status_code),
      [503, 503, 503],
    );
    assert.deepEqual(await queuedAttempts(t, d!.id), [1, 2, 3], 'no job after the last attempt');
    assert.equal(receiver.received(hook.path).length, 3);
    assert.ok(receiver.received(hook.path).every((r) => r.verified));
    assert.equal(await deliverWebhook(short, { deliveryId: d!.id, attempt: 4 }), 'skipped');
  });

  it('a delivery whose job was lost is attempted again: the sweep queues its next attempt an hour after it was due', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    await emit([
      cancelled(partner, 'FD-LOST-0001'),
      cancelled(partner, 'FD-LOST-0002'),
      cancelled(partner, 'FD-LOST-0003'),
    ]);
    const [lost, held, recent] = await deliveriesOf(hook.endpoint.id);
    // every job gone (pg-boss retries spent); two due more than an hour ago, one of them held by a worker
    await sql`DELETE FROM pgboss.job WHERE name = 'webhooks_deliver' AND data->>'deliveryId' IN (${lost!.id}, ${held!.id}, ${recent!.id})`.execute(
      t.db,
    );
    const longAgo = new Date(Date.now() - 2 * 3600_000);
    await t.db
      .updateTable('webhook_deliveries')
      .set({ created_at: longAgo })
      .where('id', 'in', [lost!.id, held!.id])
      .execute();
    await t.db
      .updateTable('webhook_deliveries')
      .set({ locked_until: new Date(Date.now() + 30_000) })
      .where('id', '=', held!.id)
      .execute();

    // other test files' deliveries are in other databases; this file's other stale ones may be requeued too
    assert.ok((await requeueStaleDeliveries(deps)) >= 1);
    assert.deepEqual(
      (await queuedJobs(lost!.id)).map((j) => j.data),
      [{ deliveryId: lost!.id, attempt: 1 }],
    );
    assert.deepEqual(await queuedJobs(held!.id), [], 'a worker holds it');
    assert.deepEqual(await queuedJobs(recent!.id), [], 'due less than an hour ago');
    assert.equal(await requeueStaleDeliveries(deps), 0, 'due again now: the next sweep leaves it alone');
    assert.equal(await deliverWebhook(delivery, { deliveryId: lost!.id, attempt: 1 }), 'succeeded');
    const [request] = receiver.received(hook.path);
    assert.ok(request!.verified);
    assert.equal(request!.headers['webhook-id'], lost!.event_id);
  });

  it('does not follow redirects and gives up on a receiver that does not answer in time', async () => {
    const partner = await createTestPartner(t.db);
    const redirect = await endpoint(partner);
    receiver.answer(redirect.path, () => ({ status: 302, headers: { location: receiver.url('/elsewhere') } }));
    const slow = await endpoint(partner, { environment: 'production' });
    receiver.answer(slow.path, () => 'hang');
    await emit([cancelled(partner, 'FD-REDI-0001'), cancelled(partner, 'FD-SLOW-0001', 'production')]);
    const [r] = await deliveriesOf(redirect.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: r!.id, attempt: 1 }), 'retry_scheduled');
    const [afterRedirect] = await attemptsOf(r!.id);
    assert.equal(afterRedirect!.status_code, 302);
    assert.match(afterRedirect!.error!, /redirect to .*\/elsewhere not followed/);
    assert.equal(receiver.received('/elsewhere').length, 0);

    const [s] = await deliveriesOf(slow.endpoint.id);
    assert.equal(
      await deliverWebhook({ ...delivery, timeoutMs: 300 }, { deliveryId: s!.id, attempt: 1 }),
      'retry_scheduled',
    );
    const [timedOut] = await attemptsOf(s!.id);
    assert.equal(timedOut!.status_code, null);
    assert.match(timedOut!.error!, /timeout after 300 ms/);
    assert.ok(timedOut!.duration_ms >= 250);
  });

  it('the status decides: a 2xx whose body never ends is a success (no retry, no duplicate); another status is kept when its body does not end in time', async () => {
    const partner = await createTestPartner(t.db);
    const taken = await endpoint(partner);
    receiver.answer(taken.path, () => ({ status: 200, body: 'accepted, streaming', unfinished: true }));
    const down = await endpoint(partner, { environment: 'production' });
    receiver.answer(down.path, () => ({ status: 503, body: 'maintenance', unfinished: true }));
    await emit([cancelled(partner, 'FD-UNFI-0001'), cancelled(partner, 'FD-UNFI-0002', 'production')]);

    const [ok] = await deliveriesOf(taken.endpoint.id);
    assert.equal(
      await deliverWebhook({ ...delivery, timeoutMs: 300 }, { deliveryId: ok!.id, attempt: 1 }),
      'succeeded',
    );
    const [answered] = await attemptsOf(ok!.id);
    assert.equal(answered!.status_code, 200);
    assert.equal(answered!.error, null);
    assert.equal((await deliveriesOf(taken.endpoint.id))[0]!.status, 'succeeded');

    const [failing] = await deliveriesOf(down.endpoint.id);
    assert.equal(
      await deliverWebhook({ ...delivery, timeoutMs: 300 }, { deliveryId: failing!.id, attempt: 1 }),
      'retry_scheduled',
    );
    const [cut] = await attemptsOf(failing!.id);
    assert.equal(cut!.status_code, 503, 'what the receiver said, though its body never ended');
    assert.match(cut!.error!, /^HTTP 503 \(timeout after 300 ms\): maintenance$/);
  });

  it('a receiver answering 410 Gone: no retry, the endpoint is paused (audited) and its other pending deliveries end; other endpoints keep theirs', async () => {
    const partner = await createTestPartner(t.db);
    const gone = await endpoint(partner);
    const sibling = await endpoint(partner);
    const production = await endpoint(partner, { environment: 'production' });
    receiver.answer(gone.path, () => ({ status: 410, body: 'no such receiver' }));
    await emit([cancelled(partner, 'FD-GONE-0001'), cancelled(partner, 'FD-GONE-0002')]);
    await emit([cancelled(partner, 'FD-GONE-0001', 'production')]);
    const [first, second] = await deliveriesOf(gone.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: first!.id, attempt: 1 }), 'failed');
    assert.deepEqual(await queuedAttempts(t, first!.id), [1], 'no job for a second attempt');
    assert.equal((await getEndpoint(deps, operator, gone.endpoint.id)).enabled, false, 'the endpoint is paused');
    const [ended, other] = await deliveriesOf(gone.endpoint.id);
    assert.deepEqual([ended!.id, ended!.status, ended!.last_status_code], [first!.id, 'failed', 410]);
    assert.deepEqual([other!.id, other!.status, other!.attempts], [second!.id, 'failed', 0]);
    assert.match(other!.last_error!, /410 Gone/);
    assert.deepEqual(
      (await deliveriesOf(sibling.endpoint.id)).map((d) => d.status),
      ['pending', 'pending'],
      'another endpoint of the partner keeps its deliveries',
    );
    assert.deepEqual(
      (await deliveriesOf(production.endpoint.id)).map((d) => d.status),
      ['pending'],
      'so does an endpoint of the other environment',
    );
    assert.equal((await getEndpoint(deps, operator, sibling.endpoint.id)).enabled, true, 'the sibling is not paused');
    assert.equal(await deliverWebhook(delivery, { deliveryId: second!.id, attempt: 1 }), 'skipped');
    assert.equal(receiver.received(gone.path).length, 1, 'nothing more is sent to it');
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('entity', '=', 'webhook_endpoint')
      .where('entity_id', '=', gone.endpoint.id)
      .where('action', '=', 'disabled')
      .execute();
    assert.deepEqual(audited, [{ action: 'disabled', actor: 'system:webhooks' }]);
    assert.deepEqual(
      await emit([cancelled(partner, 'FD-GONE-0003')]),
      { events: 1, deliveries: 1 },
      'the sibling only',
    );
  });

  it('a 410 Gone from a URL the partner changed while it was sent pauses nothing: the next attempt goes to the new URL', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const moved = `${hook.path}/new`;
    receiver.secret(moved, hook.secret);
    receiver.answer(hook.path, async () => {
      await updateEndpointSettings(deps, operator, hook.endpoint.id, { url: receiver.url(moved) });
      return { status: 410, body: 'gone from here' };
    });
    await emit([cancelled(partner, 'FD-MOVED-0001')]);
    const [sent] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: sent!.id, attempt: 1 }), 'retry_scheduled');
    assert.equal((await getEndpoint(deps, operator, hook.endpoint.id)).enabled, true, 'the new receiver is not paused');
    const [retried] = await deliveriesOf(hook.endpoint.id);
    assert.deepEqual([retried!.status, retried!.last_status_code], ['pending', 410]);
    assert.deepEqual(await queuedAttempts(t, sent!.id), [1, 2]);
    assert.equal(await deliverWebhook(delivery, { deliveryId: sent!.id, attempt: 2 }), 'succeeded');
    assert.equal(receiver.received(moved).length, 1, 'the second attempt went to the new URL');
  });

  it('two deliveries of one endpoint answered 410 Gone at once both end, without a deadlock; the endpoint is paused once', async () => {
    const partner = await createTestPartner(t.db);
    const gone = await endpoint(partner);
    receiver.answer(gone.path, () => ({ status: 410 }));
    await emit([cancelled(partner, 'FD-GONE2-0001'), cancelled(partner, 'FD-GONE2-0002')]);
    const [first, second] = await deliveriesOf(gone.endpoint.id);
    // PostgreSQL: each recording transaction, once it has recorded its attempt, waits until the other
    // has too, or is queued behind a lock — the interleaving in which a lock order that differs between
    // the two (or with changing an endpoint) deadlocks. PGlite runs one transaction at a time.
    let arrived = 0;
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
          arrived += 1;
          await eventually(async () => (arrived >= 2 || (await blocked()) > 0 ? true : undefined));
        }
        return args.result;
      },
    };
    const racing = usingPostgres ? { ...delivery, db: t.db.withPlugin(meet) } : delivery;
    const outcomes = await Promise.all([
      deliverWebhook(racing, { deliveryId: first!.id, attempt: 1 }),
      deliverWebhook(racing, { deliveryId: second!.id, attempt: 1 }),
    ]);
    assert.deepEqual(outcomes, ['failed', 'failed']);
    assert.deepEqual(
      (await deliveriesOf(gone.endpoint.id)).map((d) => [d.status, d.attempts, d.last_status_code]),
      [
        ['failed', 1, 410],
        ['failed', 1, 410],
      ],
      'each recorded its own attempt',
    );
    assert.equal((await getEndpoint(deps, operator, gone.endpoint.id)).enabled, false);
    const audited = await t.db
      .selectFrom('audit_log')
      .select('actor')
      .where('entity', '=', 'webhook_endpoint')
      .where('entity_id', '=', gone.endpoint.id)
      .where('action', '=', 'disabled')
      .execute();
    assert.equal(audited.length, 1, 'paused once');
  });

  it('flags an endpoint failing when its latest attempt failed, even after earlier successes; a later success clears it', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, (n) => (n === 1 || n === 4 ? { status: 200 } : { status: 500, body: 'down' }));
    await emit([cancelled(partner, 'FD-HEALTH-0001'), cancelled(partner, 'FD-HEALTH-0002')]);
    const [ok, down] = await deliveriesOf(hook.endpoint.id);
    const minutesAgo = (m: number) => ({ ...delivery, now: () => new Date(Date.now() - m * 60_000) });
    const health = async () =>
      (await endpointsHealth(deps, [hook.endpoint.id], { failingSince: true })).get(hook.endpoint.id)!;
    assert.equal(await deliverWebhook(minutesAgo(30), { deliveryId: ok!.id, attempt: 1 }), 'succeeded');
    assert.equal((await health()).failing, false, 'a success');
    assert.equal(await deliverWebhook(minutesAgo(20), { deliveryId: down!.id, attempt: 1 }), 'retry_scheduled');
    assert.equal(await deliverWebhook(minutesAgo(10), { deliveryId: down!.id, attempt: 2 }), 'retry_scheduled');
    // failing since its first failed attempt after the success, not the latest one
    const [firstFailure] = await attemptsOf(down!.id);
    assert.deepEqual(
      await health(),
      {
        failing: true,
        failedLastDay: 1,
        succeededLastDay: 1,
        failingSince: firstFailure!.at.toISOString(),
        failingLonger: false,
      },
      'then 500s: failing',
    );
    assert.equal(await deliverWebhook(minutesAgo(5), { deliveryId: down!.id, attempt: 3 }), 'succeeded');
    assert.deepEqual(
      await health(),
      { failing: false, failedLastDay: 0, succeededLastDay: 2, failingSince: null, failingLonger: false },
      'a success clears it',
    );
    assert.equal(
      (await endpointsHealth(deps, [hook.endpoint.id])).get(hook.endpoint.id)!.failingSince,
      null,
      'not asked for: not looked for',
    );
  });

  it(`failing since: the first failure after the latest success, over ${FAILING_SINCE_LOOKBACK_DAYS} days; failing before them says so`, async () => {
    const recovered = await createTestPartner(t.db);
    const old = await createTestPartner(t.db);
    const a = await endpoint(recovered);
    const b = await endpoint(old);
    receiver.answer(a.path, (n) => (n === 2 ? { status: 200 } : { status: 500, body: 'down' }));
    receiver.answer(b.path, () => ({ status: 500, body: 'down' }));
    const at = (minutes: number) => ({ ...delivery, now: () => new Date(Date.now() - minutes * 60_000) });
    const day = 24 * 60;
    const send = async (hook: typeof a, partner: TestPartner, number: string, ...minutes: number[]) => {
      await emit([cancelled(partner, number)]);
      const ds = await deliveriesOf(hook.endpoint.id);
      const d = ds[ds.length - 1]!;
      for (const [i, m] of minutes.entries()) await deliverWebhook(at(m), { deliveryId: d.id, attempt: i + 1 });
      return attemptsOf(d.id);
    };
    // a: failed, then a success, then failing again: the failure before the success is left out
    await send(a, recovered, 'FD-SINCE-0001', 180);
    await send(a, recovered, 'FD-SINCE-0002', 120);
    const [again] = await send(a, recovered, 'FD-SINCE-0003', 60, 30);
    // b: failing from before the look-back (its first failure there is outside), then inside it
    await send(b, old, 'FD-SINCE-0004', (FAILING_SINCE_LOOKBACK_DAYS + 1) * day);
    const [inside] = await send(b, old, 'FD-SINCE-0005', (FAILING_SINCE_LOOKBACK_DAYS - 1) * day);
    await send(b, old, 'FD-SINCE-0006', 60);
    const health = await endpointsHealth(deps, [a.endpoint.id, b.endpoint.id], { failingSince: true });
    assert.deepEqual(
      [health.get(a.endpoint.id)!.failingSince, health.get(a.endpoint.id)!.failingLonger],
      [again!.at.toISOString(), false],
      'a: since its first failure after the success',
    );
    assert.deepEqual(
      [health.get(b.endpoint.id)!.failingSince, health.get(b.endpoint.id)!.failingLonger],
      [inside!.at.toISOString(), true],
      'b: the first failure of the look-back, and failing for longer',
    );
  });

  it("looks for failing since through the deliveries' index (migration 0068), latest success first", async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const since = new Date(Date.now() - FAILING_SINCE_LOOKBACK_DAYS * 24 * 3600 * 1000);
    const query = await statementOf(t.db, (db) => failingSince(db, [hook.endpoint.id], since));
    const nodes = await planNodes(t.db, query);
    assert.ok(
      nodes.some((n) => n['Index Name'] === 'webhook_deliveries_endpoint_attempts'),
      nodes.map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`).join(' → '),
    );
  });

  it("reads an endpoint's health from its deliveries' index on (endpoint_id, last_attempt_at) (migration 0068), not by scanning them", async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const query = await statementOf(t.db, (db) => endpointsHealth({ ...deps, db }, [hook.endpoint.id]));
    const nodes = await planNodes(t.db, query);
    assert.ok(
      nodes.some((n) => n['Index Name'] === 'webhook_deliveries_endpoint_attempts'),
      nodes.map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`).join(' → '),
    );
  });

  it('re-checks the address at delivery: a name re-pointed to a private address is refused (DNS rebinding)', async () => {
    const partner = await createTestPartner(t.db);
    const publicDns: Resolver = async () => ['93.184.216.34'];
    const strict: WebhookDeps = { ...deps, allowPrivate: false, resolve: publicDns };
    const added = await addEndpoint(
      strict,
      { ...operator, partnerId: partner.id, environment: 'sandbox' },
      { url: 'https://hooks.rebind.example/parasol' },
    );
    created.push(added.endpoint.id);
    await emit([cancelled(partner, 'FD-DNSR-0001')]);
    const [d] = await deliveriesOf(added.endpoint.id);
    let asked = 0;
    const rebound: Resolver = async () => (asked++, ['127.0.0.1']);
    assert.equal(
      await deliverWebhook({ ...delivery, allowPrivate: false, resolve: rebound }, { deliveryId: d!.id, attempt: 1 }),
      'retry_scheduled',
    );
    assert.ok(asked > 0, 'resolved at delivery time');
    const [attempt] = await attemptsOf(d!.id);
    assert.equal(attempt!.status_code, null);
    assert.match(attempt!.error!, /^url_not_allowed: .*127\.0\.0\.1.*loopback/);
  });

  it('refuses at delivery an endpoint stored with a private address once private URLs are no longer allowed', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner); // registered while allowed (127.0.0.1)
    await emit([cancelled(partner, 'FD-PRIV-0001')]);
    const [d] = await deliveriesOf(hook.endpoint.id);
    assert.equal(
      await deliverWebhook({ ...delivery, allowPrivate: false }, { deliveryId: d!.id, attempt: 1 }),
      'retry_scheduled',
    );
    assert.match((await attemptsOf(d!.id))[0]!.error!, /^url_not_allowed: 127\.0\.0\.1 is a loopback address/);
    assert.equal(receiver.received(hook.path).length, 0);
  });
});

describe('managing endpoints', () => {
  it('refuses loopback and private URLs unless allowed, IPv6 and IPv4-mapped included', async () => {
    const partner = await createTestPartner(t.db);
    const strict: WebhookDeps = {
      ...deps,
      allowPrivate: false,
      resolve: async (host) => (host === 'intranet.example.com' ? ['192.168.10.4'] : ['93.184.216.34']),
    };
    const scope = { ...operator, partnerId: partner.id, environment: 'sandbox' as const };
    for (const url of [
      'http://hooks.example.com/h',
      'https://127.0.0.1/h',
      'https://localhost:8443/h',
      'https://[::1]/h',
      'https://[::ffff:127.0.0.1]/h',
      'https://[fd00::1]/h',
      'https://10.1.1.1/h',
      'https://intranet.example.com/h',
    ]) {
      await rejects(addEndpoint(strict, scope, { url }), 'webhook_url_not_allowed');
    }
    const ok = await addEndpoint(strict, scope, { url: 'https://hooks.example.com/h' });
    created.push(ok.endpoint.id);
    assert.equal(ok.endpoint.url, 'https://hooks.example.com/h');
    assert.deepEqual(
      (await listEndpoints(deps, { ...operator, partnerId: partner.id })).map((e) => e.url),
      ['https://hooks.example.com/h'],
    );
  });

  it('stores the secret encrypted, answers it once, and audits every change', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner, { events: ['claim.paid'] });
    assert.match(hook.secret, /^whsec_/);
    const row = await t.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', hook.endpoint.id)
      .executeTakeFirstOrThrow();
    assert.ok(!row.secret_enc.includes(hook.secret.slice(6)), 'not in clear');
    assert.deepEqual(row.event_types, ['claim.paid']);
    const listed = await listEndpoints(deps, { ...operator, partnerId: partner.id, environment: 'sandbox' });
    assert.equal(JSON.stringify(listed).includes(hook.secret), false);

    await setEndpointEnabled(deps, operator, hook.endpoint.id, false);
    await setEndpointEnabled(deps, operator, hook.endpoint.id, true);
    await rotateSecret(deps, operator, hook.endpoint.id);
    await sendTestEvent(deps, operator, hook.endpoint.id);
    await removeEndpoint(deps, operator, hook.endpoint.id);
    const actions = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('entity', '=', 'webhook_endpoint')
      .where('entity_id', '=', hook.endpoint.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      actions.map((a) => a.action),
      ['created', 'disabled', 'enabled', 'secret_rotated', 'test_sent', 'removed'],
    );
    assert.ok(actions.every((a) => a.actor === 'operator:test'));
  });

  it('answers another partner’s endpoint as not found, whatever the operation', async () => {
    const a = await createTestPartner(t.db);
    const b = await createTestPartner(t.db);
    const hookA = await endpoint(a);
    const asB = { ...operator, partnerId: b.id, environment: 'sandbox' as const };
    await rejects(getEndpoint(deps, asB, hookA.endpoint.id), 'webhook_endpoint_not_found');
    await rejects(removeEndpoint(deps, asB, hookA.endpoint.id), 'webhook_endpoint_not_found');
    await rejects(rotateSecret(deps, asB, hookA.endpoint.id), 'webhook_endpoint_not_found');
    await rejects(sendTestEvent(deps, asB, hookA.endpoint.id), 'webhook_endpoint_not_found');
    await rejects(setEndpointEnabled(deps, asB, hookA.endpoint.id, false), 'webhook_endpoint_not_found');
    // the same partner in another environment does not see it either
    await rejects(
      getEndpoint(deps, { ...operator, partnerId: a.id, environment: 'production' }, hookA.endpoint.id),
      'webhook_endpoint_not_found',
    );
    await rejects(getEndpoint(deps, asB, 'not-a-uuid'), 'webhook_endpoint_not_found');
    assert.deepEqual(await listEndpoints(deps, asB), []);
    await emit([cancelled(a, 'FD-ISOL-0001')]);
    assert.deepEqual((await listDeliveries(deps, asB)).deliveries, []);
    assert.equal(
      (await listDeliveries(deps, { ...operator, partnerId: a.id, environment: 'sandbox' })).deliveries.length,
      1,
    );
    assert.equal(
      (await getEndpoint(deps, { ...operator, partnerId: a.id, environment: 'sandbox' }, hookA.endpoint.id)).id,
      hookA.endpoint.id,
    );
  });

  it('removing an endpoint ends its pending deliveries and stops new ones', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    await emit([cancelled(partner, 'FD-REMV-0001')]);
    const [d] = await deliveriesOf(hook.endpoint.id);
    await removeEndpoint(deps, operator, hook.endpoint.id);
    const [ended] = await deliveriesOf(hook.endpoint.id);
    assert.equal(ended!.status, 'failed');
    assert.equal(ended!.last_error, 'endpoint removed');
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'skipped');
    assert.equal(receiver.received(hook.path).length, 0);
    assert.deepEqual(await emit([cancelled(partner, 'FD-REMV-0002')]), { events: 0, deliveries: 0 });
    await rejects(removeEndpoint(deps, operator, hook.endpoint.id), 'webhook_endpoint_not_found');
  });

  it('a disabled endpoint gets nothing and cannot be tested', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    await setEndpointEnabled(deps, operator, hook.endpoint.id, false);
    assert.deepEqual(await emit([cancelled(partner, 'FD-DSBL-0001')]), { events: 0, deliveries: 0 });
    await rejects(sendTestEvent(deps, operator, hook.endpoint.id), 'webhook_endpoint_disabled');
  });

  it('rotating the secret signs with both secrets for a day, each verifying', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const rotated = await rotateSecret(deps, operator, hook.endpoint.id);
    assert.notEqual(rotated.secret, hook.secret);
    const until = new Date(rotated.previousSecretValidUntil).getTime() - Date.now();
    assert.ok(until > 23.9 * 3600_000 && until <= 24 * 3600_000);
    const test = await sendTestEvent(deps, operator, hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: test.deliveryId, attempt: 1 }), 'succeeded');
    const [request] = receiver.received(hook.path);
    assert.equal(request!.headers['webhook-signature']!.split(' ').length, 2);
    assert.equal(request!.verified, true, 'the previous secret verifies');
    assert.doesNotThrow(() => new Webhook(rotated.secret).verify(request!.body, request!.headers));
    assert.equal(request!.payload?.type, 'webhook.test');
    assert.deepEqual(request!.payload?.data, {
      endpointId: hook.endpoint.id,
      message: 'This is a test event from Parasol.',
    });
    assert.equal(request!.headers['webhook-id'], test.eventId);
  });

  it("the docs' verification without a library accepts a delivery with either secret during a rotation, and refuses a changed body, a replayed timestamp, another secret", async () => {
    // the code block of docs/webhooks.md, run as it is written (its import given as an argument)
    const docs = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
    const block = /```js\n(import crypto from 'node:crypto';\n[\s\S]*?function verifyParasolWebhook[\s\S]*?)```/.exec(
      docs,
    );
    assert.ok(block, 'docs/webhooks.md has the sample');
    const verify = new Function(
      'crypto',
      `${block[1]!.replace("import crypto from 'node:crypto';", '')}\nreturn verifyParasolWebhook;`,
    )(crypto) as (secret: string, headers: Record<string, string>, body: string | Buffer, now?: number) => boolean;

    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const rotated = await rotateSecret(deps, operator, hook.endpoint.id);
    const test = await sendTestEvent(deps, operator, hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: test.deliveryId, attempt: 1 }), 'succeeded');
    const [request] = receiver.received(hook.path);
    const { headers, body } = request!;
    assert.equal(verify(hook.secret, headers, body), true, 'the previous secret');
    assert.equal(verify(rotated.secret, headers, Buffer.from(body)), true, 'the new secret, on the raw bytes');
    assert.equal(verify(rotated.secret, headers, body.replace('test event', 'TEST EVENT')), false, 'a changed body');
    const sent = Number(headers['webhook-timestamp']);
    assert.equal(verify(rotated.secret, headers, body, sent + 301), false, 'a replay 5 minutes later');
    assert.equal(verify(rotated.secret, headers, body, sent - 301), false, 'a timestamp from the future');
    assert.equal(verify(newWebhookSecret(), headers, body), false, 'another secret');
    assert.equal(verify(rotated.secret, { ...headers, 'webhook-signature': 'v1,' }, body), false, 'an empty signature');
    const v2 = headers['webhook-signature']!.replace(/v1,/g, 'v2,');
    assert.equal(
      verify(rotated.secret, { ...headers, 'webhook-signature': v2 }, body),
      false,
      'a right MAC labelled v2',
    );
  });

  it('sends a test event to that endpoint only, whatever its event filter', async () => {
    const partner = await createTestPartner(t.db);
    const target = await endpoint(partner, { events: ['claim.paid'] });
    const other = await endpoint(partner);
    await sendTestEvent(deps, operator, target.endpoint.id);
    assert.equal((await deliveriesOf(target.endpoint.id)).length, 1);
    assert.equal((await deliveriesOf(other.endpoint.id)).length, 0);
  });

  it(`allows at most ${MAX_ENDPOINTS} endpoints per partner and environment`, async () => {
    const partner = await createTestPartner(t.db);
    for (let i = 0; i < MAX_ENDPOINTS; i++) await endpoint(partner);
    await rejects(
      addEndpoint(
        deps,
        { ...operator, partnerId: partner.id, environment: 'sandbox' },
        { url: receiver.url('/one-more') },
      ),
      'webhook_endpoint_limit',
    );
    await endpoint(partner, { environment: 'preproduction' });
  });

  it('lists deliveries newest first, paginated, with their attempts', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, (n) => (n === 1 ? { status: 429 } : { status: 200 }));
    for (const n of [1, 2, 3]) {
      await emit([cancelled(partner, `FD-LIST-000${n}`)]);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const all = await deliveriesOf(hook.endpoint.id);
    await deliverWebhook(delivery, { deliveryId: all[0]!.id, attempt: 1 });
    await deliverWebhook(delivery, { deliveryId: all[0]!.id, attempt: 2 });
    const scope = { ...operator, partnerId: partner.id, environment: 'sandbox' as const };
    const first = await listDeliveries(deps, scope, { limit: 2 });
    assert.equal(first.deliveries.length, 2);
    assert.ok(first.nextCursor);
    const second = await listDeliveries(deps, scope, { limit: 2, cursor: first.nextCursor! });
    assert.equal(second.deliveries.length, 1);
    assert.equal(second.nextCursor, null);
    const ids = [...first.deliveries, ...second.deliveries].map((d) => d.id);
    assert.deepEqual(ids, [all[2]!.id, all[1]!.id, all[0]!.id]);
    const oldest = second.deliveries[0]!;
    assert.equal(oldest.status, 'succeeded');
    assert.equal(oldest.eventType, 'contract.cancelled');
    assert.equal(oldest.url, receiver.url(hook.path));
    assert.deepEqual(
      oldest.attemptLog.map((a) => [a.attempt, a.statusCode, a.error]),
      [
        [1, 429, 'HTTP 429'],
        [2, 200, null],
      ],
    );
    assert.equal((await listDeliveries(deps, scope, { status: 'succeeded' })).deliveries.length, 1);
    await rejects(listDeliveries(deps, scope, { limit: 101 }), 'validation_failed');
    await rejects(listDeliveries(deps, scope, { cursor: 'garbage' }), 'invalid_cursor');
  });
});

describe('contract and claim events from the flight API', () => {
  let seq = Math.floor(Math.random() * 8000) + 1000;

  it('subscribe and cancel emit contract.created and contract.cancelled in their transactions', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner, { events: ['contract.created', 'contract.cancelled'] });
    const body = trip(40 + (seq % 200));
    const quote = await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth);
    const flightNumber = `AF${seq++}`;
    const subscribed = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: {
          firstName: 'Ada',
          lastName: 'Byron',
          email: 'ada@example.com',
          phone: '+33612345678',
          language: 'en',
        },
        booking: { reference: 'PNR123' },
        consent: consent(),
        flights: [
          { flightNumber, departureAirport: 'CDG', arrivalAirport: 'JFK', departureDateTime: body.departureDateTime },
        ],
      },
      partner.auth,
    );
    assert.equal(subscribed.status, 201, JSON.stringify(subscribed.body));
    const cancelledReply = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: subscribed.body.contractNumber, reason: 'customer_request' },
      partner.auth,
    );
    assert.equal(cancelledReply.status, 200, JSON.stringify(cancelledReply.body));
    // cancelling again answers the same, and emits nothing more
    assert.equal(
      (
        await post(
          t.app,
          `${FLIGHT}/cancel`,
          { contractNumber: subscribed.body.contractNumber, reason: 'customer_request' },
          partner.auth,
        )
      ).status,
      200,
    );

    const deliveries = await deliveriesOf(hook.endpoint.id);
    assert.equal(deliveries.length, 2);
    for (const d of deliveries)
      assert.equal(await deliverWebhook(delivery, { deliveryId: d.id, attempt: 1 }), 'succeeded');
    const [createdEvent, cancelledEvent] = receiver
      .received(hook.path)
      .map((r) => (assert.ok(r.verified, r.verifyError ?? ''), r.payload!));
    assert.equal(createdEvent!.type, 'contract.created');
    assert.deepEqual(createdEvent!.data, {
      contractNumber: subscribed.body.contractNumber,
      status: 'active',
      booking: { reference: 'PNR123' },
      passengers: 1,
      premium: subscribed.body.premium,
      // operatingFlightNumber: null in the API, absent from webhooks when the leg flies under its own number
      flights: subscribed.body.flights.map((f: { operatingFlightNumber: string | null }) => {
        const { operatingFlightNumber, ...flight } = f;
        assert.equal(operatingFlightNumber, null);
        return flight;
      }),
      createdAt: subscribed.body.createdAt,
    });
    assert.equal(createdEvent!.timestamp, subscribed.body.createdAt);
    assert.equal(JSON.stringify(createdEvent).includes('ada@example.com'), false, 'no personal data');
    assert.equal(cancelledEvent!.type, 'contract.cancelled');
    assert.deepEqual(cancelledEvent!.data, cancelledReply.body);
  });

  it('emitClaimWebhookEvents reads the claims set-wise and sends their data', async () => {
    const partner = await createTestPartner(t.db);
    // claim.expired: an event no other part of this test triggers by itself
    const hook = await endpoint(partner, { events: ['claim.expired'] });
    const insured = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}`, days: 40 + (seq % 200) });
    const report = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: insured.flightNumber, departureDate: insured.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.ok(report.status < 300, JSON.stringify(report.body));
    const claim = await t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select(['cl.id', 'cl.claim_number', 'cl.opened_at', 'cl.compensation_amount'])
      .where('c.contract_number', '=', insured.contractNumber)
      .executeTakeFirstOrThrow();
    const other = await createTestPartner(t.db); // no endpoint: its claims are not even read
    const at = new Date();
    // the statements that read webhook_endpoints, whatever their form (Kysely builder or raw SQL)
    let endpointReads = 0;
    const counter: KyselyPlugin = {
      transformQuery: (args) => {
        if (JSON.stringify(args.node).includes('webhook_endpoints')) endpointReads += 1;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const result = await t.db
      .withPlugin(counter)
      .transaction()
      .execute((trx) => emitClaimWebhookEvents(trx, t.app.parasol.jobs, 'claim.expired', [claim.id], at));
    assert.deepEqual(result, { events: 1, deliveries: 1 });
    assert.equal(endpointReads, 1, 'the endpoints are read once');
    assert.ok(other.id);
    const [d] = await deliveriesOf(hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'succeeded');
    const [request] = receiver.received(hook.path);
    assert.ok(request!.verified);
    const data = request!.payload!.data;
    assert.equal(request!.payload!.type, 'claim.expired');
    assert.equal(data.claimNumber, claim.claim_number);
    assert.equal(data.contractNumber, insured.contractNumber);
    assert.equal(data.flightNumber, insured.flightNumber);
    assert.equal(data.departureDate, insured.departureDate);
    assert.equal(data.reason, 'cancellation');
    assert.equal(data.event, 'cancelled');
    assert.equal(data.delayMinutes, null);
    assert.deepEqual(data.compensation, { amount: Number(claim.compensation_amount), currency: 'EUR' });
    assert.equal(data.openedAt, claim.opened_at.toISOString());
    assert.equal(typeof data.expiredAt, 'string');
    assert.deepEqual(
      await t.db
        .transaction()
        .execute((trx) => emitClaimWebhookEvents(trx, t.app.parasol.jobs, 'claim.expired', [], at)),
      { events: 0, deliveries: 0 },
    );
  });
});

describe('CLI', () => {
  const cli = (argv: string[]) => runCliOn(t, argv);

  it('adds, lists, tests, rotates, shows deliveries and removes endpoints', async () => {
    const partner = await createTestPartner(t.db);
    const path = `/hooks/${process.pid}/cli`;
    const added = await cli([
      '--json',
      'webhooks',
      'add',
      partner.slug,
      '--env',
      'sandbox',
      '--url',
      receiver.url(path),
      '--events',
      'claim.paid,contract.created',
    ]);
    assert.equal(added.code, 0, added.err);
    const doc = JSON.parse(added.out);
    assert.match(doc.secret, /^whsec_/);
    assert.deepEqual(doc.endpoint.eventTypes, ['contract.created', 'claim.paid']);
    const id = doc.endpoint.id as string;
    created.push(id);
    receiver.secret(path, doc.secret);

    const text = await cli([
      'webhooks',
      'add',
      partner.slug,
      '--env',
      'production',
      '--url',
      receiver.url(`${path}/prod`),
    ]);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /whsec_[A-Za-z0-9+/]{32}/);
    assert.match(text.out, /will not be shown again/);
    created.push(/endpoint ([0-9a-f-]{36})/.exec(text.out)![1]!);

    const list = await cli(['webhooks', 'list', partner.slug]);
    assert.equal(list.code, 0, list.err);
    assert.match(list.out, /contract\.created,claim\.paid/);
    assert.doesNotMatch(list.out, /whsec_/);
    const listJson = JSON.parse((await cli(['--json', 'webhooks', 'list', partner.slug, '--env', 'sandbox'])).out);
    assert.deepEqual(
      listJson.endpoints.map((e: { id: string }) => e.id),
      [id],
    );

    const test = await cli(['--json', 'webhooks', 'test', id]);
    assert.equal(test.code, 0, test.err);
    const { deliveryId, eventId } = JSON.parse(test.out);
    assert.equal(await deliverWebhook(delivery, { deliveryId, attempt: 1 }), 'succeeded');
    assert.ok(receiver.received(path)[0]!.verified);

    const deliveries = await cli(['webhooks', 'deliveries', partner.slug, '--env', 'sandbox']);
    assert.equal(deliveries.code, 0, deliveries.err);
    assert.match(deliveries.out, new RegExp(`${eventId}\\s+webhook\\.test\\s+sandbox\\s+succeeded\\s+1\\s+200`));
    const deliveriesJson = JSON.parse(
      (await cli(['--json', 'webhooks', 'deliveries', partner.slug, '--limit', '1'])).out,
    );
    assert.equal(deliveriesJson.deliveries[0].attemptLog[0].statusCode, 200);

    const rotated = await cli(['--json', 'webhooks', 'rotate-secret', id]);
    assert.equal(rotated.code, 0, rotated.err);
    assert.notEqual(JSON.parse(rotated.out).secret, doc.secret);

    const disabled = await cli(['webhooks', 'disable', id]);
    assert.equal(disabled.code, 0, disabled.err);
    assert.match(disabled.out, /is disabled: manual since /);
    const pausedList = await cli(['webhooks', 'list', partner.slug]);
    assert.match(pausedList.out, new RegExp(`${id}\\s+sandbox\\s+disabled: manual since `), 'why, and since when');
    const refusedTest = await cli(['webhooks', 'test', id]);
    assert.equal(refusedTest.code, 1);
    assert.match(refusedTest.err, /disabled/);
    const enabled = await cli(['--json', 'webhooks', 'enable', id]);
    assert.equal(enabled.code, 0, enabled.err);
    assert.deepEqual(
      [JSON.parse(enabled.out).endpoint.enabled, JSON.parse(enabled.out).endpoint.pausedReason],
      [true, null],
      'resuming clears the reason',
    );

    const removed = await cli(['webhooks', 'remove', id]);
    assert.equal(removed.code, 0, removed.err);
    assert.match(removed.out, /Removed sandbox webhook endpoint/);
    const again = await cli(['--json', 'webhooks', 'remove', id]);
    assert.equal(again.code, 1);
    assert.equal(JSON.parse(again.err).error.code, 'webhook_endpoint_not_found');
  });

  it('names the option at fault', async () => {
    const partner = await createTestPartner(t.db);
    const badEvents = await cli([
      'webhooks',
      'add',
      partner.slug,
      '--env',
      'sandbox',
      '--url',
      receiver.url('/x'),
      '--events',
      'claim.paid,claim.lost',
    ]);
    assert.equal(badEvents.code, 1);
    assert.match(badEvents.err, /--events: unknown event type "claim\.lost"/);
    const badUrl = await cli(['webhooks', 'add', partner.slug, '--env', 'sandbox', '--url', 'ftp://127.0.0.1/x']);
    assert.equal(badUrl.code, 1);
    assert.match(badUrl.err, /--url: it must use https/);
    assert.equal(
      (await cli(['webhooks', 'add', partner.slug, '--url', receiver.url('/x')])).code,
      2,
      '--env is required',
    );
    assert.equal(
      (await cli(['webhooks', 'add', partner.slug, '--env', 'staging', '--url', receiver.url('/x')])).code,
      2,
    );
    const badLimit = await cli(['webhooks', 'deliveries', partner.slug, '--limit', '0']);
    assert.equal(badLimit.code, 1);
    assert.match(badLimit.err, /--limit/);
    assert.equal((await cli(['webhooks', 'rotate-secret', '00000000-0000-4000-8000-000000000000'])).code, 1);
  });

  it("with PARASOL_WEBHOOKS_ALLOW_PRIVATE=on (this app's), a host name that resolves to nothing is refused: 422 unresolvable", async () => {
    const partner = await createTestPartner(t.db);
    const asked: string[] = [];
    // the README's placeholder, resolved by an injected resolver (never real DNS): no such name
    const resolveHost = async (hostname: string): Promise<string[]> => {
      asked.push(hostname);
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    };
    const placeholder = 'https://your-receiver.example/hooks';
    const run = await runCliOn(
      t,
      ['--json', 'webhooks', 'add', partner.slug, '--env', 'sandbox', '--url', placeholder],
      { resolveHost },
    );
    assert.equal(run.code, 1, `refused: ${run.out}`);
    // the CLI's form of the API's 422 webhook_url_not_allowed, reason unresolvable
    const { error } = JSON.parse(run.err) as {
      error: { code: string; detail: string; errors: { field: string; message: string }[] };
    };
    assert.equal(error.code, 'webhook_url_not_allowed', run.err);
    assert.match(error.detail, /your-receiver\.example does not resolve to any address/, run.err);
    assert.equal(error.errors[0]?.field, '/url', run.err);
    assert.deepEqual(asked, ['your-receiver.example'], 'the name was resolved, by the injected resolver');
    const listed = await runCliOn(t, ['--json', 'webhooks', 'list', partner.slug]);
    assert.equal(listed.code, 0, listed.err);
    assert.deepEqual(JSON.parse(listed.out).endpoints, [], 'nothing stored');

    // a name that resolves, to a private address: admitted by the flag
    const admitted = await runCliOn(
      t,
      ['--json', 'webhooks', 'add', partner.slug, '--env', 'sandbox', '--url', 'http://receiver.lan:4000/hooks'],
      { resolveHost: async () => ['192.168.1.20'] },
    );
    assert.equal(admitted.code, 0, admitted.err);
  });
});
