import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RiskModel } from '../../src/flight/risk-model.ts';
import { buildTestApp, createTestPartner, FLIGHT, post, trip, type TestApp } from '../helper.ts';

describe('platform over HTTP', () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp()));
  after(() => t.close());

  it('answers /healthz and /readyz', async () => {
    assert.deepEqual((await t.app.inject({ url: '/healthz' })).json(), { status: 'ok' });
    const ready = await t.app.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().status, 'ready');
  });

  it('puts an X-Request-Id on every response, echoing a well-formed one', async () => {
    const given = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'partner-req-42' } });
    assert.equal(given.headers['x-request-id'], 'partner-req-42');
    const generated = await t.app.inject({ url: '/healthz' });
    assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const unsafe = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    assert.notEqual(unsafe.headers['x-request-id'], 'bad id with spaces');
  });

  it('answers unknown routes with a problem', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/flight-delay/v1/nope' });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /application\/problem\+json/);
    assert.equal(res.json().code, 'route_not_found');
  });

  it('refuses bodies that are not JSON', async () => {
    const partner = await createTestPartner(t.db);
    const res = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/getPrice`,
      payload: 'a=b',
      headers: { ...partner.auth, 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(res.statusCode, 415);
    assert.equal(res.json().code, 'unsupported_media_type');
  });
});

describe('rate limits', () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp({ env: { PARASOL_RATE_LIMIT_PER_MINUTE: '3' } })));
  after(() => t.close());

  it('counts per key, sends RateLimit-* headers, then 429 with Retry-After', async () => {
    const a = await createTestPartner(t.db);
    const b = await createTestPartner(t.db);
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push(await post(t.app, `${FLIGHT}/getPrice`, trip(), a.auth));
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 200, 200, 429],
    );
    assert.equal(replies[0]!.headers['ratelimit-limit'], '3');
    assert.equal(replies[0]!.headers['ratelimit-remaining'], '2');
    assert.ok(Number(replies[0]!.headers['ratelimit-reset']) > 0);
    const limited = replies[3]!;
    assert.equal(limited.body.code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal(
      (await post(t.app, `${FLIGHT}/getPrice`, trip(), b.auth)).status,
      200,
      'another key has its own budget',
    );
  });
});

describe('rate classes', () => {
  let t: TestApp;
  before(
    async () =>
      (t = await buildTestApp({
        env: { PARASOL_RATE_LIMIT_WRITE_PER_MINUTE: '1', PARASOL_RATE_LIMIT_READ_PER_MINUTE: '3' },
      })),
  );
  after(() => t.close());

  it('counts /getclaims, a POST that only reads, as a read, not a write', async () => {
    const partner = await createTestPartner(t.db);
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await post(t.app, `${FLIGHT}/getclaims`, { fromDate: '2026-01-01', toDate: '2026-01-31' }, partner.auth))
          .status,
      );
    assert.deepEqual(statuses, [200, 200, 200, 429], 'the read budget (3), not the write budget (1)');
    const write = await post(t.app, `${FLIGHT}/cancel`, { contractNumber: 'FD-NONE' }, partner.auth);
    assert.notEqual(write.status, 429, 'listing claims spent none of the write budget');
  });
});

describe('errors we did not expect', () => {
  let t: TestApp;
  const exploding: RiskModel = {
    version: 'exploding',
    probabilities() {
      throw new Error('secret internal detail: connection string postgres://user:pw@db');
    },
  };
  before(async () => (t = await buildTestApp({ riskModel: exploding })));
  after(() => t.close());

  it('answer 500 with a problem that reveals nothing', async () => {
    const partner = await createTestPartner(t.db);
    const res = await post(t.app, `${FLIGHT}/getPrice`, trip(), partner.auth);
    assert.equal(res.status, 500);
    assert.equal(res.body.code, 'internal_error');
    const text = JSON.stringify(res.body);
    assert.doesNotMatch(text, /secret|postgres|stack|Error:/);
    assert.ok(res.body.requestId, 'the request id lets support find the log line');
  });
});
