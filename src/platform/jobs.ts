import { CompiledQuery, sql } from 'kysely';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import PgBoss from 'pg-boss';
import { afterCommit, type Executor } from './db.ts';
import { scrubSecrets } from './logging.ts';
import { JOBS_CHANNEL } from './notifications.ts';

/**
 * The job queue: pg-boss 10 on the platform's own database, PGlite or PostgreSQL alike. Every SQL
 * statement pg-boss runs goes through our Kysely executor (`executeSql` below): on PGlite that is
 * the one gate to the single connection, so jobs never interleave with a request's transaction; on
 * PostgreSQL it is our pool. Passing a transaction as `trx` to `send` enqueues the job inside it,
 * so a state change and the work it causes commit together or not at all. Every send also announces
 * the job (NOTIFY parasol_jobs): a worker listening (platform/notifications.ts) wakes its pg-boss
 * worker of that queue (`wake`) instead of waiting for its next poll. A transaction opened by
 * `transaction()` (platform/db.ts) is announced after its commit, the others inside (see `announce`).
 *
 * Jobs survive crashes: a job whose worker died stays `active` until its expiry, when pg-boss's
 * maintenance fails it and, within its retry limit, makes it available again after the queue's
 * first retry delay. Maintenance runs every MAINTENANCE_INTERVAL_SECONDS (pg-boss keeps one run
 * across processes, so two intervals may pass between runs): a dead worker's job runs again within
 * `rerunBoundSeconds(policy)`. The queues a customer waits on (claims, SMS, payouts, webhooks) keep
 * that within DEAD_WORKER_RERUN_SECONDS (see src/jobs/registry.ts). pg-boss 10 also fails, in the live worker,
 * a batch still running at its expiry (and runs it again): a queue's expiry must exceed the time its
 * batch takes — its handlers' own timeouts bound it — and its handlers must be idempotent.
 */

/** How often pg-boss's maintenance (expiring jobs of dead workers, archiving) runs; it was 60 s. */
export const MAINTENANCE_INTERVAL_SECONDS = 3;
/** PostgreSQL's `deadlock_detected`: queue setup tries again, up to QUEUE_SETUP_ATTEMPTS times in all. */
const DEADLOCK_DETECTED = '40P01';
const QUEUE_SETUP_ATTEMPTS = 8;
/** The promise for the queues a customer waits on: a dead worker's job runs again within this. */
export const DEAD_WORKER_RERUN_SECONDS = 30;

export interface QueuePolicy {
  /** Attempts after the first. */
  retryLimit: number;
  /** Seconds before the first retry; doubled each time when retryBackoff. */
  retryDelay: number;
  retryBackoff: boolean;
  /** A job running longer than this is considered lost (its worker died) and retried. */
  expireInSeconds: number;
  /**
   * pg-boss queue policy: 'standard' (default) or 'short' — at most one queued (not yet active) job
   * per singletonKey: sending another while one waits is a no-op; 'singleton' — at most one job of the
   * queue active at a time, across processes (the others wait their turn).
   */
  policy?: 'standard' | 'short' | 'singleton';
}

export const DEFAULT_POLICY: QueuePolicy = {
  retryLimit: 8,
  retryDelay: 5,
  retryBackoff: true,
  expireInSeconds: 15 * 60,
};

/**
 * The longest a job left active by a dead worker waits before a live worker runs it again: its
 * expiry, two maintenance intervals (pg-boss skips a run that comes a little early), the longest
 * first retry delay (pg-boss's back-off draws it between once and twice `retryDelay`) and a poll.
 */
export function rerunBoundSeconds(
  policy: QueuePolicy,
  intervals: { maintenanceIntervalSeconds?: number; pollingIntervalSeconds: number },
): number {
  const firstRetryDelay = policy.retryBackoff ? 2 * Math.max(1, policy.retryDelay) : policy.retryDelay;
  return (
    policy.expireInSeconds +
    2 * (intervals.maintenanceIntervalSeconds ?? MAINTENANCE_INTERVAL_SECONDS) +
    firstRetryDelay +
    intervals.pollingIntervalSeconds
  );
}

export interface JobOptions {
  /** Enqueue inside this transaction. */
  trx?: Executor;
  /** Do not run before. */
  startAfter?: Date;
  /** A key that a 'short' queue keeps unique among its queued jobs (ignored by 'standard' queues). */
  singletonKey?: string;
  /**
   * The job's id (default: drawn at random). Whatever the queue's policy, a second send with the id of
   * a job still in the queue's table (waiting, running, or done and not yet archived: 12 hours) adds
   * nothing and answers null — pg-boss inserts with ON CONFLICT DO NOTHING. `keyedJobId` makes one
   * from an event that may be reported twice.
   */
  id?: string;
}

