import { ENVIRONMENTS, type Environment, type Partner } from '../partners/index.ts';
import { html } from '../platform/html.ts';
import { label, t } from '../i18n/index.ts';
import {
  FAILING_SINCE_LOOKBACK_DAYS,
  WEBHOOK_DELIVERY_STATUSES,
  type DeliveryView,
  type EndpointHealth,
  type WebhookDeliveryStatus,
  type WebhookEndpointView,
} from '../webhooks/index.ts';
import { csrfField, formatDate, page, problemList, tableRegion, type PageContext } from './layout.ts';

/**
 * The operator console's page of one partner's webhooks (admin-webhook-routes.ts). Never a secret. Its
 * test and send-again forms carry the page's one-time `actionToken`: each is done once per page shown.
 */

export interface AdminWebhooksFilter {
  env?: Environment | undefined;
  status?: WebhookDeliveryStatus | undefined;
  endpoint?: string | undefined;
  cursor?: string | undefined;
}

export interface AdminWebhooksOutcome {
  done?: 'resumed' | 'paused' | 'test' | 'redelivered' | 'replayed' | undefined;
  problems?: string[];
}

export function adminWebhooksPage(
  ctx: PageContext,
  partner: Partner,
  endpoints: WebhookEndpointView[],
  health: Map<string, EndpointHealth>,
  log: { deliveries: DeliveryView[]; nextCursor: string | null },
  filter: AdminWebhooksFilter,
  outcome: AdminWebhooksOutcome,
  actionToken: string,
): string {
  const w = t(ctx.lang);
  const a = w.adminWebhooks;
  const csrf = csrfField(ctx.session!.csrfToken);
  const base = `/admin/partners/${partner.slug}/webhooks`;
  // an action comes back to the environment shown
  const env = filter.env ? html`<input type="hidden" name="env" value="${filter.env}">` : '';
  // the page's one-time token, in the forms that queue a delivery: a double submit queues it once
  const once = html`<input type="hidden" name="actionToken" value="${actionToken}">`;
  const when = (iso: string | null) => (iso ? formatDate(new Date(iso), ctx.lang, '') : '');
  const link = (params: Record<string, string | undefined>) => {
    const query = new URLSearchParams(
      Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
    ).toString();
    return query ? `${base}?${query}` : base;
  };
  const filterParams = { env: filter.env, status: filter.status, endpoint: filter.endpoint };

  const state = (e: WebhookEndpointView) => {
    const h = health.get(e.id);
    const paused = e.enabled
      ? html`<span data-state="active">${w.active}</span>`
      : html`<span data-state="paused" data-paused="${e.pausedReason ?? 'manual'}">${!e.pausedReason || e.pausedReason === 'manual' ? a.pausedManually : w.pausedBecause[e.pausedReason]}</span>${e.pausedAt ? html` <span class="muted">${w.pausedSince} ${when(e.pausedAt)}</span>` : ''}`;
    const failing = h?.failing
      ? html`<br><strong data-failing>${w.failing}</strong>${h.failingSince ? html` <span data-failing-since="${h.failingSince}"${h.failingLonger ? html` data-failing-longer` : ''}>${h.failingLonger ? a.failingLonger(FAILING_SINCE_LOOKBACK_DAYS) : html`${a.failingSince} ${when(h.failingSince)}`}</span>` : ''}`
      : '';
    const counts =
      h && (h.failedLastDay > 0 || h.succeededLastDay > 0)
        ? html`<br><span class="muted">${a.lastDay(h.failedLastDay, h.succeededLastDay)}</span>`
        : '';
    return html`${paused}${failing}${counts}`;
  };

  const endpointActions = (e: WebhookEndpointView) =>
    html`${
      e.enabled
        ? html`<form method="post" action="${base}/${e.id}/pause" data-confirm="${a.pauseConfirm}">${csrf}${env}<button type="submit" class="secondary">${w.pause}</button></form>
<form method="post" action="${base}/${e.id}/test">${csrf}${env}${once}<button type="submit" class="secondary">${w.sendTest}</button></form>`
        : html`<form method="post" action="${base}/${e.id}/resume">${csrf}${env}<button type="submit">${w.resume}</button></form>`
    }<a href="${link({ env: e.environment, endpoint: e.id })}">${w.deliveries}</a>`;

  const endpointTables = ENVIRONMENTS.map((environment) => {
    const mine = endpoints.filter((e) => e.environment === environment);
    return html`<h3>${environment}</h3>${
      mine.length === 0
        ? html`<p>${w.noEndpoints}</p>`
        : tableRegion(
            `${w.webhooksTitle} ${environment}`,
            html`<table data-environment="${environment}"><thead><tr><th scope="col">${a.endpoint}</th><th scope="col">${w.eventTypes}</th><th scope="col">${a.state}</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${mine.map(
              (e) =>
                html`<tr data-endpoint="${e.id}"><td><code class="id">${e.url}</code>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}<br><code class="muted">${e.id}</code></td><td>${e.eventTypes?.join(', ') ?? w.allTypes}</td><td>${state(e)}</td><td class="row">${endpointActions(e)}</td></tr>`,
            )}</tbody></table>`,
          )
    }`;
  });

  const attempts = (d: DeliveryView) =>
    d.attemptLog.length === 0
      ? ''
      : html`<ol class="attempts">${d.attemptLog.map(
          (at) =>
            html`<li>${a.attempt(at.attempt, when(at.at), at.error ?? (at.statusCode !== null ? `HTTP ${at.statusCode}` : a.noAnswer))}</li>`,
        )}</ol>`;

  const filterForm = html`<form method="get" action="${base}" class="row">
<div><label for="wf-env">${a.environment}</label><select id="wf-env" name="env">${ENVIRONMENTS.map((e) => html`<option${e === filter.env ? html` selected` : ''}>${e}</option>`)}</select></div>
<div><label for="wf-status">${a.status}</label><select id="wf-status" name="status"><option value="">${w.all}</option>${WEBHOOK_DELIVERY_STATUSES.map((s) => html`<option value="${s}"${s === filter.status ? html` selected` : ''}>${a.statuses[s]}</option>`)}</select></div>
${filter.endpoint ? html`<input type="hidden" name="endpoint" value="${filter.endpoint}">` : ''}
<div><button type="submit">${a.filter}</button></div></form>
${filter.endpoint ? html`<p>${label(ctx.lang, a.endpoint)} <code>${endpoints.find((e) => e.id === filter.endpoint)?.url ?? filter.endpoint}</code> · <a href="${link({ env: filter.env, status: filter.status })}">${w.all}</a></p>` : ''}`;

  // "send again" only where the use case would take it: an ended delivery of a live endpoint
  const byId = new Map(endpoints.map((e) => [e.id, e]));
  const redeliverCell = (d: DeliveryView) => {
    if (d.status === 'pending') return '';
    const target = byId.get(d.endpointId);
    if (!target) return html`<span class="muted">${a.endpointRemoved}</span>`;
    if (!target.enabled) return html`<span class="muted">${a.resumeFirst}</span>`;
    return html`<form method="post" action="${base}/deliveries/${d.id}/redeliver">${csrf}${env}${once}<button type="submit" class="secondary">${w.redeliver}</button></form>`;
  };

  const deliveries =
    log.deliveries.length === 0
      ? html`<p>${w.noDeliveries}</p>`
      : tableRegion(
          w.deliveries,
          html`<table id="deliveries"><thead><tr><th scope="col">${a.created}</th><th scope="col">${a.event}</th><th scope="col">${a.endpoint}</th><th scope="col">${a.status}</th><th scope="col">${a.attemptLog}</th><th scope="col">${a.nextRetry}</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${log.deliveries.map(
            (d) =>
              html`<tr data-delivery="${d.id}"><td>${when(d.createdAt)}</td><td><code>${d.eventType}</code><br><code class="muted">${d.eventId}</code></td><td><code class="id">${d.url}</code><br><span class="muted">${d.environment}</span></td><td data-status="${d.status}">${a.statuses[d.status]}</td><td>${attempts(d)}</td><td>${d.status === 'pending' ? when(d.nextAttemptAt) || a.noRetry : a.noRetry}</td><td>${redeliverCell(d)}</td></tr>`,
          )}</tbody></table>`,
        );

  const pager =
    filter.cursor || log.nextCursor
      ? html`<p class="pager">${filter.cursor ? html`<a href="${link(filterParams)}">${w.firstPage}</a>` : ''}${log.nextCursor ? html`<a href="${link({ ...filterParams, cursor: log.nextCursor })}" rel="next">${w.nextPage}</a>` : ''}</p>`
      : '';

  const title = a.title(partner.name);
  return page(
    ctx,
    title,
    html`<h1>${title} <span class="muted">(<a href="/admin/partners/${partner.slug}">${partner.slug}</a>)</span></h1>
<p>${a.intro}</p><p class="muted">${a.noSecrets}</p>
${problemList(outcome.problems)}
${outcome.done ? html`<p class="notice" role="status" id="webhooks-done">${outcome.done === 'replayed' ? w.formReplayed : a.done[outcome.done]}</p>` : ''}
<h2>${w.webhooksTitle}</h2>
${endpointTables}
<h2 id="log">${w.deliveries}</h2>
${filterForm}
${deliveries}
${pager}`,
  );
}
