import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiName } from '../partners/model.ts';
import { authenticateRequest, type Caller, type PartnerDirectory } from './auth.ts';
import { DomainError } from './errors.ts';
import type { Outcome } from './idempotency.ts';
import type { RateLimiter } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/**
 * What every partner API scope gets, in one synchronous hook when the key is cached: Bearer-key
 * authentication with subscription and agreement checks, then the per-key rate limit
 * (RateLimit-Limit/-Remaining/-Reset headers; 429 rate_limited with Retry-After beyond it).
 */
export function securePartnerApi(scope: FastifyInstance, options: { api: ApiName; directory: PartnerDirectory; limiter: RateLimiter }): void {
  const admit = (request: FastifyRequest, reply: FastifyReply, caller: Caller): void => {
    request.caller = caller;
    const decision = options.limiter.hit(caller.keyId);
    reply.header('RateLimit-Limit', decision.limit).header('RateLimit-Remaining', decision.remaining).header('RateLimit-Reset', decision.resetSeconds);
    if (decision.exceeded) {
      reply.header('Retry-After', decision.resetSeconds);
      throw new DomainError('rate_limited', `Rate limit of ${decision.limit} requests per minute exceeded for this key; retry in ${decision.resetSeconds} s.`);
    }
  };
  scope.addHook('onRequest', (request, reply, done) => {
    try {
      const caller = authenticateRequest(options.directory, request, options.api);
      if (caller instanceof Promise) {
        caller.then((c) => admit(request, reply, c)).then(() => done(), done);
      } else {
        admit(request, reply, caller);
        done();
      }
    } catch (error) {
      done(error as Error);
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
    'idempotency-key': { type: 'string', minLength: 1, maxLength: 255, description: 'Any unique string (a UUID): a retry with the same key and body replays the first response.' },
  },
} as const;

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  return Array.isArray(value) ? value[0] : value;
}

export function sendOutcome<T>(reply: FastifyReply, outcome: Outcome<T>): FastifyReply {
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(outcome.status).send(outcome.body);
}
