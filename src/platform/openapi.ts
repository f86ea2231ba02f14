import swagger from '@fastify/swagger';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { ERROR_CODES, FIELD_ERROR_CODES, type ErrorCode } from './errors.ts';
import { MAX_FIELD_ERRORS, MAX_FIELD_LENGTH, MAX_REQUEST_ID_LENGTH, MAX_URL_LENGTH } from './problem.ts';

/**
 * One OpenAPI 3.1 document per API, served at `{base}/openapi.json`. @fastify/swagger is registered
 * once per API under its own decorator; its transform keeps the routes under the API's base path,
 * relative to a `servers` entry for that base, and hides everything else.
 */
export interface ApiDocument {
  /** Decorator name, e.g. "flightDelayOpenapi". */
  decorator: string;
  prefix: string;
  title: string;
  version: string;
  description: string;
  tags?: { name: string; description: string }[];
  /** The OpenAPI 3.1 `webhooks` section: the events this API POSTs to the partner. */
  webhooks?: Record<string, unknown>;
}

export async function registerApiDocument(app: FastifyInstance, doc: ApiDocument): Promise<void> {
  await app.register(swagger, {
    decorator: doc.decorator,
    openapi: {
      openapi: '3.1.0',
      info: { title: doc.title, version: doc.version, description: doc.description },
      servers: [
        {
          url: doc.prefix,
          description:
            'This deployment, relative to its origin. One deployment serves the sandbox, preproduction and production environments: the API key decides which.',
        },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              'Your API key: `Authorization: Bearer psl_sbx_…`. Sandbox, preproduction and production keys differ. ' +
              'A refused key is answered as RFC 6750 §3 says, in `WWW-Authenticate`: no credential (or another scheme): ' +
              '401 `Bearer realm="parasol"`; a key unknown, revoked or not in the form of a key: 401 ' +
              '`Bearer realm="parasol", error="invalid_token", error_description="…"`; a key whose partner is not ' +
              'subscribed to the API called: 403 `Bearer realm="parasol", error="insufficient_scope", ' +
              'error_description="…", scope="<api>"`, the scope naming the API (`flight-delay`, `demo`, `policy-admin`). ' +
              'A key has no scopes of its own: it reaches the APIs its partner is subscribed to. A partner key where only ' +
              'operators may act (POST /claims in production): 403 `forbidden` with `Bearer realm="parasol", ' +
              'error="insufficient_scope", error_description="…"`. The 403 `agreement_not_signed` (a preproduction or ' +
              'production key before the agreement is signed): `Bearer realm="parasol"`, no error (no other key of the ' +
              'partner would pass). `Bearer` with no key counts as no credential.',
          },
        },
      },
      security: [{ apiKey: [] }],
      ...(doc.tags ? { tags: doc.tags } : {}),
      ...(doc.webhooks ? { webhooks: doc.webhooks } : {}),
    },
    transformObject: (document) =>
      finishDocument((document as unknown as { openapiObject: OpenApiDocument }).openapiObject) as never,
    transform: ({ schema, url, route }) => {
      const inApi = url.toLowerCase().startsWith(`${doc.prefix.toLowerCase()}/`) && !url.endsWith('/openapi.json');
      if (!inApi) return { schema: { ...(schema ?? {}), hide: true } as typeof schema, url };
      return {
        schema: withPlatformProblems([route.method].flat()[0]!, schema as Json | undefined) as typeof schema,
        url: url.slice(doc.prefix.length),
      };
    },
  });
  app.get(`${doc.prefix}/openapi.json`, { schema: { hide: true } }, async (_request, reply) => {
    const decorated = (app as unknown as Record<string, () => unknown>)[doc.decorator];
    return reply.type('application/json; charset=utf-8').send(decorated!.call(app));
  });
}

