import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { DateTime } from 'luxon';
import {
  checkBrandName,
  checkTerms,
  coversCancellation,
  coversDelay,
  setBrandName,
  setConfiguration,
  type Agreement,
  type ConfigurationInput,
  type Environment,
} from '../partners/index.ts';
import { listPartnerClaims, simulatePrice, type ClaimView } from '../flight/index.ts';
import { contractDetail } from './contract-detail.ts';
import { partnerDashboard } from './dashboard.ts';
import * as repo from '../partners/index.ts';
import { DomainError } from '../platform/errors.ts';
import { formErrors, parseForm, valuesFrom, valuesOf, type FormErrors, type FormValues } from './configuration-form.ts';
import { t, type Lang } from '../i18n/index.ts';
import { messagePage } from './layout.ts';
import { sessionActor, type WebSession } from './sessions.ts';
import {
  claimsPage,
  configurationPage,
  contractPage,
  dashboardPage,
  previewFragment,
  type ClaimsFilterErrors,
  type PeriodErrors,
  type Preview,
} from './console-views.ts';
import {
  allow,
  contextOf,
  Digits,
  EnvironmentQuery,
  field,
  fieldErrorText,
  problemLines,
  requireSession,
  sendPage,
  type FormBody,
  type WebDeps,
  WHOLE,
} from './web-kit.ts';

const SavedQuery = Type.Object({
  saved: Type.Optional(Digits(6)),
  brand: Type.Optional(Type.Literal('saved')),
});
/** The filters of /getclaims; an empty date (a cleared field) means the default. */
const DateOrEmpty = Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2})?$' });
const ClaimsQuery = Type.Object({
  env: EnvironmentQuery.properties.env,
  from: Type.Optional(DateOrEmpty),
  to: Type.Optional(DateOrEmpty),
  contract: Type.Optional(Type.String({ maxLength: 40 })),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
});

/** The dashboard's period: both dates, or neither (the last 30 days). */
const DashboardQuery = Type.Object({
  env: EnvironmentQuery.properties.env,
  from: Type.Optional(DateOrEmpty),
  to: Type.Optional(DateOrEmpty),
});

/** The sample trip of the live preview: priced by simulatePrice, the code of /getPrice/simulate. */
export function sampleTrip(now: Date) {
  return {
    departureAirport: 'CDG',
    arrivalAirport: 'JFK',
    airline: 'AF',
    departureDateTime: `${DateTime.fromJSDate(now, { zone: 'utc' }).plus({ days: 30 }).toFormat('yyyy-MM-dd')}T10:30`,
  };
}

