import type { FastifyBaseLogger } from 'fastify';
import { CLAIM_QUEUES, notifyClaimOpened } from './claims/notify-claim.ts';
import type { Config } from './platform/config.ts';
import type { Keyring } from './platform/crypto.ts';
import type { Db } from './platform/db.ts';
import { registerHousekeeping, workHousekeeping } from './platform/housekeeping.ts';
import type { JobQueue } from './platform/jobs.ts';

export interface WorkerContext {
  db: Db;
  keys: Keyring;
  config: Pick<Config, 'publicUrl' | 'bankDetailsDays'>;
  now: () => Date;
  log: Pick<FastifyBaseLogger, 'info'>;
}

/** Creates every queue with its policy; API and worker processes both call it before sending. */
export async function registerQueues(jobs: JobQueue): Promise<void> {
  await registerHousekeeping(jobs);
  // A notification is a few statements and an SMS: retried quickly, then with back-off for hours.
  await jobs.queue(CLAIM_QUEUES.notify, { retryLimit: 10, retryDelay: 10, retryBackoff: true, expireInSeconds: 120 });
}

/** Every job handler of the platform, registered on a started queue. */
export async function startWorkers(jobs: JobQueue, ctx: WorkerContext): Promise<void> {
  await workHousekeeping(jobs, ctx.db, ctx.log);
  const notifyDeps = { db: ctx.db, keys: ctx.keys, publicUrl: ctx.config.publicUrl, bankDetailsDays: ctx.config.bankDetailsDays, now: ctx.now };
  await jobs.work<{ claimId: string }>(CLAIM_QUEUES.notify, async (job) => {
    const outcome = await notifyClaimOpened(notifyDeps, job.data.claimId);
    ctx.log.info({ claimId: job.data.claimId, outcome }, 'claim notification');
  });
}
