import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
/**
 * Per-key request limits: a fixed one-minute window per API key, in memory, checked synchronously
 * in the authentication hook. We first used @fastify/rate-limit; its generic machinery (async key
 * generator, allow lists, callback store, a hook of its own) cost about six points of the /getPrice
 * throughput target measured in docs/BENCHMARKS.md, for semantics this class gives in a few lines.
 * Like the plugin's default store, counts are per process: with N API processes behind a load
 * balancer a key gets up to N × the limit (documented in docs/DECISIONS.md).
 */
export interface RateDecision {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  exceeded: boolean;
}

interface Window {
  startedAt: number;
  count: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  hit(key: string, now = Date.now()): RateDecision {
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
      this.sweep(now);
    }
    window.count += 1;
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - window.count),
      resetSeconds: Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000)),
      exceeded: window.count > this.limit,
    };
  }

  /** Drops finished windows, at most once per window length, so idle keys do not accumulate. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (now - window.startedAt >= this.windowMs) this.windows.delete(key);
  }
}

/**
 * Failed authentications per client address: a fixed one-minute window per address, answering
 * "blocked" once `limit` failures were counted in it, so a flood of unknown keys from one address
 * costs a map lookup per request instead of a database lookup. Addresses are counted in an LRU of
 * bounded size (`lru-cache`), so a flood from very many addresses cannot grow memory without bound;
 * IPv6 addresses are counted per /64, the block one subscriber usually holds.
 */
export class FailedAuthLimiter {
  private readonly windows: LRUCache<string, Window>;

  constructor(
    readonly limit: number,
    private readonly windowMs = 60_000,
    maxAddresses = 50_000,
  ) {
    this.windows = new LRUCache({ max: maxAddresses });
  }

  /** Seconds until `address` may try again, or 0 when it is not blocked. */
  blockedFor(address: string, now = Date.now()): number {
    const window = this.windows.get(addressBucket(address));
    if (!window || now - window.startedAt >= this.windowMs || window.count < this.limit) return 0;
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000));
  }

  /** Counts one failed authentication from `address`. */
  fail(address: string, now = Date.now()): void {
    const bucket = addressBucket(address);
    const window = this.windows.get(bucket);
    if (!window || now - window.startedAt >= this.windowMs) this.windows.set(bucket, { startedAt: now, count: 1 });
    else window.count += 1;
  }
}

/** The unit an address is counted in: itself for IPv4, its /64 for IPv6 (IPv4-mapped read as IPv4). */
export function addressBucket(address: string): string {
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  try {
    const parts = ipaddr.IPv6.parse(address.replace(/%.*$/, '')).parts;
    return `${parts
      .slice(0, 4)
      .map((p) => p.toString(16))
      .join(':')}::/64`;
  } catch {
    return address;
  }
}
