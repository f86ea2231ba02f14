import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { PartnerDirectory } from '../partners/index.ts';
import { problemResponses, withExample } from '../platform/openapi.ts';
import { PageLimit, StringEnum } from '../platform/schema.ts';
import {
  callerOf,
  IdempotencyHeader,
  replyIdempotent,
  securePartnerApi,
  type OperatorAuthenticator,
} from '../platform/partner-api.ts';
import type { FailedAuthLimiter } from '../platform/rate-limit.ts';
import type { KeyRateLimiter } from '../platform/shared-rate-limit.ts';
import type { WebhookDeps } from './deps.ts';
import { WEBHOOK_DELIVERY_STATUSES } from './model.ts';
import { WEBHOOK_RESPONSE_EXAMPLES as EX } from './response-examples.ts';
import { WEBHOOK_EVENT_TYPES } from './webhook-events.ts';
import {
  addEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  removeEndpoint,
  rotateSecret,
  sendTestEvent,
  updateEndpointSettings,
  type WebhookEndpointView,
} from './webhooks.ts';
import {
  CREATE_ENDPOINT_DESCRIPTION,
  UPDATE_ENDPOINT_DESCRIPTION,
  REDELIVER_DESCRIPTION,
} from './route-descriptions.ts';

/**
 * Webhook endpoints and deliveries through the partner API (the same use cases as the partner
 * console): each key sees and changes only its own partner's endpoints in its own environment.
 * Registered under the Flight Delay API's prefix (its events are that API's), at `/webhooks/…`.
 */

const tags = ['Webhooks'];
const Id = Type.String({ format: 'uuid', maxLength: 36, description: 'The endpoint id.' });
const EventType = Type.Union(
  WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'An event type.' },
);
/** An event type asked for: documented as the enum the server checks (webhooks.ts, parseEventTypes). */
const EventTypeIn = StringEnum(WEBHOOK_EVENT_TYPES, { description: 'An event type to send to the endpoint.' });
const DateTime = Type.String({ format: 'date-time', maxLength: 40 });

export const WebhookEndpoint = Type.Object(
  {
    id: Id,
    environment: Type.String({ maxLength: 20, description: 'The environment of the key that created it.' }),
    url: Type.String({ maxLength: 2000, description: 'HTTPS URL on the public Internet.' }),
    description: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
    eventTypes: Type.Union([Type.Array(EventType, { maxItems: WEBHOOK_EVENT_TYPES.length }), Type.Null()], {
      description: 'The event types sent to it; null = every type, including types added later.',
    }),
    enabled: Type.Boolean({
      description:
        'A disabled (paused) endpoint gets no deliveries, not even later for the events emitted meanwhile. Cleared by the platform when the receiver answers 410 Gone at this URL, or when no attempt has succeeded for days (see `pausedReason`); set it back to true to resume.',
    }),
    pausedReason: Type.Union([StringEnum(['manual', 'gone', 'failing'] as const), Type.Null()], {
      description:
        'Why it is paused; null while enabled. `manual`: paused by you or by a Parasol operator; `gone`: the receiver answered 410 Gone at this URL; `failing`: no attempt succeeded for days while many failed (docs/webhooks.md, "Paused endpoints"). Cleared on resume.',
    }),
    pausedAt: Type.Union([DateTime, Type.Null()], { description: 'When it was paused; null while enabled.' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { title: 'WebhookEndpoint', description: 'A URL your events are POSTed to.' },
);

const Secret = Type.String({
  maxLength: 60,
  description: '`whsec_…`, the Standard Webhooks signing secret: shown in this answer only, stored encrypted.',
});

/** An endpoint's id (a UUID, as `POST /webhooks/endpoints` answers it); another answers 404. */
const EndpointIdParams = Type.Object({
  id: Type.String({
    maxLength: 100,
    description: 'The endpoint id.',
    examples: ['3f0a6c1e-8b2d-4d7e-9c55-1a2b3c4d5e6f'],
  }),
});

const CreateEndpointBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000 }),
    eventTypes: Type.Optional(
      Type.Array(EventTypeIn, {
        minItems: 1,
        maxItems: 50,
        description: 'Absent = every event type.',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 200 })),
  },
  {
    additionalProperties: false,
    examples: [{ url: 'https://example.com/parasol/webhooks', eventTypes: ['claim.paid'] }],
  },
);

