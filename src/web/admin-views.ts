import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { html, type SafeHtml } from '../platform/html.ts';
import { DomainError } from '../platform/errors.ts';
import { t } from '../i18n/index.ts';
import { formatDate, formatMoney, page, type PageContext } from './layout.ts';
import { contextOf, Offset, oneOf, sendPage, type WebDeps } from './web-kit.ts';
import { CLAIM_STATUSES, claimEvidence, findClaimByNumber, listClaimsForOperators } from '../claims/index.ts';
import { evidenceList } from './claim-evidence.ts';
import { FLIGHT_WATCH_STATES, listWatches } from '../monitoring/index.ts';
import { listPayouts, PAYOUT_STATUSES } from '../payouts/index.ts';
import type { ClaimStatus, PayoutStatus } from '../platform/db-schema.ts';
import {
  claimsByStatus,
  flightWatchesByState,
  listOutbox,
  paged,
  payoutsByStatus,
  VIEW_PAGE,
  type Page,
} from './views-repo.ts';

/** The operator console's watch pages: flights under monitoring, claims, the SMS outbox, payouts. Read-only. */

const FlightsQuery = Type.Object({ state: Type.Optional(oneOf(FLIGHT_WATCH_STATES)), offset: Type.Optional(Offset) });
const ClaimsQuery = Type.Object({ status: Type.Optional(oneOf(CLAIM_STATUSES)), offset: Type.Optional(Offset) });
const OutboxQuery = Type.Object({ offset: Type.Optional(Offset) });
const ClaimParams = Type.Object({ claimNumber: Type.String({ pattern: '^[A-Za-z]{3}-[0-9]{8}$', maxLength: 12 }) });
const PayoutsQuery = Type.Object({ status: Type.Optional(oneOf(PAYOUT_STATUSES)), offset: Type.Optional(Offset) });

/** One page of a listing asked for VIEW_PAGE + 1 rows from the `offset` query parameter. */
const pagedFrom = <T>(offset: string | undefined, list: (offset: number) => Promise<T[]>) =>
  paged(list(Number(offset ?? 0)), Number(offset ?? 0));

