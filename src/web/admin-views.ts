import { html, type SafeHtml } from '../platform/html.ts';
import { t } from '../i18n/index.ts';
import { claimEvidence, type ClaimListRow } from '../claims/index.ts';
import { evidenceList } from './claim-evidence.ts';
import { formatDate, formatMoney, page, tableRegion, type PageContext } from './layout.ts';
import type { Page } from './views-repo.ts';

/** The operator console's watch pages (admin-watch-routes.ts): a counted, filtered, paginated listing, and one claim. */

/** A counted, filtered, paginated table. */
export function listingPage<R>(
  ctx: PageContext,
  title: string,
  path: string,
  filterName: string | undefined,
  filterValues: readonly string[],
  current: string | undefined,
  counts: [string, string][],
  data: Page<R>,
  headers: string[],
  cells: (row: R) => (string | SafeHtml)[],
): string {
  const w = t(ctx.lang);
  const link = (params: Record<string, string | undefined>) => {
    const query = new URLSearchParams(
      Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();
    return query ? `${path}?${query}` : path;
  };
  const filter: SafeHtml | string = filterName
    ? html`<p>${w.filter}: <a href="${path}"${current ? '' : html` aria-current="true"`}>${w.all}</a>${filterValues.map((v) => html` · <a href="${link({ [filterName]: v })}"${current === v ? html` aria-current="true"` : ''}>${v}</a>`)}</p>`
    : '';
  return page(
    ctx,
    title,
    html`<h1>${title}</h1>
${counts.length ? html`<div class="stats">${counts.map(([label, value]) => html`<div class="card stat"><span>${label}</span><strong>${value}</strong></div>`)}</div>` : ''}
${filter}
${data.rows.length === 0 ? html`<p>${w.none}</p>` : tableRegion(title, html`<table><caption class="visually-hidden">${title}</caption><thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${data.rows.map((r) => html`<tr>${cells(r).map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table>`)}
${data.next !== null ? html`<p class="pager"><a href="${link({ ...(filterName ? { [filterName]: current } : {}), offset: String(data.next) })}">${w.nextPage}</a></p>` : ''}`,
    { wide: false },
  );
}

/** One claim, for the operator: its facts and the evidence it was decided on. */
export function claimDetailPage(ctx: PageContext, claim: ClaimListRow): string {
  const w = t(ctx.lang);
  const e = claimEvidence(claim);
  return page(
    ctx,
    `${w.nav.claims} ${claim.claim_number}`,
    html`<h1><a href="/admin/claims">${w.nav.claims}</a> › <span id="claim-number">${claim.claim_number}</span></h1>
<div class="card"><dl class="premium">
<dt>${w.contract}</dt><dd>${claim.contract_number}</dd>
<dt>${w.agreementVersions.soldUnder}</dt><dd id="claim-agreement-version">${claim.agreement_version ?? w.agreementVersions.unsignedDraft}</dd>
<dt>${w.status}</dt><dd id="claim-status">${w.claimStatus[claim.status] ?? claim.status}</dd>
<dt>${w.reason}</dt><dd>${claim.reason} (${claim.event})</dd>
<dt>${w.flight}</dt><dd>${claim.flight_number} ${claim.departure_date}</dd>
<dt>${w.amount}</dt><dd>${formatMoney(Number(claim.compensation_amount), claim.currency, ctx.lang)}</dd>
<dt>${w.opened}</dt><dd>${formatDate(claim.opened_at, ctx.lang, '')}</dd>
<dt>${w.paid}</dt><dd>${formatDate(claim.paid_at, ctx.lang, '—')}</dd>
</dl></div>
<h2>${w.evidenceTitle}</h2>
<div class="card">${evidenceList(ctx, e, 'evidence')}</div>`,
  );
}
