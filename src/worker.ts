import { flightProvidersFromConfig } from './monitoring/index.ts';
import { debtorAddressWarning } from './payouts/index.ts';
import { OutboxEmailProvider, SmtpEmailProvider, TwilioSmsProvider } from './notify/index.ts';
import { performance } from 'node:perf_hooks';
import type { Job, JobPayloads, JobQueue, QueueName } from './platform/jobs.ts';
import { sweepDuration } from './platform/metrics.ts';
import {
  JOBS,
  type JobDefinition,
  type JobRuntime,
  type ScheduleConfig,
  SweepFailure,
  type SweepReport,
  type WorkerContext,
} from './jobs/registry.ts';

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
  const built = job.handler(runtime);
  const handler =
    job.policy.policy === 'singleton'
      ? reportedSweep(name, job.policy.expireInSeconds, built, runtime.log)
      : async (j: Job<JobPayloads[N]>) => void (await built(j));
  if (!job.concurrency) await jobs.work(name, handler);
  else
    for (let i = 0; i < (job.concurrency.workers ?? 1); i++)
      await jobs.workConcurrently(name, handler, { batchSize: job.concurrency.batchSize });
}

/**
 * A singleton sweep's handler, reporting each run: one line at its end — `{ ...what the run did,
 * queue, durationMs, outcome }` (the wrapper's own fields win over a count of the same name), "sweep
 * run" at info — and the run's duration in `parasol_sweep_duration_seconds` (by queue and outcome). A
 * run that took more than half the queue's `expireInSeconds` is logged at warn instead ("sweep run
 * near its expiry", with `expireInSeconds`): past its expiry pg-boss would take it for dead and retry
 * it beside itself. One that took more than its `expireInSeconds` has `pastExpiry: true` too, and at
 * warn the message "sweep run past its expiry": the queue may have started it again already. A failed
 * run is logged at error ("sweep run failed", outcome `failed`, its error — with a `SweepFailure`'s
 * report, its cause), then thrown for the queue to retry (a `SweepFailure`'s cause). The handler logs
 * no line of its own for the run as a whole. `elapsedMs`: the monotonic clock (tests move it).
 */
export function reportedSweep<P>(
  queue: string,
  expireInSeconds: number | undefined,
  handler: (job: Job<P>) => Promise<void | SweepReport>,
  log: Pick<WorkerContext['log'], 'info' | 'warn' | 'error'>,
  elapsedMs: () => number = () => performance.now(),
): (job: Job<P>) => Promise<void> {
  return async (job) => {
    const started = elapsedMs();
    const report = (outcome: 'done' | 'failed', fields: object) => {
      const durationMs = Math.round(elapsedMs() - started);
      sweepDuration.observe({ queue, outcome }, durationMs / 1000);
      const expiryMs = expireInSeconds === undefined ? undefined : expireInSeconds * 1000;
      const near = expiryMs !== undefined && durationMs > expiryMs / 2;
      const past = expiryMs !== undefined && durationMs > expiryMs;
      const line = {
        ...fields,
        queue,
        durationMs,
        outcome,
        ...(near ? { expireInSeconds } : {}),
        ...(past ? { pastExpiry: true } : {}),
      };
      if (outcome === 'failed') log.error(line, 'sweep run failed');
      else if (past) log.warn(line, 'sweep run past its expiry: the queue may have started it again beside itself');
      else if (near) log.warn(line, 'sweep run near its expiry: it took more than half its expireInSeconds');
      else log.info(line, 'sweep run');
    };
    let done: void | SweepReport;
    try {
      done = await handler(job);
    } catch (error) {
      if (error instanceof SweepFailure) {
        report('failed', { ...error.report, err: error.cause });
        throw error.cause;
      }
      report('failed', { err: error });
      throw error;
    }
    report('done', done ?? {});
  };
}
