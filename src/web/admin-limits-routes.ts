import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  highestExposures,
  listCaps,
  listStopSales,
  readCap,
  readExposureFilter,
  resumeSales,
  STOP_SALE_LISTINGS,
  setCap,
  suspendSales,
} from '../limits/index.ts';
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
  WHOLE,
} from './web-kit.ts';

/**
 * The operator console's limits page (docs/limits.md): the caps per environment and currency, the
 * upcoming flights with the highest exposure and their share of the cap, the stop-sales — with the
 * forms of the CLI's `limits set-cap`, `sales suspend` and `sales resume`, through the same use
 * cases. Registered inside the operator scope: session and CSRF are checked there.
 */
const LimitsQuery = Type.Object({
  /** Empty: every environment (the filter form's "all"). */
  env: Type.Optional(Type.Union([EnvironmentQuery.properties.env, Type.Literal('')])),
  /** `done=1`: the redirect after a change; `done=already`: after a suspend of what was suspended. */
  done: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('already')])),
  /** The top list's filter (readExposureFilter) and its next page. */
  currency: Type.Optional(Type.String({ maxLength: 10 })),
  airline: Type.Optional(Type.String({ maxLength: 10 })),
  from: Type.Optional(Type.String({ maxLength: 10 })),
  to: Type.Optional(Type.String({ maxLength: 10 })),
  after: Type.Optional(Type.String({ maxLength: 400 })),
  /** Which stop-sales are listed: in force (default), current, future, past, all. */
  stops: Type.Optional(Type.Union(STOP_SALE_LISTINGS.map((s) => Type.Literal(s)))),
});
type LimitsQueryType = Static<typeof LimitsQuery>;

export function adminLimits(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    const actor = (request: FastifyRequest) => sessionActor(request.webSession!);
    app.get<{ Querystring: Static<typeof LimitsQuery> }>(
      '/admin/limits',
      { schema: { hide: true, querystring: LimitsQuery } },
      async (request, reply) => {
        const outcome = { done: request.query.done === '1', alreadySuspended: request.query.done === 'already' };
        try {
          return sendPage(
            reply,
            200,
            limitsPage(contextOf(request, 'admin'), await loadLimits(deps, request.query), outcome),
          );
        } catch (error) {
          // a filter typed wrong: the page unfiltered, with what was wrong
          if (!(error instanceof DomainError)) throw error;
          const problems = problemLines(error, langOf(request));
          return sendPage(
            reply,
            422,
            limitsPage(contextOf(request, 'admin'), await loadLimits(deps, { stops: request.query.stops }), {
              problems,
            }),
          );
        }
      },
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
            limitsPage(contextOf(request, 'admin'), await loadLimits(deps, {}), { problems }),
          );
        }
      });

    change('/admin/limits/caps', async (request) => {
      // the currency longer than 3 letters is refused, not cut; the amount in major units, read whole
      // (parseMajorAmount refuses it past its length, never cut: "…0001500000" is not 15.00)
      const cap = readCap({
        environment: field(request.body, 'environment', 20),
        currency: field(request.body, 'currency', 10),
        amount: field(request.body, 'amount', WHOLE),
      });
      await setCap(deps.db, actor(request), cap, deps.config.flightCapDefault);
    });

    change('/admin/limits/stop-sales', async (request) => {
      const b = request.body;
      // read whole, as typed: the use case bounds each (a date cut to 40 characters could read as another)
      const optional = (name: string) => field(b, name, WHOLE) || undefined;
      // codes longer than they can be are refused by suspendSales, not cut (LFPGX is not LFPG)
      const stop = await suspendSales(
        deps.db,
        actor(request),
        {
          environment: optional('environment'),
          airline: optional('airline'),
          airport: optional('airport'),
          departureAirport: optional('departureAirport'),
          arrivalAirport: optional('arrivalAirport'),
          departureLocal: optional('departureLocal'),
          startsAt: optional('startsAt'),
          endsAt: optional('endsAt'),
          // the checkbox "until sales are resumed": sent checked, absent unchecked
          untilResumed: field(b, 'untilResumed', 10) !== '',
          reason: field(b, 'reason', WHOLE),
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

async function loadLimits(deps: WebDeps, query: Partial<LimitsQueryType>): Promise<LimitsView> {
  const now = deps.now();
  const environment = query.env === '' ? undefined : query.env;
  const filter = readExposureFilter(query, deps.keys.lookup);
  const stopsShown = query.stops ?? 'inForce';
  const [caps, page, stops] = await Promise.all([
    listCaps(deps.db, deps.config.flightCapDefault),
    highestExposures(deps.db, {
      now,
      environment,
      limit: EXPOSURE_PAGE,
      defaultCapMajor: deps.config.flightCapDefault,
      filter,
      key: deps.keys.lookup,
    }),
    listStopSales(deps.db, { now, state: stopsShown }),
  ]);
  return {
    environment,
    caps,
    flights: page.flights,
    next: page.next,
    filter: {
      currency: filter.currency ?? '',
      airline: filter.airline ?? '',
      from: filter.fromDate ?? '',
      to: filter.toDate ?? '',
      after: filter.cursor ? (query.after ?? '').trim() : '',
    },
    stops,
    stopsShown,
    now,
  };
}

/** Flights per page of the top list. */
const EXPOSURE_PAGE = 50;