/**
 * A job id derived from `key` (a UUID of version 5's layout, SHA-1 of a fixed namespace and the key):
 * the same key, the same id — a job enqueued for one event is enqueued once however often it is reported.
 */
export function keyedJobId(key: string): string {
  const h = createHash('sha1').update('parasol-job:').update(key).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export interface Job<T> {
  id: string;
  data: T;
}

/**
 * Every queue's payload, by queue name. Empty here (the platform knows no domain): src/jobs/registry.ts
 * fills it by declaration merging from its list of job definitions, so that `send('claims_notify', …)`
 * with an unknown name or a wrong payload fails type-checking.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface JobPayloads {}

/** The name of a queue of `M` (by default, a queue of the job registry). */
export type QueueName<M extends object = JobPayloads> = keyof M & string;

export interface JobQueueOptions {
  /** Seconds between polls for new jobs (pg-boss polls; 0.5 at least). */
  pollingIntervalSeconds?: number;
  /** Seconds between maintenance runs (expiry of lost jobs, archiving). */
  maintenanceIntervalSeconds?: number;
  /** Run cron schedules in this process. */
  schedules?: boolean;
  /** Run pg-boss maintenance (expiring lost jobs, archiving) in this process; off for one-shot commands. */
  supervise?: boolean;
  onError?: (error: Error) => void;
}

export const executorAdapter = (executor: Executor): PgBoss.Db => ({
  executeSql: async (text: string, values?: unknown[]) => {
    const result = await executor.executeQuery(CompiledQuery.raw(text, values ?? []));
    return { rows: result.rows as unknown[] };
  },
});

/**
 * Installs pg-boss's own schema (`pgboss`) on a new database, or upgrades it to what this version of
 * pg-boss needs, and nothing else: no queue is created, no cron schedule written, no worker polls,
 * no maintenance or monitoring runs. `parasol db migrate` does it after the platform's migrations:
 * a pg-boss upgrade brings its own schema migration, which, like ours, should run once in the
 * migration step rather than in whichever process starts first. pg-boss's contractor does the work
 * (it takes pg-boss's own advisory lock and handles concurrent installs), inside a pg-boss started
 * without supervision or schedules and stopped at once.
 */
export async function migrateJobSchema(db: Executor): Promise<void> {
  const boss = new PgBoss({
    db: executorAdapter(db),
    schema: 'pgboss',
    supervise: false,
    schedule: false,
    migrate: true,
  });
  let failure: Error | undefined;
  boss.on('error', (error: Error) => (failure ??= error));
  await boss.start();
  await boss.stop({ graceful: false, wait: true, close: false });
  if (failure) throw failure;
}

/**
 * `M` maps queue names to payloads: by default the registry's (src/jobs/registry.ts); a test of the
 * queue itself may name its own (`new JobQueue<Record<string, object>>(…)`).
 */
export class JobQueue<M extends object = JobPayloads> {
  private readonly boss: PgBoss;
  private started = false;
  /** Statements pg-boss has under way, so that stop() returns only once they are done. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;
  /** pg-boss worker ids per queue, for wake(). */
  private readonly workers = new Map<string, string[]>();
  /** Queues to announce after their jobs' commit, and the announcing under way (see `announce`). */
  private readonly toAnnounce = new Set<string>();
  private announcing: Promise<void> | undefined;
  private readonly onError: (error: Error) => void;

  constructor(
    private readonly db: Executor,
    options: JobQueueOptions = {},
  ) {
    const direct = executorAdapter(db);
    this.boss = new PgBoss({
      db: {
        executeSql: (text: string, values?: unknown[]) => {
          // After stop() has let pg-boss's routines finish, a late one is abandoned: its statement
          // never runs (nor settles), so it touches no database its owner is closing.
          if (this.stopped) return new Promise<never>(() => {});
          const query = direct.executeSql(text, values as unknown[]);
          this.inFlight.add(query);
          return query.finally(() => this.inFlight.delete(query));
        },
      },
      schema: 'pgboss',
      pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? MAINTENANCE_INTERVAL_SECONDS,
      schedule: options.schedules ?? true,
      supervise: options.supervise ?? true,
      migrate: true,
    });
    // stderr, outside the logger's scrubbing: the message only, scrubbed (a database error's detail
    // and parameters may quote a value)
    this.onError = options.onError ?? ((error) => console.error(`job queue error: ${scrubSecrets(error.message)}`));
    this.boss.on('error', this.onError);
  }

  async start(): Promise<this> {
    if (!this.started) {
      await this.boss.start();
      this.started = true;
    }
    return this;
  }

  /** Creates (or updates) a queue with its retry and expiry policy. Idempotent. */
  async queue(name: QueueName<M>, policy: Partial<QueuePolicy> = {}): Promise<void> {
    const options = { ...DEFAULT_POLICY, ...policy };
    const kind = options.policy ?? 'standard';
    // Creating a queue attaches a partition to pgboss.job: processes starting together on PostgreSQL
    // can deadlock there. The server then aborts one statement whole; that one tries again (by then
    // the queue may exist, and is updated instead).
    for (let attempt = 1; ; attempt++) {
      try {
        const existing = await this.boss.getQueue(name);
        if (existing) await this.boss.updateQueue(name, { name, ...options, policy: kind });
        else await this.boss.createQueue(name, { name, ...options, policy: kind });
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt >= QUEUE_SETUP_ATTEMPTS) throw error;
        await sleep(Math.random() * 50 * attempt);
      }
    }
  }

  async send<N extends QueueName<M>>(name: N, data: M[N], options: JobOptions = {}): Promise<string | null> {
    const id = await this.boss.send(name, data as object, {
      ...(options.trx ? { db: executorAdapter(options.trx) } : {}),
      ...(options.startAfter ? { startAfter: options.startAfter } : {}),
      ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
      ...(options.id ? { id: options.id } : {}),
    });
    if (id && !options.startAfter) await this.announce(name, options.trx);
    return id;
  }

  /**
   * Tells the workers listening (platform/notifications.ts JOBS_CHANNEL) that `name` has a job; a
   * worker then fetches at once instead of at its next poll (the poll remains the fallback).
   *
   * PostgreSQL serialises the commits of transactions that sent NOTIFY (a database-wide lock held
   * until the commit is flushed, so they lose group commit): a transaction opened by `transaction()`
   * therefore commits without it, and the queue is announced after the commit, on its own, without
   * the caller waiting. One announcement is under way at a time, for every queue named meanwhile
   * (coalesced: under load a burst of commits costs one NOTIFY, not one each); a queue named while
   * one is under way is announced again after it, so every commit is followed by an announcement.
   * A crash between the commit and the announcement loses only the wake-up: the workers' poll finds
   * the job. Any other transaction (or none) sends the NOTIFY itself, delivered at its commit.
   */
  private async announce(name: string, trx?: Executor): Promise<void> {
    if (trx && afterCommit(trx, () => this.announceNow(name))) return;
    await executorAdapter(trx ?? this.db).executeSql('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, name]);
  }

  private announceNow(name: string): void {
    if (this.stopped) return;
    this.toAnnounce.add(name);
    this.announcing ??= this.announcePending();
  }

  private async announcePending(): Promise<void> {
    while (this.toAnnounce.size > 0 && !this.stopped) {
      const names = [...this.toAnnounce];
      this.toAnnounce.clear();
      try {
        await executorAdapter(this.db).executeSql('SELECT pg_notify($1, name) FROM unnest($2::text[]) AS name', [
          JOBS_CHANNEL,
          names,
        ]);
      } catch (error) {
        this.onError(error as Error);
      }
    }
    this.announcing = undefined; // in the same step as the loop's last test: no name is left behind
  }

  /** Wakes this process's workers of `name` (a job was announced). */
  wake(name: string): void {
    for (const id of this.workers.get(name) ?? []) this.boss.notifyWorker(id);
  }

  /**
   * A worker that got jobs fetches again as soon as they are done instead of after its polling
   * interval: pg-boss waits out the interval after every batch (unless notified), which capped a
   * backlog at one batch per interval per worker (50 jobs per 2 s: a fan-out of 10,000 claims took
   * minutes). An empty fetch ends the run: the worker then waits for a notification or its poll.
   */
  private fetchAgain(id: string, fetched: number): void {
    if (fetched > 0 && id) this.boss.notifyWorker(id);
  }

  private track(name: string, id: string): string {
    this.workers.set(name, [...(this.workers.get(name) ?? []), id]);
    return id;
  }

  /**
   * Of these singleton keys, those of `name` with a job still alive: waiting, waiting for its next
   * retry, or running (pg-boss states `created`, `retry`, `active`). pg-boss 10 keeps no key unique
   * across those states (its 'short' policy only among the waiting, 'stately' one per state), so a
   * sweep that must not start a second chain of retries beside a live one asks here first.
   */
  async liveSingletonKeys<N extends QueueName<M>>(name: N, keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const { rows } = await sql<{ key: string }>`
      select distinct singleton_key as key from pgboss.job
      where name = ${name} and state in ('created', 'retry', 'active')
        and singleton_key in (${sql.join(keys.map((k) => sql`${k}`))})`.execute(this.db);
    return new Set(rows.map((r) => r.key));
  }

  /**
   * Enqueues many jobs in one statement (set-wise: thousands of claims, one insert). `singletonKey`
   * gives each job its key (on a 'short' queue, a job whose key already waits is not added). The
   * jobs' ids are drawn here (crypto.randomUUID) rather than by the database's gen_random_uuid(),
   * which on PGlite opens and reads /dev/urandom for each one: a third of the insert of 10,000 jobs.
   */
  async sendMany<N extends QueueName<M>>(
    name: N,
    data: M[N][],
    options: { trx?: Executor; singletonKey?: (data: M[N]) => string } = {},
  ): Promise<void> {
    if (data.length === 0) return;
    const key = options.singletonKey;
    await this.boss.insert(
      data.map((d) => ({ id: randomUUID(), name, data: d as object, ...(key ? { singletonKey: key(d) } : {}) })),
      options.trx ? { db: executorAdapter(options.trx) } : {},
    );
    await this.announce(name, options.trx);
  }

  /**
   * Runs `handler` for each job of the queue, one at a time per worker. A handler that throws fails
   * the attempt; pg-boss retries it per the queue's policy.
   */
  async work<N extends QueueName<M>>(
    name: N,
    handler: (job: Job<M[N]>) => Promise<void>,
    options: { pollingIntervalSeconds?: number } = {},
  ): Promise<string> {
    let id = '';
    id = await this.boss.work<M[N]>(name, { batchSize: 1, ...options }, async (jobs) => {
      for (const job of jobs) await handler({ id: job.id, data: job.data });
      this.fetchAgain(id, jobs.length);
    });
    return this.track(name, id);
  }

  /**
   * Like work(), for I/O-bound handlers (webhook deliveries): fetches up to `batchSize` jobs per poll
   * and runs them concurrently. Each job settles on its own: one that throws is failed at once (and
   * retried per the queue's policy); pg-boss then completes the batch, which leaves it untouched.
   */
  async workConcurrently<N extends QueueName<M>>(
    name: N,
    handler: (job: Job<M[N]>) => Promise<void>,
    options: { batchSize: number; pollingIntervalSeconds?: number },
  ): Promise<string> {
    let id = '';
    id = await this.boss.work<M[N]>(name, options, async (jobs) => {
      this.fetchAgain(id, jobs.length);
      await Promise.all(
        jobs.map(async (job) => {
          try {
            await handler({ id: job.id, data: job.data });
          } catch (error) {
            await this.boss.fail(name, job.id, { message: error instanceof Error ? error.message : String(error) });
          }
        }),
      );
    });
    return this.track(name, id);
  }

  /** Stops polling a queue in this process (jobs already taken are left as they are). */
  async forget(name: QueueName<M>): Promise<void> {
    await this.boss.offWork(name);
    this.workers.delete(name);
  }

  async schedule(name: QueueName<M>, cron: string, data: object = {}): Promise<void> {
    await this.boss.schedule(name, cron, data, { tz: 'UTC' });
  }

  /** Removes the queue's cron schedule, if any (pg-boss keeps schedules in the database across restarts). */
  async unschedule(name: QueueName<M>): Promise<void> {
    await this.boss.unschedule(name);
  }

  /** The queues with a cron schedule stored, and their cron (for tests and operators). */
  async schedules(): Promise<Map<string, string>> {
    const rows = await this.boss.getSchedules();
    return new Map(rows.map((r) => [r.name, r.cron]));
  }

  /** The state of one job (for tests and operators). */
  async job(name: QueueName<M>, id: string): Promise<{ state: string; retryCount: number; output: unknown } | null> {
    const job = await this.boss.getJobById(name, id, { includeArchive: true });
    return job ? { state: job.state, retryCount: job.retryCount, output: job.output } : null;
  }

  /** Stops fetching; waits up to `timeoutMs` for running jobs (unfinished ones are retried later). */
  async stop(options: { graceful?: boolean; timeoutMs?: number } = {}): Promise<void> {
    await this.announcing;
    if (!this.started) return;
    this.started = false;
    await this.boss.stop({
      graceful: options.graceful ?? true,
      wait: true,
      close: false,
      timeout: options.timeoutMs ?? 10_000,
    });
    // pg-boss's supervision routines (maintenance, state monitoring) run a few statements in a row
    // and are not awaited by its stop(): wait until no statement has been under way for a moment.
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      await Promise.allSettled([...this.inFlight]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (this.inFlight.size === 0) break;
    }
    this.stopped = true;
  }
}
