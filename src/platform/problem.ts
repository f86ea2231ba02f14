import crypto from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { bearerChallenge, BearerError } from './auth.ts';
import { DomainError, ERROR_CODES, type ErrorCode, type FieldError, type FieldErrorCode } from './errors.ts';

/**
 * RFC 9457 problem details. Every error of every API leaves through here: domain errors, schema
 * validation errors, body parsing errors, unknown routes (404) and known paths asked with another
 * method (405 with `Allow`) through `installErrorHandling`; what Fastify's router refuses before
 * any route (a URL whose percent-encoding is not UTF-8, a path parameter over 100 characters)
 * through `frameworkErrors`; and what Node's HTTP parser refuses before Fastify sees a request
 * (headers or request line over 16 KiB, a malformed request line or header) through
 * `clientErrorHandler`, written on the socket. 5xx bodies say nothing about the cause; the cause
 * goes to the log with the request id.
 */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance?: string;
  requestId?: string;
  errors?: FieldError[];
  [member: string]: unknown;
}

/** A caller's X-Request-Id is echoed when it matches this (else the request gets a UUID): the documents say so. */
export const MAX_REQUEST_ID_LENGTH = 128;
export const REQUEST_ID = new RegExp(`^[A-Za-z0-9._:-]{1,${MAX_REQUEST_ID_LENGTH}}$`);

/** URLs longer than this answer 414 uri_too_long (checked on every request, before authentication). */
export const MAX_URL_LENGTH = 8192;

export const problemType = (code: ErrorCode): string => `urn:parasol:problem:${code}`;

/**
 * A problem lists at most this many field errors (the detail still counts them all), each pointer
 * cut at MAX_FIELD_LENGTH characters: a 64 KiB body of unknown fields cannot make a 1 MB answer.
 */
export const MAX_FIELD_ERRORS = 100;
export const MAX_FIELD_LENGTH = 500;
const clip = (field: string): string =>
  field.length > MAX_FIELD_LENGTH ? `${field.slice(0, MAX_FIELD_LENGTH - 1)}…` : field;

export function problemFor(code: ErrorCode, detail: string, extra: Record<string, unknown> = {}): Problem {
  const { status, title } = ERROR_CODES[code];
  const problem: Problem = { type: problemType(code), title, status, detail, code, ...extra };
  if (Array.isArray(extra.errors))
    problem.errors = (extra.errors as FieldError[]).slice(0, MAX_FIELD_ERRORS).map((e) => ({
      field: clip(e.field),
      code: e.code,
      message: e.message,
    }));
  return problem;
}

/** The field error code of an Ajv keyword. */
const AJV_CODES: Record<string, FieldErrorCode> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  type: 'invalid_type',
  pattern: 'invalid_format',
  format: 'invalid_format',
  enum: 'not_allowed',
  const: 'not_allowed',
  minimum: 'out_of_range',
  maximum: 'out_of_range',
  exclusiveMinimum: 'out_of_range',
  exclusiveMaximum: 'out_of_range',
  minLength: 'too_short',
  maxLength: 'too_long',
  minItems: 'too_few',
  maxItems: 'too_many',
  minProperties: 'too_few',
};

/**
 * Sends a problem. A 401 names the scheme the client must use (RFC 9110 §11.6.1); when `cause` is a
 * refused Bearer credential (auth.ts), its WWW-Authenticate also says why (RFC 6750 §3): a 401
 * `error="invalid_token"`, a 403 `error="insufficient_scope"`.
 */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  problem: Problem,
  cause?: unknown,
): FastifyReply {
  if (problem.status === 401 || cause instanceof BearerError) reply.header('WWW-Authenticate', bearerChallenge(cause));
  return reply
    .code(problem.status)
    .header('X-Request-Id', request.id)
    .type('application/problem+json; charset=utf-8')
    .send({ ...problem, instance: request.url.split('?')[0], requestId: request.id });
}

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** A schema (or part of one) as the error handler reads it: for the words of a message, never to validate. */
type SchemaNode = Record<string, unknown>;

/** Human names of the string formats the schemas use, for a value that does not match one. */
const FORMAT_MESSAGES: Record<string, string> = {
  date: 'must be a date YYYY-MM-DD',
  'date-time': 'must be a date and time with an offset, e.g. 2026-12-24T09:30:00Z',
  email: 'must be an email address',
  uri: 'must be an absolute URL',
  uuid: 'must be a UUID',
};

