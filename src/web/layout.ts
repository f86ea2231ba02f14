import { Decimal } from 'decimal.js';
import { formatMoney } from '../platform/money.ts';
import { html, type SafeHtml } from '../platform/html.ts';
import { t, type Lang } from '../i18n/index.ts';
import { can, type Permission } from '../partners/index.ts';
import type { WebSession } from './sessions.ts';

/** The chrome shared by the portal and the consoles: skip link, header, navigation, language switch. */

export type Area = 'portal' | 'console' | 'admin';

export interface PageContext {
  lang: Lang;
  area: Area;
  /** The request path (for the language switch and the current navigation entry). */
  path: string;
  session?: WebSession | undefined;
}

/** Bumped when an asset changes, so browsers never keep a stale copy. */
export const ASSET_VERSION = '3';
export const asset = (name: string) => `/assets/${name}?v=${ASSET_VERSION}`;

function navigation(ctx: PageContext): SafeHtml {
  const w = t(ctx.lang);
  const entries: [string, string][] =
    ctx.area === 'admin'
      ? [
          ['/admin', w.nav.partners],
          ['/admin/flights', w.nav.flights],
          ['/admin/claims', w.nav.claims],
          ['/admin/outbox', w.nav.outbox],
          ['/admin/emails', w.partnerUsers.emailsNav],
          ['/admin/payouts', w.nav.payouts],
          ['/admin/risk', w.nav.risk],
          ['/admin/limits', w.nav.limits],
          ['/admin/reports', w.nav.reports],
        ]
      : [
          ['/portal', w.nav.apis],
          ['/portal/keys', w.nav.keys],
          ['/console', w.nav.configuration],
          ['/console/dashboard', w.nav.dashboard],
          ['/console/claims', w.nav.claims],
          ['/console/reports', w.nav.reports],
          ['/console/webhooks', w.nav.webhooks],
          ...(ctx.session?.role === 'admin' ? [['/console/users', w.partnerUsers.nav] as [string, string]] : []),
        ];
  const current = (href: string) =>
    ctx.path === href ||
    (href !== '/portal' && href !== '/console' && href !== '/admin' && ctx.path.startsWith(`${href}/`)) ||
    (href === '/portal' && ctx.path.startsWith('/portal/apis'));
  return html`<nav aria-label="${w.areas[ctx.area]}"><ul>${entries.map(
    ([href, label]) => html`<li><a href="${href}"${current(href) ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>`;
}

function languageSwitch(ctx: PageContext): SafeHtml {
  const w = t(ctx.lang);
  const other = (lang: Lang, label: string) =>
    ctx.lang === lang
      ? html`<span aria-current="true" lang="${lang}">${label}</span>`
      : html`<a href="/lang/${lang}?next=${encodeURIComponent(ctx.path)}" lang="${lang}" hreflang="${lang}">${label}</a>`;
  return html`<div class="lang" role="group" aria-label="${w.language}">${other('en', 'English')} · ${other('fr', 'Français')}</div>`;
}

function account(ctx: PageContext): SafeHtml | string {
  if (!ctx.session) return '';
  const w = t(ctx.lang);
  const action = ctx.area === 'admin' ? '/admin/logout' : '/portal/logout';
  return html`<div class="account"><span>${w.signedInAs} <strong>${ctx.session.email}</strong>${ctx.session.partnerName ? html` · ${ctx.session.partnerName}` : ''}</span>
<form method="post" action="${action}">${csrfField(ctx.session.csrfToken)}<button type="submit" class="link">${w.signOut}</button></form></div>`;
}

/** Whether the page's partner user may change `permission` (only to hide what the server would refuse: partners/roles.ts). */
export const mayChange = (ctx: PageContext, permission: Permission): boolean =>
  can(ctx.session?.role ?? 'viewer', permission);

export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="_csrf" value="${token}">`;

export function page(
  ctx: PageContext,
  title: string,
  body: SafeHtml,
  options: { scripts?: string[]; head?: SafeHtml; wide?: boolean } = {},
): string {
  const w = t(ctx.lang);
  const csrf = ctx.session ? html` data-csrf="${ctx.session.csrfToken}"` : '';
  return html`<!doctype html>
<html lang="${ctx.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}'>
<title>${title} — ${w.areas[ctx.area]} — Parasol</title>
<link rel="stylesheet" href="${asset('web.css')}">
${options.head ?? ''}
</head>
<body${csrf} class="area-${ctx.area}">
<a class="skip" href="#main">${w.skip}</a>
<header>
<div class="brand"><a href="${ctx.area === 'admin' ? '/admin' : '/portal'}">${w.brand}</a> <span>${w.areas[ctx.area]}</span></div>
${ctx.session ? navigation(ctx) : ''}
<div class="tools">${languageSwitch(ctx)}${account(ctx)}</div>
</header>
<main id="main" tabindex="-1"${options.wide ? html` class="wide"` : ''}>
${body}
</main>
<script src="${asset('web.js')}" defer></script>
${(options.scripts ?? []).map((s) => html`<script src="${asset(s)}" defer></script>`)}
</body>
</html>`.value;
}

/**
 * A data table in a region of its own that scrolls sideways when the table is wider than the
 * screen (a phone), so that the page itself never does; labelled and focusable, so that a keyboard
 * user can reach and scroll it too (WCAG 2.1.1, 1.4.10).
 */
export const tableRegion = (label: string, table: SafeHtml): SafeHtml =>
  html`<div class="table-scroll" role="region" aria-label="${label}" tabindex="0">${table}</div>`;

/**
 * The summary of a refused form, above it (on a phone the fields are below the fold): its title, then each
 * error a link to its field; the focus goes there (`autofocus`, no script), so a keyboard or screen reader
 * user lands on what to fix. One markup for the consoles and the customers' claim page; nothing when no error.
 */
export function errorSummary(title: string, links: { field: string; text: string | SafeHtml }[]): SafeHtml | '' {
  if (!links.length) return '';
  return html`<div class="alert" role="alert" id="error-summary" tabindex="-1" autofocus><h2>${title}</h2>
<ul>${links.map((link) => html`<li><a href="#${link.field}">${link.text}</a></li>`)}</ul></div>`;
}

/**
 * A form field's error, both halves tested the same way (`=== undefined`), so `aria-describedby` never points
 * to a message that is not there: `attributes` for the input (invalid, described by its message, focused
 * when it is the first at fault), `message` under it (`${id}-error`).
 */
export function fieldError(
  id: string,
  error: string | undefined,
  focus = false,
): { attributes: SafeHtml | ''; message: SafeHtml | '' } {
  if (error === undefined) return { attributes: '', message: '' };
  return {
    attributes: html` aria-invalid="true" aria-describedby="${id}-error"${focus ? html` autofocus` : ''}`,
    message: html`<p class="error" id="${id}-error">${error}</p>`,
  };
}

/** The problems of a refused console action, said at the top of the page (an alert: read out at once). */
export function problemList(problems: string[] | undefined): SafeHtml | string {
  return problems?.length
    ? html`<div class="alert" role="alert"><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul></div>`
    : '';
}

/** A message page (errors, 403, 404). */
export function messagePage(ctx: PageContext, title: string, message: string): string {
  return page(ctx, title, html`<h1>${title}</h1><p>${message}</p>`);
}

/** An instant as `formatShortInstant` writes it, with its zone: '2 Mar 2026, 09:30 UTC'; `never` when there is none. */
export const formatDate = (d: Date | null, lang: Lang, never: string): string =>
  d ? `${formatShortInstant(d, lang)} UTC` : never;

/**
 * A calendar date ('YYYY-MM-DD', or an instant's UTC day) as the page's language writes it: '28 Nov 2026'
 * (en), '28 nov. 2026' (fr). The ISO text stays where a machine reads it (date inputs, data-* attributes,
 * downloads, `<time datetime>`: `dayTime` wraps one); a text that is not such a date is shown as it is.
 */
export const formatDay = (day: string | Date | null | undefined, lang: Lang, never = ''): string => {
  if (day === null || day === undefined || day === '') return never;
  const iso = typeof day === 'string' ? day.slice(0, 10) : day.toISOString().slice(0, 10);
  if (!/^\d{4}-\d\d-\d\d$/.test(iso)) return String(day);
  const date = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return String(day);
  return date.toLocaleDateString(lang === 'fr' ? 'fr-FR' : 'en-GB', { dateStyle: 'medium', timeZone: 'UTC' });
};

/** A calendar date for a person (`formatDay`) in a `<time>` whose `datetime` keeps the ISO date for machines. */
export const dayTime = (day: string | Date | null | undefined, lang: Lang, never = ''): SafeHtml | string => {
  if (day === null || day === undefined || day === '') return never;
  const iso = typeof day === 'string' ? day.slice(0, 10) : day.toISOString().slice(0, 10);
  return html`<time datetime="${iso}">${formatDay(day, lang, never)}</time>`;
};

/**
 * A local date and time ('YYYY-MM-DDTHH:mm', a flight's departure at its airport) as the page's language writes
 * it: '3 Dec 2026, 10:30' (en), '3 déc. 2026, 10:30' (fr). No time zone conversion and none named: it is the
 * airport's own clock, as the ticket says. A text that is not such a date and time is shown as it is.
 */
export const formatLocalDateTime = (local: string, lang: Lang): string => {
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)/.exec(local);
  if (!m) return local;
  const date = new Date(`${m[1]}T${m[2]}:00Z`);
  if (Number.isNaN(date.getTime())) return local;
  return date.toLocaleString(lang === 'fr' ? 'fr-FR' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC', // the digits as they are: the local time read as UTC is written unchanged
  });
};

