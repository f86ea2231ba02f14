import pino from 'pino';
import { buildApp } from './app.ts';
import { createLogger } from './platform/logging.ts';
import { startMetricsServer } from './platform/metrics.ts';
import { loadConfigOrExit } from './platform/config.ts';
import { DatabaseLockedError } from './platform/db.ts';
import { hostPort, listenFailure, socketAddressText } from './platform/listen-errors.ts';
import { operatorSocketAddress } from './platform/operator-socket.ts';
import { startOperatorCommands } from './cli/operator-commands.ts';
import { FLIGHT_PREFIX } from './flight/index.ts';
import { DEMO_PREFIX } from './home/index.ts';
import { POLICY_ADMIN_PREFIX } from './policies/index.ts';
import { warmPostalCodes } from './reference/index.ts';

/** `npm start`: the API (and, on the embedded default, the workers) in one process. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();

  let app;
  let seeded = false;
  try {
    app = await buildApp(config, {
      // JSON like every other line (the app's logger does not exist yet when the seed runs), scrubbed
      // like every other line: the portal user's email is personal data, never logged (PARASOL_DEMO_EMAIL
      // names it). The generated key is the one secret written on purpose, shown once (README).
      onSeed: (seed) => {
        seeded = true;
        createLogger(config).info(
          { partnerId: seed.partnerId, portalUser: seed.userEmail ? 'PARASOL_DEMO_EMAIL' : null },
          'seeded the demo partner "Demo Air"',
        );
        if (seed.generatedApiKey)
          pino({ level: config.logLevel }).info(
            { sandboxApiKey: seed.generatedApiKey },
            "the demo partner's sandbox API key, shown once (set PARASOL_DEMO_API_KEY to choose it yourself on a fresh data directory)",
          );
      },
    });
  } catch (error) {
    if (error instanceof DatabaseLockedError) {
      console.error(error.message);
      process.exit(75); // EX_TEMPFAIL
    }
    throw error;
  }

  if (!seeded) {
    const ignored = [
      config.demo.apiKey && 'PARASOL_DEMO_API_KEY',
      config.demo.email && 'PARASOL_DEMO_EMAIL',
      config.demo.password && 'PARASOL_DEMO_PASSWORD',
    ].filter(Boolean);
    if (ignored.length > 0) {
      app.log.warn(
        { ignored },
        `${ignored.join(', ')} ${ignored.length > 1 ? 'are' : 'is'} ignored: the demo partner is seeded only on the first start, into an empty database, ` +
          'and this one already has partners. Add keys and portal users with the CLI (npm run parasol -- --help) or the operator console, or start on a fresh PARASOL_DATA_DIR.',
      );
    }
  }

  /**
   * Where the configuration says to listen is taken (or refused): one line naming the address and the
   * variable to change, no stack trace; the database closed, exit 75 (EX_TEMPFAIL, as when another
   * process holds the embedded database) for an address in use, 78 (EX_CONFIG, as a configuration
   * refused at start) for one refused or not this machine's. Any other error is thrown as it is.
   */
  const listening = async <T>(start: () => Promise<T>, what: Parameters<typeof listenFailure>[1]): Promise<T> => {
    try {
      return await start();
    } catch (error) {
      const failure = listenFailure(error, what);
      if (failure === undefined) throw error;
      console.error(`error: ${failure.message}`);
      const timer = setTimeout(() => process.exit(failure.exitCode), 5_000).unref();
      try {
        await app.close();
      } finally {
        clearTimeout(timer);
        process.exit(failure.exitCode); // 75 EX_TEMPFAIL (in use), 78 EX_CONFIG (refused)
      }
    }
  };

  // embedded database: the CLI sends its commands here while the server holds it (cli/operator-commands.ts)
  const closeOperatorSocket = config.databaseUrl
    ? undefined
    : await listening(() => startOperatorCommands(app), {
        name: 'the operator socket',
        address: socketAddressText(operatorSocketAddress(config.dataDir)),
        variable: 'PARASOL_DATA_DIR',
      });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    void closeOperatorSocket?.();
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    const timer = setTimeout(() => {
      app.log.error('shutdown took more than 10 s; exiting');
      process.exit(1);
    }, 10_000).unref();
    // Keep-alive connections would hold the server open until their clients leave: close the idle
    // ones now, and each busy one as soon as its request in flight is answered (requests arriving
    // meanwhile are answered 503 service_unavailable with Connection: close: platform/problem.ts).
    const closed = app.close();
    const reaper = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    app.server.closeIdleConnections();
    try {
      await closed;
      clearInterval(reaper);
      clearTimeout(timer);
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await listening(() => app.listen({ port: config.port, host: config.host }), {
    name: 'the API',
    address: hostPort(config.host, config.port),
    variable: 'PORT',
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  if (config.metricsPort !== undefined) {
    // ends with the process (shutdown exits once the app is closed)
    const metricsPort = config.metricsPort;
    const metrics = await listening(
      () => startMetricsServer({ port: metricsPort, host: config.host, gauges: app.parasol.metrics }),
      { name: 'the metrics endpoint', address: hostPort(config.host, metricsPort), variable: 'PARASOL_METRICS_PORT' },
    );
    app.log.info({ port: metrics.port }, 'metrics listening (GET /metrics, no authentication)');
  }
  const database = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  // One JSON line like every other, saying where everything is (the portal links each API's reference).
  app.log.info(
    {
      url: base,
      database,
      ...(config.publicUrl !== base ? { publicUrl: config.publicUrl } : {}),
      portal: `${base}/portal`,
      partnerConsole: `${base}/console`,
      operatorConsole: `${base}/admin`,
      apiReferences: ['flight-delay', 'demo', 'policy-admin'].map((api) => `${base}/portal/apis/${api}/reference`),
      openapi: [FLIGHT_PREFIX, DEMO_PREFIX, POLICY_ADMIN_PREFIX].map((prefix) => `${base}${prefix}/openapi.json`),
      health: [`${base}/healthz`, `${base}/readyz`],
    },
    `Parasol listening on ${base} (${database}): developer portal ${base}/portal, partner console ${base}/console, operator console ${base}/admin, API references under ${base}/portal/apis`,
  );
  // La Poste's postal codes, indexed now that the server is up rather than on a partner's first quote
  setImmediate(() => {
    try {
      warmPostalCodes();
    } catch (err) {
      // not fatal: the first request that needs them loads them (and answers its own error if it fails)
      app.log.error({ err }, 'could not index the postal codes at start');
    }
  });
}

await main();
