import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  amendAgreement,
  createApiKey,
  createPartner,
  createUser,
  listUsers,
  parseRole,
  parseApiName,
  parseEffective,
  parseEnvironment,
  requirePartner,
  revokeApiKey,
  setAgreement,
  setDocuments,
  setSubscription,
  signAgreement,
  type Partner,
} from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { DomainError } from '../platform/errors.ts';
import { t, type Words } from '../i18n/index.ts';
import { messagePage } from './layout.ts';
import { sessionActor, sessionFor } from './sessions.ts';
import { signInRoutes } from './sign-in.ts';
import {
  COOKIES,
  conflictLine,
  contextOf,
  field,
  fieldErrorText,
  langOf,
  problemLines,
  requireSession,
  sendMessage,
  sendPage,
  WHOLE,
  type ConflictSentences,
  type FormBody,
  type WebDeps,
} from './web-kit.ts';
import { adminWatchRoutes } from './admin-watch-routes.ts';
import { adminClaimRoutes } from './admin-claim-routes.ts';
import {
  partnerPage,
  partnersPage,
  type KeyFormState,
  type PartnerOutcome,
  type PartnerView,
} from './admin-partner-views.ts';
import {
  agreementFormValues,
  agreementProblemLines,
  agreementValuesFrom,
  parseAgreementForm,
  type AgreementFormState,
} from './agreement-form.ts';
import { adminRisk } from './admin-risk-routes.ts';
import { adminLimits } from './admin-limits-routes.ts';
import { adminReports } from './report-routes.ts';
import { adminWebhooks } from './admin-webhook-routes.ts';

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

      /**
       * What each operator form's conflict answer means, in the page's words (web-kit.ts `conflictLine`, as
       * the partner console's Users page): an identifier or an address taken, an amendment of an agreement
       * not signed, and — a save from an agreement's revision another save replaced — what was replaced. (The
       * documents form's own sentence, for a partner without an agreement, is in `problemsOf`.)
       */
      const replacedOf = (w: Words, error: DomainError) => {
        const current = /^v(\d+)$/.exec(String(error.extra.currentRevision ?? ''));
        return current ? w.adminConflicts.latestVersion(Number(current[1])) : w.adminConflicts.draftSavedAgain;
      };
      const conflicts: ConflictSentences = {
        '/admin/partners': (w, body) => w.adminConflicts.slugTaken(field(body, 'slug', WHOLE)),
        '/admin/partners/:slug/agreement': (w, _body, error) => w.adminConflicts.draftReplaced(replacedOf(w, error)),
        '/admin/partners/:slug/amend': (w, _body, error) =>
          error.code === 'conflict' ? w.adminConflicts.notSigned : w.adminConflicts.amendReplaced(replacedOf(w, error)),
        '/admin/partners/:slug/sign': (w, _body, error) => w.adminConflicts.signReplaced(replacedOf(w, error)),
        '/admin/partners/:slug/users': (w, body) =>
          w.adminConflicts.emailTaken(field(body, 'email', WHOLE).trim().toLowerCase()),
      };
      /**
       * A refusal's lines: the form's conflict sentence, else the error's (problemLines) — but the documents
       * form's `agreement_missing`, whose sentence is the partner's ("the insurer sets it first"): the operator
       * is the one who sets it.
       */
      const problemsOf = (error: unknown, request: FastifyRequest, route: string): string[] => {
        if (!(error instanceof DomainError)) throw error;
        const lang = langOf(request);
        const conflict =
          route === '/admin/partners/:slug/documents' && error.code === 'agreement_missing'
            ? t(lang).adminConflicts.documentsNoAgreement
            : conflictLine(error, lang, route, conflicts, request.body as FormBody | undefined);
        return conflict !== undefined ? [conflict] : problemLines(error, lang);
      };

      admin.get('/admin', async (request, reply) =>
        sendPage(reply, 200, partnersPage(contextOf(request, 'admin'), await repo.listPartners(deps.db))),
      );

      admin.post<{ Body: FormBody }>('/admin/partners', async (request, reply) => {
        try {
          const partner = await createPartner(deps.db, actor(request), {
            slug: field(request.body, 'slug', WHOLE),
            name: field(request.body, 'name', WHOLE),
          });
          return reply.redirect(`/admin/partners/${partner.slug}`, 303);
        } catch (error) {
          const problems = problemsOf(error, request, '/admin/partners');
          return sendPage(
            reply,
            error instanceof DomainError && error.status === 409 ? 409 : 422,
            partnersPage(contextOf(request, 'admin'), await repo.listPartners(deps.db), problems),
          );
        }
      });

      admin.get<{ Params: { slug: string } }>('/admin/partners/:slug', async (request, reply) => {
        const partner = await requirePartner(deps.db, request.params.slug);
        return sendPage(reply, 200, partnerPage(contextOf(request, 'admin'), await loadPartnerView(deps, partner)));
      });

      /**
       * Runs an operator action on a partner: a key shown once (`run`'s answer) is shown on the partner page
       * (201), else the page again (303, `?done=1`). On a domain error, the partner page with it (409 for a
       * conflict, else 422): the lines of `problemsOf`, or what the form's own `refused` makes of it (a form
       * re-shown with its fields' errors).
       */
      const action = <B>(
        path: string,
        run: (
          request: FastifyRequest<{ Params: { slug: string; id?: string }; Body: B }>,
          partner: Partner,
        ) => Promise<string | undefined>,
        refused?: (error: DomainError, request: FastifyRequest) => PartnerOutcome | undefined,
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
            if (!(error instanceof DomainError)) throw error;
            const outcome = refused?.(error, request) ?? { problems: problemsOf(error, request, path) };
            return sendPage(
              reply,
              error.status === 409 ? 409 : 422,
              partnerPage(contextOf(request, 'admin'), await loadPartnerView(deps, partner), outcome),
            );
          }
        });

      /**
       * The draft's terms and an amendment: on a refusal (the terms, or `agreement_changed` when another
       * save replaced the revision the form was opened on — nothing written), the page shows the form
       * as the operator typed it, with the revision it was opened on.
       */
      const agreementAction = (kind: AgreementFormState['kind']) =>
        admin.post<{ Params: { slug: string }; Body: FormBody }>(
          `/admin/partners/:slug/${kind}`,
          async (request, reply) => {
            const partner = await requirePartner(deps.db, request.params.slug);
            const values = agreementValuesFrom(request.body);
            // a form without the revision it was opened on (a page older than the field) is reloaded
            if (!values.revision)
              return sendPage(
                reply,
                400,
                messagePage(contextOf(request, 'admin'), '400', t(langOf(request)).formExpired),
              );
            try {
              const now = deps.now();
              // the draft's form as it was opened (the draft unchanged since, or the revision refuses the save)
              const opened =
                kind === 'agreement'
                  ? agreementFormValues(await repo.findAgreement(deps.db, partner.id), now)
                  : undefined;
              const { terms, errors } = parseAgreementForm(values, opened);
              const effectiveAt = kind === 'amend' ? parseEffective(values.effectiveAt, now) : now;
              if (!effectiveAt)
                errors.push({ field: '/effectiveAt', code: 'invalid_format', message: 'must be a date, YYYY-MM-DD' });
              if (errors.length) throw new DomainError('validation_failed', 'The agreement is not valid.', { errors });
              const expectedRevision = values.revision;
              if (kind === 'agreement')
                await setAgreement(deps.db, actor(request), partner.id, { ...terms, expectedRevision });
              else
                await amendAgreement(
                  deps.db,
                  actor(request),
                  partner.id,
                  { ...terms, effectiveAt: effectiveAt!, reason: values.reason, expectedRevision },
                  now,
                );
              deps.directory.invalidate();
              return reply.redirect(`/admin/partners/${partner.slug}?done=1`, 303);
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              const conflict = conflictLine(
                error,
                langOf(request),
                `/admin/partners/:slug/${kind}`,
                conflicts,
                request.body,
              );
              const problems =
                conflict === undefined
                  ? agreementProblemLines(error, values, langOf(request))
                  : [conflict, t(langOf(request)).agreementFormKept];
              // the page now shows the current terms (the summary, the versions): the form carries their
              // revision, so saving the kept entries again is a knowing choice; a save made meanwhile is caught
              const current = error.code === 'agreement_changed' ? error.extra.currentRevision : undefined;
              if (typeof current === 'string') values.revision = current;
              // the labels now name the currency typed: the bounds shown are read in it
              if (/^[A-Z]{3}$/.test(values.currency)) values.boundsCurrency = values.currency;
              return sendPage(
                reply,
                error.status === 409 ? 409 : 422,
                partnerPage(contextOf(request, 'admin'), await loadPartnerView(deps, partner), {
                  problems,
                  form: { kind, values },
                }),
              );
            }
          },
        );
      agreementAction('agreement');
      agreementAction('amend');

      action<FormBody>('/admin/partners/:slug/documents', async (request, partner) => {
        const body = request.body;
        const complaintsUrl = field(body, 'complaintsUrl', WHOLE);
        await setDocuments(deps.db, actor(request), partner.id, {
          ipid: {
            url: field(body, 'ipidUrl', WHOLE),
            version: field(body, 'ipidVersion', WHOLE),
            sha256: field(body, 'ipidSha256', WHOLE),
          },
          terms: {
            url: field(body, 'termsUrl', WHOLE),
            version: field(body, 'termsVersion', WHOLE),
            sha256: field(body, 'termsSha256', WHOLE),
          },
          insurer: {
            name: field(body, 'insurerName', WHOLE),
            registration: field(body, 'insurerRegistration', WHOLE),
            address: field(body, 'insurerAddress', WHOLE),
            regulator: field(body, 'insurerRegulator', WHOLE),
            complaints: { email: field(body, 'complaintsEmail', WHOLE), url: complaintsUrl || null },
          },
        });
        return undefined;
      });

      // the draft the page showed: one set again since is not signed unseen (agreement_changed, 409); a form
      // without the revision (a page older than the field) is reloaded, like the agreement's other forms
      admin.post<{ Params: { slug: string }; Body: FormBody }>('/admin/partners/:slug/sign', async (request, reply) => {
        const partner = await requirePartner(deps.db, request.params.slug);
        const revision = field(request.body, 'revision', 40);
        if (!revision)
          return sendPage(reply, 400, messagePage(contextOf(request, 'admin'), '400', t(langOf(request)).formExpired));
        try {
          await signAgreement(deps.db, actor(request), partner.id, revision);
          deps.directory.invalidate();
          return reply.redirect(`/admin/partners/${partner.slug}?done=1`, 303);
        } catch (error) {
          return sendPage(
            reply,
            error instanceof DomainError && error.status === 409 ? 409 : 422,
            partnerPage(contextOf(request, 'admin'), await loadPartnerView(deps, partner), {
              problems: problemsOf(error, request, '/admin/partners/:slug/sign'),
            }),
          );
        }
      });

      action<FormBody>('/admin/partners/:slug/subscriptions', async (request, partner) => {
        const api = parseApiName(field(request.body, 'api', 40));
        await setSubscription(deps.db, actor(request), partner.id, api, field(request.body, 'subscribed') === 'true');
        return undefined;
      });

      action<FormBody>(
        '/admin/partners/:slug/keys',
        async (request, partner) => {
          const created = await createApiKey(deps.db, actor(request), {
            partnerId: partner.id,
            environment: parseEnvironment(field(request.body, 'environment', 20)),
            label: field(request.body, 'label', WHOLE) || undefined,
          });
          return created.plaintext;
        },
        keyFormRefused,
      );

      action<FormBody>('/admin/partners/:slug/keys/:id/revoke', async (request, partner) => {
        await revokeApiKey(deps.db, actor(request), partner.id, request.params.id ?? '');
        return undefined;
      });

      action<FormBody>('/admin/partners/:slug/users', async (request, partner) => {
        await createUser(deps.db, actor(request), {
          partnerId: partner.id,
          email: field(request.body, 'email', WHOLE),
          password: field(request.body, 'password', WHOLE),
          role: parseRole(field(request.body, 'role', WHOLE) || 'admin'),
        });
        return undefined;
      });

      await admin.register(adminWatchRoutes(deps));
      await admin.register(adminClaimRoutes(deps));
      await admin.register(adminRisk(deps));
      await admin.register(adminLimits(deps));
      await admin.register(adminReports(deps));
      await admin.register(adminWebhooks(deps));
    });
  };
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

/**
 * The key form refused with field errors (no environment chosen, one not offered, a label too long): the
 * form again, each of its own fields' errors under it by its label in the page's language, what was chosen
 * and typed kept; another field's error said above the page. Any other refusal (a production key without a
 * signed agreement) is the page's usual problem lines.
 */
function keyFormRefused(error: DomainError, request: FastifyRequest): PartnerOutcome | undefined {
  const fields = error.code === 'validation_failed' ? (error.extra.errors ?? []) : [];
  if (fields.length === 0) return undefined;
  const lang = langOf(request);
  const w = t(lang);
  const labels = { environment: w.environment, label: w.label };
  const own = fields.filter((e) => e.field === '/environment' || e.field === '/label');
  const others = fields.filter((e) => !own.includes(e));
  const errors = Object.fromEntries(
    own.map((e) => [e.field.replace(/^\//, ''), fieldErrorText(e, lang, labels)]),
  ) as KeyFormState['errors'];
  const body = request.body as FormBody | undefined;
  return {
    keyForm: { environment: field(body, 'environment', 20), label: field(body, 'label', WHOLE), errors },
    ...(others.length
      ? { problems: problemLines(new DomainError(error.code, error.detail, { errors: others }), lang, labels) }
      : {}),
  };
}
