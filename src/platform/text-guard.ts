import type { FastifyInstance } from 'fastify';
import { DomainError, type FieldError } from './errors.ts';

/**
 * One rule for every piece of text a request carries, whatever the route or its schema: no U+0000
 * and no unpaired UTF-16 surrogate. PostgreSQL text cannot hold U+0000 and its jsonb refuses both
 * (`\u0000`, a lone `\ud800`), so such a string would otherwise reach SQL and fail as a 500. So that
 * no text escapes it, the rule walks everything and refuses what is nested more than MAX_DEPTH (64)
 * levels deep (a free-form object such as a policy's `other` risk could otherwise nest thousands).
 *
 * It runs once per request, in a `preValidation` hook over the parsed body, the query string and
 * the path parameters (keys included: free-form objects such as a policy's `other` risk are stored
 * as jsonb too), and answers 422 `validation_failed` with the JSON Pointer of each offending field,
 * written like schema errors (`/customer/firstName`, `querystring:/contractNumber`,
 * `params:/policyNumber`). The Idempotency-Key header has its own stricter rule (printable ASCII,
 * idempotency.ts); other headers are only hashed or compared, never stored.
 */

// U+0000, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this rule refuses
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The rule's refusal: a 422 `validation_failed` like any other (the same problem+json), told apart by
 * its class so that a page answering in HTML (the bank-details form, web/customer-routes.ts) shows
 * its own form back for this refusal only, never for another validation error.
 */
export class UnsafeTextError extends DomainError {
  constructor(detail: string, errors: FieldError[]) {
    super('validation_failed', detail, { errors });
    this.name = 'UnsafeTextError';
  }
}

/** At most this many fields are reported, and objects are walked at most this deep. */
const MAX_ERRORS = 20;
const MAX_DEPTH = 64;

export function unsafeTextMessage(text: string): string | undefined {
  const match = UNSAFE.exec(text);
  if (!match) return undefined;
  return match[0] === '\u0000'
    ? 'must not contain the character U+0000'
    : 'must be valid Unicode text (an unpaired surrogate was found)';
}

/** The text without what the rule refuses (U+0000, unpaired surrogates): a refused form's values, shown back. */
export function withoutUnsafeText(text: string): string {
  return text.replace(new RegExp(UNSAFE.source, 'g'), '');
}

/** RFC 6901 escaping of one reference token. */
const token = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every unsafe string (or object key) in `value`, as `{ field, message }` with JSON Pointers. */
export function findUnsafeText(value: unknown, prefix = ''): FieldError[] {
  const errors: FieldError[] = [];
  const visit = (node: unknown, pointer: string, depth: number): void => {
    if (errors.length >= MAX_ERRORS) return;
    if (typeof node === 'string') {
      const message = unsafeTextMessage(node);
      if (message) errors.push({ field: `${prefix}${pointer || '/'}`, code: 'invalid', message });
      return;
    }
    if (node === null || typeof node !== 'object') return;
    if (depth >= MAX_DEPTH) {
      // a rule that stopped walking here would let what lies deeper reach SQL (and JSON.stringify
      // overflows its stack a few thousand levels down): deeper is refused, whatever it holds
      errors.push({
        field: `${prefix}${pointer || '/'}`,
        code: 'invalid',
        message: `is nested more than ${MAX_DEPTH} levels deep`,
      });
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, `${pointer}/${index}`, depth + 1));
      return;
    }
    for (const key of Object.keys(node)) {
      const at = `${pointer}/${token(key)}`;
      const message = unsafeTextMessage(key);
      if (message) {
        // the key itself is the field; its pointer would carry the bad character, so it is shown escaped
        if (errors.length < MAX_ERRORS)
          errors.push({
            field: `${prefix}${pointer}/${token(JSON.stringify(key).slice(1, -1))}`,
            code: 'invalid',
            message: `is a field name that ${message}`,
          });
        continue;
      }
      visit((node as Record<string, unknown>)[key], at, depth + 1);
    }
  };
  visit(value, '', 0);
  return errors;
}

/**
 * Whether findUnsafeText would report anything in `value`: the same walk (to the same depth) without building pointers
 * or closures, so that a clean request (nearly all of them) costs only its strings' regex tests.
 */
export function hasUnsafeText(value: unknown): boolean {
  return unsafeWithin(value, 0);
}

function unsafeWithin(node: unknown, depth: number): boolean {
  if (typeof node === 'string') return UNSAFE.test(node);
  if (node === null || typeof node !== 'object') return false;
  if (depth >= MAX_DEPTH) return true;
  if (Array.isArray(node)) {
    for (const item of node) if (unsafeWithin(item, depth + 1)) return true;
    return false;
  }
  for (const key in node) {
    if (!Object.prototype.hasOwnProperty.call(node, key)) continue;
    if (UNSAFE.test(key) || unsafeWithin((node as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/** Installs the rule on every route of `app` (call it before registering routes). */
export function installTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (!hasUnsafeText(request.params) && !hasUnsafeText(request.query) && !hasUnsafeText(request.body)) return done();
    const errors = [
      ...findUnsafeText(request.params, 'params:'),
      ...findUnsafeText(request.query, 'querystring:'),
      ...findUnsafeText(request.body),
    ];
    if (errors.length === 0) return done();
    const detail =
      errors.length === 1 ? `${errors[0]!.field} ${errors[0]!.message}` : `${errors.length} fields are invalid.`;
    done(new UnsafeTextError(detail, errors));
  });
}
