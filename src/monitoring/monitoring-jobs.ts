import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { checkFlightWatch, type CheckDeps } from './check-flight.ts';
import { dispatchDueChecks } from './dispatch-checks.ts';
import { planWatches } from './plan-watches.ts';
import type { FlightProviders } from './providers.ts';
import { MONITORING_QUEUES } from './queues.ts';


/** The monitoring's queues and cron schedules (pg-boss runs each schedule once across processes). */
export async function registerMonitoring(jobs: JobQueue): Promise<void> {
  await jobs.queue(MONITORING_QUEUES.plan, { retryLimit: 3, retryDelay: 30, expireInSeconds: 300 });
  await jobs.schedule(MONITORING_QUEUES.plan, '*/5 * * * *');
  await jobs.queue(MONITORING_QUEUES.dispatch, { retryLimit: 1, retryDelay: 10, expireInSeconds: 120 });
  await jobs.schedule(MONITORING_QUEUES.dispatch, '* * * * *');
  // A check is a provider call (10 s timeout) and a few statements. Its retries (20 s, 40 s, 80 s)
  // end before the dispatcher's 10-minute lease does; at most one check per watch waits in the queue.
  await jobs.queue(MONITORING_QUEUES.check, { retryLimit: 3, retryDelay: 20, retryBackoff: true, expireInSeconds: 120, policy: 'short' });
}

export interface MonitoringWorkerDeps {
  db: Db;
  providers: FlightProviders;
  now: () => Date;
  log: CheckDeps['log'];
}

/** The planner, dispatcher and check handlers. */
export async function workMonitoring(jobs: JobQueue, deps: MonitoringWorkerDeps): Promise<void> {
  const clock = { db: deps.db, now: deps.now };
  await jobs.work(MONITORING_QUEUES.plan, async () => {
    const planned = await planWatches(clock);
    if (planned.created + planned.reopened + planned.closed > 0) deps.log.info(planned, 'flight watches planned');
  });
  await jobs.work(MONITORING_QUEUES.dispatch, async () => {
    const dispatched = await dispatchDueChecks({ ...clock, jobs });
    if (dispatched.length > 0) deps.log.info({ checks: dispatched.length }, 'flight checks dispatched');
  });
  const checkDeps: CheckDeps = { ...deps, jobs };
  // checks wait on the provider's HTTP answers: a batch per poll, run concurrently
  await jobs.workConcurrently<{ watchId: string }>(
    MONITORING_QUEUES.check,
    async (job) => {
      const result = await checkFlightWatch(checkDeps, job.data.watchId);
      deps.log.info({ watchId: job.data.watchId, ...result }, 'flight checked');
    },
    { batchSize: 10 },
  );
}
