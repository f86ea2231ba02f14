import http from 'node:http';
import { sql, type RawBuilder } from 'kysely';
import client from 'prom-client';
import type { FastifyInstance } from 'fastify';
import type { Db } from './db.ts';
import { BearerError, readBearer } from './auth.ts';
import { DomainError } from './errors.ts';
import { authenticateOperator, isOperatorToken } from './operator-tokens.ts';

/**
 * Prometheus metrics (prom-client), in two parts:
 *
 * - `processMetrics`: counters and histograms incremented where things happen in THIS process (HTTP
 *   requests, quotes, subscriptions, SMS, webhook deliveries, provider calls, breaker state). Every
 *   API and worker process exposes its own; Prometheus sums them across processes.
 * - database gauges (claims and payouts by status, payouts waiting for or left out of a batch, job
 *   queue depth and oldest job age), computed at scrape time by a few grouped queries, cached
 *   `DB_GAUGES_TTL_MS`: the same value whichever process answers, so aggregate them with max(), not sum().
 *
 * `/metrics` on the API port answers only to an operator token (`Authorization: Bearer pso_…`);
 * PARASOL_METRICS_PORT opens a separate listener without authentication, for a port that only the
 * monitoring network reaches (the worker processes have no other way to be scraped).
 */

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

/** Route label of requests that matched no route: bounded cardinality, raw URLs never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

export const httpRequestDuration = new client.Histogram({
  name: 'parasol_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status code, with their duration (seconds); _count is the number of requests.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const quotesTotal = new client.Counter({
  name: 'parasol_quotes_total',
  help: 'Quotes issued (flight /getPrice and Demo API home quotes), by API and environment.',
  labelNames: ['api', 'environment'] as const,
  registers: [registry],
});

export const subscriptionsTotal = new client.Counter({
  name: 'parasol_subscriptions_total',
  help: 'Flight contracts subscribed (idempotent replays not counted), by environment.',
  labelNames: ['environment'] as const,
  registers: [registry],
});

export const cancellationsTotal = new client.Counter({
  name: 'parasol_cancellations_total',
  help: 'Flight contract cancellations answered (idempotent replays not counted), by environment.',
  labelNames: ['environment'] as const,
  registers: [registry],
});

export const payoutsTotal = new client.Counter({
  name: 'parasol_payouts_settled_total',
  help: 'Payout settlements processed by this process (simulated bank), by outcome (paid, failed, unchanged, …).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const sepaBatchRunsTotal = new client.Counter({
  name: 'parasol_sepa_batch_runs_total',
  help: "Runs of the scheduled SEPA batch job in this process, by outcome (created: at least one file; refused: no file, pending payouts no file can take until an operator acts — alert on it; waiting: no file, only USD payouts the day's 36 NACHA files are full for, the next day takes them; nothing_pending; no_debtor: PARASOL_SEPA_DEBTOR_* not set, no file; error).",
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const emailsTotal = new client.Counter({
  name: 'parasol_emails_total',
  help: "Email send jobs handled by this process, by outcome (sent: through SMTP or into the outbox; rejected; skipped: already sent or being sent, or a link email whose link no longer works (claim settled or payment pending, a newer link, or its link used or past its due date), not sent; retry: a failure the queue retries, by reason — deferred (SMTP 4xx), unreachable, network, refused (the server refused us: authentication, relay or policy — SMTP 530, 535, 5.7.x, 554; ours to fix, alert on it), no_provider, unexpected; given_up: still queued a day after it was written, marked rejected; held: a reminder held until the customer's morning; circuit_open: not tried, held while the SMTP circuit is open after a refused login — the SMTP outage alert counts it with retry).",
  labelNames: ['outcome', 'reason'] as const,
  registers: [registry],
});

export const smsTotal = new client.Counter({
  name: 'parasol_sms_total',
  help: 'SMS handled by this process, by channel (notification: a claim message written to the sandbox outbox or the production queue; twilio: a production send) and outcome (sent, rejected, skipped; requeued: a send Twilio answered with its queue overflow (30001), queued again for the end of its back-off; held: a reminder or expiry notice released at night where the customer lives, its send job queued for their morning (quiet hours); retry: a failure the queue retries, by reason — server_error, rate_limited, unreachable, network, timeout, invalid_response, no_provider, unexpected; given_up: still queued a day after it was written, marked rejected).',
  labelNames: ['channel', 'outcome', 'reason'] as const,
  registers: [registry],
});

export const smsDeliveriesTotal = new client.Counter({
  name: 'parasol_sms_deliveries_total',
  help: "Twilio delivery receipts received, by the message's status (delivered, undelivered, failed, sent…) and outcome (recorded; stale: already as far along; early: no message has this id yet, kept until one has, a day at most).",
  labelNames: ['status', 'outcome'] as const,
  registers: [registry],
});

export const webhookDeliveriesTotal = new client.Counter({
  name: 'parasol_webhook_deliveries_total',
  help: 'Webhook delivery attempts made by this process, by outcome (succeeded, retry_scheduled, failed, skipped).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const providerCallsTotal = new client.Counter({
  name: 'parasol_flight_provider_calls_total',
  help: 'Calls to flight-status providers, by provider and outcome (ok, unknown_flight, beyond_history, error kind, rejected, circuit_open: not called).',
  labelNames: ['provider', 'outcome'] as const,
  registers: [registry],
});

export const sweepDuration = new client.Histogram({
  name: 'parasol_sweep_duration_seconds',
  help: "Runs of the singleton sweep jobs (policy 'singleton': SEPA batch, ACH settlement, claim expiry and reminders, webhook pausing, flight planning, risk refit) in this process, by queue and outcome (done, failed), with their duration (seconds). A run past half its queue's expireInSeconds is also logged at warn ('sweep run near its expiry'; past the whole of it, 'sweep run past its expiry').",
  labelNames: ['queue', 'outcome'] as const,
  buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 150, 300, 450, 900, 1800],
  registers: [registry],
});

export const BREAKER_STATE_VALUES = { closed: 0, half_open: 1, open: 2 } as const;

export const providerBreakerState = new client.Gauge({
  name: 'parasol_flight_provider_breaker_state',
  help: "State of this process's circuit breaker per flight-status provider: 0 closed, 1 half-open, 2 open.",
  labelNames: ['provider'] as const,
  registers: [registry],
});

/** Which risk model version prices new quotes in each environment, read at scrape time. */
let pricingModels: () => [environment: string, version: string][] = () => [];

