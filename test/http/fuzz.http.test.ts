import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  post,
  subscription,
  trip,
  usingPostgres,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * Fuzzing the three APIs from the OpenAPI documents they publish: every operation's example
 * request, made malformed by fast-check (wrong types, missing and unknown fields, huge strings,
 * U+0000, unpaired surrogates and other odd Unicode, bad JSON, other content types, odd paths,
 * methods, query strings and headers), sent with a valid API key through inject. Whatever comes in,
 * the answer is never a 5xx, every error is problem+json whose `status` is the HTTP status, and
 * every answer carries X-Request-Id.
 *
 * FUZZ_RUNS requests in all, shared by the three APIs (default 1,500 for CI; `FUZZ_RUNS=10000` for
 * a long run), FUZZ_SEED to replay a run that failed (fast-check prints its seed and path).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

const APIS = ['/flight-delay/v1', '/demo/v1', '/policy-admin/v1'] as const;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'] as const;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  example?: unknown;
}

interface Operation {
  method: string;
  /** The documented path with `{param}` placeholders, relative to the API's base path. */
  path: string;
  parameters: Parameter[];
  /** The operation's example body (with live references where the test made some), if it takes one. */
  body?: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The operations of one OpenAPI document, each with its example body and parameter examples. */
function operationsOf(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const content = op.requestBody?.content?.['application/json'];
      const body = content
        ? (content.example ?? (Object.values(content.examples ?? {})[0] as { value?: unknown } | undefined)?.value)
        : undefined;
      out.push({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []).map((p: any) => ({
          name: p.name,
          in: p.in,
          example: p.example ?? p.schema?.examples?.[0],
        })),
        ...(content ? { body: body ?? {} } : {}),
      });
    }
  }
  return out;
}

// --- the pieces of malformed requests ------------------------------------------------------------

/** Strings that have broken parsers, databases and encoders before. */
const NASTY = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\udfff\ud800',
  '\uffff',
  '\ufffe',
  '\ufeff',
  '\u202e',
  '\u200b',
  '\u0085',
  '\u2028',
  '😀',
  '👩‍👩‍👧',
  'é',
  'ǅ',
  'ß',
  'İ',
  '\r\n',
  '\t',
  ' ',
  '',
  "'; DROP TABLE contracts; --",
  '%00',
  '%ff',
  '../..',
  '\\',
  '{{x}}',
  '${x}',
  '<script>',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  '2026-02-30',
  '9999-12-31T23:59',
  'FD-0000-0000',
  'PA-0000-0000',
  '__proto__',
  'constructor',
];
const codeUnit = fc.nat(0xffff).map((c) => String.fromCharCode(c));
const oddText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: codeUnit, maxLength: 20 }),
  fc
    .tuple(fc.constantFrom(...NASTY), fc.string({ maxLength: 8 }), fc.constantFrom(...NASTY))
    .map((parts) => parts.join('')),
);
/** Long strings, some beyond the body limit (64 KiB). */
const hugeText = fc
  .tuple(fc.integer({ min: 200, max: 70_000 }), fc.constantFrom('x', 'é', '\u0000', '😀'))
  .map(([n, c]) => c.repeat(n));
const oddNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.1, 1e-320, 4_294_967_296),
);
const junk: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    oddText,
    oddNumber,
    fc.constantFrom<Json>(null, true, false),
    hugeText,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(oddText, tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** Every JSON pointer of a value, as key lists (containers included). */
function pointers(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pointers(v, [...at, i])));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...pointers(v, [...at, k]));
  return out;
}

/** A copy of `value` with the node at `path` replaced (or removed when `replacement` is undefined). */
function setAt(value: unknown, path: (string | number)[], replacement: unknown, remove = false): unknown {
  if (path.length === 0) return remove ? undefined : replacement;
  const copy: any = Array.isArray(value) ? [...value] : value && typeof value === 'object' ? { ...value } : {};
  const [head, ...rest] = path;
  if (rest.length === 0 && remove) {
    if (Array.isArray(copy)) copy.splice(Number(head), 1);
    else delete copy[head!];
  } else copy[head!] = setAt(copy[head!], rest, replacement, remove);
  return copy;
}

type BodyMutation =
  | { kind: 'replace'; index: number; value: Json }
  | { kind: 'remove'; index: number }
  | { kind: 'add'; index: number; key: string; value: Json }
  | { kind: 'whole'; value: Json };

