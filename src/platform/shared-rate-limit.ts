import type { Redis } from 'ioredis';
import type {
  RateLimiterMemory as MemoryLimiter,
  RateLimiterRedis as RedisLimiter,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { audit } from './audit.ts';
import type { Db, Executor } from './db.ts';
import { DomainError } from './errors.ts';
import { RateLimiter, type RateDecision } from './rate-limit.ts';

/**
 * Rate limits per API key and per operation class, per minute:
 * - `quote`: a price asked at every checkout (/getPrice, the demo's home quote): the highest budget;
 * - `write`: what creates or changes a contract or a policy (subscribe, cancel, record a policy);
 * - `read`: reads and searches.
 * The defaults come from the configuration (PARASOL_RATE_LIMIT_{QUOTE,WRITE,READ}_PER_MINUTE); the
 * operator may set other limits for a partner (`parasol limits rate set`), stored in
 * partner_rate_limits and applied to each of its keys.
 *
 * Counting: per process in memory without REDIS_URL (the embedded default; synchronous, no round
 * trip); in Redis with REDIS_URL (rate-limiter-flexible's RateLimiterRedis), so N API processes
 * share one budget per key. When Redis is unreachable each process counts in memory (the
 * limiter's insurance) until it answers again: limits stay enforced, per process, never fail open
 * nor refuse everything.
 */
export type RateClass = 'quote' | 'write' | 'read';
export const RATE_CLASSES: readonly RateClass[] = ['quote', 'write', 'read'];
export type ClassLimits = Readonly<Record<RateClass, number>>;

/** What the partner API hook asks: counts one request of `bucket` (a key id) in `rateClass`. */
export interface KeyRateLimiter {
  hit(bucket: string, rateClass: RateClass, partnerId?: string): RateDecision | Promise<RateDecision>;
  close?(): Promise<void>;
}

/** Which class a request falls in when its route says nothing: GET and HEAD read, the rest writes. */
export function rateClassOf(method: string, declared: RateClass | undefined): RateClass {
  return declared ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
}

type Overrides = Partial<Record<RateClass, number>>;

/**
 * The per-partner limits set by the operator, all in memory (one small table), reloaded on a change
 * notification (platform/notifications.ts) and every REFRESH_MS as the fallback.
 */
export class PartnerRateLimits {
  static readonly REFRESH_MS = 30_000;
  private overrides = new Map<string, Overrides>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    readonly defaults: ClassLimits,
    private readonly onError?: (error: unknown) => void,
  ) {}

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(
      () => this.refresh().catch((error) => this.onError?.(error)),
      PartnerRateLimits.REFRESH_MS,
    ).unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  async refresh(): Promise<void> {
    const rows = await listPartnerRateLimits(this.db);
    const next = new Map<string, Overrides>();
    for (const row of rows) {
      const o: Overrides = {};
      if (row.quote_per_minute !== null) o.quote = row.quote_per_minute;
      if (row.write_per_minute !== null) o.write = row.write_per_minute;
      if (row.read_per_minute !== null) o.read = row.read_per_minute;
      next.set(row.partner_id, o);
    }
    this.overrides = next;
  }

  limitOf(partnerId: string | undefined, rateClass: RateClass): number {
    return (
      (partnerId !== undefined ? this.overrides.get(partnerId)?.[rateClass] : undefined) ?? this.defaults[rateClass]
    );
  }
}

/** In this process's memory: synchronous (the embedded default, and any deployment without Redis). */
export class MemoryKeyRateLimiter implements KeyRateLimiter {
  private readonly limiters = new Map<string, RateLimiter>();

  constructor(private readonly limits: PartnerRateLimits) {}

  hit(bucket: string, rateClass: RateClass, partnerId?: string): RateDecision {
    const limit = this.limits.limitOf(partnerId, rateClass);
    const id = `${rateClass}:${limit}`;
    let limiter = this.limiters.get(id);
    if (!limiter) this.limiters.set(id, (limiter = new RateLimiter(limit)));
    return limiter.hit(`${rateClass}:${bucket}`);
  }
}

const WINDOW_SECONDS = 60;

/** In Redis, shared by every process using the same REDIS_URL; counts in memory while Redis is unreachable. */
export class RedisKeyRateLimiter implements KeyRateLimiter {
  private readonly limiters = new Map<string, RedisLimiter>();

  private constructor(
    private readonly redis: Redis,
    private readonly limits: PartnerRateLimits,
    private readonly lib: typeof import('rate-limiter-flexible'),
    private readonly prefix: string,
  ) {}

