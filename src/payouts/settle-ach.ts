import { DateTime } from 'luxon';
import type { Db } from '../platform/db.ts';
import { achReturnWindowPassedFor, FED_ZONE } from './fed-calendar.ts';
import { listAchPayoutsPastReturnWindow, type AchSettlementDue } from './payouts-repo.ts';
import { settlePayout, type SettleDeps } from './payouts.ts';

/**
 * ACH never confirms a credit: an entry is paid unless the customer's bank returns it. A payout to a
 * US account (rail `ach`) still `instructed` once its file's effective entry date — or, for a file
 * written later than the day before it (exported late), the Federal Reserve business day after the
 * write (`file_written_at`, migration 0076) — and PARASOL_ACH_RETURN_WINDOW_DAYS Federal Reserve
 * business days after it have passed (default 2: most
 * returns — R01 to R04, the account errors — come within two banking days of the settlement date) is
 * settled `paid` through `settlePayout`, as a camt.054 credit would be: the claim paid, the ledger,
 * webhook claim.paid, the customer's receipt. A later return (unauthorized-entry returns may come
 * within 60 days) still turns it `returned` through `parasol payouts reconcile`.
 *
 * Run by the worker's `payouts_ach_settle` job (hourly, one run at a time). Exactly once: each payout
 * is settled in its own transaction, which locks its claim then the payout, and `settlePayout` leaves
 * one no longer instructed unchanged (settled by an earlier run, or a return imported meanwhile).
 */

/** Who the settlements are audited as. */
export const ACH_SETTLE_ACTOR = 'schedule:payouts_ach_settle';

/** Payouts settled per run at most; the rest are taken by the next run. */
export const ACH_SETTLE_PER_RUN = 5_000;

/**
 * When an ACH entry's return window of `windowDays` Federal Reserve business days has passed by `now`
 * — the one rule of "due", for the settlement and for the unreported alarm (`unreportedDue`, one day
 * later): its file's effective entry date is `achReturnWindowPassedFor` or earlier, and the file was
 * written on an earlier day (Eastern time). A file written late reaches the bank late: its entries
 * settle the Fed business day after the write at the earliest, which is `entryDateUpTo` or earlier
 * exactly when the write's day is before it. The SQL of the rule: `achReturnWindowPassed`.
 */
export function achSettlementDue(now: Date, windowDays: number): AchSettlementDue {
  const entryDateUpTo = achReturnWindowPassedFor(now, windowDays);
  const writtenBefore = DateTime.fromISO(entryDateUpTo, { zone: FED_ZONE }).startOf('day').toJSDate();
  return { entryDateUpTo, writtenBefore };
}

export async function settleAchPayouts(
  deps: SettleDeps & { db: Db; returnWindowDays: number },
): Promise<{ paid: number; unchanged: number }> {
  const due = await listAchPayoutsPastReturnWindow(
    deps.db,
    achSettlementDue(deps.now(), deps.returnWindowDays),
    ACH_SETTLE_PER_RUN,
  );
  let paid = 0;
  for (const { end_to_end_id: endToEndId } of due) {
    const outcome = await deps.db.transaction().execute((trx) =>
      settlePayout(trx, deps, {
        endToEndId,
        outcome: 'paid',
        actor: ACH_SETTLE_ACTOR,
        rails: ['ach'],
        sentInFile: true,
      }),
    );
    if (outcome === 'paid') paid++;
  }
  return { paid, unchanged: due.length - paid };
}
