import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  amendAgreement,
  createApiKey,
  createPartner,
  createUser,
  listUsers,
  parseRole,
  ENVIRONMENTS,
  FORMULAS,
  parseApiName,
  parseEffective,
  requirePartner,
  revokeApiKey,
  setAgreement,
  setDocuments,
  setSubscription,
  signAgreement,
  type Environment,
  type Formula,
  type Partner,
} from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { DomainError } from '../platform/errors.ts';
import { t, type Lang } from '../i18n/index.ts';
import { sessionActor, sessionFor } from './sessions.ts';
import { signInRoutes } from './sign-in.ts';
import {
  COOKIES,
  contextOf,
  field,
  fieldList,
  langOf,
  problemLines,
  requireSession,
  sendMessage,
  sendPage,
  type FormBody,
  type WebDeps,
} from './web-kit.ts';
import { adminWatchRoutes } from './admin-watch-routes.ts';
import { adminClaimRoutes } from './admin-claim-routes.ts';
import { partnerPage, partnersPage, type PartnerView } from './admin-partner-views.ts';
import { adminRisk } from './admin-risk-routes.ts';
import { adminLimits } from './admin-limits-routes.ts';
import { adminReports } from './report-routes.ts';

/**
 * The operator console: what the CLI does (partners, agreements draft → signed, subscriptions, keys,
 * portal users) through the same use cases. A partner user never reaches it: any /admin page asked
 * with a partner session and no operator session answers 403.
 */
export function adminRoutes(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      if (!request.url.startsWith('/admin')) return;
      const operator = await sessionFor(deps, 'operator', request.cookies[COOKIES.operator.name]);
      if (operator) {
        request.webSession = operator; // requireSession uses it: one session lookup per request
        return;
      }
      const partner = await sessionFor(deps, 'partner', request.cookies[COOKIES.partner.name]);
      if (partner) return sendMessage(request, reply, 'admin', 403, t(contextOf(request, 'admin').lang).forbiddenAdmin);
    });
    await app.register(signInRoutes(deps, 'operator'));

    await app.register(async (admin) => {
      requireSession(admin, deps, 'operator', 'admin', '/admin/login');
      const actor = (request: FastifyRequest) => sessionActor(request.webSession!);

      admin.get('/admin', async (request, reply) =>
        sendPage(reply, 200, partnersPage(contextOf(request, 'admin'), await repo.listPartners(deps.db))),
      );

      admin.post<{ Body: FormBody }>('/admin/partners', async (request, reply) => {
        try {
          const partner = await createPartner(deps.db, actor(request), {
            slug: field(request.body, 'slug', 63),
            name: field(request.body, 'name', 200),
          });
          return reply.redirect(`/admin/partners/${partner.slug}`, 303);
        } catch (error) {
          const problems = problemsOf(error, langOf(request));
          return sendPage(
            reply,
            422,
            partnersPage(contextOf(request, 'admin'), await repo.listPartners(deps.db), problems),
          );
        }
      });

      admin.get<{ Params: { slug: string } }>('/admin/partners/:slug', async (request, reply) => {
        const partner = await requirePartner(deps.db, request.params.slug);
        return sendPage(reply, 200, partnerPage(contextOf(request, 'admin'), await loadPartnerView(deps, partner)));
      });

      /** Runs an operator action on a partner; on a domain error, shows the partner page with it. */
      const action = <B>(
        path: string,
        run: (
          request: FastifyRequest<{ Params: { slug: string; id?: string }; Body: B }>,
          partner: Partner,
        ) => Promise<string | undefined>,
      ) =>
        admin.post<{ Params: { slug: string; id?: string }; Body: B }>(path, async (request, reply: FastifyReply) => {
          const partner = await requirePartner(deps.db, request.params.slug);
          try {
            const shown = await run(request, partner);
            deps.directory.invalidate();
            if (shown !== undefined)
              return sendPage(
                reply,
                201,
                partnerPage(contextOf(request, 'admin'), await loadPartnerView(deps, partner), { created: shown }),
              );
            return reply.redirect(`/admin/partners/${partner.slug}?done=1`, 303);
          } catch (error) {
            return sendPage(
              reply,
              422,
              partnerPage(contextOf(request, 'admin'), await loadPartnerView(deps, partner), {
                problems: problemsOf(error, langOf(request)),
              }),
            );
          }
        });

      action<FormBody>('/admin/partners/:slug/agreement', async (request, partner) => {
        const body = request.body;
        await setAgreement(deps.db, actor(request), partner.id, agreementTermsOf(body));
        return undefined;
      });

      action<FormBody>('/admin/partners/:slug/amend', async (request, partner) => {
        const body = request.body;
        const now = deps.now();
        const effectiveAt = parseEffective(field(body, 'effectiveAt', 40), now);
        if (!effectiveAt)
          throw new DomainError('validation_failed', 'The amendment is not valid.', {
            errors: [{ field: '/effectiveAt', code: 'invalid_format', message: 'must be a date, YYYY-MM-DD' }],
          });
        await amendAgreement(
          deps.db,
          actor(request),
          partner.id,
          {
            ...agreementTermsOf(body),
            effectiveAt,
            reason: field(body, 'reason', 500),
          },
          now,
        );
        return undefined;
      });

      action<FormBody>('/admin/partners/:slug/documents', async (request, partner) => {
        const body = request.body;
        const complaintsUrl = field(body, 'complaintsUrl', 2000);
        await setDocuments(deps.db, actor(request), partner.id, {
          ipid: {
            url: field(body, 'ipidUrl', 2000),
            version: field(body, 'ipidVersion', 40),
            sha256: field(body, 'ipidSha256', 64),
          },
          terms: {
            url: field(body, 'termsUrl', 2000),
            version: field(body, 'termsVersion', 40),
            sha256: field(body, 'termsSha256', 64),
          },
          insurer: {
            name: field(body, 'insurerName', 200),
            registration: field(body, 'insurerRegistration', 200),
            address: field(body, 'insurerAddress', 500),
            regulator: field(body, 'insurerRegulator', 200),
            complaints: { email: field(body, 'complaintsEmail', 254), url: complaintsUrl || null },
          },
        });
        return undefined;
      });

      action<FormBody>('/admin/partners/:slug/sign', async (request, partner) => {
        await signAgreement(deps.db, actor(request), partner.id);
        return undefined;
      });

      action<FormBody>('/admin/partners/:slug/subscriptions', async (request, partner) => {
        const api = parseApiName(field(request.body, 'api', 40));
        await setSubscription(deps.db, actor(request), partner.id, api, field(request.body, 'subscribed') === 'true');
        return undefined;
      });

      action<FormBody>('/admin/partners/:slug/keys', async (request, partner) => {
        const environment = field(request.body, 'environment', 20);
        if (!(ENVIRONMENTS as readonly string[]).includes(environment))
          throw new DomainError('validation_failed', 'Choose an environment.', {
            errors: [
              { field: '/environment', code: 'not_allowed', message: `must be one of ${ENVIRONMENTS.join(', ')}` },
            ],
          });
        const created = await createApiKey(deps.db, actor(request), {
          partnerId: partner.id,
          environment: environment as Environment,
          label: field(request.body, 'label', 100) || undefined,
        });
        return created.plaintext;
      });

      action<FormBody>('/admin/partners/:slug/keys/:id/revoke', async (request, partner) => {
        await revokeApiKey(deps.db, actor(request), partner.id, request.params.id ?? '');
        return undefined;
      });

      action<FormBody>('/admin/partners/:slug/users', async (request, partner) => {
        await createUser(deps.db, actor(request), {
          partnerId: partner.id,
          email: field(request.body, 'email', 320),
          password: field(request.body, 'password', 1024),
          role: parseRole(field(request.body, 'role', 20) || 'admin'),
        });
        return undefined;
      });

      await admin.register(adminWatchRoutes(deps));
      await admin.register(adminClaimRoutes(deps));
      await admin.register(adminRisk(deps));
      await admin.register(adminLimits(deps));
      await admin.register(adminReports(deps));
    });
  };
}