export const pricingModelInfo = new client.Gauge({
  name: 'parasol_pricing_model_info',
  help: 'The risk model version pricing new quotes in each environment of this process (value 1).',
  labelNames: ['environment', 'version'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [environment, version] of pricingModels()) this.set({ environment, version }, 1);
  },
});

/** Records where the process finds the model version of each environment (one series each). */
export function trackPricingModels(versions: () => [environment: string, version: string][]): void {
  pricingModels = versions;
}

export function recordBreakerState(provider: string, state: keyof typeof BREAKER_STATE_VALUES): void {
  providerBreakerState.set({ provider }, BREAKER_STATE_VALUES[state]);
}

// ---------------------------------------------------------------------------------------------
// database gauges, computed at scrape time

export const DB_GAUGES_TTL_MS = 5_000;

/** Gauges read from the database, in a registry of their own (one per app: tests build several). */
export class DatabaseGauges {
  readonly registry = new client.Registry();
  private readonly claims = new client.Gauge({
    name: 'parasol_claims',
    help: 'Claims by status (from the database).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  private readonly payouts = new client.Gauge({
    name: 'parasol_payouts',
    help: 'Payouts by status (from the database).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  private readonly productionPending = new client.Gauge({
    name: 'parasol_production_payouts_pending',
    help: 'Production payouts waiting for a batch (SEPA file in EUR, cross-border file in another currency), by currency; claims held for review not counted (from the database).',
    labelNames: ['currency'] as const,
    registers: [this.registry],
  });
  private readonly productionPendingAge = new client.Gauge({
    name: 'parasol_production_payouts_pending_oldest_age_seconds',
    help: 'Seconds since the oldest production payout waiting for a batch became pending, by currency; 0 when none waits (from the database).',
    labelNames: ['currency'] as const,
    registers: [this.registry],
  });
  private readonly leftOut = new client.Gauge({
    name: 'parasol_payouts_left_out',
    help: 'Pending payouts a SEPA batch left out of its file (no BIC for a cross-border transfer, a BIC or name the file refuses, or no insurer address for a bank outside the EEA), by environment and currency; not those of claims held for review; no series when none (from the database). Fixed with parasol payouts set-bic or the console; the address by setting PARASOL_SEPA_DEBTOR_ADDRESS and restarting.',
    labelNames: ['environment', 'currency'] as const,
    registers: [this.registry],
  });
  private readonly leftOutAge = new client.Gauge({
    name: 'parasol_payouts_left_out_oldest_age_seconds',
    help: 'Seconds since the oldest pending payout still left out of its file was first left out, by environment and currency; no series when none (from the database).',
    labelNames: ['environment', 'currency'] as const,
    registers: [this.registry],
  });
  private readonly productionUnreported = new client.Gauge({
    name: 'parasol_production_payouts_unreported',
    help: 'Production payouts instructed (in a SEPA file) longer ago than the bank has to report them, without a report: paid or failed unknown; ACH payouts still instructed a business day after their return window passed (the settlement job did not settle them) (from the database).',
    registers: [this.registry],
  });
  private readonly batchesWithoutFile = new client.Gauge({
    name: 'parasol_sepa_batches_without_file',
    help: 'SEPA batches created more than 5 minutes ago whose file was never recorded as written: the job does not write them (it cannot know whether they reached the bank); an operator checks and runs parasol payouts export (from the database).',
    registers: [this.registry],
  });
  private readonly productionInstructedAge = new client.Gauge({
    name: 'parasol_production_payouts_instructed_oldest_age_seconds',
    help: 'Seconds since the oldest production payout still instructed (no bank report yet) was put in a SEPA file; 0 when none (from the database).',
    registers: [this.registry],
  });
  private readonly queueDepth = new client.Gauge({
    name: 'parasol_job_queue_depth',
    help: 'Jobs waiting per queue (created or retry, due or scheduled), from the pg-boss tables.',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });
  private readonly oldestAge = new client.Gauge({
    name: 'parasol_job_queue_oldest_age_seconds',
    help: 'Age of the oldest due job waiting per queue (seconds since it could start), from the pg-boss tables; 0 when none is due.',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });
  private readonly flightsManualReview = new client.Gauge({
    name: 'parasol_flight_watches_manual_review',
    help: 'Flights the monitoring could not decide and gave to an operator (watches in manual_review: no final status, no gate times, unknown to the provider, a provider outage past the deadline), by environment; production always present (from the database). Their claims wait for parasol flights check or parasol flights event.',
    labelNames: ['environment'] as const,
    registers: [this.registry],
  });
  private readonly scrapeErrors = new client.Counter({
    name: 'parasol_metrics_database_errors_total',
    help: 'Scrapes whose database gauges could not be refreshed (the previous values are served).',
    registers: [this.registry],
  });
  private refreshedAt = 0;
  private refreshing: Promise<void> | undefined;