/**
 * Turns Ajv errors into `{ field, code, message }`: a JSON Pointer into the body, or into the query
 * string or the path prefixed with where (`querystring:/limit`, `params:/claimNumber`). A union
 * (TypeBox anyOf) answers one error per field, not one per branch: the branches of another type are
 * dropped, and the constants or enums the value matched none of become one `not_allowed` error
 * naming the allowed values. A value of the wrong type answers its invalid_type alone (not also the
 * enum or pattern it fails). A pattern error says what the field expects (its description, else an
 * example), never the regular expression.
 */
function fieldErrors(validation: AjvError[], context: string | undefined, schema: unknown): FieldError[] {
  const where = context && context !== 'body' ? `${context}:` : '';
  // a string over its maxLength fails its pattern, format or bounds (x-bounds) too: one error for the
  // field, too_long
  const tooLong = new Set(validation.filter((e) => e.keyword === 'maxLength').map((e) => e.instancePath));
  const impliedKeywords = new Set(['pattern', 'format', 'minimum', 'maximum']);
  const implied = (e: AjvError) => impliedKeywords.has(e.keyword) && tooLong.has(e.instancePath);
  const collapsed = collapseUnions(validation.filter((e) => !implied(e)));
  // a value of the wrong type fails its enum, pattern or bounds too: one error for it, invalid_type
  const wrongType = new Set(collapsed.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  const typed = new Set<string>();
  const oneEach = collapsed.filter((e) => {
    if (!wrongType.has(e.instancePath)) return true;
    if (e.keyword !== 'type' || typed.has(e.instancePath)) return false;
    typed.add(e.instancePath);
    return true;
  });
  return oneEach.map((e) => {
    let field = e.instancePath || '';
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field += `/${String(e.params.missingProperty)}`;
      message = 'is required';
    }
    if (e.keyword === 'additionalProperties') {
      field += `/${String(e.params.additionalProperty)}`;
      message = 'is not a known field';
    }
    if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues))
      message = `must be one of ${e.params.allowedValues.map(String).join(', ')}`;
    if (e.keyword === 'const') message = `must be ${String(e.params.allowedValue)}`;
    if (e.keyword === 'pattern') message = patternMessage(schemaAt(schema, e.schemaPath));
    if (e.keyword === 'minProperties') message = fieldsMessage(schemaAt(schema, e.schemaPath), Number(e.params.limit));
    if (e.keyword === 'format')
      message = FORMAT_MESSAGES[String(e.params.format)] ?? `must be in the ${String(e.params.format)} format`;
    return { field: clip(`${where}${field || '/'}`), code: AJV_CODES[e.keyword] ?? 'invalid', message };
  });
}

/**
 * Ajv reports a value that matches no branch of a union with the errors of every branch and an
 * `anyOf` error of its own. Each union (innermost first) is replaced by: the errors of the branches
 * of the value's type (a branch whose own `type` refused the value is of another type), its
 * constants and enums at the union's field merged into one enum error; or, when every branch is of
 * another type, one `type` error naming them all.
 */
function collapseUnions(validation: AjvError[]): AjvError[] {
  let errors = [...validation];
  const unions = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  for (const union of unions) {
    const prefix = `${union.schemaPath}/`;
    // the union's own value only: every item of an array shares the union's schemaPath
    const within = (e: AjvError) =>
      e.instancePath === union.instancePath || e.instancePath.startsWith(`${union.instancePath}/`);
    const inside = errors.filter((e) => e !== union && e.schemaPath.startsWith(prefix) && within(e));
    const branchOf = (e: AjvError) => e.schemaPath.slice(prefix.length).split('/', 1)[0]!;
    const otherType = new Set(
      inside
        .filter((e) => e.keyword === 'type' && e.instancePath === union.instancePath)
        .filter((e) => e.schemaPath === `${prefix}${branchOf(e)}/type`)
        .map(branchOf),
    );
    const kept = inside.filter((e) => !otherType.has(branchOf(e)));
    let replacement: AjvError[];
    if (kept.length === 0) {
      const types = [
        ...new Set(inside.filter((e) => e.keyword === 'type').flatMap((e) => [e.params.type].flat().map(String))),
      ];
      replacement = [
        {
          ...union,
          keyword: 'type',
          params: { type: types },
          message: types.length ? `must be ${types.join(' or ')}` : 'is invalid',
        },
      ];
    } else {
      const allowed = kept.filter(
        (e) => (e.keyword === 'const' || e.keyword === 'enum') && e.instancePath === union.instancePath,
      );
      const values = [
        ...new Set(
          allowed.flatMap((e) => (e.keyword === 'const' ? [e.params.allowedValue] : [e.params.allowedValues].flat())),
        ),
      ];
      replacement = allowed.length
        ? [
            { ...union, keyword: 'enum', params: { allowedValues: values } },
            ...kept.filter((e) => !allowed.includes(e)),
          ]
        : kept;
    }
    const gone = new Set<AjvError>([union, ...inside]);
    const at = errors.indexOf(union);
    errors = [
      ...errors.slice(0, at).filter((e) => !gone.has(e)),
      ...replacement,
      ...errors.slice(at + 1).filter((e) => !gone.has(e)),
    ];
  }
  return errors;
}

