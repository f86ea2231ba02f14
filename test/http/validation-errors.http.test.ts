import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { installErrorHandling } from '../../src/platform/problem.ts';
import { buildTestApp, createTestPartner, FLIGHT, post, type TestApp, type TestPartner } from '../helper.ts';

/**
 * Validation problems a partner can act on (platform/problem.ts): one error per field, a union of
 * values named in full, a pattern said in words, and identifiers in the path that name nothing of
 * the caller's answered 404 whatever their form.
 */
describe('validation problems: one clear error per field', () => {
  let t: TestApp;
  let a: TestPartner;
  before(async () => {
    t = await buildTestApp();
    a = await createTestPartner(t.db);
  });
  after(() => t.close());

  interface FieldError {
    field: string;
    code: string;
    message: string;
  }
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url: `${FLIGHT}${url}`, headers: a.auth });
    return { status: res.statusCode, body: res.json() as { code: string; detail: string; errors?: FieldError[] } };
  };
  /** The one field error of a 422, checked to be alone. */
  const onlyError = (res: { status: number; body: { code: string; errors?: FieldError[] } }, what: string) => {
    assert.equal(res.status, 422, `${what}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'validation_failed', what);
    assert.equal(res.body.errors?.length, 1, `${what}: one error for the field: ${JSON.stringify(res.body.errors)}`);
    return res.body.errors[0]!;
  };

  it('a value outside a union of constants: one not_allowed error naming every allowed value', async () => {
    const deliveries = await get('/webhooks/deliveries?status=bogus');
    assert.deepEqual(onlyError(deliveries, 'deliveries'), {
      field: 'querystring:/status',
      code: 'not_allowed',
      message: 'must be one of pending, succeeded, failed',
    });
    assert.equal(deliveries.body.detail, 'querystring:/status must be one of pending, succeeded, failed.');

    // a string or an array of strings: the array branch of another type is not reported
    const contracts = await get('/contracts?status=bogus');
    assert.deepEqual(onlyError(contracts, 'contracts'), {
      field: 'querystring:/status',
      code: 'not_allowed',
      message: 'must be one of active, cancelled, completed',
    });
    // repeated, the parameter is an array: the offending item is named
    const repeated = await get('/contracts?status=active&status=bogus');
    assert.deepEqual(onlyError(repeated, 'repeated status'), {
      field: 'querystring:/status/1',
      code: 'not_allowed',
      message: 'must be one of active, cancelled, completed',
    });

    const range = { fromDate: '2026-01-01', toDate: '2026-01-31' };
    const claims = await post(t.app, `${FLIGHT}/getclaims`, { ...range, status: 'bogus' }, a.auth);
    const error = onlyError(claims, 'getclaims');
    assert.equal(error.field, '/status');
    assert.equal(error.code, 'not_allowed');
    assert.match(error.message, /^must be one of opened, awaiting_bank_details, .*voided$/, error.message);
    const listed = await post(t.app, `${FLIGHT}/getclaims`, { ...range, status: ['paid', 'bogus'] }, a.auth);
    assert.equal(onlyError(listed, 'getclaims list').field, '/status/1');
    // a value of another type fails the enum too: one invalid_type for it, not also not_allowed
    const typed = await post(t.app, `${FLIGHT}/getclaims`, { ...range, status: ['paid', 5] }, a.auth);
    assert.deepEqual(onlyError(typed, 'getclaims number'), {
      field: '/status/1',
      code: 'invalid_type',
      message: 'must be string',
    });
  });

  it('an empty change names the fields it may give: too_few, not the words of the validator', async () => {
    const empty = await t.app.inject({
      method: 'PATCH',
      url: `${FLIGHT}/contracts/FD-7K3M-9QXT/customer`,
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: {},
    });
    assert.deepEqual(onlyError({ status: empty.statusCode, body: empty.json() }, 'empty change'), {
      field: '/',
      code: 'too_few',
      message: 'must give at least one of phone, email, language',
    });
  });

  it('a union of types: one invalid_type naming them, or the error of the branch of the value’s type', async () => {
    const patch = (body: object) =>
      t.app.inject({
        method: 'PATCH',
        url: `${FLIGHT}/webhooks/endpoints/any`,
        headers: { ...a.auth, 'content-type': 'application/json' },
        payload: body,
      });
    const number = await patch({ description: 5 });
    assert.deepEqual(onlyError({ status: number.statusCode, body: number.json() }, 'number'), {
      field: '/description',
      code: 'invalid_type',
      message: 'must be string or null',
    });
    const long = await patch({ description: 'x'.repeat(201) });
    const tooLong = onlyError({ status: long.statusCode, body: long.json() }, 'too long');
    assert.equal(tooLong.field, '/description');
    assert.equal(tooLong.code, 'too_long', JSON.stringify(tooLong));
  });

  it('a pattern error says what the field holds, never the regular expression', async () => {
    for (const [url, words] of [
      ['/contracts?limit=ten', /Contracts per page: 1 to 200/],
      ['/webhooks/deliveries?limit=ten', /Deliveries per page, 1 to 100/],
    ] as const) {
      const error = onlyError(await get(url), url);
      assert.equal(error.field, 'querystring:/limit', url);
      assert.equal(error.code, 'invalid_format', url);
      assert.match(error.message, words, `${url}: ${error.message}`);
      assert.doesNotMatch(error.message, /pattern|\^|\$|\[/, `${url}: no regex in ${error.message}`);
    }
    // a page limit of digits outside its bounds is out of range, as the body's limit of /getclaims is
    for (const [url, words] of [
      ['/contracts?limit=0', 'must be 1 to 200'],
      ['/contracts?limit=201', 'must be 1 to 200'],
      ['/webhooks/deliveries?limit=0', 'must be 1 to 100'],
      ['/webhooks/deliveries?limit=101', 'must be 1 to 100'],
      // four digits are out of range too, one error, not too_long beside it
      ['/contracts?limit=1000', 'must be 1 to 200'],
      ['/webhooks/deliveries?limit=1000', 'must be 1 to 100'],
    ] as const)
      assert.deepEqual(onlyError(await get(url), url), {
        field: 'querystring:/limit',
        code: 'out_of_range',
        message: words,
      });
    // past nine digits a limit is too long only: the bounds it also fails are not a second error
    const huge = onlyError(await get('/contracts?limit=10000000000'), 'ten digits');
    assert.deepEqual([huge.field, huge.code], ['querystring:/limit', 'too_long'], JSON.stringify(huge));
    // one error per field: a limit out of range is reported next to the query's other faults
    for (const [url, limit, status] of [
      ['/contracts?limit=201&status=bogus', 'must be 1 to 200', 'active, cancelled, completed'],
      ['/webhooks/deliveries?limit=0&status=bogus', 'must be 1 to 100', 'pending, succeeded, failed'],
    ] as const) {
      const both = await get(url);
      assert.equal(both.status, 422, url);
      assert.deepEqual(
        [...(both.body.errors ?? [])].sort((x, y) => x.field.localeCompare(y.field)),
        [
          { field: 'querystring:/limit', code: 'out_of_range', message: limit },
          { field: 'querystring:/status', code: 'not_allowed', message: `must be one of ${status}` },
        ],
        url,
      );
    }
    // a format is named in words too
    const date = onlyError(await get('/contracts?createdFrom=tomorrow'), 'date');
    assert.deepEqual(date, {
      field: 'querystring:/createdFrom',
      code: 'invalid_format',
      message: 'must be a date YYYY-MM-DD',
    });
  });

  it('a malformed claim number answers 404 claim_not_found, as a malformed contract number does', async () => {
    for (const [url, code] of [
      ['/claims/garbage', 'claim_not_found'],
      ['/claims/CLM-1', 'claim_not_found'],
      ['/claims/CLM-99999999', 'claim_not_found'],
      ['/contracts/garbage', 'contract_not_found'],
    ] as const) {
      const res = await get(url);
      assert.deepEqual([res.status, res.body.code], [404, code], `${url}: ${JSON.stringify(res.body)}`);
    }
    // up to 40 characters: beyond, or holding U+0000, the number is refused as a field
    const long = onlyError(await get(`/claims/${'x'.repeat(41)}`), 'a 41-character claim number');
    assert.deepEqual([long.field, long.code], ['params:/claimNumber', 'too_long'], JSON.stringify(long));
    assert.equal(onlyError(await get('/contracts/a%00b'), 'U+0000').field, 'params:/contractNumber');
  });
});

/**
 * Unions inside arrays, on a bare app with the API's Ajv options and error handler (test-only
 * routes): every item shares the union's schema path, so each bad item answers its own error.
 */
describe('validation problems: a union in every item of an array', () => {
  const Letter = Type.Union([Type.Literal('a'), Type.Literal('b')]);
  const Count = Type.Object({ count: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]) });
  async function bareApp() {
    const app = Fastify({
      ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: true } },
    });
    installErrorHandling(app);
    const body = Type.Object({ list: Type.Array(Letter), counts: Type.Array(Count) });
    app.post('/lists', { schema: { body } }, async () => ({}));
    await app.ready();
    return app;
  }
  const errorsOf = async (payload: object) => {
    const app = await bareApp();
    try {
      const res = await app.inject({ method: 'POST', url: '/lists', payload });
      assert.equal(res.statusCode, 422, res.body);
      return (res.json() as { errors: unknown[] }).errors;
    } finally {
      await app.close();
    }
  };

  it('two bad items of a union of constants: each named at its own index with its own error', async () => {
    assert.deepEqual(
      await errorsOf({ list: ['a', 5, 'q'], counts: [] }),
      [
        { field: '/list/1', code: 'invalid_type', message: 'must be string' },
        { field: '/list/2', code: 'not_allowed', message: 'must be one of a, b' },
      ],
      'one error per bad item',
    );
  });

  it('two bad objects with a nullable integer: each item’s own error, the good item none', async () => {
    assert.deepEqual(
      await errorsOf({ list: [], counts: [{ count: 'x' }, { count: 3 }, { count: -1 }, { count: null }] }),
      [
        { field: '/counts/0/count', code: 'invalid_type', message: 'must be integer or null' },
        { field: '/counts/2/count', code: 'out_of_range', message: 'must be >= 0' },
      ],
      'one error per bad item',
    );
  });
});