const bodyMutation: fc.Arbitrary<BodyMutation> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('replace' as const), index: fc.nat(), value: junk }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('remove' as const), index: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({ kind: fc.constant('add' as const), index: fc.nat(), key: oddText, value: junk }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('whole' as const), value: junk }), weight: 1 },
);

function mutate(body: unknown, mutations: BodyMutation[]): unknown {
  let out = body;
  for (const m of mutations) {
    if (m.kind === 'whole') {
      out = m.value;
      continue;
    }
    const all = pointers(out);
    const path = all[m.index % all.length]!;
    if (m.kind === 'replace') out = setAt(out, path, m.value);
    else if (m.kind === 'remove') out = path.length === 0 ? out : setAt(out, path, undefined, true);
    else {
      const container = path.reduce<any>((node, key) => node?.[key], out);
      if (container && typeof container === 'object' && !Array.isArray(container))
        out = setAt(out, [...path, m.key], m.value);
    }
  }
  return out;
}

/** Raw bodies: broken JSON, deep nesting, and text that is not JSON at all. */
const rawBody: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: codeUnit, maxLength: 40 }),
  fc.constantFrom(
    '{',
    '{"a":',
    '[1,]',
    '{"a":1}}',
    'null',
    '""',
    '"\\u0000"',
    '{"a":"\\ud800"}',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{}}}',
    '\ufeff{}',
    '{}\u0000',
    'NaN',
    '1e999',
    '{"a":1,"a":2}',
  ),
  fc.integer({ min: 1, max: 20_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1, max: 5_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json;',
  'text/plain',
  'text/html',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/jsonx',
  'application/problem+json',
  'application/merge-patch+json',
  '*/*',
  'json',
  ';',
  'application/json\u0000',
  '',
);

/** Percent-encodes UTF-16 text as UTF-8 bytes, or with raw bytes that are not UTF-8 at all. */
const encodedText: fc.Arbitrary<string> = fc.oneof(
  oddText.map((s) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  fc.constantFrom(
    '%ff',
    '%fe%ff',
    '%c0%80',
    '%ed%a0%80',
    '%00',
    '%',
    '%zz',
    '%e2%82',
    'a%2fb',
    '..',
    '.',
    '%2e%2e',
    '~',
    '+',
    '%20',
    'a;b',
    'a,b',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }).map((s) => s.replace(/[#?/%\s]/g, 'x')),
  fc.integer({ min: 90, max: 9_000 }).map((n) => 'a'.repeat(n)),
);

type PathMutation =
  | { kind: 'none' }
  | { kind: 'suffix'; text: string }
  | { kind: 'segment'; text: string }
  | { kind: 'case' }
  | { kind: 'double-slash' };
const pathMutation: fc.Arbitrary<PathMutation> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'none' as const }), weight: 16 },
  {
    arbitrary: fc.record({
      kind: fc.constant('suffix' as const),
      text: fc.constantFrom('/', '//', ';x', '/..', '/%00', '%ff', '.json', '/openapi.json', '/x'),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('segment' as const), text: encodedText }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'case' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'double-slash' as const }), weight: 1 },
);

function applyPath(path: string, m: PathMutation): string {
  switch (m.kind) {
    case 'none':
      return path;
    case 'suffix':
      return path + m.text;
    case 'segment':
      return `${path}/${m.text}`;
    case 'case':
      return path.toUpperCase();
    case 'double-slash':
      return path.replace('/', '//');
  }
}

