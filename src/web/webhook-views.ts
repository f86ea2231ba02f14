import {
  WEBHOOK_EVENT_TYPES,
  type DeliveryView,
  type EndpointHealth,
  type WebhookEndpointView,
} from '../webhooks/index.ts';
import { ENVIRONMENTS, type Environment } from '../partners/index.ts';
import { html } from '../platform/html.ts';
import { t } from '../i18n/index.ts';
import { csrfField, formatDate, mayChange, page, problemList, tableRegion, type PageContext } from './layout.ts';

/**
 * The console's webhooks page: endpoints, their forms, the delivery log. Its test, send-again and
 * rotate forms carry the page's one-time `actionToken`: each is done once per page shown.
 */

export interface Outcome {
  secret?: string;
  previousUntil?: string;
  /**
   * `replayed`: a test or send-again form of this page sent twice, nothing queued the second time;
   * `rotateReplayed`: its rotate form sent twice, rotated once, the secret in force shown again;
   * `rotateSuperseded`: the same, but a later rotation replaced that secret (none shown).
   */
  notice?: 'test' | 'redelivered' | 'replayed' | 'rotateReplayed' | 'rotateSuperseded';
  problems?: string[];
}

export function webhooksPage(
  ctx: PageContext,
  environment: Environment,
  endpoints: WebhookEndpointView[],
  deliveries: DeliveryView[],
  outcome: Outcome,
  health: Map<string, EndpointHealth>,
  actionToken: string,
): string {
  const w = t(ctx.lang);
  const csrf = csrfField(ctx.session!.csrfToken);
  const env = html`<input type="hidden" name="env" value="${environment}">`;
  const once = html`<input type="hidden" name="actionToken" value="${actionToken}">`;
  const notices = {
    test: w.testSent,
    redelivered: w.redelivered,
    replayed: w.formReplayed,
    rotateReplayed: w.rotateReplayed,
    rotateSuperseded: w.rotateSuperseded,
  };
  return page(
    ctx,
    w.webhooksTitle,
    html`<h1>${w.webhooksTitle}</h1><p>${w.webhooksIntro}</p>
<form method="get" action="/console/webhooks" class="row"><div><label for="w-env">${w.environment}</label><select id="w-env" name="env">${ENVIRONMENTS.map((e) => html`<option${e === environment ? html` selected` : ''}>${e}</option>`)}</select></div><div><button type="submit">${w.filter}</button></div></form>
${problemList(outcome.problems)}
${endpoints.some((e) => e.pausedReason === 'gone' || e.pausedReason === 'failing') ? html`<p class="alert" role="alert" data-paused-by-platform>${w.pausedByPlatform}</p>` : ''}
${outcome.notice ? html`<p class="notice" role="status">${notices[outcome.notice]}</p>` : ''}
${outcome.secret ? html`<section class="card"><h2>${w.secretTitle}</h2><p role="alert">${outcome.notice === 'rotateReplayed' ? w.secretShownAgain : w.secretWarning}${outcome.previousUntil ? ` ${outcome.previousUntil}` : ''}.</p><p><code class="key" id="new-secret">${outcome.secret}</code></p><p><button type="button" data-copy="new-secret" data-copied="${w.copied}">${w.copy}</button> <span id="new-secret-status" role="status"></span></p></section>` : ''}
${
  endpoints.length === 0
    ? html`<p>${w.noEndpoints}</p>`
    : tableRegion(
        w.webhooksTitle,
        html`<table><caption class="visually-hidden">${w.webhooksTitle}</caption><thead><tr><th scope="col">URL</th><th scope="col">${w.eventTypes}</th><th scope="col">${w.status}</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${endpoints.map(
          (
            e,
          ) => html`<tr><td><code class="id">${e.url}</code>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}</td><td>${e.eventTypes?.join(', ') ?? w.allTypes}</td><td>${e.enabled ? w.active : html`<span data-paused="${e.pausedReason ?? ''}">${w.pausedBecause[e.pausedReason ?? 'manual']}</span>${e.pausedAt ? html` <span class="muted">${w.pausedSince} ${formatDate(new Date(e.pausedAt), ctx.lang, '')}</span>` : ''}`}${health.get(e.id)?.failing ? html` <strong data-failing title="${health.get(e.id)!.failedLastDay} ${w.failingHint}">${w.failing}</strong>` : ''}</td>
<td class="row">${
            mayChange(ctx, 'webhooks')
              ? html`<form method="post" action="/console/webhooks/${e.id}/${e.enabled ? 'pause' : 'resume'}">${csrf}${env}<button type="submit" class="secondary">${e.enabled ? w.pause : w.resume}</button></form>
<form method="post" action="/console/webhooks/${e.id}/test">${csrf}${env}${once}<button type="submit" class="secondary">${w.sendTest}</button></form>
<form method="post" action="/console/webhooks/${e.id}/rotate">${csrf}${env}${once}<button type="submit" class="secondary">${w.rotate}</button></form>
<form method="post" action="/console/webhooks/${e.id}/remove" data-confirm="${w.removeConfirm}">${csrf}${env}<button type="submit" class="danger">${w.remove}</button></form>`
              : ''
          }</td></tr>`,
        )}</tbody></table>`,
      )
}
${
  mayChange(ctx, 'webhooks')
    ? html`<section class="card"><h2>${w.addEndpoint}</h2>
<form method="post" action="/console/webhooks">${csrf}${env}
<label for="w-url">${w.url}</label><input id="w-url" name="url" type="url" required size="60" placeholder="https://example.com/parasol/webhooks">
<label for="w-description">${w.description}</label><input id="w-description" name="description" maxlength="200" size="60">
<fieldset><legend>${w.eventTypes}</legend><p class="muted">${w.noneTicked}</p>${WEBHOOK_EVENT_TYPES.map((type) => html`<label><input type="checkbox" name="eventTypes" value="${type}"> <code>${type}</code></label>`)}</fieldset>
<p><button type="submit">${w.addEndpoint}</button></p></form></section>`
    : ''
}
<h2>${w.deliveries}</h2>
${
  deliveries.length === 0
    ? html`<p>${w.noDeliveries}</p>`
    : tableRegion(
        w.deliveries,
        html`<table><thead><tr><th scope="col">${w.at}</th><th scope="col">Event</th><th scope="col">URL</th><th scope="col">${w.status}</th><th scope="col">${w.attempts}</th><th scope="col">HTTP</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${deliveries.map(
          (d) =>
            html`<tr><td>${formatDate(new Date(d.createdAt), ctx.lang, '')}</td><td><code>${d.eventType}</code></td><td><code class="id">${d.url}</code></td><td>${d.status}</td><td>${d.attempts}</td><td>${d.lastStatusCode ?? d.lastError ?? ''}</td><td>${d.status === 'pending' ? '' : !mayChange(ctx, 'webhooks') ? '' : html`<form method="post" action="/console/webhooks/deliveries/${d.id}/redeliver">${csrf}${env}${once}<button type="submit" class="secondary">${w.redeliver}</button></form>`}</td></tr>`,
        )}</tbody></table>`,
      )
}`,
  );
}
