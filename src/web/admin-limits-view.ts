import {
  STOP_SALE_LISTINGS,
  stopSaleScopeText,
  stopSaleState,
  type Cap,
  type ExposureView,
  type StopSale,
  type StopSaleListing,
} from '../limits/index.ts';
import { ENVIRONMENTS, type Environment } from '../partners/index.ts';
import { html } from '../platform/html.ts';
import { t } from '../i18n/index.ts';
import { csrfField, formatDate, formatMoney, page, problemList, tableRegion, type PageContext } from './layout.ts';

/** The operator console's limits page (admin-limits-routes.ts): exposure, caps and stop-sales, with their forms. */

/** What the limits page shows, read by the route. */
export interface LimitsView {
  environment: Environment | undefined;
  caps: Cap[];
  flights: ExposureView[];
  /** The top list's next page (its `after`), if any. */
  next?: string | undefined;
  /** The top list's filter as read, and the page shown (its `after`; empty: the first). */
  filter?: { currency: string; airline: string; from: string; to: string; after: string };
  stops: StopSale[];
  /** Which stop-sales are listed. */
  stopsShown?: StopSaleListing;
  now?: Date;
}

export function limitsPage(
  ctx: PageContext,
  { environment, caps, flights, next, filter, stops: stopSales, stopsShown = 'inForce', now = new Date() }: LimitsView,
  outcome: { problems?: string[]; done?: boolean; alreadySuspended?: boolean },
): string {
  const w = t(ctx.lang);
  const l = w.limitsPage;
  const csrf = csrfField(ctx.session!.csrfToken);
  const money = (minor: number, currency: string) => formatMoney(minor, currency, ctx.lang);
  const f = filter ?? { currency: '', airline: '', from: '', to: '', after: '' };
  // the page's filters carry over: the top list's page links and filter form keep the stop-sales
  // shown, the stop-sales form keeps the top list's filter and page
  const stops = stopsShown === 'inForce' ? '' : stopsShown;
  const exposureQuery = (after: string) => ({
    env: environment ?? '',
    currency: f.currency,
    airline: f.airline,
    from: f.from,
    to: f.to,
    after,
  });
  const given = (query: Record<string, string>) => Object.entries(query).filter(([, v]) => v !== '');
  /** The query of a page of the top list with this filter: its `after`, or the first page. */
  const pageQuery = (after: string | undefined) =>
    new URLSearchParams(given({ ...exposureQuery(after ?? ''), stops })).toString();
  const hidden = (query: Record<string, string>) =>
    html`${given(query).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;
  /** One cell per column, a line per currency of the flight (its most used first). */
  const each = (flight: ExposureView, cell: (c: ExposureView['currencies'][number]) => unknown) =>
    html`${flight.currencies.map((c, i) => html`${i > 0 ? html`<br>` : ''}${cell(c) as string}`)}`;
  const envOptions = (withAll: boolean) =>
    html`${withAll ? html`<option value="all">${w.all}</option>` : ''}${ENVIRONMENTS.map((e) => html`<option>${e}</option>`)}`;
  return page(
    ctx,
    w.nav.limits,
    html`<h1>${w.nav.limits}</h1>
${problemList(outcome.problems)}
${outcome.done ? html`<p role="status">${l.saved}</p>` : ''}
${outcome.alreadySuspended ? html`<p role="status">${l.alreadySuspended}</p>` : ''}
<section class="card"><h2>${l.highestExposure}</h2>
<p>${l.exposureIntro} ${l.perCurrency}</p>
<form method="get" action="/admin/limits" class="row" id="exposure-filter">
<div><label for="f-env">${w.environment}</label><select id="f-env" name="env"><option value="">${w.all}</option>${ENVIRONMENTS.map((e) => html`<option${environment === e ? html` selected` : ''}>${e}</option>`)}</select></div>
<div><label for="f-currency">${w.currency}</label><input id="f-currency" name="currency" value="${f.currency}" size="4" pattern="[A-Za-z]{3}"></div>
<div><label for="f-airline">${l.airline}</label><input id="f-airline" name="airline" value="${f.airline}" size="3" pattern="[A-Za-z0-9]{2}"></div>
<div><label for="f-from">${l.departingFrom}</label><input id="f-from" name="from" type="date" value="${f.from}"></div>
<div><label for="f-to">${l.departingUntil}</label><input id="f-to" name="to" type="date" value="${f.to}"></div>
${hidden({ stops })}<div><button type="submit">${l.filter}</button></div></form>
${
  flights.length === 0
    ? html`<p>${w.none}</p>`
    : tableRegion(
        l.highestExposure,
        html`<table id="exposure"><caption class="visually-hidden">${l.highestExposure}</caption><thead><tr><th scope="col">${w.environment}</th><th scope="col">${w.flight}</th><th scope="col">${w.departure} (${l.local})</th><th scope="col">${l.legs}</th><th scope="col">${l.exposure}</th><th scope="col">${l.cap}</th><th scope="col">${l.shareOfCap}</th></tr></thead><tbody>${flights.map(
          (f) =>
            html`<tr><td>${f.environment}</td><td>${f.airline} ${f.departureAirport}→${f.arrivalAirport}</td><td>${f.departureLocal}</td><td>${each(f, (c) => String(c.legs))}</td><td>${each(f, (c) => money(c.amount, c.currency))}</td><td>${each(f, (c) => money(c.cap, c.currency))}</td><td>${each(f, (c) => html`<meter min="0" max="1" low="0.7" high="0.9" optimum="0" value="${c.share.toFixed(4)}">${(c.share * 100).toFixed(1)} %</meter> ${(c.share * 100).toFixed(1)} %`)}</td></tr>`,
        )}</tbody></table>`,
      )
}
${f.after || next ? html`<p>${f.after ? html`<a href="/admin/limits?${pageQuery(undefined)}">${w.firstPage}</a> ` : ''}${next ? html`<a href="/admin/limits?${pageQuery(next)}" rel="next">${w.nextPage}</a>` : ''}</p>` : ''}</section>
<section class="card"><h2>${l.capsPerFlight}</h2>
${tableRegion(
  l.capsPerFlight,
  html`<table id="caps"><caption class="visually-hidden">${l.capsPerFlight}</caption><thead><tr><th scope="col">${w.environment}</th><th scope="col">${w.currency}</th><th scope="col">${l.cap}</th><th scope="col">${l.setBy}</th></tr></thead><tbody>${caps.map(
    (c) =>
      html`<tr><td>${c.environment}</td><td>${c.currency}</td><td>${money(c.amount, c.currency)}</td><td>${c.set ? `${c.updatedBy ?? ''}, ${formatDate(c.updatedAt, ctx.lang, '')}` : l.default}</td></tr>`,
  )}</tbody></table>`,
)}
<form method="post" action="/admin/limits/caps" class="row">${csrf}
<div><label for="c-env">${w.environment}</label><select id="c-env" name="environment">${envOptions(false)}</select></div>
<div><label for="c-currency">${w.currency}</label><input id="c-currency" name="currency" value="EUR" size="4" required pattern="[A-Za-z]{3}"></div>
<div><label for="c-amount">${l.capMajorUnits}</label><input id="c-amount" name="amount" required inputmode="decimal" placeholder="100000.00" size="12"></div>
<div><button type="submit">${l.setCap}</button></div></form></section>
<section class="card"><h2>${l.stopSales}</h2>
<form method="get" action="/admin/limits" class="row" id="stop-sales-filter">${hidden(exposureQuery(f.after))}<div><label for="st-state">${l.showStopSales}</label><select id="st-state" name="stops">${STOP_SALE_LISTINGS.map((s) => html`<option value="${s}"${s === stopsShown ? html` selected` : ''}>${l.stopSaleStates[s]}</option>`)}</select></div><div><button type="submit" class="secondary">${l.filter}</button></div></form>
${
  stopSales.length === 0
    ? html`<p id="stop-sales">${w.none}</p>`
    : tableRegion(
        l.stopSales,
        html`<table id="stop-sales"><caption class="visually-hidden">${l.stopSales}</caption><thead><tr><th scope="col">${w.environment}</th><th scope="col">${l.scope}</th><th scope="col">${l.departuresFrom}</th><th scope="col">${l.until}</th><th scope="col">${l.state}</th><th scope="col">${w.reason}</th><th scope="col">${l.by}</th><th scope="col"><span class="visually-hidden">${l.resume}</span></th></tr></thead><tbody>${stopSales.map(
          (s) => {
            const state = stopSaleState(s, now);
            return html`<tr><td>${s.environment ?? w.all}</td><td>${stopSaleScopeText(s)}</td><td>${formatDate(s.startsAt, ctx.lang, '')}</td><td>${s.endsAt ? formatDate(s.endsAt, ctx.lang, '') : l.untilResumed}</td><td>${l.stopSaleStates[state]}</td><td>${s.reason}</td><td>${s.createdBy}</td><td>${state === 'past' ? '' : html`<form method="post" action="/admin/limits/stop-sales/${s.id}/resume" data-confirm="${l.resumeConfirm(stopSaleScopeText(s))}">${csrf}<button type="submit" class="secondary">${l.resumeSales}</button></form>`}</td></tr>`;
          },
        )}</tbody></table>`,
      )
}
<h3>${l.suspendSales}</h3>
<p>${l.suspendHelp}</p>
<form method="post" action="/admin/limits/stop-sales">${csrf}
<div class="row">
<div><label for="s-env">${w.environment}</label><select id="s-env" name="environment">${envOptions(true)}</select></div>
<div><label for="s-airline">${l.airline}</label><input id="s-airline" name="airline" size="3" pattern="[A-Za-z0-9]{2}"></div>
<div><label for="s-airport">${l.airport}</label><input id="s-airport" name="airport" size="4" pattern="[A-Za-z]{3}"></div>
<div><label for="s-from">${l.routeFrom}</label><input id="s-from" name="departureAirport" size="4" pattern="[A-Za-z]{3}"></div>
<div><label for="s-to">${l.routeTo}</label><input id="s-to" name="arrivalAirport" size="4" pattern="[A-Za-z]{3}"></div>
</div><div class="row">
<div><label for="s-departure">${l.oneFlightDeparture}</label><input id="s-departure" name="departureLocal" placeholder="2026-12-03T10:30" size="17"></div>
<div><label for="s-starts">${l.departuresFrom}</label><input id="s-starts" name="startsAt" placeholder="2026-12-03T00:00Z" size="22"></div>
<div><label for="s-ends">${l.until}</label><input id="s-ends" name="endsAt" placeholder="2026-12-05T00:00Z" size="22"></div>
<div><label><input type="checkbox" name="untilResumed" value="1"> ${l.untilResumedChoice}</label></div>
</div>
<div><label for="s-reason">${w.reason}</label><input id="s-reason" name="reason" required size="60"></div>
<p><button type="submit" class="danger">${l.suspendSales}</button></p></form></section>`,
  );
}
