import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { MONITORING_SCHEDULE } from './schedule.ts';
import { leaseDueWatches } from './watches-repo.ts';

export interface DispatchOptions {
  /** Watches per transaction. Default 500. */
  batchSize?: number;
  /** Batches per run at most (the next run, a minute later, takes the rest). Default 20. */
  maxBatches?: number;
  /** Only these watches (tests; an operator re-dispatching chosen flights). */
  only?: readonly string[];
}

/**
 * The dispatcher (job `flights_dispatch`, every minute): claims the due watches with FOR UPDATE SKIP
 * LOCKED, leases them (next_check_at + 10 min) and queues one `flights_check` job per watch
 * (singletonKey = watch id), lease and jobs in one transaction. Two dispatchers never hand out the
 * same watch; a check job that is lost leaves the watch due again when its lease ends.
 * Returns the ids dispatched.
 */
export async function dispatchDueChecks(
  deps: { db: Db; jobs: JobQueue; now: () => Date },
  options: DispatchOptions = {},
): Promise<string[]> {
  const batchSize = options.batchSize ?? 500;
  const dispatched: string[] = [];
  for (let batch = 0; batch < (options.maxBatches ?? 20); batch++) {
    const now = deps.now();
    const ids = await deps.db.transaction().execute(async (trx) => {
      const leased = await leaseDueWatches(trx, {
        now,
        leaseUntil: new Date(now.getTime() + MONITORING_SCHEDULE.leaseMinutes * 60_000),
        limit: batchSize,
        only: options.only,
      });
      await deps.jobs.sendMany(
        'flights_check',
        leased.map((watchId) => ({ watchId })),
        { trx, singletonKey: (job) => job.watchId },
      );
      return leased;
    });
    dispatched.push(...ids);
    if (ids.length < batchSize) break;
  }
  return dispatched;
}
