import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ERROR_CODES, type ErrorCode, type FieldError } from './errors.ts';

/**
 * RFC 9457 problem details. Every error of every API leaves through `installErrorHandling`:
 * domain errors, schema validation errors, body parsing errors, unknown routes and crashes.
 * 5xx bodies say nothing about the cause; the cause goes to the log with the request id.
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

export const problemType = (code: ErrorCode): string => `urn:parasol:problem:${code}`;

export function problemFor(code: ErrorCode, detail: string, extra: Record<string, unknown> = {}): Problem {
  const { status, title } = ERROR_CODES[code];
  return { type: problemType(code), title, status, detail, code, ...extra };
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: Problem): FastifyReply {
  return reply
    .code(problem.status)
    .type('application/problem+json; charset=utf-8')
    .send({ ...problem, instance: request.url.split('?')[0], requestId: request.id });
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns Ajv errors into `{ field, message }` with JSON Pointers into the body. */
function fieldErrors(validation: AjvError[], context: string | undefined): FieldError[] {
  const where = context && context !== 'body' ? `${context}:` : '';
  return validation.map((e) => {
    let field = e.instancePath || '';
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') field += `/${String(e.params.missingProperty)}`, (message = 'is required');
    if (e.keyword === 'additionalProperties') field += `/${String(e.params.additionalProperty)}`, (message = 'is not a known field');
    if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) message = `must be one of ${e.params.allowedValues.join(', ')}`;
    return { field: `${where}${field || '/'}`, message };
  });
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | DomainError, request, reply) => {
    if (error instanceof DomainError) {
      return sendProblem(request, reply, problemFor(error.code, error.detail, error.extra));
    }
    if (error.validation) {
      const errors = fieldErrors(error.validation as AjvError[], error.validationContext);
      const detail = errors.length === 1 ? `${errors[0]!.field} ${errors[0]!.message}` : `${errors.length} fields are invalid.`;
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
    if (error.statusCode === 415) return sendProblem(request, reply, problemFor('unsupported_media_type', 'Send the body as application/json.'));
    if (error.statusCode === 413) return sendProblem(request, reply, problemFor('payload_too_large', 'The body is too large.'));
    if (isDatabaseUnavailable(error)) {
      request.log.error({ err: error }, 'database unavailable');
      return sendProblem(request, reply, problemFor('service_unavailable', 'A dependency is unavailable; retry later.'));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(request, reply, problemFor('internal_error', 'Something went wrong on our side. Quote the requestId to support.'));
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, problemFor('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );
}

function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNREFUSED' || code === '57P01' || code === '57P03' || code === '53300';
}
