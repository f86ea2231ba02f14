import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { openField, randomToken } from '../platform/crypto.ts';
import { html } from '../platform/html.ts';
import { label, t } from '../i18n/index.ts';
import { formatDate, formatDay, formatMoney, instantTime, nowrap } from './layout.ts';
import { listingPage } from './admin-views.ts';
import { bicField, deskActionForm, leftOutNote } from './admin-claim-view.ts';
import { contextOf, Offset, oneOf, sendPage, type WebDeps } from './web-kit.ts';
import { CLAIM_STATUSES, operatorClaimsPage } from '../claims/index.ts';
import { FLIGHT_WATCH_STATES, listWatches } from '../monitoring/index.ts';
import { readEmails } from '../notify/index.ts';
import { leftOutBicFault, operatorPayoutsPage, PAYOUT_STATUSES } from '../payouts/index.ts';
import type { ClaimStatus, PayoutStatus } from '../platform/db-schema.ts';
import {
  claimsByStatus,
  flightWatchesByState,
  leftOutPayoutsByCurrency,
  listOutbox,
  paged,
  payoutsByStatus,
  VIEW_PAGE,
} from './views-repo.ts';

/**
 * The operator console's watch pages: flights under monitoring, claims, the SMS outbox, the emails,
 * payouts. Read-only (one claim and its actions: admin-claim-routes.ts); the payouts left out of
 * their files carry the claim page's Set the BIC form, which posts to admin-claim-routes.ts.
 */

const FlightsQuery = Type.Object({ state: Type.Optional(oneOf(FLIGHT_WATCH_STATES)), offset: Type.Optional(Offset) });
const ClaimsQuery = Type.Object({
  status: Type.Optional(oneOf(CLAIM_STATUSES)),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
});
const OutboxQuery = Type.Object({ offset: Type.Optional(Offset) });
/** The payouts page's filter: a status, or the pending payouts a batch left out of its file. */
const LEFT_OUT = 'left_out';
const PAYOUT_FILTERS = [...PAYOUT_STATUSES, LEFT_OUT] as const;
const PayoutsQuery = Type.Object({
  status: Type.Optional(oneOf(PAYOUT_FILTERS)),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
});

/** One page of a listing asked for VIEW_PAGE + 1 rows from the `offset` query parameter. */
const pagedFrom = <T>(offset: string | undefined, list: (offset: number) => Promise<T[]>) =>
  paged(list(Number(offset ?? 0)), Number(offset ?? 0));