/** RFC 9457 problem body, as documented in every error response. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({
      pattern: '^urn:parasol:problem:[a-z_]+$',
      maxLength: 100,
      description: 'URI identifying the problem type, `urn:parasol:problem:<code>`',
    }),
    title: Type.String({ maxLength: 100 }),
    status: Type.Integer({ format: 'int32', minimum: 400, maximum: 599 }),
    detail: Type.String({
      maxLength: MAX_URL_LENGTH + 1000,
      description: 'English prose for a developer; it may quote the URL asked or a field.',
    }),
    code: Type.String({
      pattern: '^[a-z_]+$',
      maxLength: 100,
      description:
        "Stable machine-readable code, e.g. `quote_expired`; each error status of an operation lists the codes it may carry (`x-problem-codes`, and the response's description).",
    }),
    instance: Type.Optional(
      Type.String({ maxLength: MAX_URL_LENGTH, description: 'The path asked, without its query string.' }),
    ),
    requestId: Type.Optional(
      Type.String({ maxLength: MAX_REQUEST_ID_LENGTH, description: 'The X-Request-Id of the answer.' }),
    ),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({
            maxLength: MAX_FIELD_LENGTH,
            description: `JSON Pointer into the body, e.g. \`/departureAirport\`; a query-string or path parameter's is prefixed with where it is, \`querystring:/limit\`, \`params:/contractNumber\` (cut at ${MAX_FIELD_LENGTH} characters). One error per field: a union of values answers one \`not_allowed\` naming them, a value of the wrong type one \`invalid_type\` (not also the list or form it fails).`,
          }),
          code: Type.Union(
            FIELD_ERROR_CODES.map((c) => Type.Literal(c)),
            {
              description:
                'Stable code of what is wrong with the field, e.g. `required`, `out_of_range`, `not_increasing`.',
            },
          ),
          message: Type.String({ maxLength: 1000, description: 'English prose for a developer; translate by `code`.' }),
        }),
        {
          maxItems: MAX_FIELD_ERRORS,
          description: `What is wrong, field by field: at most ${MAX_FIELD_ERRORS} (the detail counts them all).`,
        },
      ),
    ),
  },
  { additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json)' },
);

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed JSON, a body that is not UTF-8, or a URL whose percent-encoding is not UTF-8',
  401: 'Missing or invalid API key',
  403: 'Not subscribed to this API, or agreement not signed',
  404: 'Not found (or not yours)',
  409: 'State conflict',
  412: 'Precondition failed: the resource changed since the version If-Match names; nothing was changed',
  422: 'Well-formed but invalid',
  429: 'Rate limited (the per-key limit, or too many failed authentications from your address); see Retry-After',
  500: 'Internal error: the body says nothing of the cause; quote its requestId to support',
  503: 'A dependency (the database) is unavailable, or the server is shutting down (with Connection: close); retry later',
  // what the platform answers on every route before the route itself runs: another method on a
  // known path (405, with `Allow`), a URL over 8 KiB or a path segment over 100 characters (414)
  // and, for a method that carries a body, a body over 64 KiB (413) or not `application/json` (415)
  405: 'Method not allowed on this path; the Allow header lists the methods it answers',
  413: 'Body larger than 64 KiB',
  414: 'URL longer than 8 KiB, or a path segment longer than 100 characters',
  415: 'Body not sent as application/json in UTF-8 (a charset other than utf-8)',
};

/**
 * The errors answered before the per-key rate limit ran, which therefore carry no RateLimit-*
 * headers: no key admitted (401, 403), or refused before authentication (405, 414). The other
 * answers of an API operation carry them, but for two cases also answered before it: a 400 for a
 * URL whose percent-encoding is not UTF-8 (the router refuses it), and a 429 for failed
 * authentications from an address, which no key owns (only Retry-After).
 */
const BEFORE_RATE_LIMIT = new Set([401, 403, 405, 414]);

// ---------------------------------------------------------------------------------------------
// The problem codes of an operation (see docs/ARCHITECTURE.md, "OpenAPI conventions"). A route
// declares the codes its use case answers, status by status, next to its route:
// `...problemResponses({ 404: ['contract_not_found'], 409: ['contract_not_cancellable'] })`. The
// codes every operation of a partner API shares are added here, once: the platform answers them
// whatever the route (authentication, subscription, rate limit, the text rule and schema validation,
// the body parser, the idempotency layer, 5xx). `operationProblemCodes` is the one answer to "which
// codes may this operation send": the documents list it, and the tests' check (checkProblemCodes)
// holds every problem the app answers to it.

type ErrorStatus = (typeof ERROR_CODES)[ErrorCode]['status'];
/** A code a partner API may answer: not one only the consoles and the CLI answer (`operator: true`). */
type ApiCode<C extends ErrorCode> = (typeof ERROR_CODES)[C] extends { operator: true } ? never : C;
/** The partner APIs' codes of `S`, e.g. CodeOf<404> = 'not_found' | 'contract_not_found' | … */
type CodeOf<S extends ErrorStatus> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C]['status'] extends S ? ApiCode<C> : never;
}[ErrorCode];
/** The codes an operation answers beyond the shared ones, by status: checked against their status when compiled. */
export type ProblemCodes = { readonly [S in ErrorStatus]?: readonly CodeOf<S>[] };