  private readonly ttlMs: number;
  private readonly clock: () => number;
  private readonly reportDueBefore: (now: Date) => Date;
  private readonly fileGraceMs: number;
  private readonly leftOutPayout: RawBuilder<boolean>;
  private readonly achUnreported: (now: Date) => RawBuilder<boolean>;

  /** The payouts domain's rules come from app.ts: platform/ imports no domain. */
  constructor(
    private readonly db: Db,
    options: {
      /** The payouts domain's LEFT_OUT_PAYOUT: a payout left out of its file, over `payouts p` and `claims cl`. */
      leftOutPayout: RawBuilder<boolean>;
      ttlMs?: number | undefined;
      clock?: (() => number) | undefined;
      /**
       * The instant before which a transfer instructed should have been reported by the bank (the
       * payouts domain counts business days); default: five calendar days before.
       */
      reportDueBefore?: ((now: Date) => Date) | undefined;
      /**
       * How long a SEPA batch may be without its file before it counts as missing: the SEPA job's
       * FILE_RECOVERY_GRACE_MS; default five minutes.
       */
      fileGraceMs?: number | undefined;
      /**
       * Which ACH payouts, still instructed, are unreported at `now`, over `payouts p` and `sepa_batches b`
       * (its batch): their return window passed and the settlement job has not settled them (the
       * payouts domain's rule, the one the settlement job applies); default: none counted.
       */
      achUnreported?: ((now: Date) => RawBuilder<boolean>) | undefined;
    },
  ) {
    this.leftOutPayout = options.leftOutPayout;
    this.ttlMs = options.ttlMs ?? DB_GAUGES_TTL_MS;
    this.clock = options.clock ?? Date.now;
    this.reportDueBefore = options.reportDueBefore ?? ((now) => new Date(now.getTime() - 5 * 86_400_000));
    this.fileGraceMs = options.fileGraceMs ?? 5 * 60_000;
    this.achUnreported = options.achUnreported ?? (() => sql<boolean>`false`);
  }

