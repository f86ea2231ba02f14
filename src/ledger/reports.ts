import type { Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { toDecimalString } from '../platform/money.ts';
import * as repo from './ledger-repo.ts';

/**
 * The money reports, each a query over the ledger (docs/bordereaux.md): the premium and claims
 * bordereaux for the insurer and the partner statement. Rows carry integer minor units; the
 * renderers (render.ts) write exact decimals. No personal data: contract and claim numbers, flights
 * and counts only — no name, email, phone, booking reference or IBAN (the insurer identifies a
 * contract by its number and asks Parasol for more when it must).
 */

export type Period = repo.Period;

export interface Scope {
  partnerId: string;
  environment: Environment;
}

/** "2026-11" → [2026-11-01T00:00Z, 2026-12-01T00:00Z): months are UTC months. */
export function monthPeriod(month: string, field = '/month'): Period {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!match) {
    throw new DomainError('validation_failed', 'The month is not valid.', {
      errors: [{ field, code: 'invalid_format', message: 'must be a month as YYYY-MM, e.g. 2026-11' }],
    });
  }
  const year = Number(match[1]);
  const m = Number(match[2]);
  return { from: new Date(Date.UTC(year, m - 1, 1)), to: new Date(Date.UTC(year, m, 1)) };
}

/**
 * The longest day range an export covers, both ends included: a year of 366 days (a leap year's, so any
 * calendar year fits). An export is read into memory and sent as one answer; a longer range is refused
 * (docs/DECISIONS.md "An export covers at most 366 days"), the operator exports it a year at a time.
 */
export const MAX_EXPORT_DAYS = 366;

/**
 * The words of `dayRange`'s two range refusals (`/to`, `out_of_range`): `beforeStart` a range ending
 * before it starts, `longer` one over its `max` days. The "at most N days after …, both included" of
 * `longer` is what a French page reads the number from (`fieldErrorText`).
 */
export interface DayRangeWords {
  readonly beforeStart: string;
  readonly longer: (max: number) => string;
}

/** The exports' words: the API's field names, and how to export more. */
export const EXPORT_RANGE_WORDS: DayRangeWords = {
  beforeStart: 'must not be before from',
  longer: (max) => `must be at most ${max} days after from, both included (export a longer range a year at a time)`,
};

/**
 * Any date range of whole UTC days, both ends included ("2026-11-01".."2026-11-30"), at most
 * MAX_EXPORT_DAYS days: the exports' range (`EXPORT_RANGE_WORDS`), and the partner dashboard's period
 * (web/dashboard.ts, its own `words`: its figures are the ledger's too, but it exports nothing).
 */
export function dayRange(from: string, to: string, words: DayRangeWords = EXPORT_RANGE_WORDS): Period {
  // a day of the calendar only: JavaScript reads 2026-02-31 as 3 March, which would stretch the period
  // over days nobody asked for — the date must read back as itself
  const parse = (text: string) => {
    const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : new Date(NaN);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text ? date : new Date(NaN);
  };
  const start = parse(from);
  const end = parse(to);
  const errors: FieldError[] = [];
  if (Number.isNaN(start.getTime()))
    errors.push({ field: '/from', code: 'invalid_format', message: 'must be a date as YYYY-MM-DD' });
  if (Number.isNaN(end.getTime()))
    errors.push({ field: '/to', code: 'invalid_format', message: 'must be a date as YYYY-MM-DD' });
  if (!errors.length && end < start) errors.push({ field: '/to', code: 'out_of_range', message: words.beforeStart });
  if (!errors.length && (end.getTime() - start.getTime()) / 86_400_000 + 1 > MAX_EXPORT_DAYS)
    errors.push({ field: '/to', code: 'out_of_range', message: words.longer(MAX_EXPORT_DAYS) });
  if (errors.length) throw new DomainError('validation_failed', 'The date range is not valid.', { errors });
  return { from: start, to: new Date(end.getTime() + 86_400_000) };
}