/** The node of a route's schema at an Ajv schemaPath (`#/properties/limit/pattern` → the limit schema). */
function schemaAt(schema: unknown, schemaPath: string): SchemaNode | undefined {
  const steps = schemaPath.replace(/^#\/?/, '').split('/').slice(0, -1);
  let node: unknown = schema;
  for (const step of steps) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[step.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node !== null && typeof node === 'object' ? (node as SchemaNode) : undefined;
}

/**
 * An object with too few fields (an empty change): the fields it may give, by name, but those that
 * cannot stand alone (`x-alone: false`, platform/schema.ts).
 */
function fieldsMessage(node: SchemaNode | undefined, limit: number): string {
  const properties = Object.entries((node?.properties as Record<string, SchemaNode> | undefined) ?? {});
  const names = properties.filter(([, property]) => property['x-alone'] !== false).map(([name]) => name);
  if (limit === 1 && names.length) return `must give at least one of ${names.join(', ')}`;
  return `must give at least ${limit} field${limit === 1 ? '' : 's'}`;
}

/** A pattern error in words: what the field's schema says it holds, else an example of it. */
function patternMessage(node: SchemaNode | undefined): string {
  const description = typeof node?.description === 'string' ? node.description.trim().replace(/\.$/, '') : '';
  if (description) return `is not in the expected form: ${description}`;
  const example = Array.isArray(node?.examples) ? node.examples[0] : undefined;
  if (typeof example === 'string') return `is not in the expected form, e.g. ${example}`;
  return 'is not in the expected form';
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | DomainError, request, reply) => {
    if (error instanceof DomainError) {
      return sendProblem(request, reply, problemFor(error.code, error.detail, error.extra), error);
    }
    if (error.validation) {
      const context = error.validationContext;
      const schemas = request.routeOptions.schema as Record<string, unknown> | undefined;
      const errors = fieldErrors(error.validation as AjvError[], context, context ? schemas?.[context] : undefined);
      const fields = new Set(errors.map((e) => e.field)).size;
      const detail =
        errors.length === 1
          ? `${errors[0]!.field} ${errors[0]!.message}.`
          : fields === 1
            ? `${errors[0]!.field} is invalid: ${errors.map((e) => e.message).join('; ')}.`
            : `${fields} fields are invalid.`;
      return sendProblem(request, reply, problemFor('validation_failed', detail, { errors }));
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(request, reply, problemFor('malformed_request', 'The body is not valid JSON.'));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendProblem(request, reply, problemFor('unsupported_media_type', 'Send the body as application/json.'));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(request, reply, problemFor('payload_too_large', 'The body is too large.'));
    }
    if (error instanceof SyntaxError || error.statusCode === 400) {
      return sendProblem(request, reply, problemFor('malformed_request', 'The request could not be parsed.'));
    }
    if (error.statusCode === 415)
      return sendProblem(request, reply, problemFor('unsupported_media_type', 'Send the body as application/json.'));
    if (error.statusCode === 413)
      return sendProblem(request, reply, problemFor('payload_too_large', 'The body is too large.'));
    if (isDatabaseUnavailable(error)) {
      request.log.error({ err: error }, 'database unavailable');
      return sendProblem(
        request,
        reply,
        problemFor('service_unavailable', 'A dependency is unavailable; retry later.'),
      );
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(
      request,
      reply,
      problemFor('internal_error', 'Something went wrong on our side. Quote the requestId to support.'),
    );
  });

  // Once the app closes, a request still arriving (on a keep-alive connection whose previous request
  // was in flight) is answered 503 service_unavailable and its connection closed: the client retries
  // elsewhere. Fastify's own 503 for it (return503OnClosing) is not problem+json and has no request id.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (closing) {
      reply.header('Connection', 'close');
      return done(new DomainError('service_unavailable', 'The server is shutting down; retry the request.'));
    }
    if (request.url.length > MAX_URL_LENGTH)
      return done(new DomainError('uri_too_long', `The URL is longer than ${MAX_URL_LENGTH} characters.`));
    done();
  });
  const routes = new RouteTable();
  app.addHook('onRoute', (route) => routes.add(route.method, route.url));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = routes.methodsOf(request.url);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendProblem(
        request,
        reply,
        problemFor(
          'method_not_allowed',
          `${path} does not answer ${request.method}; it answers ${allowed.join(', ')}.`,
        ),
      );
    }
    return sendProblem(request, reply, problemFor('route_not_found', `No route ${request.method} ${path}.`));
  });
}

