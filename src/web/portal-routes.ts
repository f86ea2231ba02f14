import type { FastifyPluginAsync } from 'fastify';
import { createApiKey, parseEnvironment, revokeApiKey } from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { DomainError } from '../platform/errors.ts';
import { apiDefinition, requireSubscribedApi, subscribedApis } from './catalog.ts';
import { sessionActor } from './sessions.ts';
import { apiPage, catalogPage, keysPage, referencePage, type KeysData } from './portal-views.ts';
import { t } from '../i18n/index.ts';
import {
  allow,
  contextOf,
  field,
  langOf,
  problemLines,
  requireSession,
  sendPage,
  WHOLE,
  type FormBody,
  type WebDeps,
} from './web-kit.ts';

/** The developer portal: the API catalog, each API's page, reference and definition, and API keys. */
export function portalRoutes(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    requireSession(app, deps, 'partner', 'portal', '/portal/login');
    const partnerOf = (request: { webSession: { partnerId: string | null } | null }) => request.webSession!.partnerId!;

    app.get('/portal', async (request, reply) => {
      const ctx = contextOf(request, 'portal');
      return sendPage(reply, 200, catalogPage(ctx, await subscribedApis(deps.db, partnerOf(request))));
    });

    app.get<{ Params: { api: string } }>('/portal/apis/:api', async (request, reply) => {
      const entry = await requireSubscribedApi(deps.db, partnerOf(request), request.params.api);
      return sendPage(reply, 200, apiPage(contextOf(request, 'portal'), entry, deps.config.publicUrl));
    });

    app.get<{ Params: { api: string } }>('/portal/apis/:api/reference', async (request, reply) => {
      const entry = await requireSubscribedApi(deps.db, partnerOf(request), request.params.api);
      return sendPage(reply, 200, referencePage(contextOf(request, 'portal'), entry));
    });

    app.get<{ Params: { api: string } }>('/portal/apis/:api/openapi.json', async (request, reply) => {
      const entry = await requireSubscribedApi(deps.db, partnerOf(request), request.params.api);
      const document = apiDefinition(deps.apiDocument(entry.decorator), entry, deps.config.publicUrl);
      return reply
        .type('application/json; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="parasol-${entry.api}-openapi.json"`)
        .send(JSON.stringify(document, null, 2));
    });

    app.get('/portal/keys', async (request, reply) => {
      return sendPage(reply, 200, keysPage(contextOf(request, 'portal'), await keysData(deps, partnerOf(request))));
    });

    app.post<{ Body: FormBody }>('/portal/keys', async (request, reply) => {
      allow(request, 'keys');
      const partnerId = partnerOf(request);
      const label = field(request.body, 'label', WHOLE) || undefined;
      let created;
      try {
        created = await createApiKey(deps.db, sessionActor(request.webSession!), {
          partnerId,
          environment: parseEnvironment(field(request.body, 'environment', 20)),
          label,
          userId: request.webSession!.accountId, // its right read again as the key is written
        });
      } catch (error) {
        // a refused environment or label (a forged form, the browser's maxlength bypassed) is told on the
        // keys page by its field's label
        if (!(error instanceof DomainError) || error.code !== 'validation_failed') throw error;
        const lang = langOf(request);
        const problems = problemLines(error, lang, { label: t(lang).label, environment: t(lang).environment });
        return sendPage(
          reply,
          422,
          keysPage(contextOf(request, 'portal'), await keysData(deps, partnerId), undefined, problems),
        );
      }
      deps.directory.invalidate();
      return sendPage(reply, 201, keysPage(contextOf(request, 'portal'), await keysData(deps, partnerId), created));
    });

    app.post<{ Params: { id: string } }>('/portal/keys/:id/revoke', async (request, reply) => {
      allow(request, 'keys');
      const session = request.webSession!;
      await revokeApiKey(deps.db, sessionActor(session), partnerOf(request), request.params.id, session.accountId);
      deps.directory.invalidate();
      return reply.redirect('/portal/keys', 303);
    });
  };
}

/** What the keys page shows: the partner's keys, and its agreement (production keys need it signed). */
async function keysData(deps: WebDeps, partnerId: string): Promise<KeysData> {
  const [keys, agreement] = await Promise.all([
    repo.listApiKeys(deps.db, partnerId),
    repo.findAgreement(deps.db, partnerId),
  ]);
  return { keys, agreement };
}
