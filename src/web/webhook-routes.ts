import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { WEBHOOK_EVENT_TYPES } from '../notify/webhook-events.ts';
import { addEndpoint, listDeliveries, listEndpoints, removeEndpoint, rotateSecret, sendTestEvent, type DeliveryView, type WebhookDeps, type WebhookEndpointView } from '../notify/webhooks.ts';
import { ENVIRONMENTS, type Environment } from '../partners/model.ts';
import { DomainError } from '../platform/errors.ts';
import { html } from './html.ts';
import { t } from './i18n.ts';
import { csrfField, formatDate, page, type PageContext } from './layout.ts';
import { sessionActor } from './sessions.ts';
import { contextOf, field, fieldList, requireSession, sendPage, type FormBody } from './web-kit.ts';
import type { WebDeps } from './web-routes.ts';

/** The console's webhook endpoints: add, test-send, rotate the secret, remove, and the delivery log. */
export function webhookRoutes(deps: WebDeps): FastifyPluginAsync {
  const webhooks: WebhookDeps = { db: deps.db, jobs: deps.flight.jobs, keys: deps.flight.keys, allowPrivate: deps.config.webhooksAllowPrivate, now: deps.now };
  const environmentOf = (value: unknown): Environment => ((ENVIRONMENTS as readonly string[]).includes(String(value)) ? (value as Environment) : 'sandbox');
  return async (app) => {
    requireSession(app, deps, 'partner', 'console', '/portal/login');
    const scopeOf = (request: FastifyRequest, environment: Environment) => ({ actor: sessionActor(request.webSession!), partnerId: request.webSession!.partnerId!, environment });

    const render = async (request: FastifyRequest, environment: Environment, outcome: Outcome = {}) => {
      const scope = scopeOf(request, environment);
      const [endpoints, deliveries] = await Promise.all([listEndpoints(webhooks, scope), listDeliveries(webhooks, scope, { limit: 20 })]);
      return webhooksPage(contextOf(request, 'console'), environment, endpoints, deliveries.deliveries, outcome);
    };

    app.get<{ Querystring: { env?: string } }>('/console/webhooks', async (request, reply) => sendPage(reply, 200, await render(request, environmentOf(request.query.env))));

    /** Runs a change; a domain error other than 404 is shown on the page (422). */
    const change = (path: string, run: (request: FastifyRequest<{ Body: FormBody; Params: { id?: string } }>, environment: Environment) => Promise<Outcome>) =>
      app.post<{ Body: FormBody; Params: { id?: string } }>(path, async (request, reply) => {
        const environment = environmentOf(field(request.body, 'env'));
        try {
          const outcome = await run(request, environment);
          return sendPage(reply, outcome.secret ? 201 : 200, await render(request, environment, outcome));
        } catch (error) {
          if (!(error instanceof DomainError) || error.status === 404 || error.status >= 500) throw error;
          const problems = error.extra.errors?.length ? error.extra.errors.map((e) => `${e.field.replace(/^\//, '')}: ${e.message}`) : [error.detail];
          return sendPage(reply, 422, await render(request, environment, { problems }));
        }
      });

    change('/console/webhooks', async (request, environment) => {
      const types = fieldList(request.body, 'eventTypes');
      const created = await addEndpoint(webhooks, scopeOf(request, environment), { url: field(request.body, 'url', 2000), description: field(request.body, 'description', 300) || undefined, eventTypes: types.length ? types : null });
      return { secret: created.secret };
    });
    change('/console/webhooks/:id/test', async (request, environment) => {
      await sendTestEvent(webhooks, scopeOf(request, environment), request.params.id ?? '');
      return { notice: 'test' };
    });
    change('/console/webhooks/:id/rotate', async (request, environment) => {
      const rotated = await rotateSecret(webhooks, scopeOf(request, environment), request.params.id ?? '');
      return { secret: rotated.secret, previousUntil: rotated.previousSecretValidUntil };
    });
    change('/console/webhooks/:id/remove', async (request, environment) => {
      await removeEndpoint(webhooks, scopeOf(request, environment), request.params.id ?? '');
      return {};
    });
  };
}