export function adminViews(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: Static<typeof FlightsQuery> }>(
      '/admin/flights',
      { schema: { hide: true, querystring: FlightsQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'admin');
        const state = request.query.state;
        const [counts, rows] = await Promise.all([
          flightWatchesByState(deps.db),
          pagedFrom(request.query.offset, (offset) => listWatches(deps.db, { state, offset, limit: VIEW_PAGE + 1 })),
        ]);
        const w = t(ctx.lang);
        return sendPage(
          reply,
          200,
          view(
            ctx,
            w.nav.flights,
            '/admin/flights',
            'state',
            FLIGHT_WATCH_STATES,
            state,
            counts.map((c) => [c.state, String(c.count)]),
            rows,
            [w.flight, w.departure, '→', w.environment, w.status, 'Next check', 'Checks', 'Last outcome'],
            (r) => [
              r.flightNumber,
              `${r.origin} ${r.departureDate} (${formatDate(r.scheduledDeparture, ctx.lang, '')})`,
              r.destination,
              r.environment,
              r.reviewReason ? `${r.state}: ${r.reviewReason}` : r.state,
              formatDate(r.nextCheckAt, ctx.lang, '—'),
              String(r.checks),
              r.lastOutcome ?? '',
            ],
          ),
        );
      },
    );

    app.get<{ Querystring: Static<typeof ClaimsQuery> }>(
      '/admin/claims',
      { schema: { hide: true, querystring: ClaimsQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'admin');
        const w = t(ctx.lang);
        const status = request.query.status;
        const [counts, rows] = await Promise.all([
          claimsByStatus(deps.db, {}),
          pagedFrom(request.query.offset, (offset) =>
            listClaimsForOperators(deps.db, {
              status: status as ClaimStatus | undefined,
              offset,
              limit: VIEW_PAGE + 1,
            }),
          ),
        ]);
        return sendPage(
          reply,
          200,
          view(
            ctx,
            w.nav.claims,
            '/admin/claims',
            'status',
            CLAIM_STATUSES,
            status,
            counts.map((c) => [w.claimStatus[c.status as keyof typeof w.claimStatus] ?? c.status, String(c.count)]),
            rows,
            ['#', w.partnersTitle, w.environment, w.contract, w.status, w.reason, w.amount, w.opened],
            (r) => [
              html`<a href="/admin/claims/${r.claim_number}">${r.claim_number}</a>`,
              r.partner_slug,
              r.environment,
              r.contract_number,
              w.claimStatus[r.status] ?? r.status,
              r.reason,
              formatMoney(Number(r.compensation_amount), r.currency, ctx.lang),
              formatDate(r.opened_at, ctx.lang, ''),
            ],
          ),
        );
      },
    );

    app.get<{ Params: Static<typeof ClaimParams> }>(
      '/admin/claims/:claimNumber',
      { schema: { hide: true, params: ClaimParams } },
      async (request, reply) => {
        const ctx = contextOf(request, 'admin');
        const w = t(ctx.lang);
        const claim = await findClaimByNumber(deps.db, undefined, request.params.claimNumber.toUpperCase());
        if (!claim) throw new DomainError('claim_not_found', `No claim ${request.params.claimNumber}.`);
        const e = claimEvidence(claim);
        return sendPage(
          reply,
          200,
          page(
            ctx,
            `${w.nav.claims} ${claim.claim_number}`,
            html`<h1><a href="/admin/claims">${w.nav.claims}</a> › <span id="claim-number">${claim.claim_number}</span></h1>
<div class="card"><dl class="premium">
<dt>${w.contract}</dt><dd>${claim.contract_number}</dd>
<dt>${w.status}</dt><dd id="claim-status">${w.claimStatus[claim.status] ?? claim.status}</dd>
<dt>${w.reason}</dt><dd>${claim.reason} (${claim.event})</dd>
<dt>${w.flight}</dt><dd>${claim.flight_number} ${claim.departure_date}</dd>
<dt>${w.amount}</dt><dd>${formatMoney(Number(claim.compensation_amount), claim.currency, ctx.lang)}</dd>
<dt>${w.opened}</dt><dd>${formatDate(claim.opened_at, ctx.lang, '')}</dd>
<dt>${w.paid}</dt><dd>${formatDate(claim.paid_at, ctx.lang, '—')}</dd>
</dl></div>
<h2>${w.evidenceTitle}</h2>
<div class="card">${evidenceList(ctx, e, 'evidence')}</div>`,
          ),
        );
      },
    );

    app.get<{ Querystring: Static<typeof OutboxQuery> }>(
      '/admin/outbox',
      { schema: { hide: true, querystring: OutboxQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'admin');
        const w = t(ctx.lang);
        const rows = await listOutbox(deps.db, Number(request.query.offset ?? 0));
        return sendPage(
          reply,
          200,
          view(
            ctx,
            w.nav.outbox,
            '/admin/outbox',
            undefined,
            [],
            undefined,
            [],
            rows,
            [w.at, w.partnersTitle, w.environment, w.contract, 'SMS'],
            (r) => [formatDate(r.sent_at, ctx.lang, ''), r.slug, r.environment, r.contract_number, r.body],
          ),
        );
      },
    );

    app.get<{ Querystring: Static<typeof PayoutsQuery> }>(
      '/admin/payouts',
      { schema: { hide: true, querystring: PayoutsQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'admin');
        const w = t(ctx.lang);
        const status = request.query.status;
        const [counts, rows] = await Promise.all([
          payoutsByStatus(deps.db),
          pagedFrom(request.query.offset, (offset) =>
            listPayouts(deps.db, { status: status as PayoutStatus | undefined, offset, limit: VIEW_PAGE + 1 }),
          ),
        ]);
        return sendPage(
          reply,
          200,
          view(
            ctx,
            w.nav.payouts,
            '/admin/payouts',
            'status',
            PAYOUT_STATUSES,
            status,
            counts.map((c) => [
              `${c.status} (${c.currency})`,
              `${c.count} · ${formatMoney(c.amount, c.currency, ctx.lang)}`,
            ]),
            rows,
            [
              'End-to-end id',
              w.partnersTitle,
              w.environment,
              '#',
              'Rail',
              w.status,
              'Attempt',
              w.amount,
              w.created,
              w.paid,
            ],
            (r) => [
              r.end_to_end_id,
              r.partner_slug,
              r.environment,
              r.claim_number,
              r.rail,
              r.failure_reason ? `${r.status}: ${r.failure_reason}` : r.status,
              String(r.attempt),
              formatMoney(Number(r.amount), r.currency, ctx.lang),
              formatDate(r.created_at, ctx.lang, ''),
              formatDate(r.settled_at, ctx.lang, '—'),
            ],
          ),
        );
      },
    );
  };
}

/** A counted, filtered, paginated table. */
function view<R>(
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
${data.rows.length === 0 ? html`<p>${w.none}</p>` : html`<table><caption class="visually-hidden">${title}</caption><thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${data.rows.map((r) => html`<tr>${cells(r).map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table>`}
${data.next !== null ? html`<p class="pager"><a href="${link({ ...(filterName ? { [filterName]: current } : {}), offset: String(data.next) })}">${w.nextPage}</a></p>` : ''}`,
    { wide: false },
  );
}
