import pino from 'pino';
import { loadConfigOrExit } from './platform/config.ts';
import { createLogger } from './platform/logging.ts';
import { openDatabase } from './platform/db.ts';
import { deriveKeyring, loadMasterKey } from './platform/crypto.ts';
import { JobQueue } from './platform/jobs.ts';
import { startMetricsServer } from './platform/metrics.ts';
import { registerQueues, startWorkers } from './worker.ts';

/**
 * `npm run worker`: a process that only runs jobs, for deployments on PostgreSQL where API and
 * workers scale apart (run the API with PARASOL_WORKERS=off). With the embedded database the API
 * process runs the workers itself: PGlite is single-process.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (!config.databaseUrl) {
    // a configuration error: one JSON line on stderr, whatever LOG_LEVEL says
    pino({ name: 'worker' }, pino.destination(2)).fatal('the worker needs DATABASE_URL (PostgreSQL). With the embedded database, npm start runs the workers in the API process.');
    process.exit(78);
  }
  const log = createLogger(config, { name: 'worker' });
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  await database.migrate();
  const jobs = new JobQueue(database.db, { pollingIntervalSeconds: config.jobPollSeconds, onError: (err) => log.error({ err }, 'job queue error') });
  await jobs.start();
  await registerQueues(jobs);
  const keys = deriveKeyring(loadMasterKey(config.masterKey, config.dataDir));
  await startWorkers(jobs, { db: database.db, keys, config, now: () => new Date(), log });
  if (config.metricsPort !== undefined) {
    const metrics = await startMetricsServer({ port: config.metricsPort, host: config.host, onError: (err) => log.error({ err }, 'metrics') });
    log.info({ port: metrics.port }, 'metrics listening (GET /metrics, no authentication)');
  }
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
