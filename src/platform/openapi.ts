import swagger from '@fastify/swagger';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { FIELD_ERROR_CODES } from './errors.ts';

/**
 * One OpenAPI 3.1 document per API, served at `{base}/openapi.json`. @fastify/swagger is registered
 * once per API under its own decorator; its transform keeps the routes under the API's base path,
 * relative to a `servers` entry for that base, and hides everything else.
 */
export interface ApiDocument {
  /** Decorator name, e.g. "flightDelayOpenapi". */
  decorator: string;
  prefix: string;
  title: string;
  version: string;
  description: string;
  tags?: { name: string; description: string }[];
}

export async function registerApiDocument(app: FastifyInstance, doc: ApiDocument): Promise<void> {
  await app.register(swagger, {
    decorator: doc.decorator,
    openapi: {
      openapi: '3.1.0',
      info: { title: doc.title, version: doc.version, description: doc.description },
      servers: [{ url: doc.prefix, description: 'this deployment (relative to its origin)' }],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              'Your API key: `Authorization: Bearer psl_sbx_…`. Sandbox, preproduction and production keys differ.',
          },
        },
      },
      security: [{ apiKey: [] }],
      ...(doc.tags ? { tags: doc.tags } : {}),
    },
    transform: ({ schema, url }) => {
      const inApi = url.toLowerCase().startsWith(`${doc.prefix.toLowerCase()}/`) && !url.endsWith('/openapi.json');
      if (!inApi) return { schema: { ...(schema ?? {}), hide: true } as typeof schema, url };
      return {
        schema: withPlatformProblems(schema as Record<string, unknown> | undefined) as typeof schema,
        url: url.slice(doc.prefix.length),
      };
    },
  });
  app.get(`${doc.prefix}/openapi.json`, { schema: { hide: true } }, async (_request, reply) => {
    const decorated = (app as unknown as Record<string, () => unknown>)[doc.decorator];
    return reply.type('application/json; charset=utf-8').send(decorated!.call(app));
  });
}

/** RFC 9457 problem body, as documented in every error response. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI identifying the problem type, `urn:parasol:problem:<code>`' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable machine-readable code, e.g. `quote_expired`.' }),
    instance: Type.Optional(Type.String()),
    requestId: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({ description: 'JSON Pointer into the body, e.g. `/departureAirport`' }),
          code: Type.Union(
            FIELD_ERROR_CODES.map((c) => Type.Literal(c)),
            {
              description:
                'Stable code of what is wrong with the field, e.g. `required`, `out_of_range`, `not_increasing`.',
            },
          ),
          message: Type.String({ description: 'English prose for a developer; translate by `code`.' }),
        }),
      ),
    ),
  },
  { additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json)' },
);

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed JSON, or a URL whose percent-encoding is not UTF-8',
  401: 'Missing or invalid API key',
  403: 'Not subscribed to this API, or agreement not signed',
  404: 'Not found (or not yours)',
  409: 'State conflict',
  422: 'Well-formed but invalid',
  429: 'Rate limited (the per-key limit, or too many failed authentications from your address); see Retry-After',
};

/**
 * What the platform answers on every route before the route itself runs, documented on every
 * operation: another method on a known path (405, with `Allow`), a URL over 8 KiB or a path
 * segment over 100 characters (414) and, for operations taking a body, a body over 64 KiB (413) or
 * not `application/json` (415). Added when the document is built, so no route can forget them.
 */
const PLATFORM_STATUS_TEXT: Record<number, string> = {
  405: 'Method not allowed on this path; the Allow header lists the methods it answers',
  413: 'Body larger than 64 KiB',
  414: 'URL longer than 8 KiB, or a path segment longer than 100 characters',
  415: 'Body not sent as application/json',
};

function withPlatformProblems(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const statuses = schema?.body ? [405, 413, 414, 415] : [405, 414];
  const response = { ...((schema?.response as Record<string, unknown> | undefined) ?? {}) };
  for (const status of statuses) response[status] ??= { ...ProblemSchema, description: PLATFORM_STATUS_TEXT[status] };
  return { ...(schema ?? {}), response };
}

/** The error responses of a route, each a problem+json body. */
export function problemResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of [400, 401, 403, 429, ...statuses])
    out[status] = { ...ProblemSchema, description: STATUS_TEXT[status] ?? 'Error' };
  return out;
}
