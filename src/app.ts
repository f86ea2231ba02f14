import crypto from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Ajv } from 'ajv';
import {
  FLIGHT_PREFIX,
  flightDelayRoutes,
  PRICING,
  QuoteCounter,
  singleModelSource,
  TIME_RULES,
  type RiskModel,
  type RiskModelSource,
} from './flight/index.ts';
import { DEMO_PREFIX, demoRoutes } from './home/index.ts';
import { POLICY_ADMIN_PREFIX, policyAdminRoutes } from './policies/index.ts';
import { ENVIRONMENTS, PartnerDirectory, seedDemo, type SeedResult } from './partners/index.ts';
import type { Config } from './platform/config.ts';
import type { Keyring } from './platform/crypto.ts';
import type { DatabaseHandle, Db } from './platform/db.ts';
import { sealPersonalData } from './platform/seal-personal-data.ts';
import type { JobQueue } from './platform/jobs.ts';
import { startWorkers } from './worker.ts';
import { openRuntime, type Runtime } from './runtime.ts';
import { checkProblemCodes, registerApiDocument, type UndeclaredProblem } from './platform/openapi.ts';
import { clientErrorHandler, frameworkErrors, installErrorHandling, REQUEST_ID } from './platform/problem.ts';
import { installTextGuard } from './platform/text-guard.ts';
import { ALONE_KEYWORD, BOUNDS_KEYWORD } from './platform/schema.ts';
import { installJsonBodyParser } from './platform/json-body.ts';
import { customerRoutes, webRoutes } from './web/index.ts';
import { FailedAuthLimiter } from './platform/rate-limit.ts';
import { openKeyRateLimiter, PartnerRateLimits } from './platform/shared-rate-limit.ts';
import { followChanges, Notifications, wakeOnJobs } from './platform/notifications.ts';
import { loggerOptions, scrubSecrets } from './platform/logging.ts';
import { authenticateOperator } from './platform/operator-tokens.ts';
import { DatabaseGauges, installMetrics, trackPricingModels } from './platform/metrics.ts';
import { openRiskModels } from './risk/index.ts';
import { RequestLogController } from './platform/request-log.ts';
import { LimitsSnapshot } from './limits/index.ts';
import { WebhookEndpointCache, webhookApiRoutes, webhookDocumentation } from './webhooks/index.ts';
import { twilioStatusRoutes } from './notify/index.ts';
import { tellPartnerCustomerUnreachable } from './claims/index.ts';
import {
  achReturnWindowPassed,
  FILE_RECOVERY_GRACE_MS,
  LEFT_OUT_PAYOUT,
  payoutReportDueBefore,
  unreportedDue,
} from './payouts/index.ts';

export interface BuildOptions {
  /** An already open database (tests); otherwise opened from the config. */
  database?: DatabaseHandle;
  /** The clock of the use cases (tests move it). */
  now?: () => Date;
  /** How long API keys, partner terms and webhook endpoints stay cached, in ms (default PARASOL_CACHE_TTL_SECONDS, 5 s; 0 disables). */
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
  /**
   * Called for every problem an API operation answers with a code its document does not list for
   * that status (tests: test/helper.ts fails on it); the check is not installed without it.
   */
  onUndeclaredProblem?: (problem: UndeclaredProblem) => void;
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
  /** The live webhook endpoints per partner and environment, as this process's writes emit to them. */
  readonly webhookEndpoints: WebhookEndpointCache;
}

declare module 'fastify' {
  interface FastifyInstance {
    parasol: Parasol;
  }
}

