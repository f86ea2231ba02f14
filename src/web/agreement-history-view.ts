import type { Decimal } from 'decimal.js';
import { agreementAt, agreementChanges, type Agreement, type AgreementChange } from '../partners/index.ts';
import type { FieldError } from '../platform/errors.ts';
import { html, type SafeHtml } from '../platform/html.ts';
import { formatMoney } from '../platform/money.ts';
import { label, t } from '../i18n/index.ts';
import { formatDate, rateIn, tableRegion, type PageContext } from './layout.ts';

/**
 * The history of a partner's agreement (issue 14 §2), shown read-only in the partner console and
 * above the amendment form in the operator console: each version, its effective date, its state at
 * `now`, who signed it and why, and what it changed from the previous one.
 */
export function agreementHistory(ctx: PageContext, versions: readonly Agreement[], now: Date): SafeHtml {
  const w = t(ctx.lang);
  const v = w.agreementVersions;
  if (!versions.length) return html`<p id="agreement-history">${v.none}</p>`;
  const inForce = agreementAt(versions, now);
  const state = (a: Agreement) =>
    a.status === 'draft'
      ? v.draft
      : a === inForce
        ? v.inForce
        : a.effectiveAt && a.effectiveAt.getTime() > now.getTime()
          ? v.scheduled
          : v.superseded;
  const changes = (a: Agreement, i: number): SafeHtml | string => {
    if (i === 0) return v.original;
    const list = agreementChanges(versions[i - 1]!, a);
    return list.length
      ? html`<ul>${list.map((c) => html`<li>${label(ctx.lang, v.fields[c.field])} ${changeValue(ctx, c.from, c, a)} → ${changeValue(ctx, c.to, c, a)}</li>`)}</ul>`
      : v.noChange;
  };
  return tableRegion(
    v.historyTitle,
    html`<table id="agreement-history"><caption class="visually-hidden">${v.historyTitle}</caption><thead><tr><th scope="col">${v.version}</th><th scope="col">${v.effective}</th><th scope="col">${v.state}</th><th scope="col">${v.signed}</th><th scope="col">${v.reason}</th><th scope="col">${v.changes}</th></tr></thead><tbody>${versions.map(
      (a, i) =>
        html`<tr data-version="${a.version}"><td>${a.version}</td><td>${formatDate(a.effectiveAt, ctx.lang, '—')}</td><td>${state(a)}</td><td>${a.signedAt ? `${formatDate(a.signedAt, ctx.lang, '')} — ${a.signedBy ?? ''}` : '—'}</td><td>${a.reason ?? '—'}</td><td>${changes(a, i)}</td></tr>`,
    )}</tbody></table>`,
  );
}

function changeValue(ctx: PageContext, value: AgreementChange['from'], c: AgreementChange, a: Agreement): string {
  const w = t(ctx.lang);
  if (Array.isArray(value)) return value.map((f) => w.formulas[f as keyof typeof w.formulas] ?? f).join(', ');
  if (c.field === 'compensationMin' || c.field === 'compensationMax')
    return formatMoney(Number(value), a.currency, ctx.lang);
  return rateIn(ctx.lang, value as Decimal.Value);
}

/** A configuration's field errors against a version, by field and code, in the page's language. */
export function violationList(ctx: PageContext, errors: readonly FieldError[]): SafeHtml {
  const w = t(ctx.lang);
  const fields = w.agreementVersions.configFields;
  const fieldName = (pointer: string) => {
    const top = pointer.split('/')[1] as keyof typeof fields | undefined;
    const tier = /^\/delayTiers\/(\d+)/.exec(pointer);
    return tier ? w.tier(Number(tier[1]) + 1) : ((top && fields[top]) ?? pointer);
  };
  return html`<ul>${errors.map((e) => html`<li>${label(ctx.lang, fieldName(e.field))} ${w.fieldErrors[e.code]}</li>`)}</ul>`;
}
