import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createUser } from '../../src/partners/users.ts';
import { findUnsafeText } from '../../src/platform/text-guard.ts';
import {
  buildTestApp,
  createTestPartner,
  CUSTOMER,
  FLIGHT,
  post,
  subscription,
  trip,
  uniqueSlug,
  usingPostgres,
  type TestApp,
  type TestPartner,
  POLICY_ADMIN,
} from '../helper.ts';
import { Browser } from '../web/inject-browser.ts';

/** Bad input gets a clear error, never a 500: what a careless or hostile client sends, answered as problem+json. */

const POLICIES = POLICY_ADMIN;

function assertProblem(res: LightMyRequestResponse, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.ok(res.headers['x-request-id'], 'X-Request-Id');
  const body = res.json();
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.requestId, res.headers['x-request-id']);
  return body as { detail: string; errors?: { field: string; message: string }[] };
}

const json = (partner: TestPartner) => ({ ...partner.auth, 'content-type': 'application/json' });

describe('the text rule: no U+0000, no unpaired surrogate, in any string', () => {
  it('finds each bad string and key with its JSON Pointer', () => {
    assert.deepEqual(findUnsafeText({ a: 'ok', b: ['fine', 'x\u0000'], 'c/d~': { e: '\ud800' }, f: '😀', g: 1 }), [
      { field: '/b/1', code: 'invalid', message: 'must not contain the character U+0000' },
      { field: '/c~1d~0/e', code: 'invalid', message: 'must be valid Unicode text (an unpaired surrogate was found)' },
    ]);
    assert.deepEqual(findUnsafeText({ 'bad\u0000key': 1 }, 'querystring:'), [
      {
        field: 'querystring:/bad\\u0000key',
        code: 'invalid',
        message: 'is a field name that must not contain the character U+0000',
      },
    ]);
    assert.deepEqual(findUnsafeText('\udc00'), [
      { field: '/', code: 'invalid', message: 'must be valid Unicode text (an unpaired surrogate was found)' },
    ]);
    assert.deepEqual(findUnsafeText({ pair: '\ud83d\ude00', accents: 'é', nothing: null }), []);
  });

  it('walks 64 levels and refuses what is nested deeper, so no string escapes it', () => {
    const nest = (levels: number, leaf: unknown): unknown => (levels === 0 ? leaf : { a: nest(levels - 1, leaf) });
    assert.deepEqual(findUnsafeText(nest(64, 'fine')), []);
    const deeper = findUnsafeText(nest(65, 'x\u0000'));
    assert.deepEqual(
      deeper.map((e) => [e.field, e.message]),
      [[`${'/a'.repeat(64)}`, 'is nested more than 64 levels deep']],
    );
    assert.equal(findUnsafeText([[[nest(70, 1)]]]).length, 1);
  });
});

