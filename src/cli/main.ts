import os from 'node:os';
import type { Db } from '../platform/db.ts';
import { operatorActor, type CliIo } from './kit.ts';
import { isRiskCommand } from './risk-commands.ts';

/**
 * `npm run parasol -- …` and `bin/parasol.js`: loads the configuration, opens the database (the
 * embedded PGlite under PARASOL_DATA_DIR, or DATABASE_URL), applies pending migrations, runs one
 * command and closes the database (`help` and `risk …` open none). Exit codes: those of runCli (0, 1, 2, 70), 78 bad configuration,
 * 75 embedded database held by another process that runs no operator socket (or `db migrate` while a server
 * runs; or the operator connection lost before the command was sent), 77 operator secret refused or
 * unreadable, 69 database unreachable, 70 also for an error outside runCli (one `error:` line) and an
 * operator connection lost after the command was sent. While a server holds the embedded database, the
 * command runs in the server (cli/remote.ts, platform/operator-socket.ts).
 *
 * Modules are imported when needed: help loads the command definitions only, never the database
 * drivers, the job queue or the job handlers (`--help` stays well under a second from dist/).
 */
async function main(argv: string[]): Promise<number> {
  // `parasol partners list | head`: a reader that stops early is not an error of the command
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const { isHelpRequest, runCli } = await import('./program.ts');
  const io: Omit<CliIo, 'db'> = {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    actor: operatorActor(process.env, () => os.userInfo().username),
  };

  // Help needs no database: it works while a server holds the embedded one.
  if (isHelpRequest(argv)) return runCli(argv, { ...io, db: unopenedDatabase() });
  // The risk model commands read and write files only: no configuration, no database.
  if (isRiskCommand(argv)) return runCli(argv, { ...io, db: unopenedDatabase() });

  const { ConfigError, loadConfig } = await import('../platform/config.ts');
  const [{ DatabaseLockedError }, { BootstrapError, migrateDatabase, openRuntime }] = await Promise.all([
    import('../platform/db.ts'),
    import('../runtime.ts'),
  ]);
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

  // Where a command gets its database and context: the runtime bootstrap (open, migrate, keys, job
  // queue). Jobs the command enqueues (in its transactions) are run by the server's or a worker's queue.
  // `db migrate` only migrates (the platform's schema and pg-boss's): no keyring, no job queue.
  let runtime;
  try {
    runtime = isMigrateCommand(argv)
      ? await migrateDatabase(config)
      : await openRuntime(config, {
          jobOptions: {
            schedules: false,
            supervise: false,
            onError: (error) => console.error(`job queue: ${error.message}`),
          },
        });
  } catch (error) {
    if (error instanceof DatabaseLockedError) {
      // a running server holds the embedded database: it runs the command for us (cli/remote.ts)
      const { runRemote } = await import('./remote.ts');
      const code = await runRemote(config.dataDir, argv, io.actor!, io);
      if (code !== undefined) return code;
      console.error(error.message);
      return 75; // EX_TEMPFAIL
    }
    if (error instanceof BootstrapError) {
      console.error(`error: ${error.message}`);
      return 69; // EX_UNAVAILABLE
    }
    throw error;
  }
  try {
    if (!('jobs' in runtime)) return await runCli(argv, { ...io, db: runtime.db, applied: runtime.applied, config });
    const { db, applied, keys, jobs } = runtime;
    return await runCli(argv, { ...io, db, applied, config, keys, jobs });
  } finally {
    await ('jobs' in runtime ? runtime.close({ graceful: false, timeoutMs: 1_000 }) : runtime.close());
  }
}

/** `parasol db migrate` (any flags): the one command that opens the database only to migrate it. */
function isMigrateCommand(argv: readonly string[]): boolean {
  const words = argv.filter((a) => !a.startsWith('-'));
  return words.length === 2 && words[0] === 'db' && words[1] === 'migrate';
}

/** Stands in for the database when only help is printed; any use is a bug. */
function unopenedDatabase(): Db {
  return new Proxy({} as Db, {
    get() {
      throw new Error('The database is not open (help only).');
    },
  });
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  // an error outside a command (opening the runtime, the operator connection, closing): one line, no
  // stack trace, and the exit code of an unexpected error (runCli says its own)
  console.error(`error: unexpected: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 70; // EX_SOFTWARE
}