  /** Refreshes the gauges when older than the TTL; concurrent scrapes share one refresh. */
  async refresh(): Promise<void> {
    if (this.clock() - this.refreshedAt < this.ttlMs) return;
    this.refreshing ??= this.load().finally(() => {
      this.refreshing = undefined;
    });
    await this.refreshing;
  }

  private async load(): Promise<void> {
    try {
      const reportDue = this.reportDueBefore(new Date(this.clock()));
      const achUnreported = this.achUnreported(new Date(this.clock()));
      const unwrittenBefore = new Date(this.clock() - this.fileGraceMs);
      const [claims, payouts, queues, pending, leftOut, instructed, unwritten, manualReview] = await Promise.all([
        this.db
          .selectFrom('claims')
          .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
          .groupBy('status')
          .execute(),
        this.db
          .selectFrom('payouts')
          .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
          .groupBy('status')
          .execute(),
        // pg-boss 10: one row per job in pgboss.job (partitioned by queue); waiting = created or retry.
        sql<{ name: string; depth: string; oldest: string | null }>`
          select q.name,
                 count(j.id) as depth,
                 extract(epoch from now() - min(j.start_after) filter (where j.start_after <= now())) as oldest
          from pgboss.queue q
          left join pgboss.job j on j.name = q.name and j.state in ('created', 'retry')
          group by q.name`.execute(this.db),
        // production payouts a batch would take (SEPA and ACH, index payouts_pending); `updated_at` is when the
        // payout became pending (created, or tried again after a failed transfer)
        sql<{ currency: string; n: string; oldest: string | null }>`
          select p.currency, count(*) as n, extract(epoch from now() - min(p.updated_at)) as oldest
          from payouts p
          join claims cl on cl.id = p.claim_id
          where p.rail in ('sepa', 'ach') and p.status = 'pending' and cl.manual_review_at is null
          group by p.currency`.execute(this.db),
        // payouts a batch left out of its file: the payouts domain's rule (LEFT_OUT_PAYOUT);
        // left_out_at is the batch's application clock: the age is taken against the gauges' own clock
        sql<{ environment: string; currency: string; n: string; oldest: string | null }>`
          select p.environment, p.currency, count(*) as n, extract(epoch from ${new Date(this.clock())}::timestamptz - min(p.left_out_at)) as oldest
          from payouts p
          join claims cl on cl.id = p.claim_id
          where ${this.leftOutPayout}
          group by p.environment, p.currency`.execute(this.db),
        sql<{ unreported: string; oldest: string | null }>`
          select count(*) filter (
                   where (p.rail = 'sepa' and p.instructed_at < ${reportDue})
                      or (p.rail = 'ach' and ${achUnreported})
                 ) as unreported,
                 extract(epoch from now() - min(p.instructed_at) filter (where p.rail = 'sepa')) as oldest
          from payouts p
          left join sepa_batches b on b.id = p.batch_id
          where p.rail in ('sepa', 'ach') and p.status = 'instructed'`.execute(this.db),
        // index sepa_batches_without_file (migration 0047); the same grace as the job's check, and like
        // it on the application's clock (a batch's created_at is its use case's `now`)
        sql<{ n: string }>`
          select count(*) as n from sepa_batches
          where file_path is null and created_at < ${unwrittenBefore}`.execute(this.db),
        // index flight_watches_manual_review (migration 0074)
        sql<{ environment: string; n: string }>`
          select environment, count(*) as n from flight_watches
          where state = 'manual_review'
          group by environment`.execute(this.db),
      ]);
      this.claims.reset();
      for (const row of claims) this.claims.set({ status: row.status }, Number(row.n));
      this.payouts.reset();
      for (const row of payouts) this.payouts.set({ status: row.status }, Number(row.n));
      this.productionPending.reset();
      this.productionPendingAge.reset();
      // EUR always has its series (0): an alert on it never sees "no data" when nothing waits
      this.productionPending.set({ currency: 'EUR' }, 0);
      this.productionPendingAge.set({ currency: 'EUR' }, 0);
      for (const row of pending.rows) {
        this.productionPending.set({ currency: row.currency }, Number(row.n));
        this.productionPendingAge.set(
          { currency: row.currency },
          row.oldest === null ? 0 : Math.max(0, Number(row.oldest)),
        );
      }
      this.leftOut.reset();
      this.leftOutAge.reset();
      for (const row of leftOut.rows) {
        const labels = { environment: row.environment, currency: row.currency };
        this.leftOut.set(labels, Number(row.n));
        this.leftOutAge.set(labels, row.oldest === null ? 0 : Math.max(0, Number(row.oldest)));
      }
      const reported = instructed.rows[0];
      this.productionUnreported.set(Number(reported?.unreported ?? 0));
      this.productionInstructedAge.set(
        reported?.oldest === null || reported?.oldest === undefined ? 0 : Math.max(0, Number(reported.oldest)),
      );
      this.batchesWithoutFile.set(Number(unwritten.rows[0]?.n ?? 0));
      this.flightsManualReview.reset();
      // production always has its series (0): an alert on it never sees "no data" when none waits
      this.flightsManualReview.set({ environment: 'production' }, 0);
      for (const row of manualReview.rows)
        this.flightsManualReview.set({ environment: row.environment }, Number(row.n));
      this.queueDepth.reset();
      this.oldestAge.reset();
      for (const row of queues.rows) {
        this.queueDepth.set({ queue: row.name }, Number(row.depth));
        this.oldestAge.set({ queue: row.name }, row.oldest === null ? 0 : Math.max(0, Number(row.oldest)));
      }
      this.refreshedAt = this.clock();
    } catch {
      this.scrapeErrors.inc();
    }
  }

