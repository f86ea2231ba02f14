import { DateTime } from 'luxon';
import type { Db } from '../platform/db.ts';
import { claimsByStatus, dailyActivity, premiumAndPaid, type Scope } from './views-repo.ts';

/**
 * The partner console's dashboard. Quotes write nothing (a signed reference carries them), so
 * neither quote counts nor the quote → contract conversion can be measured: the dashboard says so
 * and shows what is stored — subscriptions, cancellations and claims over time, claims by status,
 * premium written against compensation paid, and the cancellation rate.
 */
export interface Dashboard {
  days: string[];
  series: { subscriptions: number[]; cancellations: number[]; claims: number[] };
  totals: { subscriptions: number; cancellations: number; claims: number };
  /** Cancelled contracts among those subscribed in the period, or null when there are none. */
  cancellationRate: number | null;
  claimsByStatus: { status: string; count: number; amount: number }[];
  money: { currency: string; premium: number; commission: number; refunded: number; paid: number }[];
}

export const DASHBOARD_DAYS = 30;

export async function partnerDashboard(db: Db, scope: Scope, now: Date): Promise<Dashboard> {
  const today = DateTime.fromJSDate(now, { zone: 'utc' }).startOf('day');
  const from = today.minus({ days: DASHBOARD_DAYS - 1 });
  const days = Array.from({ length: DASHBOARD_DAYS }, (_, i) => from.plus({ days: i }).toISODate()!);
  const [activity, statuses, money] = await Promise.all([
    dailyActivity(db, scope, from.toJSDate(), today.plus({ days: 1 }).toJSDate()),
    claimsByStatus(db, scope),
    premiumAndPaid(db, scope),
  ]);
  const fill = (counts: { day: string; count: number }[]) => days.map((d) => counts.find((c) => c.day === d)?.count ?? 0);
  const series = { subscriptions: fill(activity.subscriptions), cancellations: fill(activity.cancellations), claims: fill(activity.claims) };
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const totals = { subscriptions: sum(series.subscriptions), cancellations: sum(series.cancellations), claims: sum(series.claims) };
  return {
    days,
    series,
    totals,
    cancellationRate: totals.subscriptions ? totals.cancellations / totals.subscriptions : null,
    claimsByStatus: statuses,
    money,
  };
}
