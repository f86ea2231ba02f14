import { DateTime } from 'luxon';
import type { Db } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { dayRange, partnerStatement, type DayRangeWords } from '../ledger/index.ts';
import { claimsByStatus, dailyActivity, dailyQuotes, type ClaimStatusCount, type Scope } from './views-repo.ts';

/**
 * The partner console's dashboard: quotes (counted per hour by the API processes: a quote itself
 * writes nothing), subscriptions, cancellations and claims over time, the quote → contract
 * conversion, claims by status, premium written against compensation paid, the cancellation rate.
 * The money of the period is the ledger's, as the partner statement adds it up (docs/bordereaux.md):
 * premium written (net + tax, before refunds), commission net of what was given back, every refund
 * (whole and partial cancellations, cheaper flight changes) and compensation paid — so the dashboard
 * over a month's days reads the month's statement.
 */
export interface Dashboard {
  days: string[];
  /** The period was chosen (from, to) rather than the last 30 days. */
  chosen: boolean;
  series: { quotes: number[]; subscriptions: number[]; cancellations: number[]; claims: number[] };
  totals: { quotes: number; subscriptions: number; cancellations: number; claims: number };
  /** Contracts subscribed ÷ quotes issued in the period, or null when no quote was counted. */
  conversionRate: number | null;
  /** Cancelled contracts among those subscribed in the period, or null when there are none. */
  cancellationRate: number | null;
  /** Every claim of the partner and environment (not only the period's) per status: count, compensation per currency. */
  claimsByStatus: ClaimStatusCount[];
  /** Per currency, the period's ledger totals (the statement's premium collected, commission, refunds, compensation paid). */
  money: { currency: string; premium: number; commission: number; refunded: number; paid: number }[];
}

export const DASHBOARD_DAYS = 30;

/**
 * The dashboard's words for `dayRange`'s refusals: a period, not an export (no "a year at a time"), and
 * its form's "first day", not the API's `from`. "at most N days after …, both included" is what a
 * French page reads the number from (`fieldErrorText`).
 */
const PERIOD_WORDS: DayRangeWords = {
  beforeStart: 'must not be before the first day',
  longer: (max) => `must be at most ${max} days after the first day, both included`,
};

/**
 * The last 30 days, or any period of whole UTC days (`range`, read by the exports' `dayRange`: both
 * ends included, at most `MAX_EXPORT_DAYS`, 366 — the ledger's rule, the figures being the ledger's,
 * in the dashboard's words, `PERIOD_WORDS`; one end only, a reversed or longer range is refused with
 * the fields at fault — one end was silently read as the last 30 days).
 */
export async function partnerDashboard(
  db: Db,
  scope: Scope,
  now: Date,
  range?: { from: string; to: string },
): Promise<Dashboard> {
  let today = DateTime.fromJSDate(now, { zone: 'utc' }).startOf('day');
  let from = today.minus({ days: DASHBOARD_DAYS - 1 });
  if (range) {
    // a missing end is the dashboard's own refusal (neither is the last 30 days); two days given, the
    // exports' rule (a wrong date, a reversed or longer range) in the dashboard's words
    const both = 'give both days, or neither for the last 30 days';
    const missing: FieldError[] = [];
    if (!range.from) missing.push({ field: '/from', code: 'required', message: both });
    if (!range.to) missing.push({ field: '/to', code: 'required', message: both });
    if (missing.length) throw new DomainError('validation_failed', 'The period is not valid.', { errors: missing });
    const period = dayRange(range.from, range.to, PERIOD_WORDS);
    from = DateTime.fromJSDate(period.from, { zone: 'utc' });
    today = DateTime.fromJSDate(period.to, { zone: 'utc' }).minus({ days: 1 });
  }
  const length = Math.round(today.diff(from, 'days').days) + 1;
  const days = Array.from({ length }, (_, i) => from.plus({ days: i }).toISODate()!);
  const period = { from: from.toJSDate(), to: today.plus({ days: 1 }).toJSDate() };
  const [activity, quotes, statuses, statement] = await Promise.all([
    dailyActivity(db, scope, period.from, period.to),
    dailyQuotes(db, scope, period.from, period.to),
    claimsByStatus(db, scope),
    partnerStatement(db, scope, period),
  ]);
  const money = statement.lines.map((l) => ({
    currency: l.currency,
    premium: l.premiumCollected,
    commission: l.commission,
    refunded: l.refunds,
    paid: l.compensationPaid,
  }));
  const fill = (counts: { day: string; count: number }[]) =>
    days.map((d) => counts.find((c) => c.day === d)?.count ?? 0);
  const series = {
    quotes: fill(quotes),
    subscriptions: fill(activity.subscriptions),
    cancellations: fill(activity.cancellations),
    claims: fill(activity.claims),
  };
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const totals = {
    quotes: sum(series.quotes),
    subscriptions: sum(series.subscriptions),
    cancellations: sum(series.cancellations),
    claims: sum(series.claims),
  };
  return {
    days,
    chosen: range !== undefined,
    series,
    totals,
    conversionRate: totals.quotes ? totals.subscriptions / totals.quotes : null,
    cancellationRate: totals.subscriptions ? totals.cancellations / totals.subscriptions : null,
    claimsByStatus: statuses,
    money,
  };
}
