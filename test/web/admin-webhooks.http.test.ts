import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomToken } from '../../src/platform/crypto.ts';
import { deliverWebhook, type DeliveryDeps } from '../../src/webhooks/webhook-delivery.ts';
import {
  addEndpoint,
  FAILING_SINCE_LOOKBACK_DAYS,
  removeEndpoint,
  type WebhookDeps,
} from '../../src/webhooks/webhooks.ts';
import { buildTestApp, createTestPartner, type TestApp, type TestPartner } from '../helper.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { deliveriesOf, emitCancellations, queuedAttempts } from '../webhooks/webhook-rows.ts';
import { Browser, csrfOf } from './inject-browser.ts';

/**
 * The operator console's page of a partner's webhooks: endpoints per environment with their state,
 * the delivery log with its attempts (keyset-paged), and the operator actions (pause, resume, test,
 * send again) — CSRF, audit under the operator's name, another partner's ids not found, never a
 * secret. Workers off: each attempt is one call of the delivery job.
 */

const ADMIN = { email: 'ops-webhooks-tests@parasol.test', password: 'operator password 77' };
const actor = `operator:${ADMIN.email}`;
/** A one-time token as the page puts in its test and send-again forms. */
const once = () => randomToken(24);
/** The one-time token of a page's forms. */
const tokenOf = (body: string) => /name="actionToken" value="([A-Za-z0-9_-]+)"/.exec(body)?.[1];

