import type { Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  addEndpoint,
  endpointsHealth,
  redeliver,
  listDeliveries,
  listEndpoints,
  removeEndpoint,
  rotateSecret,
  sendTestEvent,
  setEndpointEnabled,
} from '../webhooks/index.ts';
import { ENVIRONMENTS, type Environment } from '../partners/index.ts';
import { randomToken } from '../platform/crypto.ts';
import { DomainError } from '../platform/errors.ts';
import { t } from '../i18n/index.ts';
import { sessionActor } from './sessions.ts';
import { webhooksPage, type Outcome } from './webhook-views.ts';
import {
  allow,
  contextOf,
  EnvironmentQuery,
  field,
  fieldList,
  langOf,
  problemLines,
  requireSession,
  sendPage,
  type FormBody,
  webhookDepsOf,
  type WebDeps,
  WHOLE,
} from './web-kit.ts';

/**
 * The console's webhook endpoints: add, pause/resume, test-send, rotate the secret, remove, and the
 * delivery log. "Send a test event" and "Send again", which queue a delivery, and "Rotate the secret"
 * are done once per page shown (its one-time `actionToken`, platform/action-token.ts, as the operator
 * page's): a double click or a resubmitted form queues one (then says so, `notice: 'replayed'`), or
 * rotates once: its second answer, the one the browser shows, shows the same secret again, 201, while
 * no later rotation replaced it (`notice: 'rotateReplayed'`), else no secret (`'rotateSuperseded'`).
 * The token is the partner's: one used already on another partner's endpoint is refused as a stale
 * form. Each change carries the user (`userId`): its right is checked again in the change's transaction.
 */
export function webhookRoutes(deps: WebDeps): FastifyPluginAsync {
  const webhooks = webhookDepsOf(deps);
  const environmentOf = (value: unknown): Environment =>
    (ENVIRONMENTS as readonly string[]).includes(String(value)) ? (value as Environment) : 'sandbox';
  return async (app) => {
    requireSession(app, deps, 'partner', 'console', '/portal/login');
    const scopeOf = (request: FastifyRequest, environment: Environment) => ({
      actor: sessionActor(request.webSession!),
      partnerId: request.webSession!.partnerId!,
      environment,
      // the user's right read again in each change's transaction (the early `allow` is the session's)
      userId: request.webSession!.accountId,
    });

    const render = async (request: FastifyRequest, environment: Environment, outcome: Outcome = {}) => {
      const scope = scopeOf(request, environment);
      const [endpoints, deliveries] = await Promise.all([
        listEndpoints(webhooks, scope),
        listDeliveries(webhooks, scope, { limit: 20 }),
      ]);
      const health = await endpointsHealth(
        webhooks,
        endpoints.map((e) => e.id),
      );
      // a fresh one-time token per page shown: each of its test, send-again and rotate forms is done once
      return webhooksPage(
        contextOf(request, 'console'),
        environment,
        endpoints,
        deliveries.deliveries,
        outcome,
        health,
        randomToken(24),
      );
    };

    app.get<{ Querystring: Static<typeof EnvironmentQuery> }>(
      '/console/webhooks',
      { schema: { hide: true, querystring: EnvironmentQuery } },
      async (request, reply) => sendPage(reply, 200, await render(request, request.query.env ?? 'sandbox')),
    );

    /** Runs a change; a domain error other than 403 (the right re-checked, lost meanwhile) or 404 is shown on the page (422). */
    const change = (
      path: string,
      run: (
        request: FastifyRequest<{ Body: FormBody; Params: { id?: string } }>,
        environment: Environment,
      ) => Promise<Outcome>,
    ) =>
      app.post<{ Body: FormBody; Params: { id?: string } }>(path, async (request, reply) => {
        allow(request, 'webhooks');
        const environment = environmentOf(field(request.body, 'env'));
        try {
          const outcome = await run(request, environment);
          return sendPage(reply, outcome.secret ? 201 : 200, await render(request, environment, outcome));
        } catch (error) {
          if (!(error instanceof DomainError) || [403, 404].includes(error.status) || error.status >= 500) throw error;
          const w = t(langOf(request));
          // each field told by the label next to it, not its API name
          const labels = { url: w.url, description: w.description, eventTypes: w.eventTypes };
          const problems = problemLines(error, langOf(request), labels);
          return sendPage(reply, 422, await render(request, environment, { problems }));
        }
      });

    change('/console/webhooks', async (request, environment) => {
      const types = fieldList(request.body, 'eventTypes');
      const created = await addEndpoint(webhooks, scopeOf(request, environment), {
        url: field(request.body, 'url', WHOLE),
        description: field(request.body, 'description', WHOLE) || undefined,
        eventTypes: types.length ? types : null,
      });
      return { secret: created.secret };
    });
    const once = (request: FastifyRequest<{ Body: FormBody }>) => ({
      actionToken: field(request.body, 'actionToken', 100),
    });
    change('/console/webhooks/:id/test', async (request, environment) => {
      const sent = await sendTestEvent(webhooks, scopeOf(request, environment), request.params.id ?? '', once(request));
      return { notice: sent.replayed ? 'replayed' : 'test' };
    });
    change('/console/webhooks/:id/rotate', async (request, environment) => {
      // once per page shown: a double click rotates once; its second answer shows the same secret again
      // (the browser shows only that one), unless a later rotation replaced it meanwhile
      const rotated = await rotateSecret(
        webhooks,
        scopeOf(request, environment),
        request.params.id ?? '',
        once(request),
      );
      if (!('secret' in rotated)) return { notice: 'rotateSuperseded' };
      return {
        secret: rotated.secret,
        previousUntil: rotated.previousSecretValidUntil,
        ...(rotated.replayed ? { notice: 'rotateReplayed' as const } : {}),
      };
    });
    change('/console/webhooks/deliveries/:id/redeliver', async (request, environment) => {
      const sent = await redeliver(webhooks, scopeOf(request, environment), request.params.id ?? '', once(request));
      return { notice: sent.replayed ? 'replayed' : 'redelivered' };
    });
    change('/console/webhooks/:id/pause', async (request, environment) => {
      await setEndpointEnabled(webhooks, scopeOf(request, environment), request.params.id ?? '', false);
      return {};
    });
    change('/console/webhooks/:id/resume', async (request, environment) => {
      await setEndpointEnabled(webhooks, scopeOf(request, environment), request.params.id ?? '', true);
      return {};
    });
    change('/console/webhooks/:id/remove', async (request, environment) => {
      await removeEndpoint(webhooks, scopeOf(request, environment), request.params.id ?? '');
      return {};
    });
  };
}
