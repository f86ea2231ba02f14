import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateRequest, BearerError, readBearer, type Caller, type KeyDirectory } from './auth.ts';
import { isOperatorToken, type OperatorCaller } from './operator-tokens.ts';
import { DomainError } from './errors.ts';
import type { CountedWrite, Trx } from './db.ts';
import { runIdempotent, type IdempotencyDeps, type Outcome, type Serialize } from './idempotency.ts';
import type { FailedAuthLimiter, RateDecision } from './rate-limit.ts';
import { rateClassOf, type KeyRateLimiter, type RateClass } from './shared-rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    /** Set instead of `caller` when an operator token called a route open to operators. */
    operator?: OperatorCaller;
  }
  interface FastifyContextConfig {
    /** The route also accepts operator tokens (`pso_…`): see operator-tokens.ts. */
    operatorAccess?: boolean;
    /** The route's rate-limit class (shared-rate-limit.ts); default: `read` for GET, `write` otherwise. */
    rateClass?: RateClass;
  }
}

export type OperatorAuthenticator = (token: string) => Promise<OperatorCaller | undefined>;

/**
 * What every partner API scope gets, in one synchronous hook when the key is cached: Bearer-key
 * authentication with subscription and agreement checks, then the per-key rate limit of the route's
 * class (RateLimit-Limit/-Remaining/-Reset headers; 429 rate_limited with Retry-After beyond it);
 * counted in Redis when REDIS_URL is set (then asynchronously), else in memory.
 *
 * Failed authentications (401) are counted per client address (`failures`; `request.ip`, which
 * honours PARASOL_TRUST_PROXY). Once an address reaches its limit, any key of it that this process
 * has never found in the database is answered 429 rate_limited with Retry-After, before hashing or
 * any lookup, until the minute ends: a flood of random keys then costs a map lookup per request.
 * Keys already known keep working (a partner behind the same NAT or proxy is not locked out by it).
 */
export function securePartnerApi<A extends string>(
  scope: FastifyInstance,
  options: {
    api: A;
    directory: KeyDirectory<A>;
    limiter: KeyRateLimiter;
    failures?: FailedAuthLimiter | undefined;
    operators?: OperatorAuthenticator | undefined;
  },
): void {
  const { failures, directory } = options;
  /** 429 when the address has failed too often: called only for keys this process never found. */
  const throttle = (request: FastifyRequest, reply: FastifyReply): void => {
    if (!failures) return;
    const wait = failures.blockedFor(request.ip);
    if (wait > 0) {
      reply.header('Retry-After', wait);
      throw new DomainError('rate_limited', `Too many failed authentications from your address; retry in ${wait} s.`);
    }
  };
  const counted = (request: FastifyRequest, error: unknown): unknown => {
    if (failures && error instanceof DomainError && error.code === 'unauthenticated') failures.fail(request.ip);
    return error;
  };
  const apply = (reply: FastifyReply, decision: RateDecision): void => {
    reply
      .header('RateLimit-Limit', decision.limit)
      .header('RateLimit-Remaining', decision.remaining)
      .header('RateLimit-Reset', decision.resetSeconds);
    if (decision.exceeded) {
      reply.header('Retry-After', decision.resetSeconds);
      throw new DomainError(
        'rate_limited',
        `Rate limit of ${decision.limit} requests per minute exceeded for this key; retry in ${decision.resetSeconds} s.`,
      );
    }
  };
  /** Synchronous with the in-memory limiter; a promise with Redis. */
  const limit = (
    request: FastifyRequest,
    reply: FastifyReply,
    bucket: string,
    partnerId?: string,
  ): void | Promise<void> => {
    const decision = options.limiter.hit(
      bucket,
      rateClassOf(request.method, request.routeOptions.config.rateClass),
      partnerId,
    );
    return decision instanceof Promise ? decision.then((d) => apply(reply, d)) : apply(reply, decision);
  };
  const admit = (request: FastifyRequest, reply: FastifyReply, caller: Caller): void | Promise<void> => {
    request.caller = caller;
    return limit(request, reply, caller.keyId, caller.partnerId);
  };
  scope.addHook('onRequest', (request, reply, done) => {
    try {
      if (options.operators && request.routeOptions.config.operatorAccess) {
        const credential = readBearer(request.headers.authorization);
        const token = credential.kind === 'token' ? credential.token : undefined;
        if (token && isOperatorToken(token)) {
          throttle(request, reply); // operator tokens are not cached: each costs a lookup
          options
            .operators(token)
            .then((operator) => {
              if (!operator)
                throw counted(
                  request,
                  new BearerError('unauthenticated', 'This operator token is unknown or revoked.', 'invalid_token'),
                );
              request.operator = operator;
              return limit(request, reply, `operator:${operator.tokenId}`);
            })
            .then(() => done(), done);
          return;
        }
      }
      const caller = authenticateRequest(
        directory,
        request,
        options.api,
        failures ? () => throttle(request, reply) : undefined,
      );
      if (caller instanceof Promise) {
        caller
          .then((c) => admit(request, reply, c))
          .then(
            () => done(),
            (error: Error) => done(counted(request, error) as Error),
          );
      } else {
        const admitted = admit(request, reply, caller);
        if (admitted instanceof Promise)
          admitted.then(
            () => done(),
            (error: Error) => done(error),
          );
        else done();
      }
    } catch (error) {
      done(counted(request, error) as Error);
    }
  });
}