export function adminWatchRoutes(deps: WebDeps): FastifyPluginAsync {
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
          listingPage(
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
              `${r.origin} ${formatDay(r.departureDate, ctx.lang)} (${formatDate(r.scheduledDeparture, ctx.lang, '')})`,
              r.destination,
              r.environment,
              r.reviewReason ? `${label(ctx.lang, r.state)} ${r.reviewReason}` : r.state,
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
        const cursor = request.query.cursor || undefined;
        // newest first by a cursor, not an offset: claims opened while paging do not shift the pages
        const [counts, found] = await Promise.all([
          claimsByStatus(deps.db, {}),
          operatorClaimsPage(deps.db, deps.flight.keys, {
            status: status as ClaimStatus | undefined,
            cursor,
            cursorField: 'querystring:/cursor',
            limit: VIEW_PAGE,
          }),
        ]);
        const rows = {
          rows: found.rows,
          next: null,
          keyset: { nextCursor: found.nextCursor, paged: cursor !== undefined },
        };
        return sendPage(
          reply,
          200,
          listingPage(
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
          listingPage(
            ctx,
            w.nav.outbox,
            '/admin/outbox',
            undefined,
            [],
            undefined,
            [],
            rows,
            [w.at, w.partnersTitle, w.environment, w.contract, 'SMS'],
            (r) => [
              formatDate(r.sent_at, ctx.lang, ''),
              r.slug,
              r.environment,
              r.contract_number,
              openField(deps.flight.keys.encryption, r.body_enc, r.body),
            ],
          ),
        );
      },
    );

    app.get<{ Querystring: Static<typeof OutboxQuery> }>(
      '/admin/emails',
      { schema: { hide: true, querystring: OutboxQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'admin');
        const u = t(ctx.lang).partnerUsers;
        const rows = await pagedFrom(request.query.offset, (offset) =>
          readEmails(deps.db, deps.flight.keys, { offset, limit: VIEW_PAGE + 1 }),
        );
        return sendPage(
          reply,
          200,
          listingPage(
            ctx,
            u.emailsTitle,
            '/admin/emails',
            undefined,
            [],
            undefined,
            [],
            rows,
            [t(ctx.lang).at, u.kind, t(ctx.lang).partnersTitle, u.to, u.subject, u.status, u.body],
            (r) => [
              nowrap(formatDate(r.createdAt, ctx.lang, '')),
              r.kind,
              r.partner ?? '',
              r.to,
              r.subject,
              `${r.status}${r.provider ? ` (${r.provider})` : ''}`,
              r.text === null ? '' : html`<pre class="email-text">${r.text}</pre>`,
            ],
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
        const d = w.claimDesk;
        const filter = request.query.status;
        const leftOut = filter === LEFT_OUT;
        const status = leftOut ? undefined : (filter as PayoutStatus | undefined);
        const cursor = request.query.cursor || undefined;
        // by a cursor, as `parasol payouts list --cursor`, not an offset: payouts written while an
        // operator pages (a claim's bank details, a batch leaving one out) do not shift the pages
        const [counts, leftOutCounts, found] = await Promise.all([
          payoutsByStatus(deps.db),
          leftOutPayoutsByCurrency(deps.db),
          operatorPayoutsPage(deps.db, deps.flight.keys, {
            status,
            leftOut,
            cursor,
            cursorField: 'querystring:/cursor',
            limit: VIEW_PAGE,
          }),
        ]);
        const rows = {
          rows: found.rows,
          next: null,
          keyset: { nextCursor: found.nextCursor, paged: cursor !== undefined },
        };
        const cards: [string, string][] = [
          ...counts.map((c): [string, string] => [
            `${c.status} (${c.currency})`,
            `${c.count} · ${formatMoney(c.amount, c.currency, ctx.lang)}`,
          ]),
          // what needs an operator: counted among the pending above, said again on their own
          ...leftOutCounts.map((c): [string, string] => [
            d.leftOutCount(c.currency),
            `${c.count} · ${formatMoney(c.amount, c.currency, ctx.lang)}`,
          ]),
        ];
        if (leftOut)
          // each row's Set the BIC form is the claim page's, with a one-time token of its own
          return sendPage(
            reply,
            200,
            listingPage(
              ctx,
              w.nav.payouts,
              '/admin/payouts',
              'status',
              PAYOUT_FILTERS,
              filter,
              cards,
              rows,
              [
                '#',
                `${w.partnersTitle} / ${w.environment}`,
                w.currency,
                w.amount,
                d.leftOutSince,
                d.leftOutWhy,
                d.setBic,
              ],
              (r) => [
                html`<a href="/admin/claims/${r.claim_number}">${nowrap(r.claim_number)}</a><br><code class="id">${r.end_to_end_id}</code>`,
                html`${r.partner_slug}<br><span class="muted">${r.environment}</span>`,
                r.currency,
                nowrap(formatMoney(Number(r.amount), r.currency, ctx.lang)),
                nowrap(instantTime(r.left_out_at, ctx.lang)),
                html`<strong class="left-out">${r.left_out_code ?? ''}</strong><br>${r.left_out_reason ?? ''}`,
                // the form only where the BIC is at fault: another fault is not fixed by a BIC
                r.left_out_code !== null && leftOutBicFault(r.left_out_code, r.left_out_reason) !== 'none'
                  ? html`<details><summary>${d.setBic}</summary>${deskActionForm(ctx, r.claim_number, randomToken(24), {
                      path: 'bic',
                      id: `left-out-bic-${r.claim_number}`,
                      label: d.setBic,
                      extra: bicField(`left-out-bic-${r.claim_number}-value`, ctx, null),
                    })}</details>`
                  : r.left_out_code === 'no_debtor_address'
                    ? // the insurer's setting, not this claim's: nothing to do on the claim page
                      html`<span class="left-out">${d.leftOutSetAddress}</span>`
                    : html`<a href="/admin/claims/${r.claim_number}">${d.leftOutNotBic}</a>`,
              ],
              html`<h2 id="left-out">${d.leftOutTitle}</h2><p class="muted">${d.leftOutHint}</p><p class="muted" id="reason-hint">${d.reasonHint}</p>`,
            ),
          );
        return sendPage(
          reply,
          200,
          listingPage(
            ctx,
            w.nav.payouts,
            '/admin/payouts',
            'status',
            PAYOUT_FILTERS,
            filter,
            cards,
            rows,
            [
              'End-to-end id',
              `${w.partnersTitle} / ${w.environment}`,
              '#',
              'Rail',
              `${w.status} / attempt`,
              w.amount,
              `${w.created} (UTC)`,
              `${w.paid} (UTC)`,
            ],
            // compact enough for a 1280 px screen: the id may break, the dates are short, two facts share a cell
            (r) => [
              html`<code class="id">${r.end_to_end_id}</code>`,
              html`${r.partner_slug}<br><span class="muted">${r.environment}</span>`,
              nowrap(r.claim_number),
              r.rail,
              html`${r.failure_reason ? `${label(ctx.lang, r.status)} ${r.failure_reason}` : r.status}${r.status === 'pending' && r.left_out_at ? html`<br><strong class="left-out">${leftOutNote(ctx.lang, r.left_out_at, r.left_out_code)}</strong>` : ''}<br><span class="muted">${String(r.attempt)}</span>`,
              nowrap(formatMoney(Number(r.amount), r.currency, ctx.lang)),
              nowrap(instantTime(r.created_at, ctx.lang)),
              nowrap(instantTime(r.settled_at, ctx.lang, { never: '—' })),
            ],
          ),
        );
      },
    );
  };
}