  /** Connects lazily: the first requests are counted in memory if Redis is not ready yet. */
  static async open(
    url: string,
    limits: PartnerRateLimits,
    options: { prefix?: string; onError?: (error: Error) => void } = {},
  ): Promise<RedisKeyRateLimiter> {
    const [{ Redis }, lib] = await Promise.all([import('ioredis'), import('rate-limiter-flexible')]);
    // no offline queue: while Redis is down a command fails at once and the insurance counts it
    const redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      lazyConnect: true,
    });
    let reported = false;
    redis.on('error', (error: Error) => {
      if (!reported) options.onError?.(error); // once per outage, not once per reconnection attempt
      reported = true;
    });
    redis.on('ready', () => (reported = false));
    await redis.connect().catch(() => undefined); // reconnects by itself
    return new RedisKeyRateLimiter(redis, limits, lib, options.prefix ?? 'parasol:rl');
  }

  /** Whether Redis answers now (else each process counts in memory). */
  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  async hit(bucket: string, rateClass: RateClass, partnerId?: string): Promise<RateDecision> {
    const limit = this.limits.limitOf(partnerId, rateClass);
    const limiter = this.limiterFor(rateClass, limit);
    try {
      return decision(limit, await limiter.consume(bucket), false);
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      return decision(limit, rejection as RateLimiterRes, true);
    }
  }

  private limiterFor(rateClass: RateClass, limit: number): RedisLimiter {
    const id = `${rateClass}:${limit}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const insurance: MemoryLimiter = new this.lib.RateLimiterMemory({
        points: limit,
        duration: WINDOW_SECONDS,
        keyPrefix: `${this.prefix}:${rateClass}`,
      });
      limiter = new this.lib.RateLimiterRedis({
        storeClient: this.redis,
        points: limit,
        duration: WINDOW_SECONDS,
        // one key space per class whatever the limit: a changed limit keeps the window's count
        keyPrefix: `${this.prefix}:${rateClass}`,
        rejectIfRedisNotReady: true,
        insuranceLimiter: insurance,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

function decision(limit: number, res: RateLimiterRes, exceeded: boolean): RateDecision {
  return {
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    exceeded,
  };
}

/** The limiter of this process: Redis when `redisUrl` is set, else memory. */
export async function openKeyRateLimiter(
  redisUrl: string | undefined,
  limits: PartnerRateLimits,
  onError?: (error: Error) => void,
): Promise<KeyRateLimiter> {
  return redisUrl ? RedisKeyRateLimiter.open(redisUrl, limits, { onError }) : new MemoryKeyRateLimiter(limits);
}

// --- the partner_rate_limits table (SQL kept here: a platform table of its own) ---

export interface PartnerRateLimitRow {
  partner_id: string;
  quote_per_minute: number | null;
  write_per_minute: number | null;
  read_per_minute: number | null;
  updated_by: string;
  updated_at: Date;
}

export async function listPartnerRateLimits(db: Db): Promise<PartnerRateLimitRow[]> {
  return db.selectFrom('partner_rate_limits').selectAll().execute();
}

/** Sets (or, with null, returns to the default) the given classes of one partner; others unchanged. */
export async function setPartnerRateLimits(
  db: Executor,
  partnerId: string,
  limits: Partial<Record<RateClass, number | null>>,
  actor: string,
): Promise<PartnerRateLimitRow> {
  const values = {
    ...(limits.quote !== undefined ? { quote_per_minute: limits.quote } : {}),
    ...(limits.write !== undefined ? { write_per_minute: limits.write } : {}),
    ...(limits.read !== undefined ? { read_per_minute: limits.read } : {}),
  };
  return db
    .insertInto('partner_rate_limits')
    .values({ partner_id: partnerId, ...values, updated_by: actor, updated_at: new Date() })
    .onConflict((oc) => oc.column('partner_id').doUpdateSet({ ...values, updated_by: actor, updated_at: new Date() }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A limit as the operator types it: a whole number of requests per minute, or `default`. */
export function parseRateLimit(field: RateClass, text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text.trim().toLowerCase() === 'default') return null;
  if (!/^\d{1,8}$/.test(text.trim()) || Number(text) < 1) {
    throw new DomainError('validation_failed', 'The rate limit is not valid.', {
      errors: [
        {
          field: `/${field}`,
          code: 'out_of_range',
          message: 'must be a whole number of requests per minute from 1, or "default"',
        },
      ],
    });
  }
  return Number(text);
}

/** Sets a partner's limits (audited, in one transaction); every process applies them within a second. */
export async function changePartnerRateLimits(
  db: Db,
  actor: string,
  partnerId: string,
  limits: Partial<Record<RateClass, number | null>>,
): Promise<PartnerRateLimitRow> {
  return db.transaction().execute(async (trx) => {
    const row = await setPartnerRateLimits(trx, partnerId, limits, actor);
    await audit(trx, {
      actor,
      partnerId,
      entity: 'partner_rate_limits',
      entityId: partnerId,
      action: 'set',
      data: limits,
    });
    return row;
  });
}