/** The authenticated caller; only inside a scope set up by securePartnerApi. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error('route outside an authenticated scope');
  return request.caller;
}

/** The documented Idempotency-Key header of creating and state-changing operations. */
export const IdempotencyHeader = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description:
        'Any unique string (a UUID): a retry with the same key and body replays the first response, byte for byte.',
    },
  },
} as const;

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  return Array.isArray(value) ? value[0] : value;
}

/** Serializes a body as the route would (its response schema for that status): what runIdempotent stores. */
export function serializerOf(reply: FastifyReply): Serialize {
  return (status, body) => {
    const payload = reply.code(status).serialize(body);
    if (typeof payload !== 'string') throw new Error('A JSON response serialized to something other than text');
    return payload;
  };
}

/**
 * Sends an outcome's serialized bytes as they are: the first answer and every replay are identical.
 * `location` names the resource a 201 created (its `Location` header), `etag` the version of the
 * resource answered (its `ETag`, platform/preconditions.ts; none when the answer names no version, as
 * one stored before versions existed), each read from the answer's body so a replay carries it too.
 */
export function sendOutcome(
  reply: FastifyReply,
  outcome: Outcome,
  location?: (created: Record<string, unknown>) => string,
  etag?: (answer: Record<string, unknown>) => string | undefined,
): FastifyReply {
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  const answer = () => JSON.parse(outcome.payload) as Record<string, unknown>;
  if (location && outcome.status === 201) reply.header('Location', location(answer()));
  const tag = etag?.(answer());
  if (tag !== undefined) reply.header('ETag', tag);
  return reply.code(outcome.status).type('application/json; charset=utf-8').send(outcome.payload);
}

/**
 * A state-changing route's handler body: runs the use case in one transaction under the request's
 * Idempotency-Key (idempotency.ts) and sends the outcome, a replay byte for byte like the first answer.
 * `operation` names what a key may be used for; `key` is what the key stands for (default: the body;
 * add the path's parameters when they name the thing changed); `after` runs once the outcome is known
 * (metrics, caches), on replays too (it sees `outcome.replayed`).
 */
export async function replyIdempotent<T>(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  op: {
    operation: string;
    status: number;
    key?: unknown;
    /** `storeResponse`: see `StoreResponse` (platform/idempotency.ts); an operation may ignore it. */
    run: (trx: Trx, caller: Caller, storeResponse: (body: T) => CountedWrite | undefined) => Promise<T>;
    after?: (outcome: Outcome, caller: Caller) => unknown;
    /** A creating route's `Location`: the path where the created resource is read (see `sendOutcome`). */
    location?: (created: Record<string, unknown>) => string;
    /** The `ETag` of the resource answered, from its body (see `sendOutcome`). */
    etag?: (answer: Record<string, unknown>) => string | undefined;
  },
): Promise<FastifyReply> {
  const caller = callerOf(request);
  const outcome = await runIdempotent(
    deps,
    { ...caller, operation: op.operation },
    idempotencyKeyOf(request),
    op.key ?? request.body,
    serializerOf(reply),
    async (trx, storeResponse) => ({
      status: op.status,
      body: await op.run(trx, caller, (body) => storeResponse(op.status, body)),
    }),
  );
  await op.after?.(outcome, caller);
  return sendOutcome(reply, outcome, op.location, op.etag);
}
