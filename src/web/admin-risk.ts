import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ENVIRONMENTS } from '../partners/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import { activateModelVersion, listModelVersions } from '../risk/index.ts';
import { html } from '../platform/html.ts';
import type { Lang } from '../i18n/index.ts';
import { csrfField, formatDate, page, type PageContext } from './layout.ts';
import { sessionActor } from './sessions.ts';
import { contextOf, field, problemLines, sendPage, type FormBody, type WebDeps } from './web-kit.ts';

/**
 * The operator console's risk model page: every version with its data cut-off and origin, which one
 * prices each environment, activation (audited, effective for new quotes in every process within the
 * model source's refresh) and a refit from the platform's own outcomes on demand.
 */

const WORDS = {
  en: {
    title: 'Risk models',
    intro:
      'Each fit is a version. The version active in an environment prices its new quotes; a quote or contract keeps the version it was priced with.',
    version: 'Version',
    source: 'Source',
    base: 'Base',
    observations: 'Observed flights',
    dataUntil: 'Data until',
    activeIn: 'Active in',
    created: 'Created',
    activate: 'Activate',
    environment: 'Environment',
    all: 'all',
    refit: 'Refit from observed flights',
    refitHelp:
      'Fits a new version: the newest history version plus every production flight the platform decided. It is not activated.',
    refitQueued:
      'Refit queued: a worker fits the new version (when flights were decided since the last one); it appears here, not active.',
    activated: (version: string, envs: string) => `${version} now prices new quotes in ${envs}.`,
  },
  fr: {
    title: 'Modèles de risque',
    intro:
      'Chaque ajustement est une version. La version active d’un environnement tarife ses nouveaux devis ; un devis ou un contrat garde la version qui l’a tarifé.',
    version: 'Version',
    source: 'Origine',
    base: 'Base',
    observations: 'Vols observés',
    dataUntil: 'Données jusqu’au',
    activeIn: 'Active en',
    created: 'Créée le',
    activate: 'Activer',
    environment: 'Environnement',
    all: 'tous',
    refit: 'Réajuster avec les vols observés',
    refitHelp:
      'Ajuste une nouvelle version : la dernière version historique et chaque vol de production que la plateforme a tranché. Elle n’est pas activée.',
    refitQueued:
      'Réajustement demandé : un worker ajuste la nouvelle version (si des vols ont été tranchés depuis la dernière) ; elle apparaîtra ici, non active.',
    activated: (version: string, envs: string) => `${version} tarife désormais les nouveaux devis en ${envs}.`,
  },
} satisfies Record<Lang, unknown>;

export function adminRisk(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    const actor = (request: FastifyRequest) => sessionActor(request.webSession!);
    const show = async (
      reply: FastifyReply,
      ctx: PageContext,
      status: number,
      outcome: { message?: string; problems?: string[] } = {},
    ) => sendPage(reply, status, await riskPage(deps, ctx, outcome));

    app.get<{ Querystring: { refit?: string } }>('/admin/risk', async (request, reply) => {
      const ctx = contextOf(request, 'admin');
      return show(reply, ctx, 200, request.query.refit === 'queued' ? { message: WORDS[ctx.lang].refitQueued } : {});
    });

    app.post<{ Body: FormBody }>('/admin/risk/activate', async (request, reply) => {
      const ctx = contextOf(request, 'admin');
      const w = WORDS[ctx.lang];
      const version = field(request.body, 'version', 64);
      const env = field(request.body, 'environment', 20);
      try {
        if (env !== 'all' && !(ENVIRONMENTS as readonly string[]).includes(env)) {
          throw new DomainError('validation_failed', 'Choose an environment.', {
            errors: [
              { field: '/environment', code: 'not_allowed', message: `one of ${ENVIRONMENTS.join(', ')} or all` },
            ],
          });
        }
        const environments: Environment[] = env === 'all' ? [...ENVIRONMENTS] : [env as Environment];
        await activateModelVersion(deps.db, actor(request), version, environments);
        await deps.flight.riskModels.refresh?.();
        return await show(reply, ctx, 200, { message: w.activated(version, environments.join(', ')) });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return show(reply, ctx, error.status === 404 ? 404 : 422, { problems: problemLines(error, ctx.lang) });
      }
    });

    // A fit is minutes of CPU: the worker runs it (the refit job), never this API process's request.
    app.post<{ Body: FormBody }>('/admin/risk/refit', async (request, reply) => {
      await deps.flight.jobs.send('risk_refit', { requestedBy: actor(request) }, { singletonKey: 'console-refit' });
      return reply.redirect('/admin/risk?refit=queued', 303);
    });
  };
}

async function riskPage(
  deps: WebDeps,
  ctx: PageContext,
  outcome: { message?: string; problems?: string[] },
): Promise<string> {
  const w = WORDS[ctx.lang];
  const csrf = csrfField(ctx.session!.csrfToken);
  const versions = await listModelVersions(deps.db);
  return page(
    ctx,
    w.title,
    html`<h1>${w.title}</h1>
<p>${w.intro}</p>
${outcome.message ? html`<p class="notice" role="status" id="risk-message">${outcome.message}</p>` : ''}
${outcome.problems?.length ? html`<div class="alert" role="alert"><ul>${outcome.problems.map((p) => html`<li>${p}</li>`)}</ul></div>` : ''}
<div class="table-scroll"><table id="risk-versions"><caption class="visually-hidden">${w.title}</caption>
<thead><tr><th scope="col">${w.version}</th><th scope="col">${w.source}</th><th scope="col">${w.base}</th><th scope="col">${w.observations}</th><th scope="col">${w.dataUntil}</th><th scope="col">${w.activeIn}</th><th scope="col">${w.created}</th><th scope="col">${w.activate}</th></tr></thead>
<tbody>${versions.map(
      (
        v,
      ) => html`<tr><td><code>${v.version}</code></td><td>${v.source}</td><td>${v.baseVersion ?? ''}</td><td>${String(v.observations)}</td><td>${v.dataCutoff}</td><td>${v.activeIn.join(', ') || '—'}</td><td>${formatDate(v.createdAt, ctx.lang, '')}</td>
<td><form method="post" action="/admin/risk/activate" class="row">${csrf}<input type="hidden" name="version" value="${v.version}">
<label class="visually-hidden" for="env-${v.version}">${w.environment}</label><select id="env-${v.version}" name="environment">${[...ENVIRONMENTS, 'all'].map((e) => html`<option value="${e}">${e === 'all' ? w.all : e}</option>`)}</select>
<button type="submit" aria-label="${w.activate} ${v.version}">${w.activate}</button></form></td></tr>`,
    )}</tbody></table></div>
<section class="card"><h2>${w.refit}</h2><p>${w.refitHelp}</p>
<form method="post" action="/admin/risk/refit">${csrf}<button type="submit">${w.refit}</button></form></section>`,
  );
}