/** The partner console: configuration with a live premium preview and version history. */
export function consoleRoutes(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    requireSession(app, deps, 'partner', 'console', '/portal/login');

    app.get<{ Querystring: Static<typeof SavedQuery> }>(
      '/console',
      { schema: { hide: true, querystring: SavedQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'console');
        const partnerId = request.webSession!.partnerId!;
        const now = deps.now();
        const [agreement, history, versions] = await Promise.all([
          repo.findAgreement(deps.db, partnerId, now),
          repo.listConfigurations(deps.db, partnerId),
          repo.listAgreementVersions(deps.db, partnerId),
        ]);
        const saved = request.query.saved === undefined ? undefined : Number(request.query.saved);
        const values = agreement ? valuesOf(history[0], agreement) : undefined;
        const preview =
          agreement && values ? await previewOf(deps, request.webSession!, agreement, values, ctx.lang) : undefined;
        const brand = { value: (await brandOf(deps, partnerId)) ?? '', saved: request.query.brand === 'saved' };
        return sendPage(
          reply,
          200,
          configurationPage(ctx, {
            agreement,
            history,
            values,
            formVersion: history[0]?.version ?? 0,
            errors: {},
            saved,
            preview,
            versions,
            now,
            brand,
          }),
        );
      },
    );

    app.post<{ Body: FormBody }>('/console/brand', async (request, reply) => {
      allow(request, 'configuration'); // the name customers read is the admins' to change, like the terms
      const ctx = contextOf(request, 'console');
      const partnerId = request.webSession!.partnerId!;
      const raw = field(request.body, 'brandName', WHOLE);
      const checked = checkBrandName(raw);
      const error = checked.errors[0]?.code;
      if (error === undefined) {
        await setBrandName(deps.db, sessionActor(request.webSession!), partnerId, raw, request.webSession!.accountId);
        return reply.redirect('/console?brand=saved', 303);
      }
      const agreement = await repo.findAgreement(deps.db, partnerId, deps.now());
      const [history, versions] = await Promise.all([
        repo.listConfigurations(deps.db, partnerId),
        repo.listAgreementVersions(deps.db, partnerId),
      ]);
      const values = agreement ? valuesOf(history[0], agreement) : undefined;
      const brand = { value: raw, error: error as 'too_short' | 'too_long' | 'invalid_format' };
      return sendPage(
        reply,
        422,
        configurationPage(ctx, {
          agreement,
          history,
          values,
          formVersion: history[0]?.version ?? 0,
          errors: {},
          preview: undefined,
          versions,
          now: deps.now(),
          brand,
        }),
      );
    });

    app.post<{ Body: FormBody }>('/console', async (request, reply) => {
      allow(request, 'configuration');
      const ctx = contextOf(request, 'console');
      const partnerId = request.webSession!.partnerId!;
      const now = deps.now();
      const agreement = await repo.findAgreement(deps.db, partnerId, now);
      if (!agreement) throw new DomainError('agreement_missing', t(ctx.lang).noAgreement);
      // the version the form was opened from: a form without it (a page older than the field) is reloaded
      const version = field(request.body, 'version', 10);
      if (!/^\d{1,9}$/.test(version)) return sendPage(reply, 400, messagePage(ctx, '400', t(ctx.lang).formExpired));
      const formVersion = Number(version);
      const values = valuesFrom(request.body);
      const parsed = parseForm(values, agreement, ctx.lang);
      let errors: FormErrors = parsed.errors;
      let conflict: { savedBy: string; opened: number } | undefined;
      if (parsed.input) {
        try {
          // saved even when a signed amendment not yet effective rejects it: the page then shows the warning;
          // refused, nothing written, when another save replaced the form's version (configuration_changed)
          const saved = await setConfiguration(
            deps.db,
            sessionActor(request.webSession!),
            partnerId,
            { ...parsed.input, expectedVersion: formVersion, userId: request.webSession!.accountId },
            now,
          );
          deps.directory.invalidate();
          return reply.redirect(`/console?saved=${saved.version}`, 303);
        } catch (error) {
          if (error instanceof DomainError && error.code === 'configuration_changed')
            conflict = { savedBy: await savedByOf(deps, partnerId), opened: formVersion };
          else if (error instanceof DomainError && error.code === 'configuration_out_of_bounds')
            errors = formErrors(error.extra.errors ?? [], values, agreement, ctx.lang);
          else throw error;
        }
      }
      const [history, versions] = await Promise.all([
        repo.listConfigurations(deps.db, partnerId),
        repo.listAgreementVersions(deps.db, partnerId),
      ]);
      const brand = { value: (await brandOf(deps, partnerId)) ?? '' };
      // what the user typed stays in the form; refused for a newer version, the form now carries that one: the
      // page shows who saved it, when and what changed, so saving again is a knowing choice (a third save meanwhile
      // is caught again) and the entries need no retyping
      return sendPage(
        reply,
        conflict ? 409 : 422,
        configurationPage(ctx, {
          agreement,
          history,
          values,
          formVersion: conflict ? (history[0]?.version ?? formVersion) : formVersion,
          conflict,
          errors,
          preview: undefined,
          versions,
          now,
          brand,
        }),
      );
    });

    app.post<{ Body: FormBody }>('/console/preview', async (request, reply) => {
      const ctx = contextOf(request, 'console');
      const agreement = await repo.findAgreement(deps.db, request.webSession!.partnerId!, deps.now());
      if (!agreement) throw new DomainError('agreement_missing', t(ctx.lang).noAgreement);
      const preview = await previewOf(deps, request.webSession!, agreement, valuesFrom(request.body), ctx.lang);
      return reply.type('text/html; charset=utf-8').send(previewFragment(ctx.lang, preview).value);
    });
  };
}

/** Who saved the current configuration, as the partner's users know each other: a user's email, else the actor. */
async function savedByOf(deps: WebDeps, partnerId: string): Promise<string> {
  const createdBy = (await repo.findCurrentConfiguration(deps.db, partnerId))?.createdBy ?? '';
  const userId = /^user:(.+)$/.exec(createdBy)?.[1];
  const user = userId ? (await repo.listUsers(deps.db, partnerId)).find((u) => u.id === userId) : undefined;
  return user?.email ?? createdBy;
}

async function brandOf(deps: WebDeps, partnerId: string): Promise<string | null> {
  return (await repo.findPartner(deps.db, partnerId))?.brandName ?? null;
}

/** The environment whose active risk model prices the console's preview: production once signed, else sandbox. */
export const previewEnvironment = (agreement: Agreement): Environment =>
  agreement.status === 'signed' ? 'production' : 'sandbox';

