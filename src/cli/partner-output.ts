import {
  ENVIRONMENTS,
  type Agreement,
  type ApiKeyInfo,
  type Configuration,
  type DocumentSet,
  type Environment,
} from '../partners/index.ts';
import { formatMoney } from '../platform/money.ts';
import { pairs, when } from './kit.ts';

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
  };
}

export function agreementLines(a: Agreement | undefined): string[] {
  if (!a) return ['Agreement  none yet (parasol agreement set <partner> …)'];
  return pairs([
    ['Agreement', a.status === 'signed' ? `signed ${when(a.signedAt)} by ${a.signedBy ?? '?'}` : 'draft (not signed)'],
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
