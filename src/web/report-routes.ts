import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  bordereauFile,
  BORDEREAU_KINDS,
  dayRange,
  monthPeriod,
  partnerStatement,
  REPORT_FORMATS,
  STATEMENT_FORMATS,
  statementCsv,
  statementPdf,
  type Period,
  type Scope,
} from '../ledger/index.ts';
import { ENVIRONMENTS, listPartners, requirePartner, type Environment } from '../partners/index.ts';
import { t } from '../i18n/index.ts';
import { DomainError } from '../platform/errors.ts';
import { messagePage, type Area } from './layout.ts';
import { reportsPage } from './report-views.ts';
import { contextOf, oneOf, problemLines, requireSession, sendPage, type WebDeps } from './web-kit.ts';

/**
 * Money reports in the consoles (docs/bordereaux.md): the operator downloads any partner's
 * bordereaux (CSV, XLSX) and statement (CSV, PDF); the partner its own statement and, like the
 * operator, CSV exports of its contracts and claims over any dates. Every file is a query over the
 * ledger; a partner session only ever reads its own partner's scope.
 */

const Month = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$' });
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
const Env = oneOf<Environment>(ENVIRONMENTS);
const EXPORT_KINDS = ['contracts', 'claims'] as const;

const PageQuery = Type.Object({
  partner: Type.Optional(Type.String({ maxLength: 63 })),
  env: Type.Optional(Env),
  month: Type.Optional(Month),
});
const DownloadQuery = Type.Object({
  partner: Type.String({ minLength: 1, maxLength: 63 }),
  env: Env,
  month: Month,
  report: oneOf([...BORDEREAU_KINDS, 'statement'] as const),
  format: oneOf([...new Set([...REPORT_FORMATS, ...STATEMENT_FORMATS])]),
});
const StatementQuery = Type.Object({ env: Env, month: Month, format: oneOf(STATEMENT_FORMATS) });
const ExportQuery = Type.Object({
  partner: Type.Optional(Type.String({ maxLength: 63 })),
  env: Env,
  from: Day,
  to: Day,
  kind: oneOf(EXPORT_KINDS),
});

const CONTENT_TYPES: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
};

function sendFile(reply: FastifyReply, name: string, format: string, bytes: Buffer): FastifyReply {
  return reply
    .type(CONTENT_TYPES[format] ?? 'application/octet-stream')
    .header('Content-Disposition', `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}.${format}"`)
    .send(bytes);
}

const currentMonth = (now: Date) => now.toISOString().slice(0, 7);

async function statementFile(
  deps: WebDeps,
  scope: Scope,
  period: Period,
  format: string,
  partner: { name: string; slug: string },
) {
  const statement = await partnerStatement(deps.db, scope, period);
  return format === 'pdf' ? statementPdf(statement, partner) : statementCsv(statement);
}

/**
 * An export's CSV sent as `name`; a day range refused (a wrong date, longer than MAX_EXPORT_DAYS) is told
 * on a page naming each field by the form's label ("To:", "Au :"), not the API's name.
 */
async function sendExport(
  deps: WebDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  area: Area,
  scope: Scope,
  q: Static<typeof ExportQuery>,
  name: string,
): Promise<FastifyReply> {
  let period: Period;
  try {
    period = dayRange(q.from, q.to);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const ctx = contextOf(request, area);
    const w = t(ctx.lang).reports;
    const problems = problemLines(error, ctx.lang, { from: w.from, to: w.to });
    return sendPage(reply, error.status, messagePage(ctx, String(error.status), problems.join(' ')));
  }
  const file = await bordereauFile(deps.db, q.kind === 'contracts' ? 'premium' : 'claims', scope, period, 'csv');
  return sendFile(reply, name, 'csv', file.bytes);
}

