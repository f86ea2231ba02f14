import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  highestExposures,
  listCaps,
  listStopSales,
  readCap,
  resumeSales,
  setCap,
  suspendSales,
} from '../limits/index.ts';
import type { Environment } from '../partners/index.ts';
import { DomainError } from '../platform/errors.ts';
import { limitsPage, type LimitsView } from './admin-limits-view.ts';
import { sessionActor } from './sessions.ts';
import {
  contextOf,
  EnvironmentQuery,
  field,
  langOf,
  problemLines,
  sendPage,
  type FormBody,
  type WebDeps,
} from './web-kit.ts';

/**
 * The operator console's limits page (docs/limits.md): the caps per environment and currency, the
 * upcoming flights with the highest exposure and their share of the cap, the stop-sales — with the
 * forms of the CLI's `limits set-cap`, `sales suspend` and `sales resume`, through the same use
 * cases. Registered inside the operator scope: session and CSRF are checked there.
 */
const LimitsQuery = Type.Object({
  env: EnvironmentQuery.properties.env,
  /** `done=1`: the redirect after a change; `done=already`: after a suspend of what was suspended. */
  done: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('already')])),
});

export function adminLimits(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    const actor = (request: FastifyRequest) => sessionActor(request.webSession!);
    app.get<{ Querystring: Static<typeof LimitsQuery> }>(
      '/admin/limits',
      { schema: { hide: true, querystring: LimitsQuery } },
      async (request, reply) =>
        sendPage(
          reply,
          200,
          limitsPage(contextOf(request, 'admin'), await loadLimits(deps, request.query.env), {
            done: request.query.done === '1',
            alreadySuspended: request.query.done === 'already',
          }),
        ),
    );

    /** Runs an operator change; the quote snapshot of this process reloads at once (others within 2 s). */
    const change = (
      path: string,
      /** 'already': nothing changed (a suspend of what was suspended). */
      run: (request: FastifyRequest<{ Params: { id?: string }; Body: FormBody }>) => Promise<void | 'already'>,
    ) =>
      app.post<{ Params: { id?: string }; Body: FormBody }>(path, async (request, reply: FastifyReply) => {
        try {
          const outcome = await run(request);
          await deps.flight.limits?.refresh();
          return reply.redirect(`/admin/limits?done=${outcome === 'already' ? 'already' : '1'}`, 303);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          const problems = problemLines(error, langOf(request));
          return sendPage(
            reply,
            error.code === 'stop_sale_not_found' ? 404 : 422,
            limitsPage(contextOf(request, 'admin'), await loadLimits(deps, undefined), { problems }),
          );
        }
      });

    change('/admin/limits/caps', async (request) => {
      // the currency longer than 3 letters is refused, not cut; the amount in major units, as typed
      const cap = readCap({
        environment: field(request.body, 'environment', 20),
        currency: field(request.body, 'currency', 10),
        amount: field(request.body, 'amount', 20),
      });
      await setCap(deps.db, actor(request), cap, deps.config.flightCapDefault);
    });

    change('/admin/limits/stop-sales', async (request) => {
      const b = request.body;
      const optional = (name: string, max: number) => field(b, name, max) || undefined;
      // codes longer than they can be are refused by suspendSales, not cut (LFPGX is not LFPG)
      const stop = await suspendSales(
        deps.db,
        actor(request),
        {
          environment: optional('environment', 20),
          airline: optional('airline', 20),
          airport: optional('airport', 20),
          departureAirport: optional('departureAirport', 20),
          arrivalAirport: optional('arrivalAirport', 20),
          departureLocal: optional('departureLocal', 20),
          startsAt: optional('startsAt', 40),
          endsAt: optional('endsAt', 40),
          reason: field(b, 'reason', 600),
        },
        deps.now(),
      );
      return stop.alreadySuspended ? 'already' : undefined;
    });

    change('/admin/limits/stop-sales/:id/resume', async (request) => {
      await resumeSales(deps.db, actor(request), request.params.id ?? '', deps.now());
    });
  };
}

async function loadLimits(deps: WebDeps, environment: Environment | undefined): Promise<LimitsView> {
  const now = deps.now();
  const [caps, flights, stops] = await Promise.all([
    listCaps(deps.db, deps.config.flightCapDefault),
    highestExposures(deps.db, { now, environment, limit: 50, defaultCapMajor: deps.config.flightCapDefault }),
    listStopSales(deps.db, { now }),
  ]);
  return { environment, caps, flights, stops };
}
