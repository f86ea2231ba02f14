import { flightProvidersFromConfig } from './monitoring/index.ts';
import { debtorAddressWarning } from './payouts/index.ts';
import { OutboxEmailProvider, SmtpEmailProvider, TwilioSmsProvider } from './notify/index.ts';
import type { JobPayloads, JobQueue, QueueName } from './platform/jobs.ts';
import { JOBS, type JobDefinition, type JobRuntime, type ScheduleConfig, type WorkerContext } from './jobs/registry.ts';

export { CLAIM_PATH_POLICIES, type WorkerContext } from './jobs/registry.ts';

const queueNames = Object.keys(JOBS) as QueueName[];

/** Creates every queue of the registry with its policy; API, worker and CLI processes all call it before sending. */
export async function registerQueues(jobs: JobQueue): Promise<void> {
  for (const name of queueNames) await jobs.queue(name, JOBS[name].policy);
}

/**
 * Sets the cron schedule of every periodic job; only processes that run the workers call it
 * (`startWorkers`), so a CLI command or an API-only process started with another configuration never
 * changes them. A schedule read from the configuration and turned off is removed (pg-boss keeps
 * schedules in the database: one set by an earlier start would otherwise go on).
 */
export async function registerSchedules(jobs: JobQueue, config: ScheduleConfig): Promise<void> {
  for (const name of queueNames) {
    const job = JOBS[name];
    const cron = typeof job.schedule === 'function' ? job.schedule(config) : job.schedule;
    if (cron) await jobs.schedule(name, cron);
    else if (job.schedule) await jobs.unschedule(name);
  }
}

/** Every job handler of the registry, registered on a started queue, and the periodic jobs' schedules. */
export async function startWorkers(jobs: JobQueue, ctx: WorkerContext): Promise<void> {
  await registerSchedules(jobs, ctx.config);
  // the batch job's configuration: said once at start, not at each run that leaves a payout out
  const noAddress = debtorAddressWarning(ctx.config.sepaDebtor);
  if (noAddress) ctx.log.warn({ variable: 'PARASOL_SEPA_DEBTOR_ADDRESS' }, noAddress);
  const runtime: JobRuntime = {
    ...ctx,
    jobs,
    sms: ctx.sms ?? (ctx.config.twilio ? new TwilioSmsProvider(ctx.config.twilio) : undefined),
    email: ctx.email ?? {
      outbox: new OutboxEmailProvider(),
      smtp: ctx.config.smtp ? new SmtpEmailProvider(ctx.config.smtp) : undefined,
    },
    flightProviders:
      ctx.flightProviders ?? flightProvidersFromConfig(ctx.config.flightProvider, ctx.db, ctx.now, ctx.log),
  };
  for (const name of queueNames) await startWorker(jobs, name, runtime);
}

async function startWorker<N extends QueueName>(jobs: JobQueue, name: N, runtime: JobRuntime): Promise<void> {
  const job: JobDefinition<JobPayloads[N]> = JOBS[name];
  const handler = job.handler(runtime);
  if (!job.concurrency) await jobs.work(name, handler);
  else
    for (let i = 0; i < (job.concurrency.workers ?? 1); i++)
      await jobs.workConcurrently(name, handler, { batchSize: job.concurrency.batchSize });
}