  async metrics(): Promise<string> {
    await this.refresh();
    return this.registry.metrics();
  }
}

/** The exposition text: this process's metrics, then the database gauges when given. */
export async function exposition(gauges?: DatabaseGauges): Promise<string> {
  const own = await registry.metrics();
  return gauges ? `${own}\n${await gauges.metrics()}` : own;
}

// ---------------------------------------------------------------------------------------------
// HTTP

/**
 * Times every request into the histogram, labelled with the route PATTERN (`/c/:token`, never the
 * token), and serves `GET /metrics` to operator tokens. One observe per request: nothing else on
 * the /getPrice path.
 */
export function installMetrics(app: FastifyInstance, db: Db, gauges: DatabaseGauges): void {
  app.addHook('onResponse', (request, reply, done) => {
    httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const credential = readBearer(request.headers.authorization);
    if (credential.kind === 'absent')
      throw new DomainError('unauthenticated', 'Metrics need an operator token: Authorization: Bearer pso_….');
    if (
      credential.kind === 'malformed' ||
      !isOperatorToken(credential.token) ||
      !(await authenticateOperator(db, credential.token))
    )
      throw new BearerError('unauthenticated', 'This operator token is unknown or revoked.', 'invalid_token');
    return reply
      .header('content-type', registry.contentType)
      .header('cache-control', 'no-store')
      .send(await exposition(gauges));
  });
}

/**
 * The separate, unauthenticated listener of PARASOL_METRICS_PORT: `GET /metrics` only. For API
 * processes (with their database gauges) and worker processes (their own counters).
 */
export async function startMetricsServer(options: {
  port: number;
  host: string;
  gauges?: DatabaseGauges;
  onError?: (error: Error) => void;
}): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: GET /metrics\n');
      return;
    }
    exposition(options.gauges).then(
      (text) =>
        response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(text),
      (error: unknown) => {
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
