import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../../src/partners/users.ts';
import { UNBOUND_CURSORS_BEFORE } from '../../src/platform/cursor.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  post,
  subscribeTrip,
  uniqueSlug,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';
import { Receiver } from './receiver.ts';

/**
 * Webhook endpoints managed through the Flight Delay API (list, create with its secret once, read,
 * change, remove), the delivery log, and redelivery of a past event (API and console); an endpoint
 * whose deliveries fail is flagged in the console.
 */

let t: TestApp;
let receiver: Receiver;

before(async () => {
  t = await buildTestApp({ env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on', PARASOL_JOB_POLL_SECONDS: '1' } });
  receiver = await Receiver.start();
});
after(async () => {
  await receiver.close();
  await t.close();
});

async function call(method: string, url: string, partner: TestPartner, body?: unknown) {
  const response = await t.app.inject({
    method: method as 'GET',
    url: `${FLIGHT}${url}`,
    headers: { ...partner.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return {
    status: response.statusCode,
    body: response.body ? JSON.parse(response.body) : undefined,
    type: response.headers['content-type'],
    location: response.headers.location,
  };
}

async function deliveriesOf(partner: TestPartner, endpointId: string) {
  const log = await call('GET', `/webhooks/deliveries?endpointId=${endpointId}`, partner);
  assert.equal(log.status, 200, JSON.stringify(log.body));
  return log.body.deliveries as { id: string; eventId: string; status: string; attempts: number }[];
}

describe('webhooks through the API', () => {
  it('create (secret once), list, read, change, test, redeliver with the same webhook-id, remove; only your own', async () => {
    const partner = await createTestPartner(t.db);
    const stranger = await createTestPartner(t.db);
    const path = `/api/${process.pid}/hooks`;

    const created = await call('POST', '/webhooks/endpoints', partner, {
      url: receiver.url(path),
      eventTypes: ['contract.created'],
      description: 'bookings',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.secret, /^whsec_/);
    assert.equal(created.body.endpoint.partnerId, undefined);
    assert.deepEqual(created.body.endpoint.eventTypes, ['contract.created']);
    const id = created.body.endpoint.id as string;
    receiver.secret(path, created.body.secret);
    assert.equal(created.location, `${FLIGHT}/webhooks/endpoints/${id}`, 'where it is read');

    const list = await call('GET', '/webhooks/endpoints', partner);
    assert.deepEqual(
      list.body.endpoints.map((e: { id: string }) => e.id),
      [id],
    );
    assert.equal(JSON.stringify(list.body).includes('whsec_'), false, 'the secret is shown once');
    assert.equal((await call('GET', `/webhooks/endpoints/${id}`, partner)).body.description, 'bookings');
    assert.equal((await call('GET', `/webhooks/endpoints/${id}`, stranger)).status, 404);
    assert.equal((await call('GET', '/webhooks/endpoints', stranger)).body.endpoints.length, 0);

    // a description is free text: the personal data it quotes is masked before it is kept
    const quoting = await call('PATCH', `/webhooks/endpoints/${id}`, partner, {
      description: 'alerts to ops.lead@partner.example, iban fr76 3000 6000 0112 3456 7890 189',
    });
    assert.equal(quoting.status, 200, JSON.stringify(quoting.body));
    assert.equal(quoting.body.description, 'alerts to [email], iban •••• 0189');

    const changed = await call('PATCH', `/webhooks/endpoints/${id}`, partner, { eventTypes: null, description: null });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.eventTypes, null);
    assert.equal(changed.body.description, null);
    const badType = await call('PATCH', `/webhooks/endpoints/${id}`, partner, { eventTypes: ['no.such'] });
    assert.equal(badType.status, 422);
    assert.match(String(badType.type), /application\/problem\+json/);

    const tested = await call('POST', `/webhooks/endpoints/${id}/test`, partner);
    assert.equal(tested.status, 202, JSON.stringify(tested.body));
    const [first] = await receiver.waitFor(path, 1);
    assert.equal(first!.verified, true, first!.verifyError ?? '');
    const delivery = await eventually(async () => {
      const [d] = await deliveriesOf(partner, id);
      return d?.status === 'succeeded' ? d : undefined;
    });
    assert.equal(delivery.id, tested.body.deliveryId);

    assert.equal((await call('POST', `/webhooks/deliveries/${delivery.id}/redeliver`, stranger)).status, 404);
    const again = await call('POST', `/webhooks/deliveries/${delivery.id}/redeliver`, partner);
    assert.equal(again.status, 202, JSON.stringify(again.body));
    assert.deepEqual(again.body, { deliveryId: delivery.id, eventId: delivery.eventId, attempt: 2 });
    const [, second] = await receiver.waitFor(path, 2);
    assert.equal(second!.verified, true, second!.verifyError ?? '');
    assert.equal(second!.headers['webhook-id'], first!.headers['webhook-id']);
    assert.equal(second!.body, first!.body);
    const redelivered = await eventually(async () => {
      const [d] = await deliveriesOf(partner, id);
      return d?.status === 'succeeded' && d.attempts === 2 ? d : undefined;
    });
    assert.equal(redelivered.id, delivery.id);

    const paused = await call('PATCH', `/webhooks/endpoints/${id}`, partner, { enabled: false });
    assert.equal(paused.body.enabled, false);
    const refused = await call('POST', `/webhooks/deliveries/${delivery.id}/redeliver`, partner);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'webhook_endpoint_disabled');

    const removed = await call('DELETE', `/webhooks/endpoints/${id}`, partner);
    assert.equal(removed.status, 200);
    assert.equal((await call('GET', `/webhooks/endpoints/${id}`, partner)).status, 404);
    assert.equal((await call('POST', `/webhooks/deliveries/${delivery.id}/redeliver`, partner)).status, 404);
  });

  it('refuses an unknown event type and a missing url with problem+json', async () => {
    const partner = await createTestPartner(t.db);
    const unknown = await call('POST', '/webhooks/endpoints', partner, {
      url: 'https://example.com/hooks',
      eventTypes: ['contract.eaten'],
    });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.code, 'validation_failed');
    const missing = await post(t.app, `${FLIGHT}/webhooks/endpoints`, {}, partner.auth);
    assert.equal(missing.status, 422);
  });

  it('console: a failing endpoint is flagged, and a past delivery is sent again from the log', async () => {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('hooks')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: 'webhook console password' });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, 'webhook console password')).statusCode, 303);

    const path = `/console/${process.pid}/failing`;
    receiver.answer(path, (n) => (n === 1 ? { status: 500, body: 'down' } : { status: 200 }));
    const created = await call('POST', '/webhooks/endpoints', partner, { url: receiver.url(path) });
    const id = created.body.endpoint.id as string;
    receiver.secret(path, created.body.secret);
    assert.equal(created.location, `${FLIGHT}/webhooks/endpoints/${id}`, 'where it is read');
    assert.equal((await call('POST', `/webhooks/endpoints/${id}/test`, partner)).status, 202);
    await receiver.waitFor(path, 1);
    await eventually(async () => ((await deliveriesOf(partner, id))[0]?.attempts === 1 ? true : undefined));
    // pausing ends the pending retry failed: its latest attempt failed → flagged
    assert.equal((await call('PATCH', `/webhooks/endpoints/${id}`, partner, { enabled: false })).status, 200);
    assert.equal((await call('PATCH', `/webhooks/endpoints/${id}`, partner, { enabled: true })).status, 200);
    const [failed] = await deliveriesOf(partner, id);
    assert.equal(failed!.status, 'failed');

    const page = await browser.get('/console/webhooks');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /data-failing/);
    assert.ok(page.body.includes(`/console/webhooks/deliveries/${failed!.id}/redeliver`));

    const csrf = csrfOf(page.body)!;
    const actionToken = /name="actionToken" value="([A-Za-z0-9_-]+)"/.exec(page.body)![1]!;
    const form = { _csrf: csrf, env: partner.environment, actionToken };
    const resent = await browser.post(`/console/webhooks/deliveries/${failed!.id}/redeliver`, form);
    assert.equal(resent.statusCode, 200, resent.body.slice(0, 500));
    assert.match(resent.body, /Delivery queued again/);
    // the same form again (a double click, a resubmit): nothing queued again — not refused as pending either
    const again = await browser.post(`/console/webhooks/deliveries/${failed!.id}/redeliver`, form);
    assert.equal(again.statusCode, 200, again.body.slice(0, 500));
    assert.match(again.body, /This form was sent already: nothing was queued again/);
    await receiver.waitFor(path, 2);
    const [done] = await eventually(async () => {
      const log = await deliveriesOf(partner, id);
      return log[0]?.status === 'succeeded' ? log : undefined;
    });
    assert.equal(done!.attempts, 2, 'sent again once');
    assert.doesNotMatch((await browser.get('/console/webhooks')).body, /data-failing/);
  });

  it('console: an endpoint answering 500 is flagged from its first failed attempt, while its delivery still waits for a retry', async () => {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('hooks')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: 'webhook console password' });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, 'webhook console password')).statusCode, 303);

    const path = `/console/${process.pid}/down`;
    receiver.answer(path, () => ({ status: 500, body: 'down' }));
    const created = await call('POST', '/webhooks/endpoints', partner, { url: receiver.url(path) });
    const id = created.body.endpoint.id as string;
    assert.doesNotMatch((await browser.get('/console/webhooks')).body, /data-failing/, 'nothing attempted yet');
    assert.equal((await call('POST', `/webhooks/endpoints/${id}/test`, partner)).status, 202);
    await receiver.waitFor(path, 1);
    const [delivery] = await eventually(async () => {
      const log = await deliveriesOf(partner, id);
      return log[0]?.attempts === 1 ? log : undefined;
    });
    assert.equal(delivery!.status, 'pending', 'retried for 2.7 days before it is marked failed');
    assert.match((await browser.get('/console/webhooks')).body, /data-failing/, 'the partner is told now');
  });
});

