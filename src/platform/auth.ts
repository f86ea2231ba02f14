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
 * A refused request whose answer carries a Bearer challenge (RFC 6750 §3: one MUST be sent when the
 * request has no credential or one that does not give access): the problem, plus what the
 * WWW-Authenticate says of it. `invalid_token` (401): a credential was presented and is unknown,
 * revoked or not in the form of a key; `insufficient_scope` (403): a valid credential that does not
 * reach this operation (a key whose partner is not subscribed to the API called, `scope` naming that
 * API; a partner key where only operators may act). Without `bearerError` (a 403 such as
 * `agreement_not_signed`, whose key is valid but refused) the challenge names the realm only, as for a
 * request without credentials, a plain `DomainError('unauthenticated')` (§3.1).
 */
export class BearerError extends DomainError {
  constructor(
    code: ErrorCode,
    detail: string,
    readonly bearerError?: 'invalid_token' | 'insufficient_scope',
    readonly scope?: string,
  ) {
    super(code, detail);
  }
}

/** The `Authorization` header, as a Bearer credential: none, one that cannot be a token, or a token. */
export type BearerCredential = { kind: 'absent' } | { kind: 'malformed' } | { kind: 'token'; token: string };

/**
 * Reads a Bearer credential (RFC 6750 §2.1; the scheme case-insensitive, RFC 9110 §11.1): `absent`
 * when there is no header, another scheme, or the scheme without a token (§3.1: no credential, so no
 * error in the challenge); `malformed` when what follows `Bearer ` is not a token68 of 16 to 200
 * characters (no key or operator token is shorter or longer); else the token. The one reading of the
 * header for partner keys, operator tokens and /metrics.
 */
export function readBearer(header: string | string[] | undefined): BearerCredential {
  if (typeof header !== 'string') return { kind: 'absent' };
  const scheme = /^Bearer(?:\s+(.*?))?\s*$/i.exec(header);
  if (!scheme || !scheme[1]) return { kind: 'absent' };
  const token = scheme[1];
  return /^[A-Za-z0-9_\-.~+/]+=*$/.test(token) && token.length >= 16 && token.length <= 200
    ? { kind: 'token', token }
    : { kind: 'malformed' };
}

/**
 * The WWW-Authenticate value of a refused request (RFC 6750 §3): `Bearer realm="parasol"`, and for
 * a `BearerError` its `error`, `error_description` (the problem's detail, reduced to the characters
 * §3 allows) and `scope`.
 */
export function bearerChallenge(error?: unknown): string {
  const params = [`realm="${BEARER_REALM}"`];
  if (error instanceof BearerError && error.bearerError) {
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
  const credential = readBearer(request.headers.authorization);
  if (credential.kind !== 'token') {
    onMiss?.();
    // no credential (or another scheme's): the challenge names the realm only; a Bearer credential
    // that cannot be a key is an invalid token
    if (credential.kind === 'absent')
      throw new DomainError('unauthenticated', 'Send your API key as "Authorization: Bearer <key>".');
    throw new BearerError(
      'unauthenticated',
      'This API key is not in the form of a key: send it as Authorization: Bearer <key>.',
      'invalid_token',
    );
  }
  const entry = directory.authenticate(credential.token, onMiss);
  return entry instanceof Promise ? entry.then((e) => checkEntry(e, api)) : checkEntry(entry, api);
}

function checkEntry<A extends string>(entry: KeyEntry<A> | undefined, api: A): Caller {
  if (!entry || entry.revoked)
    throw new BearerError('unauthenticated', 'This API key is unknown or revoked.', 'invalid_token');
  if (entry.caller.environment !== 'sandbox' && !entry.agreementSigned) {
    // the key is valid but refused: a challenge naming the realm only (no other key would pass)
    throw new BearerError(
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