/** Characters slipped into an otherwise valid value, so that it passes the schema and reaches the use case and SQL. */
const SLIPPED = ['\u0000', '\ud800', '\udc00', '\uffff', '\ufeff', '😀', 'é', '\u202e', "'", '\\', '%', '\n'];
interface Corruption {
  target: 'body' | 'param' | 'query';
  index: number;
  at: number;
  char: string;
}
const corruption: fc.Arbitrary<Corruption> = fc.record({
  target: fc.constantFrom('body' as const, 'param' as const, 'query' as const),
  index: fc.nat(),
  at: fc.nat(),
  char: fc.constantFrom(...SLIPPED),
});
const slip = (text: string, c: Corruption): string => {
  const at = c.at % (text.length + 1);
  return text.slice(0, at) + c.char + text.slice(at);
};
const percentEncoded = (text: string): string =>
  [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** The body with one of its strings corrupted by `c`. */
function corrupt(body: unknown, c: Corruption): unknown {
  const strings = pointers(body).filter(
    (path) => typeof path.reduce<any>((node, key) => node?.[key], body) === 'string',
  );
  if (strings.length === 0) return body;
  const path = strings[c.index % strings.length]!;
  return setAt(body, path, slip(path.reduce<any>((node, key) => node?.[key], body) as string, c));
}

interface Case {
  /** When set, the documented request with this one corruption, and none of the other mutations. */
  corruption: Corruption | null;
  operation: number;
  method: string | null;
  path: PathMutation;
  params: string[];
  query: [string, string][];
  mutations: BodyMutation[];
  raw: string | null;
  contentType: string | null;
  idempotencyKey: string | null;
  badKey: boolean;
}

/** `arbitrary` in `percent` % of the cases, else null (what the documented request has). */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary: fc.constant(null), weight: 100 - percent }, { arbitrary, weight: percent });
}

function caseArbitrary(operations: Operation[]): fc.Arbitrary<Case> {
  return fc.record({
    corruption: sometimes(corruption, 35),
    operation: fc.nat(operations.length - 1),
    method: sometimes(fc.constantFrom(...METHODS), 10),
    path: pathMutation,
    params: fc.array(
      sometimes(encodedText, 50).map((s) => s ?? ''),
      { minLength: 1, maxLength: 1 },
    ),
    query: sometimes(
      fc.array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom(
              'contractNumber',
              'limit',
              'cursor',
              'status',
              'product',
              'externalReference',
              'effectiveFrom',
              'effectiveTo',
            ),
            encodedText,
          ),
          encodedText,
        ),
        { minLength: 1, maxLength: 3 },
      ),
      40,
    ).map((q) => q ?? []),
    mutations: fc.array(bodyMutation, { minLength: 1, maxLength: 3 }),
    raw: sometimes(rawBody, 10),
    contentType: sometimes(contentType, 10),
    idempotencyKey: sometimes(
      fc.oneof(
        fc.string({ unit: 'grapheme-ascii', maxLength: 300 }),
        fc.uuid(),
        fc.constantFrom('a\u0000b', ' ', 'é', '\u007f'),
      ),
      30,
    ),
    badKey: fc.oneof({ arbitrary: fc.constant(false), weight: 9 }, { arbitrary: fc.constant(true), weight: 1 }),
  });
}

/** Builds the inject request of a case: the operation's example, then every mutation drawn. */
function requestOf(
  prefix: string,
  op: Operation,
  c: Case,
  partner: TestPartner,
  live: Record<string, string>,
): InjectOptions {
  const k = c.corruption;
  let path = op.path;
  for (const p of op.parameters.filter((p) => p.in === 'path')) {
    const value = live[p.name] ?? String(p.example ?? 'x');
    const drawn = k ? (k.target === 'param' ? percentEncoded(slip(value, k)) : undefined) : c.params[0];
    path = path.replace(`{${p.name}}`, drawn ? drawn : encodeURIComponent(value));
  }
  const documentedQuery = op.parameters
    .filter((p) => p.in === 'query')
    .map((p, i, all): [string, string] => {
      const value = String(live[p.name] ?? p.example ?? '');
      return [
        p.name,
        k?.target === 'query' && i === k.index % all.length
          ? percentEncoded(slip(value, k))
          : encodeURIComponent(value),
      ];
    });
  const query = (k || c.query.length === 0 ? documentedQuery : c.query).map(([name, v]) => `${name}=${v}`).join('&');
  const url = `${prefix}${k ? path : applyPath(path, c.path)}${query ? `?${query}` : ''}`;
  const method = k ? op.method : (c.method ?? op.method);
  const headers: Record<string, string> = {
    authorization: c.badKey && !k ? 'Bearer psl_sbx_notakey' : partner.auth.authorization,
  };
  if (c.idempotencyKey !== null && !k) headers['idempotency-key'] = c.idempotencyKey;
  const options: InjectOptions = { method: method as InjectOptions['method'], url, headers };
  if (op.body !== undefined || (c.raw !== null && !k)) {
    const body = k ? (k.target === 'body' ? corrupt(op.body, k) : op.body) : mutate(op.body, c.mutations);
    const payload = (k ? null : c.raw) ?? JSON.stringify(body) ?? '';
    headers['content-type'] = (k ? null : c.contentType) ?? 'application/json';
    if (method !== 'GET' && method !== 'HEAD') options.payload = payload;
  }
  return options;
}