async function previewOf(
  deps: WebDeps,
  session: WebSession,
  agreement: Agreement,
  values: FormValues,
  lang: Lang,
): Promise<Preview> {
  const parsed = parseForm(values, agreement, lang);
  if (!parsed.input) return { errors: parsed.errors };
  const termErrors = checkTerms(agreement, parsed.input);
  if (termErrors.length) return { errors: formErrors(termErrors, values, agreement, lang) };
  const input: ConfigurationInput = parsed.input;
  const currency = agreement.currency;
  // priced by the model of the environment the partner sells in: production once the agreement is signed
  // (the one its customers' quotes will have), sandbox before (its only keys). The operator activates a
  // model per environment (docs/pricing.md), a new one often in sandbox first: a sandbox-only preview then
  // showed premiums production's /getPrice does not give
  const environment: Environment = previewEnvironment(agreement);
  const caller = {
    partnerId: session.partnerId!,
    partnerName: session.partnerName ?? '',
    environment,
    keyId: 'console',
    actor: sessionActor(session),
  };
  try {
    const simulation = await simulatePrice(deps.flight, caller, {
      ...sampleTrip(deps.now()),
      formula: input.formula,
      compensation: {
        delay: coversDelay(input.formula)
          ? input.delayTiers.map((tier) => ({
              minDelayMinutes: tier.minDelayMinutes,
              amount: { amount: tier.amount, currency },
            }))
          : [],
        cancellation: coversCancellation(input.formula) ? { amount: input.cancellationAmount, currency } : null,
      },
      commissionRate: Number(input.commissionRate),
    });
    return { simulation, environment };
  } catch (error) {
    if (error instanceof DomainError && error.extra.errors)
      return { errors: formErrors(error.extra.errors, values, agreement, lang) };
    throw error;
  }
}

/** Contract detail and the claims table (the filters and pagination of /getclaims). */
export function consoleDataRoutes(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    requireSession(app, deps, 'partner', 'console', '/portal/login');
    const environmentOf = (env: Environment | undefined): Environment => env ?? 'sandbox';

    app.get<{ Params: { number: string }; Querystring: Static<typeof EnvironmentQuery> }>(
      '/console/contracts/:number',
      { schema: { hide: true, querystring: EnvironmentQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'console');
        const detail = await contractDetail(
          deps.db,
          deps.flight.keys.encryption,
          { partnerId: request.webSession!.partnerId!, environment: environmentOf(request.query.env) },
          request.params.number,
        );
        return sendPage(reply, 200, contractPage(ctx, detail));
      },
    );

    app.get<{ Querystring: Static<typeof DashboardQuery> }>(
      '/console/dashboard',
      { schema: { hide: true, querystring: DashboardQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'console');
        const environment = environmentOf(request.query.env);
        const scope = { partnerId: request.webSession!.partnerId!, environment };
        const { from = '', to = '' } = request.query;
        try {
          const range = from || to ? { from, to } : undefined;
          const dashboard = await partnerDashboard(deps.db, scope, deps.now(), range);
          return sendPage(reply, 200, dashboardPage(ctx, environment, dashboard));
        } catch (error) {
          if (!(error instanceof DomainError) || error.code !== 'validation_failed') throw error;
          // a refused period: the dates as typed, each error next to its field, over the last 30 days
          const errors: PeriodErrors = {};
          for (const e of error.extra.errors ?? [])
            if (e.field === '/from' || e.field === '/to')
              errors[e.field.slice(1) as 'from' | 'to'] ??= fieldErrorText(e, ctx.lang);
          const dashboard = await partnerDashboard(deps.db, scope, deps.now());
          return sendPage(reply, 422, dashboardPage(ctx, environment, dashboard, { from, to, errors }));
        }
      },
    );

    app.get<{ Querystring: Static<typeof ClaimsQuery> }>(
      '/console/claims',
      { schema: { hide: true, querystring: ClaimsQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'console');
        const session = request.webSession!;
        const today = DateTime.fromJSDate(deps.now(), { zone: 'utc' });
        const q = request.query;
        const filters = {
          environment: environmentOf(q.env),
          fromDate: q.from || today.minus({ days: 30 }).toISODate()!,
          toDate: q.to || today.toISODate()!,
          contractNumber: (q.contract ?? '').trim(),
          cursor: q.cursor ?? '',
        };
        const caller = {
          partnerId: session.partnerId!,
          partnerName: session.partnerName ?? '',
          environment: filters.environment,
          keyId: 'console',
          actor: sessionActor(session),
        };
        let result: { claims: ClaimView[]; nextCursor: string | null } = { claims: [], nextCursor: null };
        let problem: string | undefined;
        const fieldErrors: ClaimsFilterErrors = {};
        try {
          result = await listPartnerClaims(deps.flight, caller, {
            fromDate: filters.fromDate,
            toDate: filters.toDate,
            contractNumber: filters.contractNumber || undefined,
            cursor: filters.cursor || undefined,
            limit: 25,
          });
        } catch (error) {
          if (!(error instanceof DomainError) || error.status >= 500) throw error;
          // each filter told by its label ("Opened until"), not the API's name (`toDate`)
          const w = t(ctx.lang);
          const labels = { fromDate: w.fromDate, toDate: w.toDate, contractNumber: w.contractNumber };
          problem = problemLines(error, ctx.lang, labels).join(' ');
          // each filter at fault also told next to its field
          const inputs: Record<string, keyof ClaimsFilterErrors> = {
            '/fromDate': 'from',
            '/toDate': 'to',
            '/contractNumber': 'contract',
          };
          for (const e of error.extra.errors ?? []) {
            const input = inputs[e.field];
            if (input) fieldErrors[input] ??= fieldErrorText(e, ctx.lang, labels);
          }
        }
        return sendPage(reply, problem ? 422 : 200, claimsPage(ctx, filters, result, problem, fieldErrors));
      },
    );
  };
}
