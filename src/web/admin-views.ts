import { html, type SafeHtml } from '../platform/html.ts';
import { label, t } from '../i18n/index.ts';
import { page, tableRegion, type PageContext } from './layout.ts';
import type { Page } from './views-repo.ts';

/** The operator console's watch pages (admin-watch-routes.ts): a counted, filtered, paginated listing (one claim: admin-claim-view.ts). */

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
  /** Shown between the filter and the table (what the filtered rows are, and what to do). */
  intro: SafeHtml | string = '',
): string {
  const w = t(ctx.lang);
  const link = (params: Record<string, string | undefined>) => {
    const query = new URLSearchParams(
      Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();
    return query ? `${path}?${query}` : path;
  };
  const filter: SafeHtml | string = filterName
    ? html`<p>${label(ctx.lang, w.filter)} <a href="${path}"${current ? '' : html` aria-current="true"`}>${w.all}</a>${filterValues.map((v) => html` · <a href="${link({ [filterName]: v })}"${current === v ? html` aria-current="true"` : ''}>${v}</a>`)}</p>`
    : '';
  return page(
    ctx,
    title,
    html`<h1>${title}</h1>
${counts.length ? html`<div class="stats">${counts.map(([label, value]) => html`<div class="card stat"><span>${label}</span><strong>${value}</strong></div>`)}</div>` : ''}
${filter}
${intro}
${data.rows.length === 0 ? html`<p>${w.none}</p>` : tableRegion(title, html`<table><caption class="visually-hidden">${title}</caption><thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${data.rows.map((r) => html`<tr>${cells(r).map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table>`)}
${data.next !== null ? html`<p class="pager"><a href="${link({ ...(filterName ? { [filterName]: current } : {}), offset: String(data.next) })}">${w.nextPage}</a></p>` : ''}
${data.keyset && (data.keyset.paged || data.keyset.nextCursor) ? html`<p class="pager">${data.keyset.paged ? html`<a href="${link(filterName ? { [filterName]: current } : {})}">${w.firstPage}</a>` : ''}${data.keyset.nextCursor ? html`<a href="${link({ ...(filterName ? { [filterName]: current } : {}), cursor: data.keyset.nextCursor })}">${w.nextPage}</a>` : ''}</p>` : ''}`,
    { wide: false },
  );
}