/** What every operation of a partner API may answer, whatever its route. */
const SHARED_CODES: ProblemCodes = {
  400: ['malformed_request'], // a body that is not JSON or not UTF-8, a URL whose percent-encoding is not UTF-8
  401: ['unauthenticated'],
  403: ['api_not_subscribed', 'agreement_not_signed'],
  405: ['method_not_allowed'],
  414: ['uri_too_long'],
  422: ['validation_failed'], // the schemas, and the text rule on the query string, path and body (text-guard.ts)
  429: ['rate_limited'],
  500: ['internal_error'],
  503: ['service_unavailable'],
};
/** What an operation whose method carries a body may answer (Fastify reads a POST's body even without a body schema). */
const BODY_CODES: ProblemCodes = { 413: ['payload_too_large'], 415: ['unsupported_media_type'] };
/** What the idempotency layer answers (platform/idempotency.ts) on an operation taking an Idempotency-Key. */
const IDEMPOTENCY_CODES: ProblemCodes = {
  409: ['idempotency_request_in_progress'],
  422: ['validation_failed', 'idempotency_key_reused'],
};
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'TRACE']);

/** The member of a problem response schema carrying the codes its route declared. */
const DECLARED = 'x-problem-codes';

/**
 * The error responses of a route, each a problem+json body: the statuses every operation shares
 * (400, 401, 403, 422, 429) and those of `codes`, which lists, by status, the codes the route's use
 * case answers beyond the shared ones (read them off its use case: every DomainError on its paths,
 * the helpers it calls included). An operator-only code, or a code under another status, does not
 * compile.
 */
export function problemResponses(codes: ProblemCodes = {}): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  const declared = codes as Partial<Record<number, readonly string[]>>;
  const statuses = new Set([400, 401, 403, 422, 429, ...Object.keys(declared).map(Number)]);
  for (const status of [...statuses].sort((a, b) => a - b))
    out[status] = { ...ProblemSchema, description: STATUS_TEXT[status] ?? 'Error', [DECLARED]: declared[status] ?? [] };
  return out;
}

const problemCodesCache = new WeakMap<object, Map<string, ReadonlyMap<number, readonly string[]>>>();

/**
 * Every code an operation may answer, by status (in the order of ERROR_CODES), from its route's
 * schema and method: the shared codes, a body's, the idempotency layer's when it takes an
 * Idempotency-Key, and those its route declared through problemResponses. Undefined for a route
 * that declares none (the consoles' pages, the documents themselves).
 */
export function operationProblemCodes(
  method: string,
  schema: FastifySchema | Json | undefined,
): ReadonlyMap<number, readonly string[]> | undefined {
  const response = (schema as Json | undefined)?.response as Record<string, Json> | undefined;
  if (!response) return undefined;
  const verb = method.toUpperCase();
  const cached = problemCodesCache.get(schema!)?.get(verb);
  if (cached) return cached;
  const declared = Object.entries(response).filter(([, r]) => Array.isArray(r?.[DECLARED]));
  if (declared.length === 0) return undefined;
  const byStatus = new Map<number, Set<string>>();
  const add = (codes: ProblemCodes) => {
    for (const [status, list] of Object.entries(codes as Record<string, readonly string[]>))
      for (const code of list) {
        const set = byStatus.get(Number(status)) ?? new Set<string>();
        set.add(code);
        byStatus.set(Number(status), set);
      }
  };
  add(SHARED_CODES);
  if (!BODYLESS_METHODS.has(verb)) add(BODY_CODES);
  const headers = ((schema as Json).headers as Json | undefined)?.properties as Json | undefined;
  if (headers && Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')) add(IDEMPOTENCY_CODES);
  for (const [status, r] of declared) add({ [status]: r[DECLARED] } as ProblemCodes);
  const order = Object.keys(ERROR_CODES);
  const codes = new Map(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, set]) => [status, order.filter((c) => set.has(c))] as const),
  );
  const byMethod = problemCodesCache.get(schema!) ?? new Map<string, ReadonlyMap<number, readonly string[]>>();
  byMethod.set(verb, codes);
  problemCodesCache.set(schema!, byMethod);
  return codes;
}