describe('operator console — partner webhooks', () => {
  let t: TestApp;
  let receiver: Receiver;
  let deps: WebhookDeps;
  let delivery: DeliveryDeps;
  let operator: Browser;
  let csrf: string;
  const created: string[] = [];
  let seq = 0;

  before(async () => {
    t = await buildTestApp({
      env: {
        PARASOL_ADMIN_EMAIL: ADMIN.email,
        PARASOL_ADMIN_PASSWORD: ADMIN.password,
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on',
        PARASOL_WORKERS: 'off',
      },
    });
    receiver = await Receiver.start();
    const { jobs, keys } = t.app.parasol;
    deps = { db: t.db, jobs, keys, allowPrivate: true, now: () => new Date() };
    delivery = { ...deps, timeoutMs: 60_000 };
    operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    csrf = csrfOf((await operator.get('/admin')).body)!;
  });
  after(async () => {
    for (const id of created) await removeEndpoint(deps, { actor: 'operator:test' }, id).catch(() => undefined);
    await receiver.close();
    await t.close();
  });

  async function endpoint(partner: TestPartner, environment: 'sandbox' | 'production' = 'sandbox') {
    const path = `/admin-webhooks/${process.pid}/${++seq}`;
    const result = await addEndpoint(
      deps,
      { actor: 'operator:test', partnerId: partner.id, environment },
      { url: receiver.url(path), description: 'orders hook' },
    );
    receiver.secret(path, result.secret);
    created.push(result.endpoint.id);
    return { ...result, path };
  }

  const emit = (partner: TestPartner, count = 1) => emitCancellations(t, partner, count, 'ADMW');

  const audits = (entityId: string, action: string) =>
    t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'webhook_endpoint')
      .where('entity_id', '=', entityId)
      .where('action', '=', action)
      .execute();

  test('the partner page links to the webhooks page; it shows each endpoint’s state and every attempt, never a secret', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const live = await endpoint(partner, 'production');
    receiver.answer(hook.path, () => ({ status: 503, body: 'down for maintenance' }));
    await emit(partner);
    const [d] = await deliveriesOf(t, hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'retry_scheduled');

    const partnerPage = await operator.get(`/admin/partners/${partner.slug}`);
    assert.match(partnerPage.body, new RegExp(`href="/admin/partners/${partner.slug}/webhooks"`));

    // the log shows one environment (an index to page with): production, where the partner has an endpoint
    const first = await operator.get(`/admin/partners/${partner.slug}/webhooks`);
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /<option selected>production<\/option>/);
    assert.doesNotMatch(first.body, /name="env"><option value="">/, 'no "all environments"');
    assert.doesNotMatch(first.body, new RegExp(`data-delivery="${d!.id}"`), 'a sandbox delivery');
    assert.match(first.body, new RegExp(`webhooks\\?env=sandbox&amp;endpoint=${hook.endpoint.id}`));
    assert.match(first.body, /<input type="hidden" name="env" value="production">/, 'actions come back to it');

    const page = await operator.get(`/admin/partners/${partner.slug}/webhooks?env=sandbox`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<table data-environment="sandbox">/);
    assert.match(page.body, /<table data-environment="production">/);
    assert.match(page.body, new RegExp(`data-endpoint="${live.endpoint.id}"`));
    assert.match(page.body, /data-failing-since="/, 'the sandbox endpoint fails since its first failed attempt');
    assert.doesNotMatch(page.body, /data-failing-longer/);
    assert.match(page.body, new RegExp(`data-delivery="${d!.id}"`));
    assert.match(page.body, /data-status="pending"/);
    assert.match(page.body, /#1 [^<]*: HTTP 503: down for maintenance</, 'its status once');
    assert.doesNotMatch(page.body, /whsec_/);
    assert.ok(!page.body.includes(hook.secret) && !page.body.includes(live.secret), 'no signing secret shown');
    // a delivery still being attempted offers no “send again”
    assert.doesNotMatch(page.body, new RegExp(`deliveries/${d!.id}/redeliver`));

    const fr = await operator.request('GET', `/admin/partners/${partner.slug}/webhooks`, undefined, {
      cookie: `${[...operator.cookies].map(([k, v]) => `${k}=${v}`).join('; ')}; psl_lang=fr`,
    });
    assert.match(fr.body, /Journal des envois/);
  });

  test('send again: a pending delivery is refused (409, nothing written), an ended one is queued again and audited', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, (n) => (n === 1 ? { status: 500 } : { status: 204 }));
    await emit(partner);
    const [d] = await deliveriesOf(t, hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 1 }), 'retry_scheduled');
    const url = `/admin/partners/${partner.slug}/webhooks/deliveries/${d!.id}/redeliver`;

    const refused = await operator.post(url, { _csrf: csrf, actionToken: once() });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /still being attempted/);
    assert.equal((await audits(hook.endpoint.id, 'redelivery_requested')).length, 0);

    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 2 }), 'succeeded');
    assert.equal((await operator.post(url, {})).statusCode, 403, 'no CSRF token, no change');
    assert.equal((await audits(hook.endpoint.id, 'redelivery_requested')).length, 0);

    const sent = await operator.post(url, { _csrf: csrf, env: 'sandbox', actionToken: once() });
    assert.equal(sent.statusCode, 303);
    assert.equal(sent.headers.location, `/admin/partners/${partner.slug}/webhooks?env=sandbox&done=redelivered`);
    const [again] = await deliveriesOf(t, hook.endpoint.id);
    assert.equal(again!.status, 'pending');
    const [row] = await audits(hook.endpoint.id, 'redelivery_requested');
    assert.equal(row?.actor, actor);
    assert.deepEqual((row!.data as { deliveryId: string }).deliveryId, d!.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: d!.id, attempt: 3 }), 'succeeded');
    const received = receiver.received(hook.path);
    assert.equal(received.length, 3);
    assert.equal(received[2]!.headers['webhook-id'], received[0]!.headers['webhook-id'], 'the same webhook-id');

    const shown = await operator.get(sent.headers.location);
    assert.match(shown.body, /id="webhooks-done"/);
  });

  test('a double submit of "Send a test event" or "Send again" queues one delivery, then says so; a stale form is refused', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, () => ({ status: 204 }));
    const base = `/admin/partners/${partner.slug}/webhooks`;
    const queued = (deliveryId: string) => queuedAttempts(t, deliveryId);

    // the test form, sent twice at once (a double click) and once more: one test event
    const page = await operator.get(`${base}?env=sandbox`);
    const token = tokenOf(page.body);
    assert.ok(token, 'the page’s forms carry a one-time token');
    assert.match(page.body, new RegExp(`action="${base}/${hook.endpoint.id}/test">[^]*?name="actionToken"`));
    const form = { _csrf: csrf, env: 'sandbox', actionToken: token };
    const clicks = await Promise.all([1, 2].map(() => operator.post(`${base}/${hook.endpoint.id}/test`, form)));
    const again = await operator.post(`${base}/${hook.endpoint.id}/test`, form);
    assert.deepEqual(
      [...clicks, again].map((r) => r.statusCode),
      [303, 303, 303],
    );
    assert.deepEqual(
      [...clicks, again].map((r) => new URLSearchParams(String(r.headers.location).split('?')[1]).get('done')).sort(),
      ['replayed', 'replayed', 'test'],
    );
    const tests = await deliveriesOf(t, hook.endpoint.id);
    assert.equal(tests.length, 1, 'one test delivery');
    assert.deepEqual(await queued(tests[0]!.id), [1]);
    assert.equal((await audits(hook.endpoint.id, 'test_sent')).length, 1);
    assert.match(
      (await operator.get(`${base}?env=sandbox&done=replayed`)).body,
      /sent already: nothing was queued again/,
    );

    // a page shown again has a new token: a new test
    const next = tokenOf((await operator.get(`${base}?env=sandbox`)).body);
    assert.ok(next && next !== token);
    const second = await operator.post(`${base}/${hook.endpoint.id}/test`, { ...form, actionToken: next });
    assert.equal(second.headers.location, `${base}?env=sandbox&done=test`);
    assert.equal((await deliveriesOf(t, hook.endpoint.id)).length, 2);

    // send again, twice at once, then once more while its attempt is pending: queued once, never refused as pending
    const [first] = await deliveriesOf(t, hook.endpoint.id);
    assert.equal(await deliverWebhook(delivery, { deliveryId: first!.id, attempt: 1 }), 'succeeded');
    const shown = (await operator.get(`${base}?env=sandbox`)).body;
    const resend = tokenOf(shown);
    assert.ok(resend);
    assert.match(shown, new RegExp(`deliveries/${first!.id}/redeliver">[^]*?value="${resend}"`));
    const url = `${base}/deliveries/${first!.id}/redeliver`;
    const resent = await Promise.all([1, 2].map(() => operator.post(url, { ...form, actionToken: resend })));
    const pending = await operator.post(url, { ...form, actionToken: resend });
    assert.deepEqual(
      [...resent, pending].map((r) => new URLSearchParams(String(r.headers.location).split('?')[1]).get('done')).sort(),
      ['redelivered', 'replayed', 'replayed'],
    );
    assert.deepEqual(await queued(first!.id), [1, 2], 'attempt 2 queued once');
    assert.equal((await audits(hook.endpoint.id, 'redelivery_requested')).length, 1);
    // the same form on another delivery of that page is its own action
    const [, other] = await deliveriesOf(t, hook.endpoint.id);
    await t.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', other!.id).execute();
    const otherSent = await operator.post(`${base}/deliveries/${other!.id}/redeliver`, {
      ...form,
      actionToken: resend,
    });
    assert.equal(otherSent.headers.location, `${base}?env=sandbox&done=redelivered`);

    // a form without its token (a page shown before it had one): refused, nothing queued
    for (const path of [`${hook.endpoint.id}/test`, `deliveries/${other!.id}/redeliver`]) {
      const stale = await operator.post(`${base}/${path}`, { _csrf: csrf, env: 'sandbox' });
      assert.equal(stale.statusCode, 422);
      assert.match(stale.body, /This form is stale: open the page again\./);
    }
    assert.equal((await deliveriesOf(t, hook.endpoint.id)).length, 2);
    assert.equal((await audits(hook.endpoint.id, 'test_sent')).length, 2);
    assert.equal((await audits(hook.endpoint.id, 'redelivery_requested')).length, 2);
  });

  test('pause, resume and test an endpoint: each audited under the operator; another partner’s ids are not found', async () => {
    const partner = await createTestPartner(t.db);
    const other = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const foreign = await endpoint(other);
    const base = `/admin/partners/${partner.slug}/webhooks`;

    assert.equal((await operator.post(`${base}/${hook.endpoint.id}/pause`, { _csrf: csrf })).statusCode, 303);
    const paused = await operator.get(base);
    assert.match(paused.body, /data-paused="manual"/);
    assert.match(paused.body, new RegExp(`${base}/${hook.endpoint.id}/resume`));
    assert.equal((await audits(hook.endpoint.id, 'disabled'))[0]?.actor, actor);

    // paused: a test event is refused by the use case, shown on the page
    const refused = await operator.post(`${base}/${hook.endpoint.id}/test`, { _csrf: csrf, actionToken: once() });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /is disabled; enable it first/);

    assert.equal((await operator.post(`${base}/${hook.endpoint.id}/resume`, { _csrf: csrf })).statusCode, 303);
    assert.equal((await audits(hook.endpoint.id, 'enabled'))[0]?.actor, actor);
    assert.equal(
      (await operator.post(`${base}/${hook.endpoint.id}/test`, { _csrf: csrf, actionToken: once() })).statusCode,
      303,
    );
    assert.equal((await audits(hook.endpoint.id, 'test_sent'))[0]?.actor, actor);
    const [tested] = await deliveriesOf(t, hook.endpoint.id);
    assert.ok(tested);

    // "send again" only where it would be taken: not for a paused endpoint's delivery, nor a removed one's
    await t.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', tested.id).execute();
    const redeliverForm = new RegExp(`deliveries/${tested.id}/redeliver`);
    assert.match((await operator.get(base)).body, redeliverForm);
    assert.equal((await operator.post(`${base}/${hook.endpoint.id}/pause`, { _csrf: csrf })).statusCode, 303);
    const whilePaused = (await operator.get(base)).body;
    assert.doesNotMatch(whilePaused, redeliverForm);
    assert.match(whilePaused, /endpoint paused: resume it to send again/);
    assert.equal((await operator.post(`${base}/${hook.endpoint.id}/resume`, { _csrf: csrf })).statusCode, 303);
    await removeEndpoint(deps, { actor: 'operator:test' }, hook.endpoint.id);
    const afterRemoval = (await operator.get(`${base}?env=sandbox`)).body;
    assert.doesNotMatch(afterRemoval, redeliverForm);
    assert.match(afterRemoval, /endpoint removed/);

    // another partner's endpoint and delivery, through this partner's page: not found, untouched
    for (const path of ['pause', 'test']) {
      assert.equal(
        (await operator.post(`${base}/${foreign.endpoint.id}/${path}`, { _csrf: csrf, actionToken: once() }))
          .statusCode,
        404,
      );
    }
    await emit(other);
    const [theirs] = await deliveriesOf(t, foreign.endpoint.id);
    await t.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', theirs!.id).execute();
    assert.equal(
      (await operator.post(`${base}/deliveries/${theirs!.id}/redeliver`, { _csrf: csrf, actionToken: once() }))
        .statusCode,
      404,
    );
    const untouched = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('entity_id', '=', foreign.endpoint.id)
      .execute();
    assert.deepEqual(
      untouched.map((r) => r.action),
      ['created'],
    );
    assert.equal(
      (await operator.get(`/admin/partners/${partner.slug}/webhooks`)).body.includes(foreign.endpoint.url),
      false,
    );
  });

  test('an endpoint failing since before the look-back: "for more than N days", not a date', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    receiver.answer(hook.path, () => ({ status: 500 }));
    const daysAgo = (days: number) => ({ ...delivery, now: () => new Date(Date.now() - days * 24 * 3600 * 1000) });
    for (const days of [FAILING_SINCE_LOOKBACK_DAYS + 1, FAILING_SINCE_LOOKBACK_DAYS - 1, 0]) {
      await emit(partner);
      const ds = await deliveriesOf(t, hook.endpoint.id);
      await deliverWebhook(daysAgo(days), { deliveryId: ds[ds.length - 1]!.id, attempt: 1 });
    }
    const page = (await operator.get(`/admin/partners/${partner.slug}/webhooks`)).body;
    assert.match(page, /<option selected>sandbox<\/option>/, 'its only environment with endpoints');
    assert.match(page, new RegExp(`data-failing-longer>failing for more than ${FAILING_SINCE_LOOKBACK_DAYS} days<`));
  });

  test('the delivery log is keyset-paged, filtered by environment, status and endpoint', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    await emit(partner, 23);
    const base = `/admin/partners/${partner.slug}/webhooks`;
    const ids = (body: string) => [...body.matchAll(/data-delivery="([0-9a-f-]{36})"/g)].map((m) => m[1]!);

    const first = await operator.get(`${base}?env=sandbox&status=pending`);
    assert.equal(ids(first.body).length, 20);
    const next = /<a href="([^"]+)" rel="next">/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(next, 'a next page');
    assert.match(next, /env=sandbox&status=pending&cursor=/);
    const second = await operator.get(next);
    assert.equal(ids(second.body).length, 3);
    assert.equal(new Set([...ids(first.body), ...ids(second.body)]).size, 23, 'no delivery twice, none missed');
    assert.doesNotMatch(second.body, /rel="next"/);

    assert.equal(ids((await operator.get(`${base}?status=succeeded`)).body).length, 0);
    assert.equal(ids((await operator.get(base)).body).length, 20, 'its only environment by default');
    assert.equal(ids((await operator.get(`${base}?env=production`)).body).length, 0);
    assert.equal(ids((await operator.get(`${base}?endpoint=${hook.endpoint.id}`)).body).length, 20);

    const badCursor = await operator.get(`${base}?cursor=not-a-cursor`);
    assert.equal(badCursor.statusCode, 422);
    assert.equal((await operator.get(`${base}?status=lost`)).statusCode, 400);
  });

  test('without an operator session: the sign-in page, and no action', async () => {
    const partner = await createTestPartner(t.db);
    const hook = await endpoint(partner);
    const stranger = new Browser(t.app);
    const page = await stranger.get(`/admin/partners/${partner.slug}/webhooks`);
    assert.equal(page.statusCode, 303);
    assert.match(String(page.headers.location), /^\/admin\/login/);
    await stranger.get('/admin/login');
    const post = await stranger.post(`/admin/partners/${partner.slug}/webhooks/${hook.endpoint.id}/pause`, {
      _csrf: stranger.cookies.get('psl_login')!,
    });
    assert.equal(post.statusCode, 401);
    assert.equal((await audits(hook.endpoint.id, 'disabled')).length, 0);
  });
});
