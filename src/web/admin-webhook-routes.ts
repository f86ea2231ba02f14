import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ENVIRONMENTS, requirePartner, type Environment, type Partner } from '../partners/index.ts';
import { DomainError } from '../platform/errors.ts';
import {
  endpointsHealth,
  listDeliveries,
  listEndpoints,
  redeliver,
  sendTestEvent,
  setEndpointEnabled,
  WEBHOOK_DELIVERY_STATUSES,
  type OperatorOnce,
  type WebhookEndpointView,
} from '../webhooks/index.ts';
import { randomToken } from '../platform/crypto.ts';
import { adminWebhooksPage, type AdminWebhooksFilter, type AdminWebhooksOutcome } from './admin-webhook-view.ts';
import { sessionActor } from './sessions.ts';
import {
  contextOf,
  field,
  langOf,
  oneOf,
  problemLines,
  sendPage,
  webhookDepsOf,
  type FormBody,
  type WebDeps,
} from './web-kit.ts';

/**
 * The operator console's page of one partner's webhooks (docs/webhooks.md, "Operator console"): its
 * endpoints per environment with their state (active, paused and why, failing since when), the
 * delivery log with every attempt, keyset-paged, and the operator actions of the CLI an operator
 * needs when a partner says an event never arrived — resume or pause an endpoint, send a test event,
 * send a delivery again — through the same use cases (their audit rows name the operator); the last two,
 * which queue a delivery, once per page shown (its one-time `actionToken`: a double submit queues one,
 * then says so — `done=replayed`). Never a
 * signing secret: the actions that answer one (add, rotate) stay the partner's and the CLI's.
 * Registered inside the operator scope: session and CSRF are checked there.
 */

const DONE = ['resumed', 'paused', 'test', 'redelivered', 'replayed'] as const;
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const WebhooksQuery = Type.Object({
  /** Absent or empty: the default one (defaultEnvironment). */
  env: Type.Optional(Type.Union([oneOf<Environment>(ENVIRONMENTS), Type.Literal('')])),
  status: Type.Optional(Type.Union([oneOf(WEBHOOK_DELIVERY_STATUSES), Type.Literal('')])),
  endpoint: Type.Optional(Type.Union([Type.String({ pattern: UUID_PATTERN }), Type.Literal('')])),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
  /** The redirect after an action. */
  done: Type.Optional(oneOf(DONE)),
});
type WebhooksQueryType = Static<typeof WebhooksQuery>;

export function adminWebhooks(deps: WebDeps): FastifyPluginAsync {
  const webhooks = webhookDepsOf(deps);

  const filterOf = (query: WebhooksQueryType): AdminWebhooksFilter => ({
    env: query.env || undefined,
    status: query.status || undefined,
    endpoint: query.endpoint?.toLowerCase() || undefined,
    cursor: query.cursor || undefined,
  });

  /**
   * The log shows one environment at a time, production unless the partner has endpoints only
   * elsewhere (then the first of those): listDeliveries reads by (partner_id, environment, created_at,
   * id), and a log of every environment had no index to page with (seconds at 200k deliveries).
   */
  const defaultEnvironment = (endpoints: readonly WebhookEndpointView[]): Environment =>
    endpoints.some((e) => e.environment === 'production')
      ? 'production'
      : (ENVIRONMENTS.find((env) => endpoints.some((e) => e.environment === env)) ?? 'production');

  const render = async (
    request: FastifyRequest,
    partner: Partner,
    chosen: AdminWebhooksFilter,
    outcome: AdminWebhooksOutcome = {},
  ) => {
    const scope = { actor: sessionActor(request.webSession!), partnerId: partner.id };
    const endpoints = await listEndpoints(webhooks, scope);
    const filter = { ...chosen, env: chosen.env ?? defaultEnvironment(endpoints) };
    const health = await endpointsHealth(
      webhooks,
      endpoints.map((e) => e.id),
      { failingSince: true },
    );
    const page = await listDeliveries(
      webhooks,
      { ...scope, environment: filter.env },
      { limit: 20, cursor: filter.cursor, status: filter.status, endpointId: filter.endpoint },
    );
    // a fresh one-time token per page shown: each of its test and send-again forms is done once
    return adminWebhooksPage(
      contextOf(request, 'admin'),
      partner,
      endpoints,
      health,
      page,
      filter,
      outcome,
      randomToken(24),
    );
  };

  return async (app) => {
    app.get<{ Params: { slug: string }; Querystring: WebhooksQueryType }>(
      '/admin/partners/:slug/webhooks',
      { schema: { hide: true, querystring: WebhooksQuery } },
      async (request, reply) => {
        const partner = await requirePartner(deps.db, request.params.slug);
        const filter = filterOf(request.query);
        try {
          return sendPage(reply, 200, await render(request, partner, filter, { done: request.query.done }));
        } catch (error) {
          // a cursor typed wrong, an endpoint not the partner's: the first page, with what was wrong
          if (!(error instanceof DomainError) || error.status >= 500) throw error;
          const problems = problemLines(error, langOf(request));
          return sendPage(reply, 422, await render(request, partner, { env: filter.env }, { problems }));
        }
      },
    );

    /**
     * Runs an operator action on one of the partner's endpoints or deliveries, then back to the page
     * (303, its environment filter kept). Another partner's id is not found (404); a refusal of the use
     * case (a delivery still pending, an endpoint paused) is shown on the page, nothing written.
     */
    const action = (
      path: string,
      done: (typeof DONE)[number],
      run: (
        scope: { actor: string; partnerId: string },
        id: string,
        once: OperatorOnce,
      ) => Promise<{ replayed?: true } | void>,
    ) =>
      app.post<{ Params: { slug: string; id: string }; Body: FormBody }>(path, async (request, reply: FastifyReply) => {
        const partner = await requirePartner(deps.db, request.params.slug);
        const env = field(request.body, 'env', 20);
        const filter: AdminWebhooksFilter = {
          env: (ENVIRONMENTS as readonly string[]).includes(env) ? (env as Environment) : undefined,
        };
        let replayed: boolean;
        try {
          const result = await run(
            { actor: sessionActor(request.webSession!), partnerId: partner.id },
            request.params.id,
            { actionToken: field(request.body, 'actionToken', 100) },
          );
          replayed = result?.replayed === true;
        } catch (error) {
          if (!(error instanceof DomainError) || error.status === 404 || error.status >= 500) throw error;
          const problems = problemLines(error, langOf(request));
          return sendPage(
            reply,
            error.status === 409 ? 409 : 422,
            await render(request, partner, filter, { problems }),
          );
        }
        const query = new URLSearchParams({
          ...(filter.env ? { env: filter.env } : {}),
          done: replayed ? 'replayed' : done,
        }).toString();
        return reply.redirect(`/admin/partners/${partner.slug}/webhooks?${query}`, 303);
      });

    action('/admin/partners/:slug/webhooks/:id/resume', 'resumed', async (scope, id) => {
      await setEndpointEnabled(webhooks, scope, id, true);
    });
    action('/admin/partners/:slug/webhooks/:id/pause', 'paused', async (scope, id) => {
      await setEndpointEnabled(webhooks, scope, id, false);
    });
    action('/admin/partners/:slug/webhooks/:id/test', 'test', (scope, id, once) =>
      sendTestEvent(webhooks, scope, id, once),
    );
    action('/admin/partners/:slug/webhooks/deliveries/:id/redeliver', 'redelivered', (scope, id, once) =>
      redeliver(webhooks, scope, id, once),
    );
  };
}