/**
 * A column: `date` an instant (a Date: CSV ISO 8601 UTC, XLSX a date-time cell), `day` a calendar day
 * without time or zone (text `YYYY-MM-DD`, e.g. a flight's local departure date: CSV as it is, XLSX a date
 * cell of that day), `money` signed minor units of the row's currency, `integer`, `text`.
 */
export interface Column<R> {
  name: string;
  kind: 'text' | 'date' | 'day' | 'money' | 'integer';
  value: (row: R) => string | number | Date | null;
}

export interface Report<R> {
  title: string;
  scope: Scope;
  period: Period;
  columns: readonly Column<R>[];
  rows: R[];
}

/** Premium bordereau columns (docs/bordereaux.md §Premium). Money columns are signed minor units of `currency`. */
export const PREMIUM_COLUMNS: readonly Column<repo.PremiumRow>[] = [
  { name: 'contract_number', kind: 'text', value: (r) => r.contract_number },
  { name: 'movement', kind: 'text', value: (r) => r.movement },
  { name: 'movement_at', kind: 'date', value: (r) => r.occurred_at },
  { name: 'subscribed_at', kind: 'date', value: (r) => r.created_at },
  { name: 'cancelled_at', kind: 'date', value: (r) => r.cancelled_at },
  { name: 'first_departure_at', kind: 'date', value: (r) => r.first_departure_at },
  { name: 'flights', kind: 'text', value: (r) => r.flights },
  { name: 'formula', kind: 'text', value: (r) => r.formula },
  { name: 'passengers', kind: 'integer', value: (r) => r.passengers },
  { name: 'currency', kind: 'text', value: (r) => r.currency },
  { name: 'premium_net', kind: 'money', value: (r) => r.premium_net },
  { name: 'premium_tax', kind: 'money', value: (r) => r.premium_tax },
  { name: 'commission', kind: 'money', value: (r) => r.commission },
  { name: 'refund', kind: 'money', value: (r) => r.refund },
  // the tax part of `refund` (memorandum, already inside it): premium_tax − tax_refunded is the tax net of refunds
  { name: 'tax_refunded', kind: 'money', value: (r) => r.tax_refunded },
];

/** A claim's evidence in one line: source, event, arrival delay, when observed. */
export function evidenceSummary(row: { event: string; evidence: Record<string, unknown> }): string {
  const e = row.evidence;
  const parts = [`${typeof e.source === 'string' ? e.source : 'unknown source'}: ${row.event}`];
  if (typeof e.arrivalDelayMinutes === 'number') parts.push(`arrival delay ${e.arrivalDelayMinutes} min`);
  if (typeof e.observedAt === 'string') parts.push(`observed ${e.observedAt}`);
  return parts.join(', ');
}

/** Claims bordereau columns (docs/bordereaux.md §Claims). */
export const CLAIM_COLUMNS: readonly Column<repo.ClaimRow>[] = [
  { name: 'claim_number', kind: 'text', value: (r) => r.claim_number },
  { name: 'contract_number', kind: 'text', value: (r) => r.contract_number },
  { name: 'flight_number', kind: 'text', value: (r) => r.flight_number },
  { name: 'departure_date', kind: 'day', value: (r) => r.departure_date },
  { name: 'reason', kind: 'text', value: (r) => r.reason },
  { name: 'event', kind: 'text', value: (r) => r.event },
  { name: 'delay_minutes', kind: 'integer', value: (r) => r.delay_minutes },
  { name: 'evidence', kind: 'text', value: (r) => evidenceSummary(r) },
  { name: 'opened_at', kind: 'date', value: (r) => r.opened_at },
  { name: 'status', kind: 'text', value: (r) => r.status },
  { name: 'currency', kind: 'text', value: (r) => r.currency },
  { name: 'compensation', kind: 'money', value: (r) => r.compensation_amount },
  { name: 'paid_in_period', kind: 'money', value: (r) => r.paid_in_period },
  { name: 'failed_payouts_in_period', kind: 'integer', value: (r) => r.failed_attempts_in_period },
  { name: 'paid_at', kind: 'date', value: (r) => r.paid_at },
];

