import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOperatorToken, revokeOperatorToken } from '../../src/platform/operator-tokens.ts';
import { startMetricsServer } from '../../src/platform/metrics.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/** The value of one series in the exposition text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('/metrics', () => {
  let t: TestApp;
  let partner: TestPartner;
  let operator: string;
  before(async () => {
    t = await buildTestApp();
    partner = await createTestPartner(t.db);
    operator = (await createOperatorToken(t.db, 'operator:test', 'prometheus')).plaintext;
  });
  after(() => t.close());

  const scrape = (authorization?: string) =>
    t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

  it('exposes the named series after a quote, a subscription, a cancellation and a claim', async () => {
    const quoted = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      {
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        airline: 'AF',
        departureDateTime: new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 16),
      },
      partner.auth,
    );
    assert.equal(quoted.status, 200, JSON.stringify(quoted.body));
    const kept = await insureFlight(t.app, partner, { flightNumber: 'AF7301' });
    const cancelled = await insureFlight(t.app, partner, { flightNumber: 'AF7302' });
    const cancel = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: cancelled.contractNumber, reason: 'ticket_cancelled' },
      partner.auth,
    );
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    const claim = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: kept.flightNumber, departureDate: kept.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(claim.body.claimsOpened.length, 1);
    // the claim's notification job runs in this process (the embedded default runs the workers)
    const claimNumber: string = claim.body.claimsOpened[0].claimNumber;
    await eventually(async () => {
      const row = await t.db
        .selectFrom('claims')
        .select('status')
        .where('claim_number', '=', claimNumber)
        .executeTakeFirst();
      return row?.status === 'awaiting_bank_details' ? true : undefined;
    });

    const res = await scrape(`Bearer ${operator}`);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = res.body;
    assert.ok((sample(text, 'parasol_quotes_total', { api: 'flight', environment: 'sandbox' }) ?? 0) >= 3);
    assert.ok((sample(text, 'parasol_subscriptions_total', { environment: 'sandbox' }) ?? 0) >= 2);
    assert.ok((sample(text, 'parasol_cancellations_total', { environment: 'sandbox' }) ?? 0) >= 1);
    assert.ok(
      (sample(text, 'parasol_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/flight-delay/v1/getPrice',
        status: '200',
      }) ?? 0) >= 3,
    );
    assert.ok(
      sample(text, 'parasol_http_request_duration_seconds_bucket', {
        method: 'POST',
        route: '/flight-delay/v1/subscribe',
        status: '201',
        le: '+Inf',
      }) !== undefined,
    );
    const claims = ['opened', 'awaiting_bank_details'].map((status) => sample(text, 'parasol_claims', { status }) ?? 0);
    assert.ok(claims[0]! + claims[1]! >= 1, 'claims by status, from the database');
    assert.ok(
      sample(text, 'parasol_job_queue_depth', { queue: 'claims_notify' }) !== undefined,
      'queue depth per queue',
    );
    assert.ok(
      sample(text, 'parasol_job_queue_oldest_age_seconds', { queue: 'claims_notify' }) !== undefined,
      'oldest job age per queue',
    );
    assert.ok((sample(text, 'parasol_sms_total', { channel: 'notification', outcome: 'sent' }) ?? 0) >= 1);
    // the test app prices every environment with version 1 (test/helper.ts)
    for (const environment of ['sandbox', 'preproduction', 'production'])
      assert.equal(sample(text, 'parasol_pricing_model_info', { environment, version: 'v1' }), 1, environment);
    for (const name of [
      'parasol_webhook_deliveries_total',
      'parasol_flight_provider_calls_total',
      'parasol_flight_provider_breaker_state',
      'parasol_payouts',
      'parasol_payouts_settled_total',
      'process_cpu_user_seconds_total',
    ]) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
    }
  });

  it('labels requests with the route pattern, never the raw URL', async () => {
    const token = 'Zm9vYmFyYmF6cXV4cXV1eHh5enp5MTIzNDU2Nzg5MA';
    await t.app.inject({ method: 'GET', url: `/c/${token}` });
    await t.app.inject({ method: 'GET', url: '/no/such/route?secret=abc' });
    const text = (await scrape(`Bearer ${operator}`)).body;
    assert.ok(
      sample(text, 'parasol_http_request_duration_seconds_count', { method: 'GET', route: '/c/:token' }) !== undefined,
    );
    assert.ok(
      sample(text, 'parasol_http_request_duration_seconds_count', {
        method: 'GET',
        route: 'unmatched',
        status: '404',
      }) !== undefined,
    );
    assert.doesNotMatch(text, new RegExp(token));
    assert.doesNotMatch(text, /secret=abc|\/no\/such\/route/);
  });

  it('answers 401 problem+json without an operator token, with a partner key, or with a revoked token', async () => {
    const none = await scrape();
    assert.equal(none.statusCode, 401);
    assert.match(String(none.headers['content-type']), /application\/problem\+json/);
    assert.equal(none.json().code, 'unauthenticated');
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="parasol"');
    const partnerKey = await scrape(partner.auth.authorization);
    assert.equal(partnerKey.statusCode, 401);
    assert.match(String(partnerKey.headers['www-authenticate']), /^Bearer realm="parasol", error="invalid_token", /);
    // the scheme without a token is no credential (RFC 6750 §3.1); one too short for a token is malformed
    for (const empty of ['Bearer', 'Bearer  ', 'bearer'])
      assert.equal((await scrape(empty)).headers['www-authenticate'], 'Bearer realm="parasol"', empty);
    const short = await scrape('Bearer pso_unknown');
    assert.equal(short.statusCode, 401);
    assert.equal(
      short.headers['www-authenticate'],
      'Bearer realm="parasol", error="invalid_token", error_description="This operator token is unknown or revoked."',
    );
    const { token, plaintext } = await createOperatorToken(t.db, 'operator:test', 'revoked scraper');
    assert.equal((await scrape(`Bearer ${plaintext}`)).statusCode, 200);
    // the scheme is case-insensitive (RFC 9110 §11.1), as for partner keys
    assert.equal((await scrape(`bearer ${plaintext}`)).statusCode, 200);
    await revokeOperatorToken(t.db, 'operator:test', token.id);
    const revoked = await scrape(`Bearer ${plaintext}`);
    assert.equal(revoked.statusCode, 401);
    assert.doesNotMatch(revoked.body, /parasol_/);
  });

  it('serves the same text without authentication on the separate PARASOL_METRICS_PORT listener', async () => {
    const server = await startMetricsServer({ port: 0, host: '127.0.0.1', gauges: t.app.parasol.metrics });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.match(text, /^# TYPE parasol_claims gauge$/m);
      assert.match(text, /^# TYPE parasol_http_request_duration_seconds histogram$/m);
      assert.equal((await fetch(`http://127.0.0.1:${server.port}/`)).status, 404);
    } finally {
      await server.close();
    }
  });
});
