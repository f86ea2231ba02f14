import { label, t } from '../i18n/index.ts';
import { MAX_EXPORT_DAYS, type Statement } from '../ledger/index.ts';
import { ENVIRONMENTS, type Environment, type Partner } from '../partners/index.ts';
import { html, type SafeHtml } from '../platform/html.ts';
import { formatMoney } from '../platform/money.ts';
import { page, tableRegion, type PageContext } from './layout.ts';

/** The money reports page of both consoles (report-routes.ts): the statement, its downloads, the exports form. */

function statementTable(ctx: PageContext, statement: Statement): SafeHtml {
  const w = t(ctx.lang).reports;
  if (!statement.lines.length) return html`<p>${w.none}</p>`;
  return tableRegion(
    w.statement,
    html`<table><caption>${w.statement}</caption><thead><tr><th scope="col">${w.currency}</th><th scope="col">${w.collected}</th><th scope="col">${w.commission}</th><th scope="col">${w.refunds}</th><th scope="col">${w.due}</th><th scope="col">${w.taxNetOfRefunds}</th><th scope="col">${w.compensationPaid}</th></tr></thead><tbody>${statement.lines.map(
      (l) =>
        html`<tr><td>${l.currency}</td><td>${formatMoney(l.premiumCollected, l.currency, ctx.lang)}</td><td>${formatMoney(l.commission, l.currency, ctx.lang)}</td><td>${formatMoney(l.refunds, l.currency, ctx.lang)}</td><td><strong>${formatMoney(l.amountDue, l.currency, ctx.lang)}</strong></td><td>${formatMoney(l.taxNetOfRefunds, l.currency, ctx.lang)}</td><td>${formatMoney(l.compensationPaid, l.currency, ctx.lang)}</td></tr>`,
    )}</tbody></table>`,
  );
}

export function reportsPage(
  ctx: PageContext,
  view: {
    base: string;
    partners?: Partner[];
    partner?: Partner;
    env: Environment;
    month: string;
    today: string;
    statement?: Statement;
  },
): string {
  const w = t(ctx.lang).reports;
  const p = view.partner ? `partner=${encodeURIComponent(view.partner.slug)}&` : '';
  const q = `${p}env=${view.env}&month=${view.month}`;
  const envSelect = html`<label>${w.environment} <select name="env">${ENVIRONMENTS.map(
    (e) => html`<option value="${e}"${e === view.env ? html` selected` : ''}>${e}</option>`,
  )}</select></label>`;
  const partnerSelect = view.partners
    ? html`<label>${w.partner} <select name="partner">${view.partners.map(
        (x) =>
          html`<option value="${x.slug}"${x.slug === view.partner?.slug ? html` selected` : ''}>${x.name} (${x.slug})</option>`,
      )}</select></label>`
    : '';
  const downloads = view.partners
    ? html`<ul class="downloads">
<li>${label(ctx.lang, w.premiumBordereau)} <a href="${view.base}/download?${q}&report=premium&format=csv">CSV</a> · <a href="${view.base}/download?${q}&report=premium&format=xlsx">XLSX</a></li>
<li>${label(ctx.lang, w.claimsBordereau)} <a href="${view.base}/download?${q}&report=claims&format=csv">CSV</a> · <a href="${view.base}/download?${q}&report=claims&format=xlsx">XLSX</a></li>
<li>${label(ctx.lang, w.statement)} <a href="${view.base}/download?${q}&report=statement&format=csv">CSV</a> · <a href="${view.base}/download?${q}&report=statement&format=pdf">PDF</a></li>
</ul>`
    : html`<ul class="downloads"><li>${label(ctx.lang, w.statement)} <a href="${view.base}/statement?${q}&format=csv">CSV</a> · <a href="${view.base}/statement?${q}&format=pdf">PDF</a></li></ul>`;
  const monthStart = `${view.month}-01`;
  return page(
    ctx,
    w.title,
    html`<h1>${w.title}</h1>
<p>${w.intro}</p>
<form method="get" action="${view.base}" class="filters">${partnerSelect}${envSelect}
<label>${w.month} <input type="month" name="month" value="${view.month}" required pattern="\\d{4}-\\d{2}"></label>
<button type="submit">${w.show}</button></form>
${view.partner || !view.partners ? html`${view.statement ? statementTable(ctx, view.statement) : ''}${downloads}` : ''}
<h2>${w.exports}</h2>
<p>${w.exportsIntro(MAX_EXPORT_DAYS)}</p>
<form method="get" action="${view.base}/export" class="filters">${view.partner && view.partners ? html`<input type="hidden" name="partner" value="${view.partner.slug}">` : ''}<input type="hidden" name="env" value="${view.env}">
<label>${w.from} <input type="date" name="from" value="${monthStart}" required></label>
<label>${w.to} <input type="date" name="to" value="${view.today}" required></label>
<button type="submit" name="kind" value="contracts">${w.contractsCsv}</button>
<button type="submit" name="kind" value="claims">${w.claimsCsv}</button></form>`,
  );
}