export async function premiumBordereau(db: Executor, scope: Scope, period: Period): Promise<Report<repo.PremiumRow>> {
  return {
    title: 'Premium bordereau',
    scope,
    period,
    columns: PREMIUM_COLUMNS,
    rows: await repo.premiumRows(db, scope, period),
  };
}

export async function claimsBordereau(db: Executor, scope: Scope, period: Period): Promise<Report<repo.ClaimRow>> {
  return {
    title: 'Claims bordereau',
    scope,
    period,
    columns: CLAIM_COLUMNS,
    rows: await repo.claimRows(db, scope, period),
  };
}

export interface StatementLine {
  currency: string;
  /** What the customers paid the partner: net premium + tax. */
  premiumCollected: number;
  premiumNet: number;
  premiumTax: number;
  /** The partner's commission, net of commissions given back on cancellations. */
  commission: number;
  /** Premiums returned to customers (net + tax). */
  refunds: number;
  /** The tax part of `refunds` (for information: already in it, not subtracted again). */
  taxRefunded: number;
  /** premiumTax − taxRefunded: the insurance premium tax net of refunds, what the insurer declares. */
  taxNetOfRefunds: number;
  /** premiumCollected − commission − refunds: what the partner owes the insurer for the period. */
  amountDue: number;
  /** For information: compensations the insurer paid to the partner's customers (not in amountDue). */
  compensationPaid: number;
}

export interface Statement {
  scope: Scope;
  period: Period;
  lines: StatementLine[];
}

/** The partner statement of a period, per currency: the same entries the bordereaux add up. */
export async function partnerStatement(db: Executor, scope: Scope, period: Period): Promise<Statement> {
  const rows = await repo.totals(db, scope, period);
  return {
    scope,
    period,
    lines: rows.map((r) => {
      const premiumCollected = r.premium_net + r.premium_tax;
      return {
        currency: r.currency,
        premiumCollected,
        premiumNet: r.premium_net,
        premiumTax: r.premium_tax,
        commission: r.commission,
        refunds: r.refund,
        taxRefunded: r.tax_refunded,
        taxNetOfRefunds: r.premium_tax - r.tax_refunded,
        amountDue: premiumCollected - r.commission - r.refund,
        compensationPaid: r.compensation_paid,
      };
    }),
  };
}

/** Statement columns (docs/bordereaux.md §Statement), the CSV's and the PDF's. */
export const STATEMENT_COLUMNS: readonly Column<StatementLine>[] = [
  { name: 'currency', kind: 'text', value: (l) => l.currency },
  { name: 'premium_collected', kind: 'money', value: (l) => l.premiumCollected },
  { name: 'premium_net', kind: 'money', value: (l) => l.premiumNet },
  { name: 'premium_tax', kind: 'money', value: (l) => l.premiumTax },
  { name: 'commission', kind: 'money', value: (l) => l.commission },
  { name: 'refunds', kind: 'money', value: (l) => l.refunds },
  { name: 'amount_due', kind: 'money', value: (l) => l.amountDue },
  { name: 'compensation_paid', kind: 'money', value: (l) => l.compensationPaid },
  { name: 'tax_refunded', kind: 'money', value: (l) => l.taxRefunded },
  { name: 'tax_net_of_refunds', kind: 'money', value: (l) => l.taxNetOfRefunds },
];

/** Exact decimal text of a column's value (money in the row's currency). */
export function cellText<R>(column: Column<R>, row: R, currency: string): string {
  const v = column.value(row);
  if (v === null) return '';
  if (v instanceof Date) return v.toISOString();
  if (column.kind === 'money') return toDecimalString(v as number, currency);
  return String(v);
}
