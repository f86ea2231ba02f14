import crypto from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { FLIGHT_PREFIX, flightDelayRoutes } from './flight/routes.ts';
import { DEMO_PREFIX, demoRoutes } from './home/routes.ts';
import { POLICY_ADMIN_PREFIX, policyAdminRoutes } from './policies/routes.ts';
import { QuoteCounter } from './flight/quote-counter.ts';
import { singleModelSource, type RiskModel, type RiskModelSource } from './flight/risk-model.ts';
import { seedDemo, type SeedResult } from './partners/seed.ts';
import { PartnerDirectory } from './platform/auth.ts';
import type { Config } from './platform/config.ts';
import { deriveKeyring, loadMasterKey, type Keyring } from './platform/crypto.ts';
import { openDatabase, type DatabaseHandle, type Db } from './platform/db.ts';
import { sealPersonalData } from './platform/seal-personal-data.ts';
import { JobQueue } from './platform/jobs.ts';
import { registerQueues, startWorkers } from './worker.ts';
import { registerApiDocument } from './platform/openapi.ts';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './platform/problem.ts';
import { installTextGuard } from './platform/text-guard.ts';
import { customerRoutes } from './web/customer-routes.ts';
import { webRoutes } from './web/web-routes.ts';
import { FailedAuthLimiter, RateLimiter } from './platform/rate-limit.ts';
import { loggerOptions } from './platform/logging.ts';
import { authenticateOperator } from './platform/operator-tokens.ts';
import { DatabaseGauges, installMetrics, trackPricingModels } from './platform/metrics.ts';
import { ENVIRONMENTS } from './partners/model.ts';
import { openRiskModels } from './risk/index.ts';
import { RequestLogController } from './platform/request-log.ts';
import { LimitsSnapshot } from './limits/snapshot.ts';

export interface BuildOptions {
  /** An already open database (tests); otherwise opened from the config. */
  database?: DatabaseHandle;
  /** The clock of the use cases (tests move it). */
  now?: () => Date;
  /** How long API keys and partner terms stay cached, in ms (default 5000; 0 disables). */
  cacheTtlMs?: number;
  /** Called once with what the demo seed created, e.g. to print a generated key. */
  onSeed?: (result: SeedResult) => void;
  /** One model pricing every environment (tests); ignored when `riskModels` is given. */
  riskModel?: RiskModel;
  /** Where pricing finds its models (default: the versions stored and activated in the database). */
  riskModels?: RiskModelSource;
  /** A job queue set up by the caller (tests tune its polling). */
  jobs?: JobQueue;
  /** Where log lines go, after scrubbing (default stdout; tests capture them). */
  logStream?: DestinationStream;
}

/** What the app holds, for the CLI, workers and tests: never reach for globals. */
export interface Parasol {
  readonly config: Config;
  /** Every route registered, as `METHOD url` (for the OpenAPI completeness check and operators). */
  readonly routes: readonly string[];
  readonly db: Db;
  readonly database: DatabaseHandle;
  readonly directory: PartnerDirectory;
  readonly keys: Keyring;
  readonly jobs: JobQueue;
  /** Quotes counted in this process, written to quote_counts every 5 s (tests flush it themselves). */
  readonly quoteCounter: QuoteCounter;
  /** The database gauges of /metrics (also served by the PARASOL_METRICS_PORT listener). */
  readonly metrics: DatabaseGauges;
  /** Caps and stop-sales as this process's quotes see them (refresh() after a change made elsewhere). */
  readonly limits: LimitsSnapshot;
}

declare module 'fastify' {
  interface FastifyInstance {
    parasol: Parasol;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the whole application, ready, without a listening socket. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  const ownsDatabase = !options.database;
  let keys: Keyring;
  try {
    await database.migrate();
    keys = deriveKeyring(loadMasterKey(config.masterKey, config.dataDir));
    // rows written in clear before migration 0010 are sealed now (the migration has no key)
    await sealPersonalData(database.db, keys.encryption);
    const seeded = await seedDemo(database.db, config);
    if (seeded) options.onSeed?.(seeded);
  } catch (error) {
    if (ownsDatabase) await database.close();
    throw error;
  }
  const directory = new PartnerDirectory(database.db, options.cacheTtlMs ?? 5_000);
  const now = options.now ?? (() => new Date());

  const jobs = options.jobs ?? new JobQueue(database.db, { pollingIntervalSeconds: config.jobPollSeconds, onError: (error) => app.log.error({ err: error }, 'job queue error') });
  const app = Fastify({
    logger: loggerOptions(config, { stream: options.logStream }),
    requestIdHeader: false, // genReqId reads X-Request-Id itself and refuses malformed ones
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    },
    logController: new RequestLogController(), // one line per request, without the raw URL
    bodyLimit: 64 * 1024,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: true } },
    return503OnClosing: true,
    trustProxy: config.trustProxy,
    // what the router and Node's HTTP parser refuse answers problem+json too (platform/problem.ts)
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  // JSON only: Fastify's default text/plain parser would let a text body reach schema validation
  // (422) where every other non-JSON type is a 415; urlencoded forms are parsed in the web scopes only
  app.removeContentTypeParser('text/plain');

