import type { DatabaseHandle } from './db.ts';

/**
 * Change notifications between processes (PostgreSQL LISTEN/NOTIFY). Two channels:
 *
 * - CHANGES_CHANNEL: the triggers of migration 0019 and later send the name of the table changed
 *   (api_keys, agreements, partner_configurations, exposure_caps, risk_model_activations,
 *   webhook_endpoints, …) at commit, whoever made the change — an API process, a worker, the CLI.
 *   Each process drops or reloads what it cached of it (`applyChange`): a revoked key is refused
 *   everywhere within milliseconds. The caches keep their TTLs as the fallback (a notification lost
 *   while the connection was down: the listener reconnects and then drops everything, as if every
 *   table had changed).
 * - JOBS_CHANNEL: JobQueue.send sends the queue's name once the job has committed (after the commit
 *   of a transaction opened by `transaction()`, platform/db.ts; otherwise in the same transaction),
 *   and a worker listening wakes its pg-boss worker of that queue at once instead of at its next poll.
 *
 * On PostgreSQL the listener holds one connection of its own (a pooled one cannot LISTEN); on the
 * embedded PGlite, LISTEN/NOTIFY works within the one process (`DatabaseHandle.listen`).
 */
export const CHANGES_CHANNEL = 'parasol_changes';
export const JOBS_CHANNEL = 'parasol_jobs';
const CHANNELS = [CHANGES_CHANNEL, JOBS_CHANNEL] as const;
export type Channel = (typeof CHANNELS)[number];

/** Longest wait between two attempts to reconnect the listening connection. */
const MAX_RECONNECT_MS = 10_000;

export interface NotificationsOptions {
  onError?: (error: Error) => void;
}

export class Notifications {
  private readonly handlers = new Map<Channel, Set<(payload: string) => void>>();
  private readonly reconnected = new Set<() => void>();
  private closed = false;
  private stop: (() => Promise<void>) | undefined;

  private constructor(private readonly options: NotificationsOptions) {}

  /** Starts listening on both channels; resolves once LISTEN is in place (so a test may NOTIFY next). */
  static async open(database: DatabaseHandle, options: NotificationsOptions = {}): Promise<Notifications> {
    const feed = new Notifications(options);
    if (database.listen) {
      const unlisten = await Promise.all(
        CHANNELS.map((channel) => database.listen!(channel, (payload) => feed.deliver(channel, payload))),
      );
      feed.stop = async () => {
        await Promise.all(unlisten.map((u) => u().catch(() => undefined)));
      };
    } else if (database.url) {
      await feed.listenPostgres(database.url);
    }
    return feed;
  }

  /** Calls `handler` with each payload sent on `channel`. */
  on(channel: Channel, handler: (payload: string) => void): this {
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    return this;
  }

  /** Calls `handler` after the listening connection was lost and opened again (notifications may have been missed). */
  onReconnect(handler: () => void): this {
    this.reconnected.add(handler);
    return this;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.stop?.();
  }

  private deliver(channel: Channel, payload: string): void {
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        handler(payload);
      } catch (error) {
        this.options.onError?.(error as Error);
      }
    }
  }

  private async listenPostgres(url: string): Promise<void> {
    const { default: pg } = await import('pg');
    let client: InstanceType<typeof pg.Client> | undefined;
    let attempt = 0;
    let timer: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      const c = new pg.Client({ connectionString: url });
      c.on('notification', (message) => {
        if ((CHANNELS as readonly string[]).includes(message.channel))
          this.deliver(message.channel as Channel, message.payload ?? '');
      });
      c.on('error', (error) => {
        this.options.onError?.(error);
        lost(c);
      });
      c.on('end', () => lost(c));
      await c.connect();
      for (const channel of CHANNELS) await c.query(`LISTEN ${channel}`);
      client = c;
    };
    const lost = (c: InstanceType<typeof pg.Client>) => {
      if (client !== c || this.closed) return;
      client = undefined;
      c.end().catch(() => undefined);
      retry();
    };
    const retry = () => {
      if (this.closed || timer) return;
      const wait = Math.min(MAX_RECONNECT_MS, 250 * 2 ** attempt++);
      timer = setTimeout(() => {
        timer = undefined;
        connect().then(
          () => {
            attempt = 0;
            for (const handler of this.reconnected) handler();
          },
          (error: Error) => {
            this.options.onError?.(error);
            retry();
          },
        );
      }, wait);
      timer.unref();
    };
    this.stop = async () => {
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    };
    await connect();
  }
}

/** What a process may hold of the tables notified on CHANGES_CHANNEL (each optional). */
export interface ChangeTargets {
  /** API keys, subscriptions, agreements, configurations (platform/auth.ts PartnerDirectory). */
  directory?: { invalidate(): void };
  /** Caps and stop-sales (limits/snapshot.ts). */
  limits?: { refresh(): Promise<void> };
  /** Which model version prices each environment (risk/model-source.ts). */
  riskModels?: { refresh(): Promise<void> };
  /** Per-partner rate limits (platform/shared-rate-limit.ts). */
  rateLimits?: { refresh(): Promise<void> };
  /** Live webhook endpoints per partner and environment (webhooks/endpoint-cache.ts). */
  webhookEndpoints?: { invalidate(): void };
  onError?: (error: unknown) => void;
}

const DIRECTORY_TABLES = new Set([
  'partners',
  'agreements',
  'agreement_versions',
  'api_subscriptions',
  'partner_configurations',
  'api_keys',
  'agreement_documents',
]);
const LIMITS_TABLES = new Set(['exposure_caps', 'stop_sales']);

/** Drops or reloads what is cached of `table`; every cache when `table` is undefined (after a reconnect). */
export function applyChange(targets: ChangeTargets, table: string | undefined): void {
  const report = (error: unknown) => targets.onError?.(error);
  if (table === undefined || DIRECTORY_TABLES.has(table)) targets.directory?.invalidate();
  if (table === undefined || LIMITS_TABLES.has(table)) targets.limits?.refresh().catch(report);
  if (table === undefined || table === 'risk_model_activations') targets.riskModels?.refresh().catch(report);
  if (table === undefined || table === 'partner_rate_limits') targets.rateLimits?.refresh().catch(report);
  if (table === undefined || table === 'webhook_endpoints') targets.webhookEndpoints?.invalidate();
}

/**
 * Wakes `jobs`' workers of a queue as soon as a job of it is announced on JOBS_CHANNEL (by any
 * process, once the job has committed): every process that runs workers calls
 * this, or its workers wait for their next poll.
 */
export function wakeOnJobs(feed: Notifications, jobs: { wake(queue: string): void }): void {
  feed.on(JOBS_CHANNEL, (queue) => jobs.wake(queue));
}

/** Listens for changes on `feed` and applies them to `targets`. */
export function followChanges(feed: Notifications, targets: ChangeTargets): void {
  feed.on(CHANGES_CHANNEL, (table) => applyChange(targets, table));
  feed.onReconnect(() => applyChange(targets, undefined));
}