describe(`fuzzing the three APIs from their OpenAPI documents (${RUNS} requests${usingPostgres ? ', PostgreSQL' : ''})`, () => {
  let t: TestApp;
  let partner: TestPartner;
  const live: Record<string, Record<string, unknown>> = {};
  const liveParams: Record<string, string> = {};

  before(async () => {
    t = await buildTestApp();
    partner = await createTestPartner(t.db);
    // live references, so that mutations of otherwise valid requests reach the use cases and SQL
    const outbound = trip(40);
    const contract = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription((await post(t.app, `${FLIGHT}/getPrice`, outbound, partner.auth)).body.quoteReference, outbound),
      partner.auth,
    );
    assert.equal(contract.status, 201);
    const quoted = trip(45);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, quoted, partner.auth);
    live['/flight-delay/v1 /getPrice'] = quoted;
    live['/flight-delay/v1 /subscribe'] = subscription(quote.body.quoteReference, quoted);
    live['/flight-delay/v1 /cancel'] = { contractNumber: contract.body.contractNumber, reason: 'customer_request' };
    for (const path of ['/getclaims', '/getClaims'])
      live[`/flight-delay/v1 ${path}`] = {
        fromDate: '2026-01-01',
        toDate: '2027-12-31',
        contractNumber: contract.body.contractNumber,
        limit: 10,
      };
    liveParams.contractNumber = contract.body.contractNumber;
  });
  after(() => t.close());

  APIS.forEach((prefix, index) => {
    const runs = Math.floor(RUNS / APIS.length) + (index < RUNS % APIS.length ? 1 : 0);
    it(`${prefix}: ${runs} malformed requests, never a 5xx, every error problem+json with its status and X-Request-Id`, async (context) => {
      const statuses = new Map<string, number>();
      const doc = (await t.app.inject({ method: 'GET', url: `${prefix}/openapi.json` })).json();
      const operations = operationsOf(doc).map((op) => ({
        ...op,
        ...(op.body !== undefined && live[`${prefix} ${op.path}`] ? { body: live[`${prefix} ${op.path}`] } : {}),
      }));
      if (prefix === '/policy-admin/v1') {
        const create = operations.find((op) => op.method === 'POST' && op.path === '/policies')!;
        // the documented example names a quote by a placeholder reference: record it without one
        const { quoteReference: _placeholder, ...example } = create.body as Record<string, unknown>;
        create.body = { ...example, externalReference: `FUZZ-${partner.slug}` };
        const created = await post(t.app, `${prefix}/policies`, create.body, partner.auth);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        liveParams.policyNumber = created.body.policyNumber;
      }
      assert.ok(operations.length > 0, `${prefix} documents operations to fuzz`);
      await fc.assert(
        fc.asyncProperty(caseArbitrary(operations), async (c) => {
          const request = requestOf(prefix, operations[c.operation]!, c, partner, liveParams);
          const res = await t.app.inject(request);
          const key =
            `${res.statusCode} ${res.statusCode >= 400 && request.method !== 'HEAD' ? /"code":"(\w+)"/.exec(res.body)?.[1] : ''}`.trim();
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          const where = `${request.method} ${String(request.url).slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
          assert.ok(res.statusCode < 500, where);
          assert.ok(res.headers['x-request-id'], `X-Request-Id: ${where}`);
          if (res.statusCode >= 400) {
            assert.match(String(res.headers['content-type']), /^application\/problem\+json/, where);
            if (request.method !== 'HEAD') {
              const problem = JSON.parse(res.body);
              assert.equal(problem.status, res.statusCode, where);
              assert.equal(typeof problem.code, 'string', where);
            }
            if (res.statusCode === 405) assert.ok(res.headers.allow, `Allow: ${where}`);
          }
        }),
        { numRuns: runs, ...(SEED !== undefined ? { seed: SEED } : {}) },
      );
      // what the run reached, to see that it is not all 401s and 404s
      context.diagnostic(
        [...statuses]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${k}: ${n}`)
          .join(', '),
      );
    });
  });
});