describe(`bad input over HTTP${usingPostgres ? ' (PostgreSQL)' : ''}`, () => {
  let t: TestApp;
  let partner: TestPartner;
  before(async () => {
    t = await buildTestApp();
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  describe('U+0000 where it would reach SQL answers 422 validation_failed naming the field', () => {
    it('in /cancel and /getclaims bodies', async () => {
      const cancel = await t.app.inject({
        method: 'POST',
        url: `${FLIGHT}/cancel`,
        headers: json(partner),
        payload: JSON.stringify({ contractNumber: 'FD-\u0000', reason: 'duplicate' }),
      });
      assert.deepEqual(assertProblem(cancel, 422, 'validation_failed').errors, [
        { field: '/contractNumber', code: 'invalid', message: 'must not contain the character U+0000' },
      ]);
      const claims = await post(
        t.app,
        `${FLIGHT}/getclaims`,
        { fromDate: '2026-01-01', toDate: '2026-01-31', contractNumber: 'FD\u0000' },
        partner.auth,
      );
      assert.equal(claims.status, 422);
      assert.equal(claims.body.errors[0].field, '/contractNumber');
    });

    it('in subscribe names, and nothing is stored', async () => {
      const t1 = trip(33);
      const quote = await post(t.app, `${FLIGHT}/getPrice`, t1, partner.auth);
      const res = await post(
        t.app,
        `${FLIGHT}/subscribe`,
        subscription(quote.body.quoteReference, t1, {
          customer: { ...CUSTOMER, firstName: 'Cam\u0000ille', lastName: 'Mar\ud800tin' },
        }),
        partner.auth,
      );
      assert.equal(res.status, 422);
      assert.deepEqual(
        res.body.errors.map((e: { field: string }) => e.field),
        ['/customer/firstName', '/customer/lastName'],
      );
      const again = await post(t.app, `${FLIGHT}/subscribe`, subscription(quote.body.quoteReference, t1), partner.auth);
      assert.equal(again.status, 201, 'the quote is still unused');
    });

    it('in the sandbox messages query and in policy path parameters', async () => {
      const messages = await t.app.inject({
        method: 'GET',
        url: `${FLIGHT}/sandbox/messages?contractNumber=FD%00`,
        headers: partner.auth,
      });
      assert.equal(assertProblem(messages, 422, 'validation_failed').errors![0]!.field, 'querystring:/contractNumber');
      const read = await t.app.inject({ method: 'GET', url: `${POLICIES}/policies/PA-%00`, headers: partner.auth });
      assert.equal(assertProblem(read, 422, 'validation_failed').errors![0]!.field, 'params:/policyNumber');
      const cancel = await t.app.inject({
        method: 'POST',
        url: `${POLICIES}/policies/PA-%00/cancel`,
        headers: json(partner),
        payload: JSON.stringify({ reason: 'customer_request', effectiveDate: '2026-06-30' }),
      });
      assert.equal(assertProblem(cancel, 422, 'validation_failed').errors![0]!.field, 'params:/policyNumber');
      const search = await t.app.inject({
        method: 'GET',
        url: `${POLICIES}/policies?externalReference=A%00B`,
        headers: partner.auth,
      });
      assert.equal(assertProblem(search, 422, 'validation_failed').errors![0]!.field, 'querystring:/externalReference');
    });

    it('in a policy’s free-form risk (stored as jsonb), keys included', async () => {
      const body = {
        product: 'other',
        externalReference: `NUL-${uniqueSlug()}`,
        policyholder: { firstName: 'Ana', lastName: 'Lima', email: 'ana@example.com' },
        effectiveDate: '2026-01-01',
        expiryDate: '2027-01-01',
        premium: { amount: 1200, currency: 'EUR', frequency: 'annual' },
        risk: { 'note\u0000': 'x', items: ['\ud800'] },
      };
      const res = await post(t.app, `${POLICIES}/policies`, body, partner.auth);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.deepEqual(
        res.body.errors.map((e: { field: string }) => e.field),
        ['/risk/note\\u0000', '/risk/items/0'],
      );
    });

    it('in the Idempotency-Key header', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `${FLIGHT}/cancel`,
        headers: { ...json(partner), 'idempotency-key': 'a\u0000b' },
        payload: JSON.stringify({ contractNumber: 'FD-AAAA-AAAA', reason: 'duplicate' }),
      });
      assert.equal(assertProblem(res, 422, 'validation_failed').errors![0]!.field, 'header:Idempotency-Key');
    });
  });

  describe('what the framework refuses is problem+json with X-Request-Id too', () => {
    it('a URL whose percent-encoding is not UTF-8: 400 malformed_request', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `${POLICIES}/policies/%ff%fe`,
        headers: { ...partner.auth, 'x-request-id': 'bad-url-1' },
      });
      assertProblem(res, 400, 'malformed_request');
      assert.equal(res.headers['x-request-id'], 'bad-url-1');
    });

    it('a path parameter over 100 characters, or a URL over 8 KiB: 414 uri_too_long', async () => {
      assertProblem(
        await t.app.inject({ method: 'GET', url: `${POLICIES}/policies/${'P'.repeat(101)}`, headers: partner.auth }),
        414,
        'uri_too_long',
      );
      assertProblem(
        await t.app.inject({
          method: 'GET',
          url: `${FLIGHT}/sandbox/messages?contractNumber=${'a'.repeat(9000)}`,
          headers: partner.auth,
        }),
        414,
        'uri_too_long',
      );
      assertProblem(await t.app.inject({ method: 'GET', url: `/nowhere?${'a'.repeat(9000)}` }), 414, 'uri_too_long');
    });

    it('an unknown route: 404 route_not_found', async () => {
      assertProblem(
        await t.app.inject({ method: 'POST', url: `${FLIGHT}/nope`, headers: partner.auth }),
        404,
        'route_not_found',
      );
      assertProblem(await t.app.inject({ method: 'GET', url: '/getPrice' }), 404, 'route_not_found');
    });

    it('a known path with another method: 405 method_not_allowed with Allow', async () => {
      const get = await t.app.inject({ method: 'GET', url: `${FLIGHT}/getPrice`, headers: partner.auth });
      assertProblem(get, 405, 'method_not_allowed');
      assert.equal(get.headers.allow, 'POST');
      const del = await t.app.inject({ method: 'DELETE', url: `${POLICIES}/policies`, headers: partner.auth });
      assertProblem(del, 405, 'method_not_allowed');
      assert.equal(del.headers.allow, 'GET, HEAD, POST');
      const options = await t.app.inject({ method: 'OPTIONS', url: `${POLICIES}/policies/PA-1234-5678` });
      assertProblem(options, 405, 'method_not_allowed');
      assert.equal(options.headers.allow, 'GET, HEAD');
      const put = await t.app.inject({ method: 'PUT', url: '/demo/v1/getprice', headers: partner.auth });
      assert.equal(put.headers.allow, 'POST');
    });

    it('a body over 64 KiB: 413 payload_too_large', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `${FLIGHT}/getPrice`,
        headers: json(partner),
        payload: JSON.stringify({ departureAirport: 'x'.repeat(70_000) }),
      });
      assertProblem(res, 413, 'payload_too_large');
    });

    it('any body that is not JSON: 415 unsupported_media_type, text/plain included', async () => {
      for (const type of [
        'text/plain',
        'text/plain; charset=utf-8',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/octet-stream',
      ]) {
        const res = await t.app.inject({
          method: 'POST',
          url: `${FLIGHT}/getPrice`,
          headers: { ...partner.auth, 'content-type': type },
          payload: 'departureAirport=CDG',
        });
        assertProblem(res, 415, 'unsupported_media_type');
      }
      assertProblem(
        await t.app.inject({
          method: 'POST',
          url: '/demo/v1/getCityByZipCode',
          headers: partner.auth,
          payload: '{"zipCode":"75007"}',
        }),
        415,
        'unsupported_media_type',
      );
    });

    it('broken JSON: 400 malformed_request', async () => {
      assertProblem(
        await t.app.inject({
          method: 'POST',
          url: '/demo/v1/getCityByZipCode',
          headers: json(partner),
          payload: '{"zipCode":',
        }),
        400,
        'malformed_request',
      );
    });
  });

  describe('a cursor this API did not return is 422 invalid_cursor, never a 500', () => {
    // well-formed JSON, a valid id, a date JavaScript reads but PostgreSQL cannot store
    const forged = ['+275760-09-13T00:00:00.000Z', '-000001-01-01T00:00:00.000Z', 8.64e15, '2026-01-01'].map((at) =>
      Buffer.from(JSON.stringify([at, '00000000-0000-0000-0000-000000000000'])).toString('base64url'),
    );
    it('in /getclaims, GET /contracts, GET /policies and GET /webhooks/deliveries', async () => {
      for (const cursor of forged) {
        const claims = await t.app.inject({
          method: 'POST',
          url: `${FLIGHT}/getclaims`,
          headers: json(partner),
          payload: { fromDate: '2026-01-01', toDate: '2026-01-31', cursor },
        });
        assert.deepEqual(assertProblem(claims, 422, 'invalid_cursor').errors, [
          { field: '/cursor', code: 'invalid', message: 'invalid cursor' },
        ]);
        for (const url of [
          `${FLIGHT}/contracts?cursor=${cursor}`,
          `${POLICIES}/policies?cursor=${cursor}`,
          `${FLIGHT}/webhooks/deliveries?cursor=${cursor}`,
        ])
          assertProblem(await t.app.inject({ method: 'GET', url, headers: partner.auth }), 422, 'invalid_cursor');
      }
    });
  });

  describe('validation errors are bounded, as the Problem schema says', () => {
    const getPrice = (body: object) =>
      t.app.inject({ method: 'POST', url: `${FLIGHT}/getPrice`, headers: json(partner), payload: body });
    it('at most 100 field errors (the detail counts them all), each pointer at most 500 characters', async () => {
      const unknown = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`field${i}`, 1]));
      const many = assertProblem(await getPrice({ ...trip(), ...unknown }), 422, 'validation_failed');
      assert.equal(many.errors!.length, 100);
      assert.equal(many.detail, '300 fields are invalid.');
      const long = assertProblem(await getPrice({ ...trip(), ['x'.repeat(2000)]: 1 }), 422, 'validation_failed');
      assert.equal(long.errors![0]!.field.length, 500);
      assert.ok(long.detail.length < 600, long.detail);
    });

    it('a string over its maxLength is one error, too_long, not also its pattern', async () => {
      const res = assertProblem(await getPrice({ ...trip(), departureAirport: 'CDGX' }), 422, 'validation_failed');
      assert.deepEqual(res.errors, [
        { field: '/departureAirport', code: 'too_long', message: 'must NOT have more than 3 characters' },
      ]);
    });
  });

  describe('the web forms do not 500 on U+0000 either; they answer their own page', () => {
    it('sign-in, console filters and contract pages', async () => {
      const email = `${uniqueSlug('nul')}@example.com`;
      await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: 'nul test password' });
      const browser = new Browser(t.app);
      await browser.get('/portal/login');
      const signIn = await browser.post('/portal/login', {
        _csrf: browser.cookies.get('psl_login')!,
        email: `a\u0000${email}`,
        password: 'x',
      });
      assert.equal(signIn.statusCode, 422);
      assert.match(String(signIn.headers['content-type']), /text\/html/);
      assert.equal((await browser.signIn(email, 'nul test password')).statusCode, 303);
      const claims = await browser.get('/console/claims?contractNumber=FD%00');
      assert.equal(claims.statusCode, 422);
      assert.match(String(claims.headers['content-type']), /text\/html/);
      const contract = await browser.get('/console/contracts/FD-%00');
      assert.equal(contract.statusCode, 422);
      const admin = new Browser(t.app);
      await admin.get('/admin/login');
      assert.equal(
        (
          await admin.post('/admin/login', {
            _csrf: admin.cookies.get('psl_login')!,
            email: '\u0000',
            password: '\u0000',
          })
        ).statusCode,
        422,
      );
    });

    it('the bank-details link and form', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/c/abc%00' });
      assert.ok(page.statusCode < 500, `GET /c/abc%00 answered ${page.statusCode}`);
      const form = await t.app.inject({
        method: 'POST',
        url: '/c/abc',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'accountHolder=A%00&iban=FR76%00&bic=',
      });
      assert.ok(form.statusCode < 500, form.body);
    });
  });
});

