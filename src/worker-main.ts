import pino from 'pino';
import { loadConfigOrExit } from './platform/config.ts';
import { hostPort, listenFailure } from './platform/listen-errors.ts';
import { createLogger } from './platform/logging.ts';
import { startMetricsServer } from './platform/metrics.ts';
import { openRuntime } from './runtime.ts';
import { startWorkers } from './worker.ts';
import { Notifications, wakeOnJobs } from './platform/notifications.ts';

/**
 * `npm run worker`: a process that only runs jobs, for deployments on PostgreSQL where API and
 * workers scale apart (run the API with PARASOL_WORKERS=off). With the embedded database the API
 * process runs the workers itself: PGlite is single-process.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (!config.databaseUrl) {
    // a configuration error: one JSON line on stderr, whatever LOG_LEVEL says
    pino({ name: 'worker' }, pino.destination(2)).fatal(
      'the worker needs DATABASE_URL (PostgreSQL). With the embedded database, npm start runs the workers in the API process.',
    );
    process.exit(78);
  }
  const log = createLogger(config, { name: 'worker' });
  const runtime = await openRuntime(config, {
    jobOptions: { onError: (err) => log.error({ err }, 'job queue error') },
  });
  const { db, keys, jobs } = runtime;
  // the metrics port first: a port taken stops the worker before it takes any job
  if (config.metricsPort !== undefined) {
    let metrics;
    try {
      metrics = await startMetricsServer({
        port: config.metricsPort,
        host: config.host,
        onError: (err) => log.error({ err }, 'metrics'),
      });
    } catch (error) {
      // the port taken (or refused): one line naming it and the variable, no stack trace (as npm start)
      const failure = listenFailure(error, {
        name: 'the metrics endpoint',
        address: hostPort(config.host, config.metricsPort),
        variable: 'PARASOL_METRICS_PORT',
      });
      if (failure === undefined) throw error;
      console.error(`error: ${failure.message}`);
      const timer = setTimeout(() => process.exit(failure.exitCode), 5_000).unref();
      try {
        await runtime.close({ graceful: false, timeoutMs: 5_000 });
      } finally {
        clearTimeout(timer);
        process.exit(failure.exitCode); // 75 EX_TEMPFAIL (in use), 78 EX_CONFIG (refused)
      }
    }
    log.info({ port: metrics.port }, 'metrics listening (GET /metrics, no authentication)');
  }
  await startWorkers(jobs, { db, keys, config, now: () => new Date(), log });
  // a job enqueued anywhere wakes this worker at once (LISTEN/NOTIFY); the poll remains the fallback
  const feed = await Notifications.open(runtime.database, {
    onError: (err) => log.warn({ err }, 'job notifications: connection lost, reconnecting'),
  });
  wakeOnJobs(feed, jobs);
  log.info('worker started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: finishing jobs in progress');
    await feed.close();
    await runtime.close({ graceful: true, timeoutMs: 20_000 });
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

await main();
