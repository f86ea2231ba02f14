import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ENVIRONMENTS } from '../partners/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import { activateModelVersion, listModelVersions } from '../risk/index.ts';
import { t } from '../i18n/index.ts';
import type { PageContext } from './layout.ts';
import { riskPage } from './admin-risk-view.ts';
import { sessionActor } from './sessions.ts';
import { contextOf, field, problemLines, sendPage, type FormBody, type WebDeps } from './web-kit.ts';

/**
 * The operator console's risk model page: every version with its data cut-off and origin, which one
 * prices each environment, activation (audited, effective for new quotes in every process within the
 * model source's refresh) and a refit from the platform's own outcomes on demand.
 */

/** `?refit=queued`: the redirect after a refit was queued. */
const RiskQuery = Type.Object({ refit: Type.Optional(Type.Literal('queued')) });

export function adminRisk(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    const actor = (request: FastifyRequest) => sessionActor(request.webSession!);
    const show = async (
      reply: FastifyReply,
      ctx: PageContext,
      status: number,
      outcome: { message?: string; problems?: string[] } = {},
    ) => sendPage(reply, status, riskPage(ctx, await listModelVersions(deps.db), outcome));

    app.get<{ Querystring: Static<typeof RiskQuery> }>(
      '/admin/risk',
      { schema: { hide: true, querystring: RiskQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'admin');
        return show(
          reply,
          ctx,
          200,
          request.query.refit === 'queued' ? { message: t(ctx.lang).riskModels.refitQueued } : {},
        );
      },
    );

    app.post<{ Body: FormBody }>('/admin/risk/activate', async (request, reply) => {
      const ctx = contextOf(request, 'admin');
      const w = t(ctx.lang).riskModels;
      const version = field(request.body, 'version', 64);
      const env = field(request.body, 'environment', 20);
      try {
        if (env !== 'all' && !(ENVIRONMENTS as readonly string[]).includes(env)) {
          throw new DomainError('validation_failed', 'Choose an environment.', {
            errors: [
              { field: '/environment', code: 'not_allowed', message: `one of ${ENVIRONMENTS.join(', ')} or all` },
            ],
          });
        }
        const environments: Environment[] = env === 'all' ? [...ENVIRONMENTS] : [env as Environment];
        await activateModelVersion(deps.db, actor(request), version, environments);
        const message = w.activated(version, environments.join(', '));
        try {
          await deps.flight.riskModels.refresh?.();
        } catch (error) {
          // saved and built (the activation checked it): another environment's version could not be loaded
          request.log.error({ err: error }, 'risk model refresh failed');
          return await show(reply, ctx, 200, { message, problems: [w.refreshFailed((error as Error).message)] });
        }
        return await show(reply, ctx, 200, { message });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return show(reply, ctx, error.status === 404 ? 404 : 422, { problems: problemLines(error, ctx.lang) });
      }
    });

    // A fit is minutes of CPU: the worker runs it (the refit job), never this API process's request.
    // No singleton key: the queue runs one refit at a time under the key the weekly schedule's job has (none).
    app.post<{ Body: FormBody }>('/admin/risk/refit', async (request, reply) => {
      await deps.flight.jobs.send('risk_refit', { requestedBy: actor(request) });
      return reply.redirect('/admin/risk?refit=queued', 303);
    });
  };
}
