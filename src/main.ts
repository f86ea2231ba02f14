import { buildApp } from './app.ts';
import { loadConfigOrExit } from './platform/config.ts';
import { DatabaseLockedError } from './platform/db.ts';
import { FLIGHT_PREFIX } from './flight/routes.ts';
import { DEMO_PREFIX } from './home/routes.ts';
import { POLICY_ADMIN_PREFIX } from './policies/routes.ts';

/** `npm start`: the API (and, on the embedded default, the workers) in one process. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();

  let app;
  let seeded = false;
  try {
    app = await buildApp(config, {
      onSeed: (seed) => {
        seeded = true;
        console.log(`Seeded the demo partner "Demo Air" (${seed.partnerId}).`);
        if (seed.generatedApiKey) {
          console.log(`Its sandbox API key, shown once: ${seed.generatedApiKey}`);
          console.log('(set PARASOL_DEMO_API_KEY to choose it yourself on a fresh data directory)');
        }
        if (seed.userEmail) console.log(`Portal user: ${seed.userEmail}`);
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
    const ignored = [config.demo.apiKey && 'PARASOL_DEMO_API_KEY', config.demo.email && 'PARASOL_DEMO_EMAIL', config.demo.password && 'PARASOL_DEMO_PASSWORD'].filter(Boolean);
    if (ignored.length > 0) {
      console.warn(
        `Note: ${ignored.join(', ')} ${ignored.length > 1 ? 'are' : 'is'} ignored: the demo partner is seeded only on the first start, into an empty database, ` +
          'and this one already has partners. Add keys and portal users with the CLI (npm run parasol -- --help) or the operator console, or start on a fresh PARASOL_DATA_DIR.',
      );
    }
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
    // Keep-alive connections would hold the server open until their clients leave: close the idle
    // ones now, and each busy one as soon as its request in flight is answered (Fastify answers
    // requests arriving meanwhile with 503 and Connection: close).
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

  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const database = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  app.log.info(`Parasol listening on ${base} (${database})`);
  console.log(startupBanner(base, config.publicUrl, database));
}

/** What `npm start` prints once listening: where everything is. */
function startupBanner(base: string, publicUrl: string, database: string): string {
  const lines = [
    `Parasol listening on ${base} (${database})`,
    ...(publicUrl !== base ? [`  public URL (links in SMS and e-mails): ${publicUrl}`] : []),
    `  developer portal:     ${base}/portal  (API catalog, getting started, keys)`,
    `  partner console:      ${base}/console`,
    `  operator console:     ${base}/admin`,
    `  API references:       ${base}/portal/apis/flight-delay/reference, ${base}/portal/apis/demo/reference, ${base}/portal/apis/policy-admin/reference`,
    `  OpenAPI documents:    ${base}${FLIGHT_PREFIX}/openapi.json, ${base}${DEMO_PREFIX}/openapi.json, ${base}${POLICY_ADMIN_PREFIX}/openapi.json`,
    `  health:               ${base}/healthz, ${base}/readyz`,
  ];
  return lines.join('\n');
}

await main();
