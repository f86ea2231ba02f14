import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { UNMATCHED_ROUTE } from './metrics.ts';

/**
 * One JSON log line per request, instead of Fastify's two ("incoming request", "request
 * completed") and its "Route … not found" line: method, route pattern, status and duration, with
 * the request id (`reqId`) pino binds to every line of the request. The raw URL is not logged: paths
 * carry credentials (`/c/<token>`, the bank-details link) and query strings whatever callers put
 * there; the route pattern says which handler answered. An answer with an error (5xx) logs at error
 * level with it; the rest at info.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = requestLine(request, reply);
    if (error || reply.statusCode >= 500) reply.log.error(error ? { ...line, err: error } : line, 'request failed');
    else reply.log.info(line, 'request');
  }
}

export function requestLine(request: FastifyRequest, reply: FastifyReply) {
  return {
    method: request.method,
    route: request.routeOptions.url ?? UNMATCHED_ROUTE,
    statusCode: reply.statusCode,
    responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
  };
}