const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    eventTypes: Type.Optional(
      Type.Union([Type.Array(EventTypeIn, { minItems: 1, maxItems: 50 }), Type.Null()], {
        description: 'null = every event type.',
      }),
    ),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    enabled: Type.Optional(
      Type.Boolean({ description: 'false pauses the endpoint: its pending deliveries end failed.' }),
    ),
  },
  { additionalProperties: false, examples: [{ enabled: false }] },
);

const Attempt = Type.Object({
  attempt: Type.Integer({ format: 'int32', minimum: 1, maximum: 2147483647 }),
  at: DateTime,
  statusCode: Type.Union([Type.Integer({ format: 'int32', minimum: 100, maximum: 999 }), Type.Null()]),
  durationMs: Type.Integer({ format: 'int32', minimum: 0, maximum: 2147483647 }),
  error: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
});

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ format: 'uuid', maxLength: 36 }),
    eventId: Type.String({ maxLength: 100, description: 'The event id, sent as `webhook-id` on every attempt.' }),
    eventType: Type.String({ maxLength: 60 }),
    endpointId: Id,
    url: Type.String({ maxLength: 2000 }),
    environment: Type.String({ maxLength: 20 }),
    status: Type.Union(WEBHOOK_DELIVERY_STATUSES.map((s) => Type.Literal(s))),
    attempts: Type.Integer({ format: 'int32', minimum: 0, maximum: 2147483647 }),
    nextAttemptAt: Type.Union([DateTime, Type.Null()]),
    lastAttemptAt: Type.Union([DateTime, Type.Null()]),
    lastStatusCode: Type.Union([Type.Integer({ format: 'int32', minimum: 100, maximum: 999 }), Type.Null()]),
    lastError: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
    createdAt: DateTime,
    completedAt: Type.Union([DateTime, Type.Null()]),
    attemptLog: Type.Array(Attempt, { maxItems: 100 }),
  },
  {
    title: 'WebhookDelivery',
    description: 'One event sent to one endpoint, with its attempts.',
  },
);

const DeliveriesQuery = Type.Object(
  {
    endpointId: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(
      Type.Union(
        WEBHOOK_DELIVERY_STATUSES.map((s) => Type.Literal(s)),
        { examples: ['failed'] },
      ),
    ),
    cursor: Type.Optional(
      Type.String({
        maxLength: 500,
        description:
          'nextCursor of the previous page, with the same filters as that page (other filters: 422 invalid_cursor).',
      }),
    ),
    limit: Type.Optional(
      PageLimit({ min: 1, max: 100 }, { description: 'Deliveries per page, 1 to 100 (default 20).', examples: ['20'] }),
    ),
  },
  { additionalProperties: false },
);

/** The partner id is the caller's own: not part of the API's answer. */
const strip = ({ partnerId: _partnerId, ...endpoint }: WebhookEndpointView) => endpoint;