/** Builds the whole application, ready, without a listening socket. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  // until the app's logger exists, a job queue error goes to stderr: its message only, scrubbed like a
  // log line (a database error's detail and parameters may quote a value)
  let onJobError = (error: Error): void => console.error(`job queue error: ${scrubSecrets(error.message)}`);
  const runtime = await openRuntime(config, {
    ...(options.database ? { database: options.database } : {}),
    ...(options.jobs ? { jobs: options.jobs } : {}),
    jobOptions: { onError: (error) => onJobError(error) },
    prepare: async (db, keys) => {
      // rows written in clear before migration 0010 are sealed now (the migration has no key)
      await sealPersonalData(db, keys.encryption);
      const seeded = await seedDemo(db, config);
      if (seeded) options.onSeed?.(seeded);
    },
  });
  try {
    return await assembleApp(
      config,
      options,
      runtime,
      (log) => (onJobError = (error) => log.error({ err: error }, 'job queue error')),
    );
  } catch (error) {
    // what the bootstrap opened is closed again (the app's onClose hook may not exist yet)
    await runtime.close({ graceful: false, timeoutMs: 1_000 }).catch(() => undefined);
    throw error;
  }
}

/** The app on an open runtime: routes, workers, timers; its onClose hook closes the runtime. */
async function assembleApp(
  config: Config,
  options: BuildOptions,
  runtime: Runtime,
  logJobErrorsTo: (log: FastifyBaseLogger) => void,
): Promise<FastifyInstance> {
  const { database, keys, jobs } = runtime;
  const cacheTtlMs = options.cacheTtlMs ?? config.cacheTtlSeconds * 1000;
  const directory = new PartnerDirectory(database.db, cacheTtlMs);
  const now = options.now ?? (() => new Date());

  const app = Fastify({
    logger: loggerOptions(config, { stream: options.logStream }),
    requestIdHeader: false, // genReqId reads X-Request-Id itself and refuses malformed ones
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    },
    logController: new RequestLogController(), // one line per request, without the raw URL
    bodyLimit: 64 * 1024,
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: true },
      // a page size's bounds, a property that cannot stand alone (platform/schema.ts)
      plugins: [(ajv: Ajv) => ajv.addKeyword(BOUNDS_KEYWORD).addKeyword(ALONE_KEYWORD)],
    },
    // while closing, new requests get a problem+json 503 from installErrorHandling, not Fastify's own body
    return503OnClosing: false,
    trustProxy: config.trustProxy,
    // what the router and Node's HTTP parser refuse answers problem+json too (platform/problem.ts)
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  // JSON only: Fastify's default text/plain parser would let a text body reach schema validation
  // (422) where every other non-JSON type is a 415; urlencoded forms are parsed in the web scopes only
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app); // UTF-8 only, decoded strictly

  const routes: string[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push(`${method} ${route.url}`);
  });
  const quoteCounter = new QuoteCounter();
  // a transfer instructed is due its bank report within PAYOUT_REPORT_BUSINESS_DAYS TARGET business days
  // (an ACH transfer a Federal Reserve business day after its return window passed, by the settlement
  // job's rule: unreportedDue, achReturnWindowPassed)
  const metrics = new DatabaseGauges(database.db, {
    leftOutPayout: LEFT_OUT_PAYOUT,
    reportDueBefore: payoutReportDueBefore,
    fileGraceMs: FILE_RECOVERY_GRACE_MS,
    achUnreported: (at) => achReturnWindowPassed(unreportedDue(at, config.achReturnWindowDays).ach),
  });
  const limits = new LimitsSnapshot(database.db, {
    now,
    maxPassengers: PRICING.maxPassengers,
    maxAheadDays: TIME_RULES.maxAheadDays,
    defaultCapMajor: config.flightCapDefault,
    onError: (err) => app.log.warn({ err }, 'could not refresh the limits snapshot'),
  });
  // the partner APIs' writes emit their events to the endpoints cached here (no lookup in the sale's
  // transaction); kept fresh like the directory: the use cases and the change notifications drop it
  const webhookEndpoints = new WebhookEndpointCache(database.db, cacheTtlMs, (err) =>
    app.log.warn({ err }, 'could not read the webhook endpoints'),
  );
  app.decorate('parasol', {
    config,
    routes,
    db: database.db,
    database,
    directory,
    keys,
    jobs,
    quoteCounter,
    metrics,
    limits,
    webhookEndpoints,
  });
  logJobErrorsTo(app.log);
  if (config.runWorkers) await startWorkers(jobs, { db: database.db, keys, config, now, log: app.log });
  installErrorHandling(app);
  if (options.onUndeclaredProblem) checkProblemCodes(app, options.onUndeclaredProblem);
  installMetrics(app, database.db, metrics);
  // The models pricing each environment: the versions the operator activated (the shipped v2 at first
  // start), unless the caller gives its own (tests).
  const stored =
    options.riskModels || options.riskModel
      ? undefined
      : await openRiskModels(database.db, (error) => app.log.error({ err: error }, 'risk model refresh failed'));
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
      await database.db
        .selectFrom('schema_migrations' as never)
        .select((eb) => eb.lit(1).as('one'))
        .limit(1)
        .execute();
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
    tags: [
      { name: 'Flight Delay and Cancellation', description: 'Quote, subscribe, cancel, claims.' },
      { name: 'Webhooks', description: 'Your webhook endpoints, the delivery log, and redelivery of a past event.' },
    ],
    webhooks: webhookDocumentation(),
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
      "Connects your policy-administration system to the insurer's database: record policies (idempotent, your externalReference unique per environment), read them, search them, keep the policyholder's contact current, activate the pending ones (pending → active) and cancel them; a policy past its expiry date reads as expired. Only your own policies, ever. Money is integer minor units; errors are RFC 9457 problem+json with a stable `code`.",
    tags: [
      {
        name: 'Policies',
        description: 'Record, read, search, change the policyholder of, activate and cancel policies.',
      },
    ],
  });
  await limits.start();
  const flightDeps = {
    db: database.db,
    jobs,
    directory,
    keys,
    riskModels,
    quoteTtlMinutes: config.quoteTtlMinutes,
    now,
    quoteCounter,
    limits,
    webhookEndpoints,
  };
  // one limiter for all partner APIs: the limit is per key and operation class, whatever the API;
  // in Redis when REDIS_URL is set (shared by every process), else in this process's memory
  const rateLimits = new PartnerRateLimits(database.db, config.rateLimits, (err) =>
    app.log.warn({ err }, "could not reload the partners' rate limits"),
  );
  await rateLimits.start();
  const limiter = await openKeyRateLimiter(config.redisUrl, rateLimits, (err) =>
    app.log.warn({ err }, 'Redis unreachable: rate limits counted in this process until it answers'),
  );
  // changes made by any process (another API instance, a worker, the CLI) reach this one's caches at
  // once (LISTEN/NOTIFY, platform/notifications.ts); the caches' TTLs remain the fallback
  const feed = await Notifications.open(database, {
    onError: (err) => app.log.warn({ err }, 'change notifications: connection lost, reconnecting'),
  });
  followChanges(feed, {
    directory,
    limits,
    riskModels: stored,
    rateLimits,
    webhookEndpoints,
    onError: (err) => app.log.warn({ err }, 'could not apply a change notification'),
  });
  if (config.runWorkers) wakeOnJobs(feed, jobs);
  // failed authentications per client address, also across the partner APIs
  const failures = new FailedAuthLimiter(config.authFailuresPerMinute);
  const operators = (token: string) => authenticateOperator(database.db, token);
  await app.register(flightDelayRoutes(flightDeps, { directory, limiter, failures, operators }), {
    prefix: FLIGHT_PREFIX,
  });
  await app.register(
    webhookApiRoutes(
      { db: database.db, jobs, keys, allowPrivate: config.webhooksAllowPrivate, now, endpoints: webhookEndpoints },
      { directory, limiter, failures, operators },
    ),
    { prefix: FLIGHT_PREFIX },
  );
  await app.register(
    customerRoutes({
      db: database.db,
      jobs,
      keys,
      now,
      legal: { insurer: config.insurer, bankDetailsDays: config.bankDetailsDays },
    }),
  );
  await app.register(webRoutes({ db: database.db, config, directory, flight: flightDeps, now, keys }));
  // Twilio's delivery receipts, when Twilio has somewhere public to post them (docs/sms.md)
  const twilio = config.twilio;
  if (twilio?.statusCallbackUrl)
    await app.register(
      twilioStatusRoutes({
        db: database.db,
        jobs,
        twilio: { ...twilio, statusCallbackUrl: twilio.statusCallbackUrl },
        onUndelivered: tellPartnerCustomerUnreachable(jobs),
        now,
      }),
    );
  await app.register(demoRoutes({ keys, now }, { directory, limiter, failures }), { prefix: DEMO_PREFIX });
  await app.register(policyAdminRoutes({ db: database.db, keys, now }, { directory, limiter, failures }), {
    prefix: POLICY_ADMIN_PREFIX,
  });

  // Key last-used times and quote counts live in this process's memory: flushed by a local timer, not a job.
  const usageTimer = setInterval(() => {
    directory.flushUsage().catch((err) => app.log.warn({ err }, 'could not record key usage'));
    quoteCounter.flush(database.db).catch((err) => app.log.warn({ err }, 'could not record quote counts'));
  }, 5_000).unref();
  app.addHook('onClose', async () => {
    clearInterval(usageTimer);
    await feed.close();
    rateLimits.stop();
    await limiter.close?.();
    stored?.close();
    await limits.stop();
    await webhookEndpoints.settled();
    await jobs.stop();
    await directory.flushUsage().catch(() => undefined);
    await quoteCounter.flush(database.db).catch(() => undefined);
    await runtime.close();
  });

  await app.ready();
  return app;
}
