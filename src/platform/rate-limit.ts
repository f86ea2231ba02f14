/**
 * Per-key request limits: a fixed one-minute window per API key, in memory, checked synchronously
 * in the authentication hook. We first used @fastify/rate-limit; its generic machinery (async key
 * generator, allow lists, callback store, a hook of its own) cost about six points of the /getPrice
 * throughput target measured in docs/BENCHMARKS.md, for semantics this class gives in a few lines.
 * Like the plugin's default store, counts are per process: with N API processes behind a load
 * balancer a key gets up to N × the limit (documented in docs/ARCHITECTURE.md).
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
