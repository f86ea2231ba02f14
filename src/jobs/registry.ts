import type { FastifyBaseLogger } from 'fastify';
import {
  expireClaims,
  requeueNeverNotified,
  notifyClaim,
  remindClaims,
  tellPartnerCustomerUnreachable,
  tellPartnerEmailRejected,
  type NotifyJob,
  type ResendRequest,
  LINK_USELESS_CLAIM_STATUSES,
} from '../claims/index.ts';
import { checkFlightWatch, dispatchDueChecks, planWatches, type FlightProviders } from '../monitoring/index.ts';
import {
  EMAIL_QUEUE_POLICY,
  SMTP_CIRCUIT,
  emailRetryReason,
  giveUpStaleEmails,
  giveUpStaleSms,
  smsRetryReason,
  SmsDeferred,
  requeueStaleEmails,
  requeueStaleSms,
  sendQueuedEmail,
  sendQueuedSms,
  SMS_QUEUE_POLICY,
  sweepEarlyReceipts,
  type EmailProviders,
  type SmsProvider,
} from '../notify/index.ts';
import { sendPasswordReset, type PasswordResetJob } from '../partners/index.ts';
import { deliverWebhook, pauseFailingEndpoints, requeueStaleDeliveries, type DeliveryJob } from '../webhooks/index.ts';
import { payWithSimulatedBank, runScheduledSepaBatch, settleAchPayouts, type SettleWarning } from '../payouts/index.ts';
import { SharedCircuitBreaker } from '../platform/circuit-breaker.ts';
import type { Config } from '../platform/config.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { purgeExpiredKeys } from '../platform/idempotency.ts';
import type { Job, JobPayloads, JobQueue, QueueName, QueuePolicy } from '../platform/jobs.ts';
import {
  emailsTotal,
  payoutsTotal,
  sepaBatchRunsTotal,
  smsTotal,
  webhookDeliveriesTotal,
} from '../platform/metrics.ts';
import { refitFromOutcomes } from '../risk/index.ts';
import { purgeWebSessions } from '../web/index.ts';

/**
 * The job registry: every queue of the platform, its payload, retry and expiry policy, cron schedule
 * and handler, in one list. The handlers' work stays in their domains: an entry only wires a domain
 * function to its queue (with its log line and metric). `JobQueue` is typed by `JobPayloads` below:
 * sending to a queue not listed here, or a payload of the wrong shape, fails type-checking.
 *
 * `registerQueues` (API, worker and CLI processes, before sending) and `startWorkers` (processes that
 * run jobs; they alone set the schedules, `registerSchedules`) in src/worker.ts walk this list.
 */

/** What a cron job carries: nothing. */
type NoPayload = Record<string, never>;

declare module '../platform/jobs.ts' {
  interface JobPayloads {
    /** Purges expired idempotency keys: hourly. */
    housekeeping_purge_idempotency_keys: NoPayload;
    /** Notifies the customer of a claim opened (or of a change to it). */
    claims_notify: NotifyJob | ResendRequest;
    /** Sends one queued production SMS. */
    sms_send: {
      smsId: string;
      /** Deferrals in a row by the provider's Retry-After (sms-queue.ts). */ deferrals?: number;
    };
    /** Sends one queued email (notify/email/), through SMTP or into the outbox. */
    email_send: { emailId: string };
    /** Queues again the SMS whose send job was lost: every 10 minutes. */
    sms_requeue: NoPayload;
    /** Queues again the production emails whose send jobs gave up: every 10 minutes, with SMTP. */
    email_requeue: NoPayload;
    /** Pays one payout through the simulated bank (sandbox); with `returnOf`, returns that paid transfer. */
    payouts_simulated_bank: { payoutId: string; returnOf?: string };
    /** Gathers the pending production payouts into SEPA files: PARASOL_SEPA_BATCH_SCHEDULE (default hourly on weekdays). */
    payouts_sepa_batch: NoPayload;
    /** Settles paid the ACH payouts whose return window has passed (payouts/settle-ach.ts): hourly. */
    payouts_ach_settle: NoPayload;
    /** Expires the claims whose bank details never came: every 15 minutes. */
    claims_expire: NoPayload;
    /** Reminds the customers whose claim still waits for bank details close to its due date: every 15 minutes. */
    claims_remind: NoPayload;
    /** Purges expired web sessions and stale sign-in counters: hourly. */
    web_sessions_purge: NoPayload;
    /** "Forgot password": looks the (sealed) address up and emails a reset link when it is an active user's. */
    users_password_reset: PasswordResetJob;
    /** One attempt of one webhook delivery. */
    webhooks_deliver: DeliveryJob;
    /** Queues again the webhook attempts whose job was lost: every 10 minutes. */
    webhooks_requeue: NoPayload;
    /** Pauses the webhook endpoints failing for days (PARASOL_WEBHOOKS_PAUSE_FAILING_*): hourly, at :41. */
    webhooks_pause_failing: NoPayload;
    /** Creates the missing flight watches, closes those without contracts: every 5 minutes. */
    flights_plan: NoPayload;
    /** Leases the due watches and queues their checks: every minute. */
    flights_dispatch: NoPayload;
    /** One check of one watch, at most one queued per watch. */
    flights_check: { watchId: string };
    /** Fits a new risk model version from the platform's outcomes: weekly, or asked in the console. */
    risk_refit: { requestedBy?: string };
  }
}

