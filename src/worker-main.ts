import pino from 'pino';
import { ConfigError, loadConfig } from './platform/config.ts';
import { openDatabase } from './platform/db.ts';
import { registerHousekeeping } from './platform/housekeeping.ts';
import { JobQueue } from './platform/jobs.ts';
import { startWorkers } from './worker.ts';

/**
 * `npm run worker`: a process that only runs jobs, for deployments on PostgreSQL where API and
 * workers scale apart (run the API with PARASOL_WORKERS=off). With the embedded database the API
 * process runs the workers itself: PGlite is single-process.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
  if (!config.databaseUrl) {
    console.error('npm run worker needs DATABASE_URL (PostgreSQL). With the embedded database, npm start runs the workers in the API process.');
    process.exit(78);
  }
  const log = pino({ level: config.logLevel, name: 'worker' });
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  await database.migrate();
  const jobs = new JobQueue(database.db, { onError: (err) => log.error({ err }, 'job queue error') });
  await jobs.start();
  await registerHousekeeping(jobs);
  await startWorkers(jobs, database.db, log);
  log.info('worker started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: finishing jobs in progress');
    await jobs.stop({ graceful: true, timeoutMs: 20_000 });
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

await main();
