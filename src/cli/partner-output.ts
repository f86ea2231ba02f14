import {
  ENVIRONMENTS,
  agreementAt,
  agreementChanges,
  type Agreement,
  type AgreementChange,
  type FutureViolation,
  type ApiKeyInfo,
  type Configuration,
  type DocumentSet,
  type Environment,
} from '../partners/index.ts';
import { formatMoney } from '../platform/money.ts';
import type { FieldError } from '../platform/errors.ts';
import { pairs, table, when } from './kit.ts';

/** What the partner commands print: JSON shapes and text lines of agreements, configurations, keys and documents. */

export const moneyJson = (amount: number, currency: string) => ({ amount, currency });

export function agreementJson(a: Agreement) {
  return {
    status: a.status,
    allowedFormulas: a.allowedFormulas,
    currency: a.currency,
    taxRate: a.taxRate,
    commissionMin: a.commissionMin,
    commissionMax: a.commissionMax,
    compensationMin: moneyJson(a.compensationMin, a.currency),
    compensationMax: moneyJson(a.compensationMax, a.currency),
    signedAt: a.signedAt,
    signedBy: a.signedBy,
    version: a.version,
    effectiveAt: a.effectiveAt,
    reason: a.reason,
  };
}

/** One change between two versions, as text ("commission max 0.3 → 0.25"). */
export function changeText(c: AgreementChange, currency: string): string {
  const show = (v: AgreementChange['from']) =>
    Array.isArray(v)
      ? v.join(', ')
      : typeof v === 'number' && c.field.startsWith('compensation')
        ? formatMoney(v, currency)
        : String(v);
  return `${c.field} ${show(c.from)} → ${show(c.to)}`;
}

/** Every version of an agreement, oldest first, with what each changed (`agreement history`). */
export function agreementHistoryJson(versions: Agreement[], now: Date) {
  const inForce = agreementAt(versions, now);
  return versions.map((v, i) => ({
    ...agreementJson(v),
    inForce: v.status === 'signed' && v === inForce,
    changes: i > 0 ? agreementChanges(versions[i - 1]!, v) : [],
  }));
}

export function agreementHistoryLines(versions: Agreement[], now: Date): string[] {
  if (!versions.length) return ['No agreement yet (parasol agreement set <partner> …)'];
  return table(
    ['VERSION', 'EFFECTIVE', 'STATE', 'SIGNED', 'BY', 'REASON', 'CHANGES'],
    agreementHistoryJson(versions, now).map((v, i) => [
      String(v.version),
      when(v.effectiveAt),
      v.status === 'draft'
        ? 'draft'
        : v.inForce
          ? 'in force'
          : v.effectiveAt && v.effectiveAt > now
            ? 'scheduled'
            : 'superseded',
      when(v.signedAt),
      v.signedBy ?? '-',
      v.reason ?? '-',
      i === 0 ? 'original' : v.changes.map((c) => changeText(c, v.currency)).join('; ') || 'none',
    ]),
  );
}

export const violationJson = (v: FutureViolation) => ({
  version: v.version,
  effectiveAt: v.effectiveAt,
  errors: v.errors,
});

/** Warnings of a configuration saved against the version in force that a signed future version rejects. */
export function violationLines(warnings: FutureViolation[]): string[] {
  return warnings.flatMap((w) => [
    `Warning: agreement version ${w.version}, effective ${when(w.effectiveAt)}, rejects this configuration; from then quotes are refused until it is adjusted:`,
    ...fieldErrorLines(w.errors),
  ]);
}

export const fieldErrorLines = (errors: FieldError[]) => errors.map((e) => `  ${e.field}: ${e.message}`);

export function agreementLines(a: Agreement | undefined): string[] {
  if (!a) return ['Agreement  none yet (parasol agreement set <partner> …)'];
  return pairs([
    [
      'Agreement',
      a.status === 'signed'
        ? `version ${a.version} in force since ${when(a.effectiveAt)}, signed ${when(a.signedAt)} by ${a.signedBy ?? '?'}`
        : 'draft (not signed)',
    ],
    ['Formulas', a.allowedFormulas.join(', ')],
    ['Currency', a.currency],
    ['Tax rate', a.taxRate],
    ['Commission', `${a.commissionMin} – ${a.commissionMax}`],
    ['Compensation', `${formatMoney(a.compensationMin, a.currency)} – ${formatMoney(a.compensationMax, a.currency)}`],
  ]);
}

export function configurationJson(c: Configuration) {
  return {
    id: c.id,
    version: c.version,
    formula: c.formula,
    delayTiers: c.delayTiers.map((t) => ({
      minDelayMinutes: t.minDelayMinutes,
      amount: moneyJson(t.amount, c.currency),
    })),
    cancellationAmount: moneyJson(c.cancellationAmount, c.currency),
    commissionRate: c.commissionRate,
    currency: c.currency,
    createdBy: c.createdBy,
    createdAt: c.createdAt,
  };
}

export function configurationLines(c: Configuration | undefined): string[] {
  if (!c) return ['Configuration  none yet (parasol config set <partner> …)'];
  return pairs([
    ['Configuration', `version ${c.version}, ${when(c.createdAt)} by ${c.createdBy}`],
    ['Formula', c.formula],
    [
      'Delay tiers',
      c.delayTiers.length
        ? c.delayTiers.map((t) => `≥ ${t.minDelayMinutes} min: ${formatMoney(t.amount, c.currency)}`).join(', ')
        : '-',
    ],
    ['Cancellation', c.cancellationAmount ? formatMoney(c.cancellationAmount, c.currency) : '-'],
    ['Commission', c.commissionRate],
  ]);
}

export function keyJson(k: ApiKeyInfo) {
  return {
    id: k.id,
    display: k.display,
    environment: k.environment,
    label: k.label,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
  };
}

export function keysSummary(list: ApiKeyInfo[]): { environment: Environment; active: number; revoked: number }[] {
  return ENVIRONMENTS.map((environment) => {
    const of = list.filter((k) => k.environment === environment);
    return {
      environment,
      active: of.filter((k) => !k.revokedAt).length,
      revoked: of.filter((k) => k.revokedAt).length,
    };
  }).filter((s) => s.active + s.revoked > 0);
}

export function documentLines(d: DocumentSet): string[] {
  return pairs([
    ['IPID', `${d.ipid.version}  ${d.ipid.url}  sha256 ${d.ipid.sha256}`],
    ['Terms', `${d.terms.version}  ${d.terms.url}  sha256 ${d.terms.sha256}`],
    ['Insurer', `${d.insurer.name}, ${d.insurer.registration}`],
    ['Address', d.insurer.address],
    ['Regulator', d.insurer.regulator],
    ['Complaints', [d.insurer.complaints.email, d.insurer.complaints.url].filter(Boolean).join('  ')],
    ['Set', `${when(d.createdAt)} by ${d.createdBy}`],
  ]);
}