/** A local date and time for a person (`formatLocalDateTime`) in a `<time>` keeping the ISO text for machines. */
export const localDateTime = (local: string, lang: Lang): SafeHtml =>
  html`<time datetime="${local}">${formatLocalDateTime(local, lang)}</time>`;

/**
 * An instant's UTC date and time to the minute as the page's language writes it, without the zone: '2 Mar 2026,
 * 09:30' (en), '2 mars 2026, 09:30' (fr) — for dense tables, whose column header says UTC once.
 */
export const formatShortInstant = (d: Date, lang: Lang): string =>
  d.toLocaleString(lang === 'fr' ? 'fr-FR' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/**
 * An instant for a person in a `<time>` whose `datetime` keeps the ISO instant for machines: compact
 * (`formatShortInstant`, a table's cell under a header saying UTC), or `zone` — with ' UTC', as `formatDate`
 * writes it — where no header says it (a sentence). `never` when there is none.
 */
export const instantTime = (
  d: Date | null,
  lang: Lang,
  { never = '', zone = false }: { never?: string; zone?: boolean } = {},
): SafeHtml | string =>
  d
    ? html`<time datetime="${d.toISOString()}">${zone ? formatDate(d, lang, never) : formatShortInstant(d, lang)}</time>`
    : never;

/** A table cell's text that never wraps (a date, an amount, a claim number): the long ids around it break instead. */
export const nowrap = (text: string | SafeHtml): SafeHtml => html`<span class="nowrap">${text}</span>`;

export { formatMoney };

/**
 * A decimal as the page's language writes it, `digits` decimals, half up: "1.50" (en), "1,50" (fr) —
 * the preview's probabilities, factors and credibility, the dashboard's rates.
 */
export const decimalIn = (lang: Lang, value: Decimal.Value, digits: number): string => {
  const fixed = new Decimal(value).toFixed(digits, Decimal.ROUND_HALF_UP);
  return lang === 'fr' ? fixed.replace('.', ',') : fixed;
};
/** A fraction as a percentage: "1.50 %" (en), "1,50 %" (fr, a narrow no-break space before the sign). */
export const percentIn = (lang: Lang, fraction: Decimal.Value, digits = 2): string =>
  `${decimalIn(lang, new Decimal(fraction).times(100), digits)}${lang === 'fr' ? '\u202f' : ' '}%`;
/** A rate as a percentage, its digits as they are (no padding): "12.5 %" (en), "12,5 %" (fr) — agreements' commissions. */
export const rateIn = (lang: Lang, fraction: Decimal.Value): string => {
  const digits = new Decimal(fraction).times(100).toString();
  return lang === 'fr' ? `${digits.replace('.', ',')}\u202f%` : `${digits} %`;
};
