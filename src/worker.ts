import type { FastifyBaseLogger } from 'fastify';
import { CLAIM_QUEUES, notifyClaim, type NotifyJob } from './claims/notify-claim.ts';
import type { Config } from './platform/config.ts';
import type { Keyring } from './platform/crypto.ts';
import type { Db } from './platform/db.ts';
import { registerHousekeeping, workHousekeeping } from './platform/housekeeping.ts';
import type { JobQueue, QueuePolicy } from './platform/jobs.ts';
import { EXPIRY_QUEUE, expireClaims } from './claims/expire-claims.ts';
import { PAYOUT_QUEUES, payWithSimulatedBank } from './payouts/payouts.ts';
import { requeueStaleSms, SMS_QUEUE, SMS_QUEUE_POLICY, SMS_SWEEP_QUEUE, sendQueuedSms } from './notify/sms-queue.ts';
import { TwilioSmsProvider } from './notify/twilio.ts';
import { decrypt } from './platform/crypto.ts';
import type { SmsProvider } from './notify/sms.ts';
import { purgeWebSessions } from './web/sessions.ts';
import { payoutsTotal, smsTotal } from './platform/metrics.ts';

const WEB_PURGE_QUEUE = 'web_sessions_purge';
import { WEBHOOK_QUEUES, workWebhookDeliveries } from './notify/webhook-delivery.ts';
import { registerMonitoring, workMonitoring } from './monitoring/monitoring-jobs.ts';
import { flightProvidersFromConfig, type FlightProviders } from './monitoring/providers.ts';
import { registerRiskRefit, workRiskRefit } from './risk/refit-job.ts';

