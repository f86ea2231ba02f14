import type { FastifyBaseLogger } from 'fastify';
import type { Db } from './platform/db.ts';
import { workHousekeeping } from './platform/housekeeping.ts';
import type { JobQueue } from './platform/jobs.ts';

/** Every job handler of the platform, registered on a started queue. */
export async function startWorkers(jobs: JobQueue, db: Db, log: Pick<FastifyBaseLogger, 'info'>): Promise<void> {
  await workHousekeeping(jobs, db, log);
}
