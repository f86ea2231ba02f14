import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  highestExposures,
  listCaps,
  listStopSales,
  resumeSales,
  setCap,
  stopSaleScopeText,
  suspendSales,
} from '../limits/index.ts';
import { ENVIRONMENTS, type Environment } from '../partners/index.ts';
import { DomainError } from '../platform/errors.ts';
import { toMinorUnits } from '../platform/money.ts';
import { html } from '../platform/html.ts';
import { t } from '../i18n/index.ts';
import { csrfField, formatDate, formatMoney, page, type PageContext } from './layout.ts';
import { sessionActor } from './sessions.ts';
import { contextOf, field, langOf, problemLines, sendPage, type FormBody, type WebDeps } from './web-kit.ts';

/**
 * The operator console's limits page (docs/limits.md): the caps per environment and currency, the
 * upcoming flights with the highest exposure and their share of the cap, the stop-sales — with the
 * forms of the CLI's `limits set-cap`, `sales suspend` and `sales resume`, through the same use
 * cases. Registered inside the operator scope: session and CSRF are checked there.
 */
export function adminLimits(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    const actor = (request: FastifyRequest) => sessionActor(request.webSession!);
    const envOf = (value: unknown) =>
      typeof value === 'string' && (ENVIRONMENTS as readonly string[]).includes(value)
        ? (value as Environment)
        : undefined;

    app.get<{ Querystring: { env?: string; done?: string } }>('/admin/limits', async (request, reply) =>
      sendPage(
        reply,
        200,
        await limitsPage(deps, contextOf(request, 'admin'), envOf(request.query.env), {
          done: request.query.done === '1',
        }),
      ),
    );

    /** Runs an operator change; the quote snapshot of this process reloads at once (others within 2 s). */
    const change = (
      path: string,
      run: (request: FastifyRequest<{ Params: { id?: string }; Body: FormBody }>) => Promise<void>,
    ) =>
      app.post<{ Params: { id?: string }; Body: FormBody }>(path, async (request, reply: FastifyReply) => {
        try {
          await run(request);
          await deps.flight.limits?.refresh();
          return reply.redirect('/admin/limits?done=1', 303);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          const problems = problemLines(error, langOf(request));
          return sendPage(
            reply,
            error.code === 'stop_sale_not_found' ? 404 : 422,
            await limitsPage(deps, contextOf(request, 'admin'), undefined, { problems }),
          );
        }
      });

    change('/admin/limits/caps', async (request) => {
      const currency = field(request.body, 'currency', 3).toUpperCase();
      let amount: number;
      try {
        amount = toMinorUnits(field(request.body, 'amount', 20), currency);
      } catch (error) {
        throw new DomainError('validation_failed', 'The cap is not valid.', {
          errors: [{ field: '/amount', code: 'invalid_format', message: (error as Error).message }],
        });
      }
      await setCap(
        deps.db,
        actor(request),
        { environment: field(request.body, 'environment', 20), currency, amount },
        deps.config.flightCapDefault,
      );
    });

    change('/admin/limits/stop-sales', async (request) => {
      const b = request.body;
      const optional = (name: string, max: number) => field(b, name, max) || undefined;
      await suspendSales(
        deps.db,
        actor(request),
        {
          environment: optional('environment', 20),
          airline: optional('airline', 3),
          airport: optional('airport', 4),
          departureAirport: optional('departureAirport', 4),
          arrivalAirport: optional('arrivalAirport', 4),
          departureLocal: optional('departureLocal', 20),
          startsAt: optional('startsAt', 40),
          endsAt: optional('endsAt', 40),
          reason: field(b, 'reason', 600),
        },
        deps.now(),
      );
    });

    change('/admin/limits/stop-sales/:id/resume', async (request) => {
      await resumeSales(deps.db, actor(request), request.params.id ?? '', deps.now());
    });
  };
}

