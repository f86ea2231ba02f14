import { countHeldReminders, findClaimsToRemind } from './claims-repo.ts';
import type { Db } from '../platform/db.ts';
import { notifyClaim, type NotifyDeps } from './notify-claim.ts';

export interface RemindDeps extends NotifyDeps {
  /** PARASOL_BANK_DETAILS_REMINDER_DAYS: how long before the due date; 0 turns reminders off. */
  reminderDays: number;
}

/** Claims reminded per scan at most; the next scan (15 minutes later) takes the rest. */
const BATCH = 500;

/**
 * Reminds the customers whose claim still waits for (new) bank details and expires within
 * `reminderDays`, once per due date: each claim is a `reminder` notification in its own transaction
 * (a new link, the SMS, `reminded_due_at`), re-checked under the claim's lock, so a retried or
 * concurrent scan sends nothing twice. A scheduled job runs it every 15 minutes. A claim whose
 * message fails is left for the next scan; the scan then fails too, so the failure shows.
 *
 * `actor`: who each reminder's `bank_details_reminded` row names — `system` for the scheduled job (the
 * default), the operator for `parasol claims remind` (as `expireClaims` for `parasol claims expire`).
 */
export async function remindClaims(deps: RemindDeps): Promise<number> {
  if (deps.reminderDays <= 0) return 0;
  const now = deps.now();
  const ids = await findClaimsToRemind(deps.db, now, new Date(now.getTime() + deps.reminderDays * 86_400_000), BATCH);
  let sent = 0;
  const failures: unknown[] = [];
  for (const claimId of ids) {
    try {
      if ((await notifyClaim(deps, { claimId, kind: 'reminder' })) === 'sent') sent += 1;
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0)
    throw new AggregateError(failures, `${failures.length} of ${ids.length} claim reminders failed (${sent} sent)`);
  return sent;
}

/** How many reminders are held until the customer's morning (quiet hours) at `now`: `parasol claims remind` says so. */
export function heldReminders(db: Db, now: Date): Promise<number> {
  return countHeldReminders(db, now);
}