describe('what Node’s HTTP parser refuses, on a real socket', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await buildTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  /** Sends raw bytes, returns the status line, headers and body of the answer. */
  function raw(bytes: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString('latin1')));
      socket.on('error', (error) => (data ? undefined : reject(error)));
      socket.on('close', () => {
        const [head = '', body = ''] = data.split('\r\n\r\n');
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
      });
      socket.write(bytes);
    });
  }

  function assertRawProblem(
    res: { status: number; headers: Record<string, string>; body: string },
    status: number,
    code: string,
  ) {
    assert.equal(res.status, status, res.body);
    assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/);
    assert.match(res.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
    const body = JSON.parse(res.body);
    assert.equal(body.status, status);
    assert.equal(body.code, code);
    assert.equal(body.requestId, res.headers['x-request-id']);
  }

  it('a URL over 16 KiB: 414 uri_too_long (between 8 and 16 KiB the app answers it)', async () => {
    assertRawProblem(
      await raw(`GET /demo/v1/getPrice?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      414,
      'uri_too_long',
    );
    assertRawProblem(
      await raw(`GET /demo/v1/getPrice?${'a'.repeat(10_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      414,
      'uri_too_long',
    );
  });

  it('headers over 16 KiB: 431 header_fields_too_large', async () => {
    assertRawProblem(
      await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`),
      431,
      'header_fields_too_large',
    );
  });

  it('bytes that are not HTTP, U+0000 in a header or the request line: 400 malformed_request', async () => {
    assertRawProblem(await raw('HELLO\r\n\r\n'), 400, 'malformed_request');
    assertRawProblem(
      await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\0b\r\n\r\n'),
      400,
      'malformed_request',
    );
    assertRawProblem(await raw('GET /heal\0thz HTTP/1.1\r\nHost: x\r\n\r\n'), 400, 'malformed_request');
  });
});
