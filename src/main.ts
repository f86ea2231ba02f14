import pino from 'pino';
import { buildApp } from './app.ts';
import { startMetricsServer } from './platform/metrics.ts';
import { loadConfigOrExit } from './platform/config.ts';
import { DatabaseLockedError } from './platform/db.ts';

/** `npm start`: the API (and, on the embedded default, the workers) in one process. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();

  let app;
  try {
    app = await buildApp(config, {
      // JSON like every other line (the app's logger does not exist yet when the seed runs)
      onSeed: (seed) => {
        const log = pino({ level: config.logLevel });
        log.info({ partnerId: seed.partnerId, portalUser: seed.userEmail }, 'seeded the demo partner "Demo Air"');
        if (seed.generatedApiKey) log.info({ sandboxApiKey: seed.generatedApiKey }, 'the demo partner\'s sandbox API key, shown once (set PARASOL_DEMO_API_KEY to choose it yourself on a fresh data directory)');
      },
    });
  } catch (error) {
    if (error instanceof DatabaseLockedError) {
      console.error(error.message);
      process.exit(75); // EX_TEMPFAIL
    }
    throw error;
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    const timer = setTimeout(() => {
      app.log.error('shutdown took more than 10 s; exiting');
      process.exit(1);
    }, 10_000).unref();
    try {
      await app.close();
      clearTimeout(timer);
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  if (config.metricsPort !== undefined) {
    // ends with the process (shutdown exits once the app is closed)
    const metrics = await startMetricsServer({ port: config.metricsPort, host: config.host, gauges: app.parasol.metrics });
    app.log.info({ port: metrics.port }, 'metrics listening (GET /metrics, no authentication)');
  }
  const database = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  app.log.info(`Parasol listening on http://${config.host}:${config.port} (${database})`);
}

await main();