/** A problem an operation answered whose code its document does not list for that status. */
export interface UndeclaredProblem {
  method: string;
  /** The route, e.g. `/flight-delay/v1/contracts/:contractNumber`. */
  route: string;
  status: number;
  code: string;
  /** What the document lists for that status (none: the status is not documented). */
  documented: readonly string[];
}

/**
 * Checks every problem the app answers on a documented operation against operationProblemCodes,
 * reporting each one it does not list (the tests' app records them and fails: test/helper.ts).
 */
export function checkProblemCodes(app: FastifyInstance, report: (problem: UndeclaredProblem) => void): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/problem+json')) return done();
    const codes = operationProblemCodes(request.method, request.routeOptions.schema);
    if (!codes) return done();
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    let code: unknown;
    try {
      code = (JSON.parse(text) as { code?: unknown }).code;
    } catch {
      code = undefined;
    }
    const documented = codes.get(reply.statusCode) ?? [];
    if (typeof code !== 'string' || !documented.includes(code))
      report({
        method: request.method,
        route: request.routeOptions.url ?? request.url,
        status: reply.statusCode,
        code: String(code),
        documented,
      });
    done();
  });
}

/**
 * Every problem status of an operation in its document, with its codes (`x-problem-codes`, which
 * finishDocument turns into the response's list and description): a status the route declared keeps
 * its description; the others (500, 503, 405, 413, 414, 415) are added, so no route can forget them.
 */
function withPlatformProblems(method: string, schema: Json | undefined): Json {
  const response = { ...((schema?.response as Record<string, Json> | undefined) ?? {}) };
  const codes = operationProblemCodes(method, schema);
  if (codes)
    for (const [status, list] of codes)
      response[status] = {
        ...((response[status] as Json | undefined) ?? { ...ProblemSchema, description: STATUS_TEXT[status] }),
        [DECLARED]: list,
      };
  return { ...(schema ?? {}), response };
}

/**
 * A response schema with its name in components.schemas (`title`, what generated clients call the
 * type) and the description of the answer, e.g. `200: named(S.QuoteResponse, 'Quote', 'The quote')`.
 */
export function named<T extends TSchema>(schema: T, title: string, description: string): T {
  return { ...schema, title, description };
}

/**
 * A success response schema with the example answer the document shows (OpenAPI's media type
 * `example`: @fastify/swagger moves a response schema's single `examples` entry there), e.g.
 * `200: withExample(named(S.QuoteResponse, 'Quote', 'The quote'), RESPONSE_EXAMPLES.getPrice)`.
 * The tests check that every operation's success has one, valid against its own schema.
 */
export function withExample<T extends TSchema>(schema: T, example: unknown): T {
  return { ...schema, examples: [example] };
}

/** Marks a success response as sending the resource's `ETag` (platform/preconditions.ts): finishDocument documents it. */
const SENDS_ETAG = 'x-sends-etag';
export function withEtag<T extends TSchema>(schema: T): T {
  return { ...schema, [SENDS_ETAG]: true };
}

// ---------------------------------------------------------------------------------------------
// The conventions every operation gets, applied to the whole document in one place (see
// docs/ARCHITECTURE.md, "OpenAPI conventions"): a route declares its success schema and the
// codes of its problems (problemResponses); the document then names every error body `Problem` as
// application/problem+json, lists the codes each error status of the operation may carry
// (operationProblemCodes), declares the headers every answer sends, and hoists each schema with a
// `title` into components.schemas.

type Json = Record<string, unknown>;
interface OpenApiDocument {
  paths?: Record<string, Record<string, Json>>;
  components?: Json & { schemas?: Record<string, unknown>; headers?: Record<string, unknown> };
  [member: string]: unknown;
}

const header = (
  description: string,
  schema: Json = { type: 'integer', format: 'int32', minimum: 0, maximum: 2_147_483_647 },
) => ({ description, schema });

