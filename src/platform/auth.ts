import type { FastifyRequest } from 'fastify';
import type { Environment } from './db-schema.ts';
import { DomainError } from './errors.ts';

/**
 * Bearer-key authentication of the partner APIs, without knowing what a partner is: the keys are
 * looked up through a `KeyDirectory` that the partners domain implements (`PartnerDirectory`) and
 * app.ts hands to the routes. platform/ imports no domain (docs/ARCHITECTURE.md, import rules).
 */

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
  const match = typeof header === 'string' ? /^Bearer\s+([A-Za-z0-9_\-.~+/=]{16,200})\s*$/i.exec(header) : null;
  if (!match) {
    onMiss?.();
    throw new DomainError('unauthenticated', 'Send your API key as "Authorization: Bearer <key>".');
  }
  const entry = directory.authenticate(match[1]!, onMiss);
  return entry instanceof Promise ? entry.then((e) => checkEntry(e, api)) : checkEntry(entry, api);
}

function checkEntry<A extends string>(entry: KeyEntry<A> | undefined, api: A): Caller {
  if (!entry || entry.revoked) throw new DomainError('unauthenticated', 'This API key is unknown or revoked.');
  if (entry.caller.environment !== 'sandbox' && !entry.agreementSigned) {
    throw new DomainError(
      'agreement_not_signed',
      `${entry.caller.environment} calls need a signed agreement with the insurer.`,
    );
  }
  if (!entry.apis.has(api))
    throw new DomainError('api_not_subscribed', `Your organisation is not subscribed to the ${api} API.`);
  return entry.caller;
}
