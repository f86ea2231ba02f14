import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { t } from '../i18n/index.ts';
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
  type Statement,
} from '../ledger/index.ts';
import { ENVIRONMENTS, listPartners, requirePartner, type Environment, type Partner } from '../partners/index.ts';
import { html, type SafeHtml } from '../platform/html.ts';
import { formatMoney } from '../platform/money.ts';
import { page, type PageContext } from './layout.ts';
import { contextOf, oneOf, requireSession, sendPage, type WebDeps } from './web-kit.ts';

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

async function statementFile(deps: WebDeps, scope: Scope, period: Period, format: string, partnerName: string) {
  const statement = await partnerStatement(deps.db, scope, period);
  return format === 'pdf' ? statementPdf(statement, partnerName) : statementCsv(statement);
}

async function exportFile(deps: WebDeps, scope: Scope, q: Static<typeof ExportQuery>): Promise<Buffer> {
  const period = dayRange(q.from, q.to);
  return (await bordereauFile(deps.db, q.kind === 'contracts' ? 'premium' : 'claims', scope, period, 'csv')).bytes;
}

function statementTable(ctx: PageContext, statement: Statement): SafeHtml {
  const w = t(ctx.lang).reports;
  if (!statement.lines.length) return html`<p>${w.none}</p>`;
  return html`<div class="table-scroll"><table><caption>${w.statement}</caption><thead><tr><th scope="col">${w.currency}</th><th scope="col">${w.collected}</th><th scope="col">${w.commission}</th><th scope="col">${w.refunds}</th><th scope="col">${w.due}</th><th scope="col">${w.compensationPaid}</th></tr></thead><tbody>${statement.lines.map(
    (l) =>
      html`<tr><td>${l.currency}</td><td>${formatMoney(l.premiumCollected, l.currency, ctx.lang)}</td><td>${formatMoney(l.commission, l.currency, ctx.lang)}</td><td>${formatMoney(l.refunds, l.currency, ctx.lang)}</td><td><strong>${formatMoney(l.amountDue, l.currency, ctx.lang)}</strong></td><td>${formatMoney(l.compensationPaid, l.currency, ctx.lang)}</td></tr>`,
  )}</tbody></table></div>`;
}

function reportsPage(
  ctx: PageContext,
  view: {
    base: string;
    partners?: Partner[];
    partner?: Partner;
    env: Environment;
    month: string;
    today: string;
    statement?: Statement;
  },
): string {
  const w = t(ctx.lang).reports;
  const p = view.partner ? `partner=${encodeURIComponent(view.partner.slug)}&` : '';
  const q = `${p}env=${view.env}&month=${view.month}`;
  const envSelect = html`<label>${w.environment} <select name="env">${ENVIRONMENTS.map(
    (e) => html`<option value="${e}"${e === view.env ? html` selected` : ''}>${e}</option>`,
  )}</select></label>`;
  const partnerSelect = view.partners
    ? html`<label>${w.partner} <select name="partner">${view.partners.map(
        (x) =>
          html`<option value="${x.slug}"${x.slug === view.partner?.slug ? html` selected` : ''}>${x.name} (${x.slug})</option>`,
      )}</select></label>`
    : '';
  const downloads = view.partners
    ? html`<ul class="downloads">
<li>${w.premiumBordereau}: <a href="${view.base}/download?${q}&report=premium&format=csv">CSV</a> · <a href="${view.base}/download?${q}&report=premium&format=xlsx">XLSX</a></li>
<li>${w.claimsBordereau}: <a href="${view.base}/download?${q}&report=claims&format=csv">CSV</a> · <a href="${view.base}/download?${q}&report=claims&format=xlsx">XLSX</a></li>
<li>${w.statement}: <a href="${view.base}/download?${q}&report=statement&format=csv">CSV</a> · <a href="${view.base}/download?${q}&report=statement&format=pdf">PDF</a></li>
</ul>`
    : html`<ul class="downloads"><li>${w.statement}: <a href="${view.base}/statement?${q}&format=csv">CSV</a> · <a href="${view.base}/statement?${q}&format=pdf">PDF</a></li></ul>`;
  const monthStart = `${view.month}-01`;
  return page(
    ctx,
    w.title,
    html`<h1>${w.title}</h1>
<p>${w.intro}</p>
<form method="get" action="${view.base}" class="filters">${partnerSelect}${envSelect}
<label>${w.month} <input type="month" name="month" value="${view.month}" required pattern="\\d{4}-\\d{2}"></label>
<button type="submit">${w.show}</button></form>
${view.partner || !view.partners ? html`${view.statement ? statementTable(ctx, view.statement) : ''}${downloads}` : ''}
<h2>${w.exports}</h2>
<p>${w.exportsIntro}</p>
<form method="get" action="${view.base}/export" class="filters">${view.partner && view.partners ? html`<input type="hidden" name="partner" value="${view.partner.slug}">` : ''}<input type="hidden" name="env" value="${view.env}">
<label>${w.from} <input type="date" name="from" value="${monthStart}" required></label>
<label>${w.to} <input type="date" name="to" value="${view.today}" required></label>
<button type="submit" name="kind" value="contracts">${w.contractsCsv}</button>
<button type="submit" name="kind" value="claims">${w.claimsCsv}</button></form>`,
  );
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
          return sendFile(reply, name, format, await statementFile(deps, scope, period, format, partner.name));
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
        const bytes = await exportFile(deps, { partnerId: partner.id, environment: q.env }, q);
        return sendFile(reply, `${q.kind}-${partner.slug}-${q.env}-${q.from}-${q.to}`, 'csv', bytes);
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
        const bytes = await statementFile(
          deps,
          scopeOf(session.partnerId!, q.env),
          monthPeriod(q.month),
          q.format,
          session.partnerName ?? '',
        );
        return sendFile(reply, `statement-${q.env}-${q.month}`, q.format, bytes);
      },
    );

    app.get<{ Querystring: Static<typeof ExportQuery> }>(
      '/console/reports/export',
      { schema: { hide: true, querystring: ExportQuery } },
      async (request, reply) => {
        const q = request.query;
        // a partner parameter, if any, is ignored: the session's partner is the only scope
        const bytes = await exportFile(deps, scopeOf(request.webSession!.partnerId!, q.env), q);
        return sendFile(reply, `${q.kind}-${q.env}-${q.from}-${q.to}`, 'csv', bytes);
      },
    );
  };
}