/**
 * The paths of the registered routes, to tell a wrong method (405) from an unknown path (404) the
 * way Fastify's router matches: case-sensitive, `:param` one non-empty segment, the path ending at
 * `?`, `;` or `#`.
 */
class RouteTable {
  private readonly routes: { pattern: RegExp; methods: Set<string> }[] = [];
  private readonly byUrl = new Map<string, Set<string>>();

  add(method: string | string[], url: string): void {
    let methods = this.byUrl.get(url);
    if (!methods) {
      methods = new Set();
      this.byUrl.set(url, methods);
      const source = url
        .split('/')
        .map((segment) =>
          segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/');
      this.routes.push({ pattern: new RegExp(`^${source}$`), methods });
    }
    for (const m of [method].flat()) methods.add(m.toUpperCase());
  }

  methodsOf(url: string): string[] {
    const path = url.split(/[?;#]/, 1)[0] ?? '';
    const methods = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) for (const m of route.methods) methods.add(m);
    return [...methods].sort();
  }
}

/** Fastify's `frameworkErrors`: what the router refuses before a route is found, as problem+json. */
// eslint-disable-next-line @typescript-eslint/no-misused-promises -- the reply (a thenable) is returned, as Fastify's own handler does; nothing awaits it
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, request, reply) => {
  if (error.code === 'FST_ERR_BAD_URL') {
    return sendProblem(
      request,
      reply,
      problemFor('malformed_request', 'The URL is not valid: its percent-encoded characters are not UTF-8.'),
    );
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return sendProblem(
      request,
      reply,
      problemFor('uri_too_long', 'A path segment of the URL is longer than 100 characters.'),
    );
  }
  request.log.error({ err: error }, 'router error');
  return sendProblem(
    request,
    reply,
    problemFor('internal_error', 'Something went wrong on our side. Quote the requestId to support.'),
  );
};

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the bytes before any request existed
 * (no route, no hooks), so the problem is written on the socket, which is then closed. A header
 * overflow whose request line is longer than MAX_URL_LENGTH is a URL too long (414), else headers
 * too large (431).
 */
export const clientErrorHandler: NonNullable<FastifyServerOptions['clientErrorHandler']> = function (
  this: unknown,
  error,
  socket,
) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let code: ErrorCode = 'malformed_request';
  let detail = 'The request could not be parsed as HTTP/1.1.';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT') {
    code = 'request_timeout';
    detail = 'The request was not received in time.';
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined;
    const end = raw ? raw.indexOf('\r\n') : -1;
    const requestLine = raw ? (end === -1 ? raw.length : end) : 0;
    if (raw && /^[A-Z]+ /.test(raw.subarray(0, 16).toString('latin1')) && requestLine > MAX_URL_LENGTH) {
      code = 'uri_too_long';
      detail = `The URL is longer than ${MAX_URL_LENGTH} characters.`;
    } else {
      code = 'header_fields_too_large';
      detail = 'The request line and headers exceed 16 KiB.';
    }
  }
  const requestId = crypto.randomUUID();
  (this as FastifyInstance).log.info({ err: error, requestId }, 'client error');
  if (socket.writable) {
    const problem = problemFor(code, detail, { requestId });
    const body = JSON.stringify(problem);
    socket.write(
      `HTTP/1.1 ${problem.status} ${ERROR_CODES[code].title}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
};

function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNREFUSED' || code === '57P01' || code === '57P03' || code === '53300';
}