describe("GET /webhooks/deliveries — a cursor goes on only with its first page's filters", () => {
  it('refuses a cursor given with other filters (or by another partner): 422 invalid_cursor; the endpoint in any case goes on', async () => {
    const partner = await createTestPartner(t.db);
    const stranger = await createTestPartner(t.db);
    const path = `/api/${process.pid}/cursor-hooks`;
    const endpoint = async () => {
      const created = await call('POST', '/webhooks/endpoints', partner, { url: receiver.url(path) });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.endpoint.id as string;
    };
    const id = await endpoint();
    const other = await endpoint();
    const sent: string[] = [];
    for (let i = 0; i < 2; i++) {
      const tested = await call('POST', `/webhooks/endpoints/${id}/test`, partner);
      assert.equal(tested.status, 202, JSON.stringify(tested.body));
      sent.push(tested.body.deliveryId);
    }
    // the endpoint given in capitals (a UUID is read in any case)
    const page1 = await call('GET', `/webhooks/deliveries?endpointId=${id.toUpperCase()}&limit=1`, partner);
    assert.equal(page1.status, 200, JSON.stringify(page1.body));
    assert.equal(page1.body.deliveries.length, 1);
    const cursor: string = page1.body.nextCursor;
    assert.ok(cursor, 'a second delivery to read');
    for (const query of [`endpointId=${id}&status=succeeded`, `endpointId=${other}`, 'status=pending', '']) {
      const res = await call('GET', `/webhooks/deliveries?${query}&cursor=${cursor}`, partner);
      assert.equal(res.status, 422, `${query}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'invalid_cursor');
      assert.match(res.body.detail, /filters changed/);
      assert.deepEqual(res.body.errors, [
        { field: 'querystring:/cursor', code: 'invalid', message: 'is the next page of a list with other filters' },
      ]);
    }
    const theirs = await call('GET', `/webhooks/deliveries?endpointId=${id}&cursor=${cursor}`, stranger);
    assert.deepEqual([theirs.status, theirs.body.code], [422, 'invalid_cursor'], "another partner's list");
    // the same endpoint in lower case, another page size: goes on where the first page stopped
    const next = await call('GET', `/webhooks/deliveries?endpointId=${id}&limit=10&cursor=${cursor}`, partner);
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.deepEqual(
      [...page1.body.deliveries, ...next.body.deliveries].map((d: { id: string }) => d.id).sort(),
      [...sent].sort(),
    );
    assert.equal(next.body.nextCursor, null);
    // an unbound cursor: one handed out before the release goes on; at the release or after, it is a
    // bound cursor stripped of its binding, refused
    const unbound = (at: number) =>
      Buffer.from(JSON.stringify([new Date(at).toISOString(), 'ffffffff-ffff-ffff-ffff-ffffffffffff'])).toString(
        'base64url',
      );
    const old = await call(
      'GET',
      `/webhooks/deliveries?endpointId=${id}&cursor=${unbound(UNBOUND_CURSORS_BEFORE.getTime() - 1)}`,
      partner,
    );
    assert.equal(old.status, 200, JSON.stringify(old.body));
    const stripped = await call(
      'GET',
      `/webhooks/deliveries?endpointId=${id}&cursor=${unbound(UNBOUND_CURSORS_BEFORE.getTime())}`,
      partner,
    );
    assert.deepEqual([stripped.status, stripped.body.code], [422, 'invalid_cursor'], JSON.stringify(stripped.body));
  });
});

describe('creating an endpoint with an Idempotency-Key', () => {
  const create = (partner: TestPartner, key: string, body: object) =>
    t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...partner.auth, 'idempotency-key': key, 'content-type': 'application/json' },
      payload: body,
    });

  it('a retry with the same key and body answers the same 201 (secret included) and registers nothing more; another body is refused', async () => {
    const partner = await createTestPartner(t.db);
    const key = `hooks-${uniqueSlug()}`;
    const body = { url: receiver.url(`/idem/${process.pid}`), eventTypes: ['claim.paid'] };
    const first = await create(partner, key, body);
    assert.equal(first.statusCode, 201, first.body);
    const replay = await create(partner, key, body);
    assert.equal(replay.statusCode, 201, replay.body);
    assert.equal(replay.body, first.body, 'the same bytes: the same endpoint and secret');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.headers.location, first.headers.location);
    const { endpoint, secret } = JSON.parse(first.body) as { endpoint: { id: string }; secret: string };
    assert.match(first.headers.location as string, new RegExp(`/webhooks/endpoints/${endpoint.id}$`));
    const rows = await t.db.selectFrom('webhook_endpoints').select('id').where('partner_id', '=', partner.id).execute();
    assert.deepEqual(
      rows.map((r) => r.id),
      [endpoint.id],
      'one endpoint',
    );
    const stored = await t.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('partner_id', '=', partner.id)
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    assert.equal(JSON.stringify(stored).includes(secret.slice('whsec_'.length)), false, 'the secret is not in clear');

    const other = await create(partner, key, { ...body, eventTypes: ['claim.opened'] });
    assert.equal(other.statusCode, 422, other.body);
    assert.equal(JSON.parse(other.body).code, 'idempotency_key_reused');
    const stranger = await createTestPartner(t.db);
    const theirs = await create(stranger, key, body);
    assert.equal(theirs.statusCode, 201, 'a key is per partner');
    assert.notEqual(JSON.parse(theirs.body).endpoint.id, endpoint.id);
  });
});

describe('a paused endpoint says why', () => {
  it('API: pausedReason and pausedAt while paused, cleared on resume', async () => {
    const partner = await createTestPartner(t.db);
    const created = await call('POST', '/webhooks/endpoints', partner, { url: receiver.url(`/why/${process.pid}`) });
    const id = created.body.endpoint.id as string;
    assert.deepEqual([created.body.endpoint.pausedReason, created.body.endpoint.pausedAt], [null, null]);
    const paused = await call('PATCH', `/webhooks/endpoints/${id}`, partner, { enabled: false });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal(paused.body.pausedReason, 'manual');
    assert.match(paused.body.pausedAt, /^\d{4}-\d\d-\d\dT/);
    const read = await call('GET', `/webhooks/endpoints/${id}`, partner);
    assert.deepEqual([read.body.enabled, read.body.pausedReason], [false, 'manual']);
    const resumed = await call('PATCH', `/webhooks/endpoints/${id}`, partner, { enabled: true });
    assert.deepEqual([resumed.body.enabled, resumed.body.pausedReason, resumed.body.pausedAt], [true, null, null]);
  });

  it('console: pause and resume; an endpoint Parasol paused is said at the top of the page, with its reason', async () => {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('hooks')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: 'webhook console password' });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, 'webhook console password')).statusCode, 303);
    const created = await call('POST', '/webhooks/endpoints', partner, { url: receiver.url(`/cons/${process.pid}`) });
    const id = created.body.endpoint.id as string;

    const page = await browser.get('/console/webhooks');
    assert.doesNotMatch(page.body, /data-paused/);
    const paused = await browser.post(`/console/webhooks/${id}/pause`, {
      _csrf: csrfOf(page.body)!,
      env: partner.environment,
    });
    assert.equal(paused.statusCode, 200, paused.body.slice(0, 500));
    assert.match(paused.body, /data-paused="manual"/);
    assert.doesNotMatch(paused.body, /data-paused-by-platform/, 'the partner paused it: no alert');
    assert.equal((await call('GET', `/webhooks/endpoints/${id}`, partner)).body.pausedReason, 'manual');
    const resumed = await browser.post(`/console/webhooks/${id}/resume`, {
      _csrf: csrfOf(paused.body)!,
      env: partner.environment,
    });
    assert.equal(resumed.statusCode, 200);
    assert.doesNotMatch(resumed.body, /data-paused/);
    assert.equal((await call('GET', `/webhooks/endpoints/${id}`, partner)).body.enabled, true);

    await t.db
      .updateTable('webhook_endpoints')
      .set({ enabled: false, paused_reason: 'failing', paused_at: new Date() })
      .where('id', '=', id)
      .execute();
    const told = await browser.get('/console/webhooks');
    assert.match(told.body, /data-paused="failing"/);
    assert.match(told.body, /data-paused-by-platform/);
  });
});

describe('webhooks with the endpoints cached (as in production)', () => {
  let cached: TestApp;
  before(async () => {
    cached = await buildTestApp({
      cacheTtlMs: 10 * 60_000, // only the use cases' invalidation can explain a change seen
      env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on', PARASOL_WORKERS: 'off' },
    });
  });
  after(() => cached.close());

  it('a subscription emits to an endpoint registered through the API just before, and not once it is paused', async () => {
    const partner = await createTestPartner(cached.db);
    const events = async () =>
      (await cached.db.selectFrom('webhook_events').select('type').where('partner_id', '=', partner.id).execute())
        .length;
    const request = async (method: 'POST' | 'PATCH', url: string, body: object) => {
      const response = await cached.app.inject({
        method,
        url: `${FLIGHT}${url}`,
        headers: partner.auth,
        payload: body,
      });
      assert.ok(response.statusCode < 300, response.body);
      return JSON.parse(response.body);
    };

    assert.equal((await subscribeTrip(cached.app, partner)).status, 201);
    await cached.app.parasol.webhookEndpoints.settled(); // "no endpoint" is now cached for the partner
    assert.equal(await events(), 0);

    const created = await request('POST', '/webhooks/endpoints', { url: 'http://127.0.0.1:9/hooks' });
    assert.equal((await subscribeTrip(cached.app, partner)).status, 201);
    assert.equal(await events(), 1, 'contract.created for the endpoint registered just before');

    await request('PATCH', `/webhooks/endpoints/${created.endpoint.id}`, { enabled: false });
    assert.equal((await subscribeTrip(cached.app, partner)).status, 201);
    assert.equal(await events(), 1, 'nothing for a paused endpoint');
  });
});