  const routes: string[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push(`${method} ${route.url}`);
  });
  const quoteCounter = new QuoteCounter();
  const metrics = new DatabaseGauges(database.db);
  const limits = new LimitsSnapshot(database.db, { now, defaultCapMajor: config.flightCapDefault, onError: (err) => app.log.warn({ err }, 'could not refresh the limits snapshot') });
  app.decorate('parasol', { config, routes, db: database.db, database, directory, keys, jobs, quoteCounter, metrics, limits });
  await jobs.start();
  await registerQueues(jobs);
  if (config.runWorkers) await startWorkers(jobs, { db: database.db, keys, config, now, log: app.log });
  installErrorHandling(app);
  installMetrics(app, database.db, metrics);
  // The models pricing each environment: the versions the operator activated (the shipped v2 at first
  // start), unless the caller gives its own (tests).
  const stored = options.riskModels || options.riskModel ? undefined : await openRiskModels(database.db, (error) => app.log.error({ err: error }, 'risk model refresh failed'));
  const riskModels = options.riskModels ?? (options.riskModel ? singleModelSource(options.riskModel) : stored!);
  trackPricingModels(() => ENVIRONMENTS.map((environment) => [environment, riskModels.active(environment).version]));
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  installTextGuard(app);

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await database.db.selectFrom('schema_migrations' as never).select((eb) => eb.lit(1).as('one')).limit(1).execute();
      return { status: 'ready', database: database.kind };
    } catch {
      return reply.code(503).send({ status: 'unavailable', database: database.kind });
    }
  });

  await registerApiDocument(app, {
    decorator: 'flightDelayOpenapi',
    prefix: FLIGHT_PREFIX,
    title: 'Flight Delay and Cancellation API',
    version: '1.0.0',
    description:
      'Parametric flight delay and cancellation insurance, sold at booking: quote (/getPrice), subscribe, cancel before departure with a full refund, and list the claims the platform opens by itself when an insured flight is delayed or cancelled. Money is integer minor units; errors are RFC 9457 problem+json with a stable `code`.',
    tags: [{ name: 'Flight Delay and Cancellation', description: 'Quote, subscribe, cancel, claims.' }],
  });
  await registerApiDocument(app, {
    decorator: 'demoOpenapi',
    prefix: DEMO_PREFIX,
    title: 'Demo API',
    version: '1.0.0',
    description:
      'The first API to try: the cities of a French zip code (La Poste data), and a home-insurance quote priced from a published rating table, whose signed quoteReference the API to manage policies accepts. Money is integer minor units; errors are RFC 9457 problem+json with a stable `code`.',
    tags: [{ name: 'Demo', description: 'French zip codes and home-insurance quotes.' }],
  });
  await registerApiDocument(app, {
    decorator: 'policyAdminOpenapi',
    prefix: POLICY_ADMIN_PREFIX,
    title: 'API to manage policies',
    version: '1.0.0',
    description:
      "Connects your policy-administration system to the insurer's database: record policies (idempotent, your externalReference unique per environment), read them, search them and cancel them. Only your own policies, ever. Money is integer minor units; errors are RFC 9457 problem+json with a stable `code`.",
    tags: [{ name: 'Policies', description: 'Record, read, search and cancel policies.' }],
  });
  await limits.start();
  const flightDeps = { db: database.db, jobs, directory, keys, riskModels, quoteTtlMinutes: config.quoteTtlMinutes, now, quoteCounter, limits };
  // one limiter for all partner APIs: the limit is per key, whatever the API
  const limiter = new RateLimiter(config.rateLimitPerMinute);
  // failed authentications per client address, also across the partner APIs
  const failures = new FailedAuthLimiter(config.authFailuresPerMinute);
  const operators = (token: string) => authenticateOperator(database.db, token);
  await app.register(flightDelayRoutes(flightDeps, { directory, limiter, failures, operators }), { prefix: FLIGHT_PREFIX });
  await app.register(customerRoutes({ db: database.db, jobs, keys, now }));
  await app.register(webRoutes({ db: database.db, config, directory, flight: flightDeps, now }));
  await app.register(demoRoutes({ keys, now }, { directory, limiter, failures }), { prefix: DEMO_PREFIX });
  await app.register(policyAdminRoutes({ db: database.db, keys, now }, { directory, limiter, failures }), { prefix: POLICY_ADMIN_PREFIX });

  // Key last-used times and quote counts live in this process's memory: flushed by a local timer, not a job.
  const usageTimer = setInterval(() => {
    directory.flushUsage().catch((err) => app.log.warn({ err }, 'could not record key usage'));
    quoteCounter.flush(database.db).catch((err) => app.log.warn({ err }, 'could not record quote counts'));
  }, 5_000).unref();
  app.addHook('onClose', async () => {
    clearInterval(usageTimer);
    stored?.close();
    await limits.stop();
    await jobs.stop();
    await directory.flushUsage().catch(() => undefined);
    await quoteCounter.flush(database.db).catch(() => undefined);
    if (ownsDatabase) await database.close();
  });

  await app.ready();
  return app;
}