/** The operator console's reports: any partner, bordereaux, statement and exports. Registered in the admin scope. */
export function adminReports(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: Static<typeof PageQuery> }>(
      '/admin/reports',
      { schema: { hide: true, querystring: PageQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'admin');
        const now = deps.now();
        const env = request.query.env ?? 'production';
        const month = request.query.month ?? currentMonth(now);
        const partners = await listPartners(deps.db);
        const partner = request.query.partner ? await requirePartner(deps.db, request.query.partner) : undefined;
        const statement = partner
          ? await partnerStatement(deps.db, { partnerId: partner.id, environment: env }, monthPeriod(month))
          : undefined;
        const today = now.toISOString().slice(0, 10);
        return sendPage(
          reply,
          200,
          reportsPage(ctx, { base: '/admin/reports', partners, partner, env, month, today, statement }),
        );
      },
    );

    app.get<{ Querystring: Static<typeof DownloadQuery> }>(
      '/admin/reports/download',
      { schema: { hide: true, querystring: DownloadQuery } },
      async (request, reply) => {
        const q = request.query;
        const partner = await requirePartner(deps.db, q.partner);
        const scope = { partnerId: partner.id, environment: q.env };
        const period = monthPeriod(q.month);
        const name = `${q.report}-${partner.slug}-${q.env}-${q.month}`;
        if (q.report === 'statement') {
          const format = q.format === 'pdf' ? 'pdf' : 'csv';
          return sendFile(reply, name, format, await statementFile(deps, scope, period, format, partner));
        }
        const format = q.format === 'xlsx' ? 'xlsx' : 'csv';
        return sendFile(reply, name, format, (await bordereauFile(deps.db, q.report, scope, period, format)).bytes);
      },
    );

    app.get<{ Querystring: Static<typeof ExportQuery> }>(
      '/admin/reports/export',
      { schema: { hide: true, querystring: ExportQuery } },
      async (request, reply) => {
        const q = request.query;
        const partner = await requirePartner(deps.db, q.partner ?? '');
        const scope = { partnerId: partner.id, environment: q.env };
        return sendExport(
          deps,
          request,
          reply,
          'admin',
          scope,
          q,
          `${q.kind}-${partner.slug}-${q.env}-${q.from}-${q.to}`,
        );
      },
    );
  };
}

/** The partner console's reports: its own statement (CSV, PDF) and exports; the partner comes from the session only. */
export function consoleReports(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    requireSession(app, deps, 'partner', 'console', '/portal/login');
    const scopeOf = (partnerId: string, env: Environment): Scope => ({ partnerId, environment: env });

    app.get<{ Querystring: Static<typeof PageQuery> }>(
      '/console/reports',
      { schema: { hide: true, querystring: PageQuery } },
      async (request, reply) => {
        const ctx = contextOf(request, 'console');
        const now = deps.now();
        const env = request.query.env ?? 'sandbox';
        const month = request.query.month ?? currentMonth(now);
        const scope = scopeOf(request.webSession!.partnerId!, env);
        const statement = await partnerStatement(deps.db, scope, monthPeriod(month));
        const today = now.toISOString().slice(0, 10);
        return sendPage(reply, 200, reportsPage(ctx, { base: '/console/reports', env, month, today, statement }));
      },
    );

    app.get<{ Querystring: Static<typeof StatementQuery> }>(
      '/console/reports/statement',
      { schema: { hide: true, querystring: StatementQuery } },
      async (request, reply) => {
        const q = request.query;
        const session = request.webSession!;
        const bytes = await statementFile(deps, scopeOf(session.partnerId!, q.env), monthPeriod(q.month), q.format, {
          name: session.partnerName ?? '',
          slug: session.partnerSlug ?? '',
        });
        return sendFile(reply, `statement-${q.env}-${q.month}`, q.format, bytes);
      },
    );

    app.get<{ Querystring: Static<typeof ExportQuery> }>(
      '/console/reports/export',
      { schema: { hide: true, querystring: ExportQuery } },
      async (request, reply) => {
        const q = request.query;
        // a partner parameter, if any, is ignored: the session's partner is the only scope
        const scope = scopeOf(request.webSession!.partnerId!, q.env);
        return sendExport(deps, request, reply, 'console', scope, q, `${q.kind}-${q.env}-${q.from}-${q.to}`);
      },
    );
  };
}