export function webhookApiRoutes(
  deps: WebhookDeps,
  options: {
    directory: PartnerDirectory;
    limiter: KeyRateLimiter;
    failures?: FailedAuthLimiter;
    operators?: OperatorAuthenticator;
  },
): FastifyPluginAsync {
  return async (plugin) => {
    securePartnerApi(plugin, { api: 'flight-delay', ...options });
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const idempotencyDeps = { db: deps.db, encryptionKey: deps.keys.encryption };
    const scopeOf = (request: Parameters<typeof callerOf>[0]) => {
      const caller = callerOf(request);
      return { actor: caller.actor, partnerId: caller.partnerId, environment: caller.environment };
    };

    app.get('/webhooks/endpoints', {
      schema: {
        tags,
        operationId: 'listWebhookEndpoints',
        summary: 'List your webhook endpoints',
        description: "The endpoints of this key's environment, oldest first (at most 10).",
        response: {
          200: withExample(
            Type.Object(
              { endpoints: Type.Array(WebhookEndpoint, { maxItems: 10 }) },
              { description: 'Your endpoints' },
            ),
            EX.listWebhookEndpoints,
          ),
          ...problemResponses(),
        },
      },
      handler: async (request) => ({
        endpoints: (await listEndpoints(deps, scopeOf(request))).map(strip),
      }),
    });

    app.post('/webhooks/endpoints', {
      schema: {
        tags,
        operationId: 'createWebhookEndpoint',
        summary: 'Register a webhook endpoint',
        description: CREATE_ENDPOINT_DESCRIPTION,
        headers: IdempotencyHeader,
        body: CreateEndpointBody,
        response: {
          201: withExample(
            Type.Object({ endpoint: WebhookEndpoint, secret: Secret }, { description: 'Registered' }),
            EX.createWebhookEndpoint,
          ),
          ...problemResponses({ 409: ['webhook_endpoint_limit'], 422: ['webhook_url_not_allowed'] }),
        },
      },
      handler: async (request, reply) =>
        replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'webhooks.create_endpoint',
          status: 201,
          run: async (trx) => {
            const created = await addEndpoint(deps, scopeOf(request), request.body, trx);
            return { endpoint: strip(created.endpoint), secret: created.secret };
          },
          // committed (or replayed): this process's cache of live endpoints learns it at once
          after: () => deps.endpoints?.invalidate(),
          // the route's own path (under the API's prefix) and the new id: where the endpoint is read
          location: (created) => `${request.routeOptions.url}/${(created.endpoint as { id: string }).id}`,
        }),
    });

    app.get('/webhooks/endpoints/:id', {
      schema: {
        tags,
        operationId: 'getWebhookEndpoint',
        summary: 'Read a webhook endpoint',
        description: 'One of your endpoints; another partner’s or a removed one answers 404.',
        params: EndpointIdParams,
        response: {
          200: withExample({ ...WebhookEndpoint, description: 'The endpoint' }, EX.getWebhookEndpoint),
          ...problemResponses({ 404: ['webhook_endpoint_not_found'] }),
        },
      },
      handler: async (request) => strip(await getEndpoint(deps, scopeOf(request), request.params.id)),
    });

    app.patch('/webhooks/endpoints/:id', {
      schema: {
        tags,
        operationId: 'updateWebhookEndpoint',
        summary: 'Change a webhook endpoint',
        description: UPDATE_ENDPOINT_DESCRIPTION,
        params: EndpointIdParams,
        body: UpdateEndpointBody,
        response: {
          200: withExample({ ...WebhookEndpoint, description: 'The endpoint changed' }, EX.updateWebhookEndpoint),
          ...problemResponses({ 404: ['webhook_endpoint_not_found'], 422: ['webhook_url_not_allowed'] }),
        },
      },
      handler: async (request) =>
        strip(await updateEndpointSettings(deps, scopeOf(request), request.params.id, request.body)),
    });

    app.delete('/webhooks/endpoints/:id', {
      schema: {
        tags,
        operationId: 'deleteWebhookEndpoint',
        summary: 'Remove a webhook endpoint',
        description: 'Nothing more is sent to it; its pending deliveries end failed. Answers the endpoint as it was.',
        params: EndpointIdParams,
        response: {
          200: withExample({ ...WebhookEndpoint, description: 'The endpoint removed' }, EX.deleteWebhookEndpoint),
          ...problemResponses({ 404: ['webhook_endpoint_not_found'] }),
        },
      },
      handler: async (request) => strip(await removeEndpoint(deps, scopeOf(request), request.params.id)),
    });

    app.post('/webhooks/endpoints/:id/rotate-secret', {
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret',
        description:
          'A new secret, answered once; for 24 hours the previous one keeps signing too (two signatures in `webhook-signature`).',
        params: EndpointIdParams,
        response: {
          200: withExample(
            Type.Object(
              { endpoint: WebhookEndpoint, secret: Secret, previousSecretValidUntil: DateTime },
              { description: 'The new secret' },
            ),
            EX.rotateWebhookSecret,
          ),
          ...problemResponses({ 404: ['webhook_endpoint_not_found'] }),
        },
      },
      handler: async (request) => {
        const rotated = await rotateSecret(deps, scopeOf(request), request.params.id);
        return { ...rotated, endpoint: strip(rotated.endpoint) };
      },
    });

    app.post('/webhooks/endpoints/:id/test', {
      schema: {
        tags,
        operationId: 'sendWebhookTest',
        summary: 'Send a test event',
        description: 'Queues a `webhook.test` event to this endpoint only; 409 webhook_endpoint_disabled when paused.',
        params: EndpointIdParams,
        response: {
          202: withExample(
            Type.Object(
              { eventId: Type.String({ maxLength: 100 }), deliveryId: Type.String({ format: 'uuid', maxLength: 36 }) },
              { description: 'Queued' },
            ),
            EX.sendWebhookTest,
          ),
          ...problemResponses({ 404: ['webhook_endpoint_not_found'], 409: ['webhook_endpoint_disabled'] }),
        },
      },
      handler: async (request, reply) =>
        reply.code(202).send(await sendTestEvent(deps, scopeOf(request), request.params.id)),
    });

    app.get('/webhooks/deliveries', {
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log',
        description:
          'Deliveries of this environment, newest first, each with its attempts; filter by endpoint and status; `nextCursor` for the next page (null on the last). Following it returns every matching delivery that existed when you read the first page, once; a delivery created while you page may or may not be listed.',
        querystring: DeliveriesQuery,
        response: {
          200: withExample(
            Type.Object(
              {
                deliveries: Type.Array(WebhookDelivery, { maxItems: 100 }),
                nextCursor: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
              },
              { description: 'A page of deliveries' },
            ),
            EX.listWebhookDeliveries,
          ),
          ...problemResponses({ 404: ['webhook_endpoint_not_found'], 422: ['invalid_cursor'] }),
        },
      },
      handler: async (request) =>
        listDeliveries(deps, scopeOf(request), {
          ...request.query,
          limit: request.query.limit === undefined ? undefined : Number(request.query.limit),
        }),
    });

    app.post('/webhooks/deliveries/:id/redeliver', {
      schema: {
        tags,
        operationId: 'redeliverWebhook',
        summary: 'Send a past event again',
        description: REDELIVER_DESCRIPTION,
        params: Type.Object({
          id: Type.String({
            maxLength: 100,
            description: 'The delivery id.',
            examples: ['9b7e4d2a-5c31-4f86-a0d9-7e6f5a4b3c2d'],
          }),
        }),
        response: {
          202: withExample(
            Type.Object(
              {
                deliveryId: Type.String({ format: 'uuid', maxLength: 36 }),
                eventId: Type.String({ maxLength: 100 }),
                attempt: Type.Integer({
                  format: 'int32',
                  minimum: 1,
                  maximum: 2147483647,
                  description: 'The attempt number queued.',
                }),
              },
              { description: 'Queued' },
            ),
            EX.redeliverWebhook,
          ),
          ...problemResponses({
            404: ['webhook_delivery_not_found'],
            409: ['webhook_endpoint_disabled', 'webhook_delivery_pending'],
          }),
        },
      },
      handler: async (request, reply) =>
        reply.code(202).send(await redeliver(deps, scopeOf(request), request.params.id)),
    });
  };
}
