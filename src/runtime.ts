import type { Config } from './platform/config.ts';
import { openKeyring, type Keyring } from './platform/crypto.ts';
import { DatabaseLockedError, openDatabase, type DatabaseHandle, type Db } from './platform/db.ts';
import { JobQueue, migrateJobSchema, type JobQueueOptions } from './platform/jobs.ts';
import { registerQueues } from './worker.ts';

/**
 * The one runtime bootstrap of the API (app.ts), the worker (worker-main.ts) and the CLI (cli/main.ts):
 * open the database → apply pending migrations → derive the keyring → (the caller's `prepare`) →
 * start the job queue → register every queue of the job registry. If a step throws, what the earlier
 * steps opened is closed again before the error reaches the caller.
 */

export interface Runtime {
  readonly database: DatabaseHandle;
  readonly db: Db;
  readonly keys: Keyring;
  /** Started, with every queue of the registry registered. */
  readonly jobs: JobQueue;
  /** The migrations applied by this bootstrap (`parasol db migrate` reports them). */
  readonly applied: readonly string[];
  /** Stops the job queue and closes the database (unless the caller gave it open). */
  close(options?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
}

export interface RuntimeOptions {
  /** An already open database (tests): migrated here, never closed by the runtime. */
  database?: DatabaseHandle;
  /** A job queue set up by the caller (tests tune its polling); otherwise one built with `jobOptions`. */
  jobs?: JobQueue;
  jobOptions?: JobQueueOptions;
  /** Runs once the keyring exists, before the job queue starts (the API seals old rows and seeds the demo). */
  prepare?: (db: Db, keys: Keyring) => Promise<void>;
}

/** A step of the bootstrap that failed: `open` (the database cannot be reached) or `migrate`. */
export class BootstrapError extends Error {
  constructor(
    readonly step: 'open' | 'migrate',
    override readonly cause: unknown,
  ) {
    super(
      `cannot ${step === 'open' ? 'open' : 'migrate'} the database: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = 'BootstrapError';
  }
}

/** What `parasol db migrate` opens: the database, migrated; no keyring, no job queue. */
export interface MigratedDatabase {
  readonly db: Db;
  /** The migrations applied now. */
  readonly applied: readonly string[];
  /** Closes the database (unless the caller gave it open). */
  close(): Promise<void>;
}

/**
 * The bootstrap of `parasol db migrate`, and only of it: open the database → apply pending migrations
 * → install or upgrade pg-boss's own schema (platform/jobs.ts `migrateJobSchema`). Nothing else of the
 * runtime: no keyring (the embedded default's key file is not created by a migration), no job queue
 * started, no queue or cron schedule written, no worker, no maintenance — those belong to the
 * processes that run jobs. Throws like openRuntime, having closed what it opened.
 */
export async function migrateDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  options: Pick<RuntimeOptions, 'database'> = {},
): Promise<MigratedDatabase> {
  let database: DatabaseHandle;
  try {
    database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  } catch (error) {
    throw error instanceof DatabaseLockedError ? error : new BootstrapError('open', error);
  }
  const close = async () => {
    if (!options.database) await database.close();
  };
  try {
    const applied = await database.migrate();
    await migrateJobSchema(database.db);
    return { db: database.db, applied, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw new BootstrapError('migrate', error);
  }
}

/**
 * Opens the runtime. Throws DatabaseLockedError (the embedded database is held by another process),
 * BootstrapError (open or migrate failed), or the error of a later step, having closed what it opened.
 */
export async function openRuntime(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'masterKey' | 'jobPollSeconds'>,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  let database: DatabaseHandle;
  try {
    database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  } catch (error) {
    throw error instanceof DatabaseLockedError ? error : new BootstrapError('open', error);
  }
  const ownsDatabase = !options.database;
  const jobs =
    options.jobs ?? new JobQueue(database.db, { pollingIntervalSeconds: config.jobPollSeconds, ...options.jobOptions });
  const close = async (closing: { graceful?: boolean; timeoutMs?: number } = {}): Promise<void> => {
    try {
      await jobs.stop(closing);
    } finally {
      if (ownsDatabase) await database.close();
    }
  };
  try {
    let applied: string[];
    try {
      applied = await database.migrate();
    } catch (error) {
      throw new BootstrapError('migrate', error);
    }
    const keys = openKeyring(config);
    await options.prepare?.(database.db, keys);
    await jobs.start();
    await registerQueues(jobs);
    return { database, db: database.db, keys, jobs, applied, close };
  } catch (error) {
    await close({ graceful: false, timeoutMs: 1_000 }).catch(() => undefined);
    throw error;
  }
}
