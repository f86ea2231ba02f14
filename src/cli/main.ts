import type { DatabaseHandle, Db } from '../platform/db.ts';
import type { CliIo } from './program.ts';
import { isRiskCommand } from './risk-commands.ts';

/**
 * `npm run parasol -- …` and `bin/parasol.js`: loads the configuration, opens the database (the
 * embedded PGlite under PARASOL_DATA_DIR, or DATABASE_URL), applies pending migrations, runs one
 * command and closes the database (`help` and `risk …` open none). Exit codes: those of runCli (0, 1, 2, 70), 78 bad configuration,
 * 75 embedded database held by another process (a running server), 69 database unreachable.
 *
 * Modules are imported when needed: help loads the command definitions only, never the database
 * drivers, the job queue or the job handlers (`--help` stays well under a second from dist/).
 */
async function main(argv: string[]): Promise<number> {
  const { isHelpRequest, runCli } = await import('./program.ts');
  const io: Omit<CliIo, 'db'> = {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    actor: `operator:${process.env.USER ?? 'cli'}`,
  };

  // Help needs no database: it works while a server holds the embedded one.
  if (isHelpRequest(argv)) return runCli(argv, { ...io, db: unopenedDatabase() });
  // The risk model commands read and write files only: no configuration, no database.
  if (isRiskCommand(argv)) return runCli(argv, { ...io, db: unopenedDatabase() });

  const { ConfigError, loadConfig } = await import('../platform/config.ts');
  const { DatabaseLockedError, openDatabase } = await import('../platform/db.ts');
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 78; // EX_CONFIG
    }
    throw error;
  }

  let handle: DatabaseHandle;
  let applied: string[];
  try {
    handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (error) {
    if (error instanceof DatabaseLockedError) {
      console.error(error.message);
      return 75; // EX_TEMPFAIL
    }
    console.error(`error: cannot open the database: ${(error as Error).message}`);
    return 69; // EX_UNAVAILABLE
  }
  try {
    try {
      applied = await handle.migrate();
    } catch (error) {
      console.error(`error: cannot migrate the database: ${(error as Error).message}`);
      return 69;
    }
    // Jobs the command enqueues (in its transactions) are run by the server's or a worker's queue.
    const [{ JobQueue }, { registerQueues }, { deriveKeyring, loadMasterKey }] = await Promise.all([import('../platform/jobs.ts'), import('../worker.ts'), import('../platform/crypto.ts')]);
    const jobs = new JobQueue(handle.db, { schedules: false, supervise: false, onError: (error) => console.error(`job queue: ${error.message}`) });
    await jobs.start();
    await registerQueues(jobs);
    const keys = deriveKeyring(loadMasterKey(config.masterKey, config.dataDir));
    try {
      return await runCli(argv, { ...io, db: handle.db, applied, config, keys, jobs });
    } finally {
      await jobs.stop({ graceful: false, timeoutMs: 1_000 });
    }
  } finally {
    await handle.close();
  }
}

/** Stands in for the database when only help is printed; any use is a bug. */
function unopenedDatabase(): Db {
  return new Proxy({} as Db, {
    get() {
      throw new Error('The database is not open (help only).');
    },
  });
}

process.exitCode = await main(process.argv.slice(2));