export interface WorkerContext {
  db: Db;
  keys: Keyring;
  config: Pick<
    Config,
    | 'publicUrl'
    | 'bankDetailsDays'
    | 'bankDetailsReminderDays'
    | 'smsQuietHours'
    | 'twilio'
    | 'smtp'
    | 'webhooksAllowPrivate'
    | 'webhooksPauseFailing'
    | 'flightProvider'
    | 'insurer'
    | 'sepaDebtor'
    | 'achOriginator'
    | 'achReturnWindowDays'
    | 'sepaCutOff'
    | 'sepaBatchSchedule'
    | 'payoutsDir'
  >;
  /** Flight-status providers per environment; default: from configuration (simulator, then config.flightProvider). */
  flightProviders?: FlightProviders | undefined;
  /** The production SMS provider; default: Twilio when configured. */
  sms?: SmsProvider | undefined;
  /** The email providers; default: the outbox, and SMTP when configured. */
  email?: EmailProviders | undefined;
  now: () => Date;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

/** What a handler is built from: the worker's context, its queue, and the providers resolved once. */
export interface JobRuntime extends Omit<WorkerContext, 'flightProviders' | 'sms' | 'email'> {
  jobs: JobQueue;
  sms: SmsProvider | undefined;
  email: EmailProviders;
  flightProviders: FlightProviders;
}

/** What a schedule may depend on: the configuration every process reads alike. */
export type ScheduleConfig = Pick<Config, 'sepaBatchSchedule'>;

export interface JobDefinition<P> {
  policy: Partial<QueuePolicy>;
  /**
   * Cron (UTC); pg-boss runs each schedule once across processes. A function reads it from the
   * configuration; undefined there: the queue has no schedule (one stored earlier is removed).
   */
  schedule?: string | ((config: ScheduleConfig) => string | undefined);
  /**
   * Default: one job at a time per poll. `batchSize`: each poll takes up to that many jobs and runs
   * them concurrently (I/O-bound handlers, fan-outs of thousands); `workers`: that many pollers.
   */
  concurrency?: { batchSize: number; workers?: number };
  /**
   * Builds the handler once per worker process. A singleton sweep's handler returns what its run did
   * (the counts it has): the worker logs them with the run's duration (`SweepReport`, worker.ts), the
   * run's one line — the handler logs only per item (a file made, a payout left out), never the run's
   * counts or its failure again (a `SweepFailure` adds to the worker's failed line).
   */
  handler: (rt: JobRuntime) => (job: Job<P>) => Promise<void | SweepReport>;
}

/** What a sweep's run did, as counts and outcomes: logged at the end of the run (worker.ts `reportedSweep`). */
export type SweepReport = Readonly<Record<string, number | string | boolean | undefined>>;

/**
 * Thrown by a sweep's handler whose failed run has something to say beside its error (the SEPA batch:
 * `batchOutcome: 'error'`): the worker's one `sweep run failed` line carries `report` with `err` the
 * `cause`, and the worker throws the `cause` on to the queue (the error pg-boss records is the run's own).
 */
export class SweepFailure extends Error {
  constructor(
    readonly report: SweepReport,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'SweepFailure';
  }
}

/**
 * The queues a customer waits on after a flight is cancelled or delayed: a dead worker's job must run
 * again within DEAD_WORKER_RERUN_SECONDS (`rerunBoundSeconds`: 15 s expiry + 2 × 3 s maintenance +
 * a first retry within 6 s + a 2 s poll = 29 s). Each expiry exceeds what its batch can take: the
 * notifications and payouts are a few statements each, SMS and webhook calls time out after 10 s.
 */
export const CLAIM_PATH_POLICIES = {
  // A notification is a few statements and an SMS: retried quickly, then with back-off for hours
  // (12 retries from 3 s: 3.4 to 6.8 h in all). Its batch of 50 runs in a few seconds, well within 15 s.
  // The sweep of claims never notified (claims/expire-claims.ts, NEVER_NOTIFIED_AFTER_MS: 8 h) waits beyond this window.
  claims_notify: { retryLimit: 12, retryDelay: 3, retryBackoff: true, expireInSeconds: 15 },
  // a few attempts only (Twilio has no idempotency key: each retry may text again); MAX_SMS_ATTEMPTS caps the sends anyway
  sms_send: SMS_QUEUE_POLICY,
  payouts_simulated_bank: { retryLimit: 12, retryDelay: 3, retryBackoff: true, expireInSeconds: 15 },
  // One job per webhook attempt; the retry schedule (about three days) is the delivery's own, these
  // pg-boss retries only cover a worker that died or a database error mid-attempt.
  webhooks_deliver: { retryLimit: 6, retryDelay: 3, retryBackoff: true, expireInSeconds: 15 },
} as const satisfies Partial<Record<QueueName, QueuePolicy>>;

/** Every queue, in the order it is registered. */
export const JOBS: { [N in QueueName]: JobDefinition<JobPayloads[N]> } = {
  housekeeping_purge_idempotency_keys: {
    policy: { retryLimit: 3, expireInSeconds: 300 },
    schedule: '17 * * * *',
    handler: (rt) => async () => {
      const purged = await purgeExpiredKeys(rt.db);
      rt.log.info({ purged }, 'expired idempotency keys purged');
    },
  },
  claims_notify: {
    policy: CLAIM_PATH_POLICIES.claims_notify,
    // Claims come by thousands when a flight is cancelled: each poll takes a batch and runs it
    // concurrently (one transaction per job), instead of one job per polling interval.
    concurrency: { batchSize: 50 },
    handler: (rt) => {
      const deps = {
        db: rt.db,
        jobs: rt.jobs,
        keys: rt.keys,
        publicUrl: rt.config.publicUrl,
        bankDetailsDays: rt.config.bankDetailsDays,
        insurer: rt.config.insurer,
        quietHours: rt.config.smsQuietHours,
        now: rt.now,
      };
      return async (job) => {
        const outcome = await notifyClaim(deps, job.data);
        if (outcome === 'sent') smsTotal.inc({ channel: 'notification', outcome });
        rt.log.info({ claimId: job.data.claimId, kind: job.data.kind ?? 'opened', outcome }, 'claim notification');
      };
    },
  },
  sms_send: {
    policy: CLAIM_PATH_POLICIES.sms_send,
    concurrency: { batchSize: 20 },
    handler: (rt) => async (job) => {
      const outcome = await sendQueuedSms(
        {
          db: rt.db,
          keys: rt.keys,
          provider: rt.sms,
          onUndelivered: tellPartnerCustomerUnreachable(rt.jobs),
          linkUselessClaimStatuses: LINK_USELESS_CLAIM_STATUSES,
          now: rt.now,
          jobs: rt.jobs,
          // a reminder or expiry notice an outage kept queued waits for the customer's morning, as at first
          quietHours: rt.config.smsQuietHours,
        },
        job.data.smsId,
        job.data.deferrals ?? 0,
      ).catch((error: unknown) => {
        // an outage shows as retries by reason (the message is given back or kept, not lost: no other trace)
        smsTotal.inc({ channel: 'twilio', outcome: 'retry', reason: smsRetryReason(error) });
        // deferred by the provider's Retry-After: its next send job is queued, this one ends (no back-off retry)
        if (error instanceof SmsDeferred) return 'deferred' as const;
        throw error;
      });
      if (outcome !== 'deferred') smsTotal.inc({ channel: 'twilio', outcome });
      // Twilio answered the send with its queue overflow (30001): the platform's throughput, not the customer
      if (outcome === 'requeued')
        rt.log.error(
          { smsId: job.data.smsId, outcome },
          'sms undelivered for a passing reason of the platform (answered at send): sent again at the end of its back-off while sends are left, the partner is not told',
        );
      else rt.log.info({ smsId: job.data.smsId, outcome }, 'sms');
    },
  },
  email_send: {
    policy: EMAIL_QUEUE_POLICY,
    concurrency: { batchSize: 10 },
    handler: (rt) => {
      // one refused SMTP login makes every worker's sends wait for the circuit's probe (provider_circuits)
      const smtpGate = new SharedCircuitBreaker(rt.db, SMTP_CIRCUIT.key, SMTP_CIRCUIT.options);
      return async (job) => {
        const outcome = await sendQueuedEmail(
          {
            db: rt.db,
            keys: rt.keys,
            providers: rt.email,
            now: rt.now,
            linkUselessClaimStatuses: LINK_USELESS_CLAIM_STATUSES,
            // a claim's email refused for its address: the partner is told (claim.customer_unreachable, email)
            onRejected: tellPartnerEmailRejected(rt.jobs),
            jobs: rt.jobs,
            // a reminder an outage kept queued waits for the customer's morning, as its SMS does
            quietHours: rt.config.smsQuietHours,
            smtpGate,
          },
          job.data.emailId,
        ).catch((error: unknown) => {
          emailsTotal.inc({ outcome: 'retry', reason: emailRetryReason(error) });
          throw error;
        });
        emailsTotal.inc({ outcome });
        rt.log.info({ emailId: job.data.emailId, outcome }, 'email');
      };
    },
  },
  sms_requeue: {
    policy: { retryLimit: 2, expireInSeconds: 300 },
    schedule: '*/10 * * * *',
    handler: (rt) => async () => {
      // a message queued a day is given up, so the partner and the operator know (provider configured or not)
      const givenUp = await giveUpStaleSms({
        db: rt.db,
        onUndelivered: tellPartnerCustomerUnreachable(rt.jobs),
        now: rt.now,
      });
      if (givenUp > 0) {
        smsTotal.inc({ channel: 'twilio', outcome: 'given_up' }, givenUp);
        rt.log.warn({ givenUp }, 'queued SMS given up: still queued a day after they were written');
      }
      if (rt.sms) {
        const requeued = await requeueStaleSms({ db: rt.db, jobs: rt.jobs });
        if (requeued > 0) rt.log.info({ requeued }, 'queued SMS sent again');
      }
      // delivery receipts that came before their message's id was recorded: applied, or forgotten after a day
      // (one that re-queues its message for a passing platform failure queues its send job with it)
      const applied = await sweepEarlyReceipts(
        { db: rt.db, jobs: rt.jobs, onUndelivered: tellPartnerCustomerUnreachable(rt.jobs) },
        rt.now(),
      );
      if (applied > 0) rt.log.info({ applied }, 'early SMS delivery receipts applied');
    },
  },
  email_requeue: {
    policy: { retryLimit: 2, expireInSeconds: 300 },
    schedule: '*/10 * * * *',
    handler: (rt) => async () => {
      const givenUp = await giveUpStaleEmails({ db: rt.db, now: rt.now });
      if (givenUp > 0) {
        emailsTotal.inc({ outcome: 'given_up' }, givenUp);
        rt.log.warn({ givenUp }, 'queued emails given up: still queued a day after they were written');
      }
      if (!rt.email.smtp) return; // nothing can send them yet
      const requeued = await requeueStaleEmails({ db: rt.db, jobs: rt.jobs });
      if (requeued > 0) rt.log.info({ requeued }, 'queued emails sent again');
    },
  },
  payouts_simulated_bank: {
    policy: CLAIM_PATH_POLICIES.payouts_simulated_bank,
    concurrency: { batchSize: 50 },
    handler: (rt) => {
      const deps = {
        db: rt.db,
        jobs: rt.jobs,
        now: rt.now,
        bankDetailsDays: rt.config.bankDetailsDays,
        encryption: rt.keys.encryption,
        warn: (w: SettleWarning) =>
          rt.log.warn({ code: w.code, claimId: w.claimId, endToEndId: w.endToEndId }, w.message),
      };
      return async (job) => {
        const outcome = await payWithSimulatedBank(deps, job.data.payoutId, job.data.returnOf);
        payoutsTotal.inc({ outcome });
        rt.log.info({ payoutId: job.data.payoutId, returnOf: job.data.returnOf, outcome }, 'simulated bank');
      };
    },
  },
  payouts_sepa_batch: {
    // one run at a time across processes ('singleton'); a run is a few queries and files of at most
    // 5,000 transfers. A failed run (the directory cannot be written) is retried, then the next tick tries again.
    policy: { retryLimit: 2, retryDelay: 120, retryBackoff: false, expireInSeconds: 900, policy: 'singleton' },
    schedule: (config) => config.sepaBatchSchedule,
    handler: (rt) => async () => {
      const deps = {
        db: rt.db,
        keys: rt.keys,
        now: rt.now,
        debtor: rt.config.sepaDebtor,
        directory: rt.config.payoutsDir,
        cutOff: rt.config.sepaCutOff,
        ach: rt.config.achOriginator,
      };
      let report;
      try {
        report = await runScheduledSepaBatch(deps);
      } catch (error) {
        sepaBatchRunsTotal.inc({ outcome: 'error' });
        // logged once, by the worker ('sweep run failed', with batchOutcome as the metric's); the queue
        // retries it, then the next tick runs it again
        throw new SweepFailure({ batchOutcome: 'error' }, error);
      }
      sepaBatchRunsTotal.inc({ outcome: report.outcome });
      for (const file of report.recorded)
        rt.log.warn(
          { messageId: file.messageId, path: file.path },
          'payout file of an earlier batch found in the directory and recorded',
        );
      for (const batch of report.unwritten)
        rt.log.error(
          {
            messageId: batch.messageId,
            createdAt: batch.createdAt.toISOString(),
            format: batch.format,
            reason: batch.reason,
          },
          `${batch.format === 'nacha' ? 'NACHA' : 'pain.001'} batch without a recorded file (${batch.reason === 'missing' ? 'missing: no file under its name in the payouts directory' : "other_bytes: the file under its name is not the batch's, look at it"}): check with the bank channel whether it was sent; if not, parasol payouts export <messageId>; if it was, parasol payouts export <messageId> --already-sent`,
        );
      for (const b of report.batches)
        rt.log.info(
          {
            messageId: b.messageId,
            payouts: b.payouts,
            controlSum: b.controlSum,
            currency: b.currency,
            scheme: b.scheme,
            executionDate: b.executionDate,
            path: b.path,
          },
          'payout batch created: send the file to the bank',
        );
      if (report.waiting > 0)
        rt.log.warn(
          { waiting: report.waiting },
          'production payouts wait for a SEPA batch, but the insurer account is not configured: set PARASOL_SEPA_DEBTOR_NAME, _IBAN and _BIC',
        );
      for (const r of report.refused)
        if (r.reason === 'ach_day_full')
          // no operator action: the next day's first NACHA file takes them (the pending-age alert still watches)
          rt.log.warn(
            { currency: r.currency, payouts: r.payouts, reason: r.reason, detail: r.message },
            "pending ACH payouts wait for the next day's NACHA file: the day's 36 File ID Modifiers are taken",
          );
        else
          rt.log.error(
            { currency: r.currency, payouts: r.payouts, reason: r.reason, detail: r.message },
            'pending production payouts that no file can pay: they stay pending until an operator acts (docs/OPERATOR.md)',
          );
      // a payout left out of its file: at `error` by the run that first leaves it out; the runs after
      // say in one line how many are still left out and since when (parasol payouts list --left-out);
      // a `parasol payouts batch` by hand that left it out first said so to its operator instead (`from now`)
      for (const s of report.skipped.filter((s) => s.first))
        rt.log.error(
          {
            endToEndId: s.endToEndId,
            claimNumber: s.claimNumber,
            currency: s.currency,
            code: s.code,
            detail: s.reason,
          },
          s.code === 'no_bic'
            ? 'pending production payout left out of its file: no BIC; it stays pending until an operator gives it (parasol payouts set-bic, docs/OPERATOR.md)'
            : 'pending production payout left out of its file: it stays pending until an operator acts (docs/OPERATOR.md)',
        );
      const still = report.skipped.filter((s) => !s.first);
      if (still.length > 0)
        rt.log.warn(
          {
            payouts: still.length,
            noBic: still.filter((s) => s.code === 'no_bic').length,
            oldestSince: new Date(Math.min(...still.map((s) => s.leftOutSince.getTime()))).toISOString(),
          },
          'pending production payouts still left out of their files: parasol payouts list --left-out',
        );
      return {
        batchOutcome: report.outcome,
        batches: report.batches.length,
        payouts: report.batches.reduce((n, b) => n + b.payouts, 0),
        refused: report.refused.length,
        skipped: report.skipped.length,
        waiting: report.waiting,
      };
    },
  },
  payouts_ach_settle: {
    // one run at a time across processes; each payout is its own short transaction (settle-ach.ts)
    policy: { retryLimit: 2, retryDelay: 120, expireInSeconds: 900, policy: 'singleton' },
    schedule: '47 * * * *',
    handler: (rt) => async () => {
      const settled = await settleAchPayouts({
        db: rt.db,
        jobs: rt.jobs,
        now: rt.now,
        bankDetailsDays: rt.config.bankDetailsDays,
        encryption: rt.keys.encryption,
        returnWindowDays: rt.config.achReturnWindowDays,
        warn: (w: SettleWarning) =>
          rt.log.warn({ code: w.code, claimId: w.claimId, endToEndId: w.endToEndId }, w.message),
      });
      // its counts (paid, unchanged) are the worker's 'sweep run' line
      return settled;
    },
  },
  claims_expire: {
    // one run at a time across processes ('singleton': a tick during a run waits for it, then runs).
    // Two at once would still expire each claim once (FOR UPDATE SKIP LOCKED, its status checked) and
    // re-queue each lost first message once (claims-repo.ts): the policy saves the duplicate scan.
    policy: { retryLimit: 3, expireInSeconds: 600, policy: 'singleton' },
    schedule: '*/15 * * * *',
    handler: (rt) => async () => {
      const expired = await expireClaims({ db: rt.db, jobs: rt.jobs, now: rt.now });
      const { requeued, abandoned } = await requeueNeverNotified({ db: rt.db, jobs: rt.jobs, now: rt.now });
      if (requeued > 0)
        rt.log.warn({ requeued }, 'claims whose first message was lost: their notification queued again');
      if (abandoned.length > 0)
        rt.log.warn(
          { abandoned: abandoned.length, claims: abandoned.slice(0, 20) },
          'claims never notified left for the desk (parasol claims list --status opened)',
        );
      return { expired, requeued, abandoned: abandoned.length };
    },
  },
  claims_remind: {
    // a scan reminds up to 500 claims, one short transaction each; a retry resends nothing (reminded_due_at),
    // nor would a concurrent scan (each claim re-checked under its lock); one run at a time all the same
    policy: { retryLimit: 3, retryDelay: 60, expireInSeconds: 600, policy: 'singleton' },
    schedule: '7,22,37,52 * * * *',
    handler: (rt) => async () => {
      const reminded = await remindClaims({
        db: rt.db,
        jobs: rt.jobs,
        keys: rt.keys,
        publicUrl: rt.config.publicUrl,
        bankDetailsDays: rt.config.bankDetailsDays,
        insurer: rt.config.insurer,
        reminderDays: rt.config.bankDetailsReminderDays,
        quietHours: rt.config.smsQuietHours,
        now: rt.now,
      });
      if (reminded > 0) smsTotal.inc({ channel: 'notification', outcome: 'sent' }, reminded);
      return { reminded };
    },
  },
  users_password_reset: {
    policy: { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 },
    handler: (rt) => async (job) => {
      const outcome = await sendPasswordReset(
        { db: rt.db, jobs: rt.jobs, keys: rt.keys, publicUrl: rt.config.publicUrl, now: rt.now },
        job,
      );
      rt.log.info({ jobId: job.id, outcome }, 'password reset asked');
    },
  },
  web_sessions_purge: {
    policy: { retryLimit: 3, expireInSeconds: 300 },
    schedule: '23 * * * *',
    handler: (rt) => async () => {
      const throttles = await purgeWebSessions({ db: rt.db, now: rt.now });
      rt.log.info({ throttles }, 'expired web sessions and stale sign-in counters purged');
    },
  },
  webhooks_deliver: {
    policy: CLAIM_PATH_POLICIES.webhooks_deliver,
    // two pollers of 20 concurrent sends: a slow receiver (10 s at most) does not hold up the others,
    // and a fan-out of thousands of events drains in minutes
    concurrency: { batchSize: 20, workers: 2 },
    handler: (rt) => {
      const deps = {
        db: rt.db,
        jobs: rt.jobs,
        keys: rt.keys,
        allowPrivate: rt.config.webhooksAllowPrivate,
        now: rt.now,
        publicUrl: rt.config.publicUrl,
      };
      return async (job) => {
        const outcome = await deliverWebhook(deps, job.data);
        webhookDeliveriesTotal.inc({ outcome });
        rt.log.info({ deliveryId: job.data.deliveryId, attempt: job.data.attempt, outcome }, 'webhook delivery');
      };
    },
  },
  webhooks_requeue: {
    policy: { retryLimit: 2, expireInSeconds: 300 },
    schedule: '*/10 * * * *',
    handler: (rt) => async () => {
      const requeued = await requeueStaleDeliveries({ db: rt.db, jobs: rt.jobs, now: rt.now });
      if (requeued > 0) rt.log.warn({ requeued }, 'webhook attempts whose job was lost queued again');
    },
  },
  webhooks_pause_failing: {
    // one run at a time (two at once would still pause each endpoint once: pause-failing.ts)
    policy: { policy: 'singleton', retryLimit: 2, expireInSeconds: 600 },
    schedule: '41 * * * *',
    handler: (rt) => async () => {
      const paused = await pauseFailingEndpoints(
        { db: rt.db, now: rt.now, jobs: rt.jobs, keys: rt.keys, publicUrl: rt.config.publicUrl },
        rt.config.webhooksPauseFailing,
      );
      for (const p of paused)
        rt.log.warn(
          { endpointId: p.id, partnerId: p.partnerId, failedAttempts: p.failed, emailsQueued: p.emailed },
          'webhook endpoint paused: failing for days',
        );
      return { paused: paused.length };
    },
  },
  flights_plan: {
    // one run at a time ('singleton'): the schedule's and those a flight change sends (change-flight.ts)
    // wait their turn, none is dropped. Two at once would still plan each watch once (one per flight,
    // ON CONFLICT) and open each claim once (the watch locked, one claim per leg).
    policy: { retryLimit: 3, retryDelay: 30, expireInSeconds: 300, policy: 'singleton' },
    schedule: '*/5 * * * *',
    handler: (rt) => async () => {
      return { ...(await planWatches({ db: rt.db, now: rt.now, jobs: rt.jobs })) };
    },
  },
  flights_dispatch: {
    policy: { retryLimit: 1, retryDelay: 10, expireInSeconds: 120 },
    schedule: '* * * * *',
    handler: (rt) => async () => {
      const dispatched = await dispatchDueChecks({ db: rt.db, now: rt.now, jobs: rt.jobs });
      if (dispatched.length > 0) rt.log.info({ checks: dispatched.length }, 'flight checks dispatched');
    },
  },
  flights_check: {
    // A check is a provider call (10 s timeout) and a few statements. Its retries (20 s, 40 s, 80 s)
    // end before the dispatcher's 10-minute lease does; at most one check per watch waits in the queue.
    policy: { retryLimit: 3, retryDelay: 20, retryBackoff: true, expireInSeconds: 120, policy: 'short' },
    // checks wait on the provider's HTTP answers: a batch per poll, run concurrently
    concurrency: { batchSize: 10 },
    handler: (rt) => {
      const deps = { db: rt.db, jobs: rt.jobs, providers: rt.flightProviders, now: rt.now, log: rt.log };
      return async (job) => {
        const result = await checkFlightWatch(deps, job.data.watchId);
        rt.log.info({ watchId: job.data.watchId, ...result }, 'flight checked');
      };
    },
  },
  risk_refit: {
    // A fit reads every decided flight and rebuilds the statistics: minutes at most, never urgent.
    // Every Monday at 03:17 UTC (docs/pricing.md, "Model versions"); never activated by the job.
    // One run at a time across workers ('singleton': the schedule's job and the console's share its
    // key, none): a second one waits, then finds the outcomes refitted and creates nothing. A worker
    // that dies mid-fit left nothing stored (one transaction at the end); the job runs again.
    policy: { retryLimit: 2, retryDelay: 600, expireInSeconds: 1800, policy: 'singleton' },
    schedule: '17 3 * * 1',
    // scheduled, or asked for in the operator console (who asked is the version's author)
    handler: (rt) => async (job) => {
      const { kind, ...outcome } = await refitFromOutcomes(rt.db, job.data.requestedBy ?? 'system', rt.now());
      // created: version, baseVersion, observations, dataCutoff; unchanged: reason (baseVersion), observations
      return { refit: kind, ...outcome };
    },
  },
};
