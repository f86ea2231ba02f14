import { ENVIRONMENTS } from '../partners/index.ts';
import type { RiskModelVersionRow } from '../risk/index.ts';
import { html } from '../platform/html.ts';
import { t } from '../i18n/index.ts';
import { csrfField, dayTime, formatDate, page, problemList, tableRegion, type PageContext } from './layout.ts';

/** The operator console's risk model page (admin-risk-routes.ts): the versions, where each is active, activation and refit. */

export function riskPage(
  ctx: PageContext,
  versions: RiskModelVersionRow[],
  outcome: { message?: string; problems?: string[] },
): string {
  const w = t(ctx.lang).riskModels;
  const csrf = csrfField(ctx.session!.csrfToken);
  return page(
    ctx,
    w.title,
    html`<h1>${w.title}</h1>
<p>${w.intro}</p>
${outcome.message ? html`<p class="notice" role="status" id="risk-message">${outcome.message}</p>` : ''}
${problemList(outcome.problems)}
${tableRegion(
  w.title,
  html`<table id="risk-versions"><caption class="visually-hidden">${w.title}</caption>
<thead><tr><th scope="col">${w.version}</th><th scope="col">${w.source}</th><th scope="col">${w.base}</th><th scope="col">${w.observations}</th><th scope="col">${w.dataUntil}</th><th scope="col">${w.activeIn}</th><th scope="col">${w.created}</th><th scope="col">${w.activate}</th></tr></thead>
<tbody>${versions.map(
    (
      v,
    ) => html`<tr><td><code>${v.version}</code></td><td>${v.source}</td><td>${v.baseVersion ?? ''}</td><td>${String(v.observations)}</td><td>${dayTime(v.dataCutoff, ctx.lang)}</td><td>${v.activeIn.join(', ') || '—'}</td><td>${formatDate(v.createdAt, ctx.lang, '')}</td>
<td><form method="post" action="/admin/risk/activate" class="row">${csrf}<input type="hidden" name="version" value="${v.version}">
<label class="visually-hidden" for="env-${v.version}">${w.environment}</label><select id="env-${v.version}" name="environment">${[...ENVIRONMENTS, 'all'].map((e) => html`<option value="${e}">${e === 'all' ? w.all : e}</option>`)}</select>
<button type="submit" aria-label="${w.activate} ${v.version}">${w.activate}</button></form></td></tr>`,
  )}</tbody></table>`,
)}
<section class="card"><h2>${w.refit}</h2><p>${w.refitHelp}</p>
<form method="post" action="/admin/risk/refit">${csrf}<button type="submit">${w.refit}</button></form></section>`,
  );
}
