import fs from 'node:fs';
import Fastify from 'fastify';

/**
 * The baseline of `npm run bench`: a plain Fastify 5 app, in its own process, with one POST route
 * that answers a fixed JSON body (a real /getPrice response captured by bench/run.ts, so the body
 * has the same size). Same logger setting as Parasol under the bench (level warn). Nothing else:
 * no authentication, validation, rate limit or use case; Fastify still parses the JSON request and
 * serialises the response (JSON.stringify) on every request.
 *
 * Env: PORT, HOST (default 127.0.0.1), BENCH_BARE_BODY_FILE (the JSON body to answer),
 * BENCH_BARE_PATH (default /flight-delay/v1/getPrice).
 */
const bodyFile = process.env.BENCH_BARE_BODY_FILE;
if (!bodyFile) {
  console.error('BENCH_BARE_BODY_FILE must name a file holding the JSON body to answer');
  process.exit(78);
}
const body: unknown = JSON.parse(fs.readFileSync(bodyFile, 'utf8'));
const routePath = process.env.BENCH_BARE_PATH ?? '/flight-delay/v1/getPrice';

const app = Fastify({ logger: { level: 'warn' } });
app.post(routePath, async () => body);
// Readiness probe for the bench driver only (never measured).
app.get('/readyz', async () => ({ status: 'ready' }));

const shutdown = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

await app.listen({ port: Number(process.env.PORT ?? 3001), host: process.env.HOST ?? '127.0.0.1' });