async function limitsPage(
  deps: WebDeps,
  ctx: PageContext,
  environment: Environment | undefined,
  outcome: { problems?: string[]; done?: boolean },
): Promise<string> {
  const w = t(ctx.lang);
  const csrf = csrfField(ctx.session!.csrfToken);
  const now = deps.now();
  const [caps, flights, stops] = await Promise.all([
    listCaps(deps.db, deps.config.flightCapDefault),
    highestExposures(deps.db, { now, environment, limit: 50, defaultCapMajor: deps.config.flightCapDefault }),
    listStopSales(deps.db, { now }),
  ]);
  const money = (minor: number, currency: string) => formatMoney(minor, currency, ctx.lang);
  const envOptions = (withAll: boolean) =>
    html`${withAll ? html`<option value="all">all</option>` : ''}${ENVIRONMENTS.map((e) => html`<option>${e}</option>`)}`;
  return page(
    ctx,
    w.nav.limits,
    html`<h1>${w.nav.limits}</h1>
${outcome.problems?.length ? html`<div class="alert" role="alert"><ul>${outcome.problems.map((p) => html`<li>${p}</li>`)}</ul></div>` : ''}
${outcome.done ? html`<p role="status">Saved. Quotes on other servers see it within 2 s; subscriptions at once.</p>` : ''}
<section class="card"><h2>Highest exposure</h2>
<p>Upcoming flights by exposure: the sum of the highest payout of every active contract leg on the flight. Filter: <a href="/admin/limits"${environment ? '' : html` aria-current="true"`}>${w.all}</a>${ENVIRONMENTS.map((e) => html` · <a href="/admin/limits?env=${e}"${environment === e ? html` aria-current="true"` : ''}>${e}</a>`)}</p>
${
  flights.length === 0
    ? html`<p>${w.none}</p>`
    : html`<table id="exposure"><caption class="visually-hidden">Highest exposure</caption><thead><tr><th scope="col">${w.environment}</th><th scope="col">${w.flight}</th><th scope="col">${w.departure} (local)</th><th scope="col">Legs</th><th scope="col">Exposure</th><th scope="col">Cap</th><th scope="col">Share of cap</th></tr></thead><tbody>${flights.map(
        (f) =>
          html`<tr><td>${f.environment}</td><td>${f.airline} ${f.departureAirport}→${f.arrivalAirport}</td><td>${f.departureLocal}</td><td>${String(f.legs)}</td><td>${money(f.amount, f.currency)}</td><td>${money(f.cap, f.currency)}</td><td><meter min="0" max="1" low="0.7" high="0.9" optimum="0" value="${f.share.toFixed(4)}">${(f.share * 100).toFixed(1)} %</meter> ${(f.share * 100).toFixed(1)} %</td></tr>`,
      )}</tbody></table>`
}</section>
<section class="card"><h2>Caps per flight</h2>
<table id="caps"><caption class="visually-hidden">Caps per flight</caption><thead><tr><th scope="col">${w.environment}</th><th scope="col">${w.currency}</th><th scope="col">Cap</th><th scope="col">Set by</th></tr></thead><tbody>${caps.map(
      (c) =>
        html`<tr><td>${c.environment}</td><td>${c.currency}</td><td>${money(c.amount, c.currency)}</td><td>${c.set ? `${c.updatedBy ?? ''}, ${formatDate(c.updatedAt, ctx.lang, '')}` : 'default'}</td></tr>`,
    )}</tbody></table>
<form method="post" action="/admin/limits/caps" class="row">${csrf}
<div><label for="c-env">${w.environment}</label><select id="c-env" name="environment">${envOptions(false)}</select></div>
<div><label for="c-currency">${w.currency}</label><input id="c-currency" name="currency" value="EUR" size="4" required pattern="[A-Za-z]{3}"></div>
<div><label for="c-amount">Cap (major units)</label><input id="c-amount" name="amount" required inputmode="decimal" placeholder="100000.00" size="12"></div>
<div><button type="submit">Set cap</button></div></form></section>
<section class="card"><h2>Stop-sales</h2>
${
  stops.length === 0
    ? html`<p id="stop-sales">${w.none}</p>`
    : html`<table id="stop-sales"><caption class="visually-hidden">Stop-sales</caption><thead><tr><th scope="col">${w.environment}</th><th scope="col">Scope</th><th scope="col">Departures from</th><th scope="col">Until</th><th scope="col">${w.reason}</th><th scope="col">By</th><th scope="col"><span class="visually-hidden">Resume</span></th></tr></thead><tbody>${stops.map(
        (s) =>
          html`<tr><td>${s.environment ?? 'all'}</td><td>${stopSaleScopeText(s)}</td><td>${formatDate(s.startsAt, ctx.lang, '')}</td><td>${formatDate(s.endsAt, ctx.lang, '')}</td><td>${s.reason}</td><td>${s.createdBy}</td><td><form method="post" action="/admin/limits/stop-sales/${s.id}/resume" data-confirm="Resume sales for ${stopSaleScopeText(s)}?">${csrf}<button type="submit" class="secondary">Resume sales</button></form></td></tr>`,
      )}</tbody></table>`
}
<h3>Suspend sales</h3>
<p>Name an airline, an airport (either end of the leg), a route, or all three of airline, route and local departure for one flight. The period covers departures (ISO 8601 instants with their offset, e.g. 2026-12-03T00:00Z).</p>
<form method="post" action="/admin/limits/stop-sales">${csrf}
<div class="row">
<div><label for="s-env">${w.environment}</label><select id="s-env" name="environment">${envOptions(true)}</select></div>
<div><label for="s-airline">Airline</label><input id="s-airline" name="airline" size="3" pattern="[A-Za-z0-9]{2}"></div>
<div><label for="s-airport">Airport</label><input id="s-airport" name="airport" size="4" pattern="[A-Za-z]{3}"></div>
<div><label for="s-from">Route from</label><input id="s-from" name="departureAirport" size="4" pattern="[A-Za-z]{3}"></div>
<div><label for="s-to">Route to</label><input id="s-to" name="arrivalAirport" size="4" pattern="[A-Za-z]{3}"></div>
</div><div class="row">
<div><label for="s-departure">One flight: local departure</label><input id="s-departure" name="departureLocal" placeholder="2026-12-03T10:30" size="17"></div>
<div><label for="s-starts">Departures from</label><input id="s-starts" name="startsAt" placeholder="2026-12-03T00:00Z" size="22"></div>
<div><label for="s-ends">Until</label><input id="s-ends" name="endsAt" placeholder="2026-12-05T00:00Z" size="22"></div>
</div>
<div><label for="s-reason">${w.reason}</label><input id="s-reason" name="reason" required maxlength="500" size="60"></div>
<p><button type="submit" class="danger">Suspend sales</button></p></form></section>`,
  );
}