interface Outcome {
  secret?: string;
  previousUntil?: string;
  notice?: 'test';
  problems?: string[];
}

function webhooksPage(ctx: PageContext, environment: Environment, endpoints: WebhookEndpointView[], deliveries: DeliveryView[], outcome: Outcome): string {
  const w = t(ctx.lang);
  const csrf = csrfField(ctx.session!.csrfToken);
  const env = html`<input type="hidden" name="env" value="${environment}">`;
  return page(
    ctx,
    w.webhooksTitle,
    html`<h1>${w.webhooksTitle}</h1><p>${w.webhooksIntro}</p>
<form method="get" action="/console/webhooks" class="row"><div><label for="w-env">${w.environment}</label><select id="w-env" name="env">${ENVIRONMENTS.map((e) => html`<option${e === environment ? html` selected` : ''}>${e}</option>`)}</select></div><div><button type="submit">${w.filter}</button></div></form>
${outcome.problems?.length ? html`<div class="alert" role="alert"><ul>${outcome.problems.map((p) => html`<li>${p}</li>`)}</ul></div>` : ''}
${outcome.notice === 'test' ? html`<p class="notice" role="status">${w.testSent}</p>` : ''}
${outcome.secret ? html`<section class="card"><h2>${w.secretTitle}</h2><p role="alert">${w.secretWarning}${outcome.previousUntil ? ` ${outcome.previousUntil}` : ''}.</p><p><code class="key" id="new-secret">${outcome.secret}</code></p><p><button type="button" data-copy="new-secret" data-copied="${w.copied}">${w.copy}</button> <span id="new-secret-status" role="status"></span></p></section>` : ''}
${endpoints.length === 0
  ? html`<p>${w.noEndpoints}</p>`
  : html`<table><caption class="visually-hidden">${w.webhooksTitle}</caption><thead><tr><th scope="col">URL</th><th scope="col">${w.eventTypes}</th><th scope="col">${w.status}</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${endpoints.map(
      (e) => html`<tr><td><code>${e.url}</code>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}</td><td>${e.eventTypes?.join(', ') ?? w.allTypes}</td><td>${e.enabled ? w.active : '—'}</td>
<td class="row"><form method="post" action="/console/webhooks/${e.id}/test">${csrf}${env}<button type="submit" class="secondary">${w.sendTest}</button></form>
<form method="post" action="/console/webhooks/${e.id}/rotate">${csrf}${env}<button type="submit" class="secondary">${w.rotate}</button></form>
<form method="post" action="/console/webhooks/${e.id}/remove" data-confirm="${w.removeConfirm}">${csrf}${env}<button type="submit" class="danger">${w.remove}</button></form></td></tr>`,
    )}</tbody></table>`}
<section class="card"><h2>${w.addEndpoint}</h2>
<form method="post" action="/console/webhooks">${csrf}${env}
<label for="w-url">${w.url}</label><input id="w-url" name="url" type="url" required size="60" placeholder="https://example.com/parasol/webhooks">
<label for="w-description">${w.description}</label><input id="w-description" name="description" maxlength="200" size="60">
<fieldset><legend>${w.eventTypes}</legend><p class="muted">${w.noneTicked}</p>${WEBHOOK_EVENT_TYPES.map((type) => html`<label><input type="checkbox" name="eventTypes" value="${type}"> <code>${type}</code></label>`)}</fieldset>
<p><button type="submit">${w.addEndpoint}</button></p></form></section>
<h2>${w.deliveries}</h2>
${deliveries.length === 0
  ? html`<p>${w.noDeliveries}</p>`
  : html`<table><thead><tr><th scope="col">${w.at}</th><th scope="col">Event</th><th scope="col">URL</th><th scope="col">${w.status}</th><th scope="col">${w.attempts}</th><th scope="col">HTTP</th></tr></thead><tbody>${deliveries.map(
      (d) => html`<tr><td>${formatDate(new Date(d.createdAt), ctx.lang, '')}</td><td><code>${d.eventType}</code></td><td><code>${d.url}</code></td><td>${d.status}</td><td>${d.attempts}</td><td>${d.lastStatusCode ?? d.lastError ?? ''}</td></tr>`,
    )}</tbody></table>`}`,
  );
}