const integerOf = (text: string) => (/^\d{1,12}$/.test(text) ? Number(text) : Number.NaN);

function problemsOf(error: unknown, lang: Lang): string[] {
  if (!(error instanceof DomainError)) throw error;
  return problemLines(error, lang);
}

async function loadPartnerView(deps: WebDeps, partner: Partner): Promise<PartnerView> {
  const now = deps.now();
  const [agreement, subscriptions, keys, users, documents, versions, configuration] = await Promise.all([
    repo.findAgreement(deps.db, partner.id, now),
    repo.listSubscriptions(deps.db, partner.id),
    repo.listApiKeys(deps.db, partner.id),
    listUsers(deps.db, partner.id),
    repo.findDocuments(deps.db, partner.id),
    repo.listAgreementVersions(deps.db, partner.id),
    repo.findCurrentConfiguration(deps.db, partner.id),
  ]);
  const platformInsurer = repo.insurerOfPlatform(deps.config.insurer);
  return { partner, agreement, subscriptions, keys, users, documents, versions, configuration, platformInsurer, now };
}

/** The agreement's terms as the operator's agreement and amendment forms send them. */
function agreementTermsOf(body: FormBody) {
  return {
    allowedFormulas: fieldList(body, 'allowedFormulas').filter((f): f is Formula =>
      (FORMULAS as readonly string[]).includes(f),
    ),
    currency: field(body, 'currency', 3).toUpperCase(),
    taxRate: field(body, 'taxRate', 10),
    commissionMin: field(body, 'commissionMin', 10),
    commissionMax: field(body, 'commissionMax', 10),
    compensationMin: integerOf(field(body, 'compensationMin', 12)),
    compensationMax: integerOf(field(body, 'compensationMax', 12)),
  };
}