/** The response headers of the platform, in components.headers. */
export const RESPONSE_HEADERS = {
  'X-Request-Id': header(
    `The id of this request, also in the log and in every problem body (\`requestId\`): yours when you send one of 1 to ${MAX_REQUEST_ID_LENGTH} characters among A-Z a-z 0-9 . _ : -, else a UUID.`,
    { type: 'string', maxLength: MAX_REQUEST_ID_LENGTH },
  ),
  'RateLimit-Limit': header("Requests per minute allowed for this key and operation's rate class."),
  'RateLimit-Remaining': header('Requests left in the current minute.'),
  'RateLimit-Reset': header('Seconds until the current minute ends.', {
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: 60,
  }),
  'Retry-After': header('Seconds to wait before trying again.', {
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: 60,
  }),
  'Idempotent-Replayed': header('`true` when this answer replays the first answer to the same Idempotency-Key.', {
    type: 'string',
    enum: ['true'],
  }),
  ETag: header(
    "The version of the resource answered (a 201: the one created), as a strong entity tag: send it back in If-Match to change the resource only if nobody changed it since (412 otherwise). A replay carries the first answer's.",
    { type: 'string', maxLength: 20 },
  ),
  Location: header(
    'Where the resource this request created is read: its path on this server, the operation to read it under this API (a replay carries it too).',
    { type: 'string', format: 'uri-reference', maxLength: 300 },
  ),
  'WWW-Authenticate': header(
    'RFC 6750 §3 challenge. On every 401: `Bearer realm="parasol"` when no credential was sent, with `error="invalid_token"` and an `error_description` when the key is unknown, revoked or not in the form of a key. On a 403 `api_not_subscribed`: `Bearer realm="parasol", error="insufficient_scope", error_description="…", scope="<api>"`; on a 403 `forbidden` to a partner key where only operators may act (POST /claims in production) the same without scope; on a 403 `agreement_not_signed`: `Bearer realm="parasol"`. Other 403s (a role that may not act) carry none.',
    { type: 'string', maxLength: 500 },
  ),
} as const;

/** The headers an API's responses use: no `Idempotent-Replayed` without idempotent operations, no `Location` without a 201, no `ETag` unless sent. */
function headersUsed(replays: boolean, creates: boolean, etags: boolean): Partial<typeof RESPONSE_HEADERS> {
  const { 'Idempotent-Replayed': replayed, Location: location, ETag: etag, ...always } = RESPONSE_HEADERS;
  return {
    ...always,
    ...(replays ? { 'Idempotent-Replayed': replayed } : {}),
    ...(creates ? { Location: location } : {}),
    ...(etags ? { ETag: etag } : {}),
  };
}

const SUCCESS_TEXT: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted', '204': 'No content' };

const ref = (name: keyof typeof RESPONSE_HEADERS) => ({ $ref: `#/components/headers/${name}` });
const rateLimitHeaders = {
  'RateLimit-Limit': ref('RateLimit-Limit'),
  'RateLimit-Remaining': ref('RateLimit-Remaining'),
  'RateLimit-Reset': ref('RateLimit-Reset'),
};

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * Gives every integer schema without a `format` the one its bounds imply: int32 when both bounds
 * fit in 32 bits, int64 otherwise (generated clients pick the type from it). Examples are left as
 * they are.
 */
function integerFormats(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(integerFormats);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json))
    out[k] = k === 'example' || k === 'examples' ? v : integerFormats(v);
  const integer = out.type === 'integer' || (Array.isArray(out.type) && out.type.includes('integer'));
  if (integer && out.format === undefined) {
    const fits = (bound: unknown) => typeof bound === 'number' && bound >= INT32.min && bound <= INT32.max;
    out.format =
      fits(out.minimum ?? out.exclusiveMinimum) && fits(out.maximum ?? out.exclusiveMaximum) ? 'int32' : 'int64';
  }
  return out;
}

/** Replaces each schema carrying a `title` by a $ref to components.schemas[title] (first one wins). */
function hoist(node: unknown, schemas: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((n) => hoist(n, schemas));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json))
    out[k] = k === 'example' || k === 'examples' ? v : hoist(v, schemas);
  const title = out.title;
  if (typeof title === 'string' && /^[A-Z][A-Za-z0-9]+$/.test(title) && (out.type || out.anyOf)) {
    const { description, ...named } = out;
    schemas[title] ??= named;
    return description
      ? { $ref: `#/components/schemas/${title}`, description }
      : { $ref: `#/components/schemas/${title}` };
  }
  return out;
}

