import type { FastifyRequest } from 'fastify';
import type { Environment } from './db-schema.ts';
import { DomainError, type ErrorCode } from './errors.ts';

/**
 * Bearer-key authentication of the partner APIs, without knowing what a partner is: the keys are
 * looked up through a `KeyDirectory` that the partners domain implements (`PartnerDirectory`) and
 * app.ts hands to the routes. platform/ imports no domain (docs/ARCHITECTURE.md, import rules).
 */

/** The realm of every Bearer challenge the platform sends. */
export const BEARER_REALM = 'parasol';

/**
 * A refused Bearer credential (RFC 6750 §3): the problem, plus what the answer's WWW-Authenticate
 * says of it. `invalid_token` (401): a credential was presented and is unknown, revoked or not in
 * the form of a key; `insufficient_scope` (403): a valid key whose partner is not subscribed to the
 * API called, `scope` naming that API. A request without credentials is a plain
 * `DomainError('unauthenticated')`: its challenge names the scheme and the realm only (§3.1).
 */
export class BearerError extends DomainError {
  constructor(
    code: ErrorCode,
    detail: string,
    readonly bearerError: 'invalid_token' | 'insufficient_scope',
    readonly scope?: string,
  ) {
    super(code, detail);
  }
}

/**
 * The WWW-Authenticate value of a refused request (RFC 6750 §3): `Bearer realm="parasol"`, and for
 * a `BearerError` its `error`, `error_description` (the problem's detail, reduced to the characters
 * §3 allows) and `scope`.
 */
export function bearerChallenge(error?: unknown): string {
  const params = [`realm="${BEARER_REALM}"`];
  if (error instanceof BearerError) {
    params.push(`error="${error.bearerError}"`);
    params.push(`error_description="${error.detail.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "'")}"`);
    if (error.scope) params.push(`scope="${error.scope}"`);
  }
  return `Bearer ${params.join(', ')}`;
}

/** Who is calling: resolved from the API key on every partner API request. */
export interface Caller {
  partnerId: string;
  partnerName: string;
  environment: Environment;
  keyId: string;
  /** `key:<id>`, for the audit trail. */
  actor: string;
}

/** What a directory knows of a presented key: who it is, whether it may call `api`. */
export interface KeyEntry<A extends string = string> {
  caller: Caller;
  revoked: boolean;
  apis: ReadonlySet<A>;
  agreementSigned: boolean;
}

/** Resolves presented API keys (synchronously when cached); implemented by partners/directory.ts. */
export interface KeyDirectory<A extends string = string> {
  authenticate(plaintext: string, onMiss?: () => void): KeyEntry<A> | undefined | Promise<KeyEntry<A> | undefined>;
}

/**
 * Reads `Authorization: Bearer <key>` and checks environment and subscription for `api`.
 * Synchronous when the key is cached, so the hook adds no promise round trip to a quote. `onMiss`
 * runs (and may throw) when the key is missing or not cached as known: the cached path pays nothing.
 */
export function authenticateRequest<A extends string>(
  directory: KeyDirectory<A>,
  request: FastifyRequest,
  api: A,
  onMiss?: () => void,
): Caller | Promise<Caller> {
  const header = request.headers.authorization;
  const bearer = typeof header === 'string' && /^Bearer(\s|$)/i.test(header);
  const match =
    bearer && typeof header === 'string' ? /^Bearer\s+([A-Za-z0-9_\-.~+/=]{16,200})\s*$/i.exec(header) : null;
  if (!match) {
    onMiss?.();
    // no credential (or another scheme's): the challenge names the scheme only; a Bearer credential
    // that cannot be a key is an invalid token
    if (!bearer) throw new DomainError('unauthenticated', 'Send your API key as "Authorization: Bearer <key>".');
    throw new BearerError(
      'unauthenticated',
      'This API key is not in the form of a key: send it as Authorization: Bearer <key>.',
      'invalid_token',
    );
  }
  const entry = directory.authenticate(match[1]!, onMiss);
  return entry instanceof Promise ? entry.then((e) => checkEntry(e, api)) : checkEntry(entry, api);
}

function checkEntry<A extends string>(entry: KeyEntry<A> | undefined, api: A): Caller {
  if (!entry || entry.revoked)
    throw new BearerError('unauthenticated', 'This API key is unknown or revoked.', 'invalid_token');
  if (entry.caller.environment !== 'sandbox' && !entry.agreementSigned) {
    throw new DomainError(
      'agreement_not_signed',
      `${entry.caller.environment} calls need a signed agreement with the insurer.`,
    );
  }
  if (!entry.apis.has(api))
    throw new BearerError(
      'api_not_subscribed',
      `Your organisation is not subscribed to the ${api} API.`,
      'insufficient_scope',
      api,
    );
  return entry.caller;
}