export interface WorkerContext {
  db: Db;
  keys: Keyring;
  config: Pick<Config, 'publicUrl' | 'bankDetailsDays' | 'twilio' | 'webhooksAllowPrivate' | 'flightProvider'>;
  /** Flight-status providers per environment; default: from configuration (simulator, then config.flightProvider). */
  flightProviders?: FlightProviders | undefined;
  /** The production SMS provider; default: Twilio when configured. */
  sms?: SmsProvider | undefined;
  now: () => Date;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

/**
 * The queues a customer waits on after a flight is cancelled or delayed: a dead worker's job must run
 * again within DEAD_WORKER_RERUN_SECONDS (`rerunBoundSeconds`: 15 s expiry + 2 × 3 s maintenance +
 * a first retry within 6 s + a 2 s poll = 29 s). Each expiry exceeds what its batch can take: the
 * notifications and payouts are a few statements each, SMS and webhook calls time out after 10 s.
 */
export const CLAIM_PATH_POLICIES = {
  // 12 retries from 3 s: about 3.4 to 6.8 hours in all, as before
  [CLAIM_QUEUES.notify]: { retryLimit: 12, retryDelay: 3, retryBackoff: true, expireInSeconds: 15 },
  // a few attempts only (Twilio has no idempotency key); MAX_SMS_ATTEMPTS caps the sends anyway
  [SMS_QUEUE]: SMS_QUEUE_POLICY,
  [PAYOUT_QUEUES.simulatedBank]: { retryLimit: 12, retryDelay: 3, retryBackoff: true, expireInSeconds: 15 },
  // these pg-boss retries only cover a worker that died or a database error mid-attempt
  [WEBHOOK_QUEUES.deliver]: { retryLimit: 6, retryDelay: 3, retryBackoff: true, expireInSeconds: 15 },
} as const satisfies Record<string, QueuePolicy>;

/** Creates every queue with its policy; API and worker processes both call it before sending. */
export async function registerQueues(jobs: JobQueue): Promise<void> {
  await registerHousekeeping(jobs);
  // A notification is a few statements and an SMS: retried quickly, then with back-off for hours
  // (12 retries from 3 s: 3.4 to 6.8 h in all). Its batch of 50 runs in a few seconds, well within 15 s.
  await jobs.queue(CLAIM_QUEUES.notify, CLAIM_PATH_POLICIES[CLAIM_QUEUES.notify]);
  // A production SMS: a few attempts only (Twilio has no idempotency key: each retry may text again).
  await jobs.queue(SMS_QUEUE, CLAIM_PATH_POLICIES[SMS_QUEUE]);
  await jobs.queue(SMS_SWEEP_QUEUE, { retryLimit: 2, expireInSeconds: 300 });
  await jobs.schedule(SMS_SWEEP_QUEUE, '*/10 * * * *');
  await jobs.queue(PAYOUT_QUEUES.simulatedBank, CLAIM_PATH_POLICIES[PAYOUT_QUEUES.simulatedBank]);
  await jobs.queue(EXPIRY_QUEUE, { retryLimit: 3, expireInSeconds: 600 });
  await jobs.queue(WEB_PURGE_QUEUE, { retryLimit: 3, expireInSeconds: 300 });
  await jobs.schedule(WEB_PURGE_QUEUE, '23 * * * *'); // hourly
  await jobs.schedule(EXPIRY_QUEUE, '*/15 * * * *');
  // One job per webhook attempt; the retry schedule (about three days) is the delivery's own, these
  // pg-boss retries only cover a worker that died or a database error mid-attempt.
  await jobs.queue(WEBHOOK_QUEUES.deliver, CLAIM_PATH_POLICIES[WEBHOOK_QUEUES.deliver]);
  // Flight monitoring: planner (every 5 min), dispatcher (every minute), one check job per due watch.
  await registerMonitoring(jobs);
  // The weekly refit of the risk model from the platform's own outcomes (never activated by itself).
  await registerRiskRefit(jobs);
}

/** Every job handler of the platform, registered on a started queue. */
export async function startWorkers(jobs: JobQueue, ctx: WorkerContext): Promise<void> {
  await workHousekeeping(jobs, ctx.db, ctx.log);
  const notifyDeps = { db: ctx.db, jobs, keys: ctx.keys, publicUrl: ctx.config.publicUrl, bankDetailsDays: ctx.config.bankDetailsDays, now: ctx.now };
  // Claims come by thousands when a flight is cancelled: each poll takes a batch and runs it
  // concurrently (one transaction per job), instead of one job per polling interval.
  await jobs.workConcurrently<NotifyJob>(CLAIM_QUEUES.notify, async (job) => {
    const outcome = await notifyClaim(notifyDeps, job.data);
    if (outcome === 'sent') smsTotal.inc({ channel: 'notification', outcome });
    ctx.log.info({ claimId: job.data.claimId, kind: job.data.kind ?? 'opened', outcome }, 'claim notification');
  }, { batchSize: 50 });
  const sms = ctx.sms ?? (ctx.config.twilio ? new TwilioSmsProvider(ctx.config.twilio) : undefined);
  await jobs.workConcurrently<{ smsId: string }>(SMS_QUEUE, async (job) => {
    const outcome = await sendQueuedSms({ db: ctx.db, keys: ctx.keys, provider: sms }, job.data.smsId);
    smsTotal.inc({ channel: 'twilio', outcome });
    ctx.log.info({ smsId: job.data.smsId, outcome }, 'sms');
  }, { batchSize: 20 });
  await jobs.work(SMS_SWEEP_QUEUE, async () => {
    if (!sms) return; // nothing can send them yet
    const requeued = await requeueStaleSms({ db: ctx.db, jobs });
    if (requeued > 0) ctx.log.info({ requeued }, 'queued SMS sent again');
  });
  const settleDeps = { db: ctx.db, jobs, now: ctx.now, bankDetailsDays: ctx.config.bankDetailsDays, decryptIban: (sealed: string) => decrypt(ctx.keys.encryption, sealed) };
  await jobs.workConcurrently<{ payoutId: string }>(PAYOUT_QUEUES.simulatedBank, async (job) => {
    const outcome = await payWithSimulatedBank(settleDeps, job.data.payoutId);
    payoutsTotal.inc({ outcome });
    ctx.log.info({ payoutId: job.data.payoutId, outcome }, 'simulated bank');
  }, { batchSize: 50 });
  await jobs.work(WEB_PURGE_QUEUE, async () => {
    const throttles = await purgeWebSessions({ db: ctx.db, now: ctx.now });
    ctx.log.info({ throttles }, 'expired web sessions and stale sign-in counters purged');
  });
  await jobs.work(EXPIRY_QUEUE, async () => {
    const expired = await expireClaims({ db: ctx.db, jobs, now: ctx.now });
    if (expired > 0) ctx.log.info({ expired }, 'claims expired');
  });
  await workWebhookDeliveries(jobs, { db: ctx.db, jobs, keys: ctx.keys, allowPrivate: ctx.config.webhooksAllowPrivate, now: ctx.now }, ctx.log);
  const flightProviders = ctx.flightProviders ?? flightProvidersFromConfig(ctx.config.flightProvider, ctx.db, ctx.now);
  await workMonitoring(jobs, { db: ctx.db, providers: flightProviders, now: ctx.now, log: ctx.log });
  await workRiskRefit(jobs, { db: ctx.db, now: ctx.now, log: ctx.log });
}