export function finishDocument(doc: OpenApiDocument): OpenApiDocument {
  const schemas: Record<string, unknown> = { ...(doc.components?.schemas ?? {}) };
  const { description: _d, ...problem } = ProblemSchema as unknown as Json;
  schemas.Problem = { ...problem, title: 'Problem', description: 'RFC 9457 problem details' };
  const paths: Record<string, Record<string, Json>> = {};
  const server = (doc.servers as Json[] | undefined)?.[0]?.url;
  const prefix = typeof server === 'string' && server.startsWith('/') ? server : '';
  let replays = false;
  let creates = false;
  let etags = false;
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    paths[path] = {};
    for (const [method, operation] of Object.entries(operations)) {
      const idempotent = ((operation.parameters as Json[] | undefined) ?? []).some(
        (p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key',
      );
      replays ||= idempotent;
      // the path as asked with the parameters' examples, for the problems' instance
      const asked = path.replace(/\{(\w+)\}/g, (whole, name: string) => {
        const p = ((operation.parameters as Json[] | undefined) ?? []).find((q) => q.in === 'path' && q.name === name);
        const example = p?.example ?? ((p?.schema as Json | undefined)?.examples as unknown[] | undefined)?.[0];
        return example === undefined ? whole : encodeURIComponent(String(example));
      });
      const responses: Record<string, Json> = {};
      const declared = { ...((operation.responses as Record<string, Json>) ?? {}) };
      for (const [status, response] of Object.entries(declared)) {
        const code = Number(status);
        if (code >= 400) {
          // the operation's codes of this status, put on its schema by withPlatformProblems
          const content = response.content as Record<string, { schema?: Json }> | undefined;
          const listed = Object.values(content ?? {})[0]?.schema?.[DECLARED];
          const codes = Array.isArray(listed) ? (listed as string[]) : [];
          responses[status] = {
            description: `${String(response.description ?? 'Error')}${codes.length ? `. Codes: ${codes.map((c) => `\`${c}\``).join(', ')}` : ''}`,
            headers: {
              'X-Request-Id': ref('X-Request-Id'),
              ...(code < 500 && !BEFORE_RATE_LIMIT.has(code) ? rateLimitHeaders : {}),
              ...(code === 401 || code === 403 ? { 'WWW-Authenticate': ref('WWW-Authenticate') } : {}),
              ...(code === 429 ? { 'Retry-After': ref('Retry-After') } : {}),
            },
            content: {
              'application/problem+json': {
                schema: { $ref: '#/components/schemas/Problem' },
                example: {
                  type: `urn:parasol:problem:${codes[0] ?? 'internal_error'}`,
                  title: codes[0] ? ERROR_CODES[codes[0] as keyof typeof ERROR_CODES].title : 'Error',
                  status: code,
                  detail: String(response.description ?? 'Error'),
                  code: codes[0] ?? 'internal_error',
                  // as answered: the full path asked, and the request's id (a UUID unless the caller gave one)
                  instance: `${prefix}${asked}`,
                  requestId: '6f1c2a7e-3b8d-4e5f-9a0b-1c2d3e4f5a6b',
                },
              },
            },
            'x-problem-codes': codes,
          };
        } else {
          creates ||= code === 201;
          const description =
            !response.description || response.description === 'Default Response'
              ? (SUCCESS_TEXT[status] ?? 'Success')
              : response.description;
          // the withEtag mark leaves the schema: the response documents the header instead
          let sendsEtag = false;
          const content = Object.fromEntries(
            Object.entries((response.content as Record<string, Json> | undefined) ?? {}).map(([type, media]) => {
              const { [SENDS_ETAG]: mark, ...schema } = (media.schema as Json | undefined) ?? {};
              sendsEtag ||= mark === true;
              return [type, media.schema ? { ...media, schema } : media];
            }),
          );
          etags ||= sendsEtag;
          responses[status] = {
            ...response,
            ...(response.content ? { content } : {}),
            description,
            headers: {
              'X-Request-Id': ref('X-Request-Id'),
              ...rateLimitHeaders,
              ...(idempotent ? { 'Idempotent-Replayed': ref('Idempotent-Replayed') } : {}),
              ...(code === 201 ? { Location: ref('Location') } : {}),
              ...(sendsEtag ? { ETag: ref('ETag') } : {}),
            },
          };
        }
      }
      paths[path][method] = hoist({ ...operation, responses }, schemas) as Json;
    }
  }
  return integerFormats({
    ...doc,
    // partners call these servers: public, not internal (OWASP API9, inventory)
    servers: ((doc.servers as Json[] | undefined) ?? []).map((server) => ({ 'x-internal': false, ...server })),
    paths,
    components: { ...(doc.components ?? {}), schemas, headers: headersUsed(replays, creates, etags) },
  }) as OpenApiDocument;
}
