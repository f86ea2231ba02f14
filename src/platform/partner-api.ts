import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiName } from '../partners/model.ts';
import { authenticateRequest, type Caller, type PartnerDirectory } from './auth.ts';
import { DomainError } from './errors.ts';
import type { Outcome } from './idempotency.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/**
 * What every partner API scope gets: Bearer-key authentication with subscription and agreement
 * checks, then a per-key rate limit (RateLimit-* headers, 429 with Retry-After).
 */
export async function securePartnerApi(scope: FastifyInstance, options: { api: ApiName; directory: PartnerDirectory; rateLimitPerMinute: number }): Promise<void> {
  scope.addHook('onRequest', async (request) => {
    request.caller = await authenticateRequest(options.directory, request, options.api);
  });
  await scope.register(rateLimit, {
    max: options.rateLimitPerMinute,
    timeWindow: 60_000,
    hook: 'onRequest',
    enableDraftSpec: true,
    keyGenerator: (request) => request.caller?.keyId ?? request.ip,
    errorResponseBuilder: (_request, context) =>
      new DomainError('rate_limited', `Rate limit of ${context.max} requests per minute exceeded for this key; retry in ${Math.ceil(context.ttl / 1000)} s.`),
  });
}

/** The authenticated caller; only inside a scope set up by securePartnerApi. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error('route outside an authenticated scope');
  return request.caller;
}

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  return Array.isArray(value) ? value[0] : value;
}

export function sendOutcome<T>(reply: FastifyReply, outcome: Outcome<T>): FastifyReply {
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(outcome.status).send(outcome.body);
}
