import type { Db } from './db.ts';
import { purgeExpiredKeys } from './idempotency.ts';
import type { JobQueue } from './jobs.ts';

/** Periodic platform chores, as scheduled jobs: run once across all processes, retried on failure. */
export const HOUSEKEEPING_QUEUES = { purgeIdempotencyKeys: 'housekeeping_purge_idempotency_keys' } as const;

export async function registerHousekeeping(queue: JobQueue): Promise<void> {
  await queue.queue(HOUSEKEEPING_QUEUES.purgeIdempotencyKeys, { retryLimit: 3, expireInSeconds: 300 });
  await queue.schedule(HOUSEKEEPING_QUEUES.purgeIdempotencyKeys, '17 * * * *'); // hourly
}

export async function workHousekeeping(queue: JobQueue, db: Db, log: { info(o: object, m: string): void }): Promise<void> {
  await queue.work(HOUSEKEEPING_QUEUES.purgeIdempotencyKeys, async () => {
    const purged = await purgeExpiredKeys(db);
    log.info({ purged }, 'expired idempotency keys purged');
  });
}
