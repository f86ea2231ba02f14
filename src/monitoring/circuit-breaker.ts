/**
 * A circuit breaker per flight-data provider, so that an outage costs one probe per cool-down
 * instead of a call per watch: after `failureThreshold` failures in a row it opens (no call is
 * made; checks are rescheduled to when it may close), after `coolDownMs` it lets ONE probe through
 * (half-open): a success closes it, a failure opens it again.
 *
 * State is in-process memory: each worker process has its own breaker per provider, so with N
 * workers an outage costs up to N probes per cool-down. Nothing is lost with it: the watches and
 * their next checks are rows in the database.
 */

export interface CircuitBreakerOptions {
  /** Failures in a row that open the circuit. Default 5. */
  failureThreshold?: number;
  /** How long it stays open before a probe. Default 2 min. */
  coolDownMs?: number;
  /** A probe that never reported back (its job died) no longer blocks others after this. Default 2 min. */
  probeTimeoutMs?: number;
}

export type CircuitState = 'closed' | 'open' | 'half_open';

export type Permit = { allowed: true; probe: boolean } | { allowed: false; retryAt: Date };

export class CircuitBreaker {
  private readonly threshold: number;
  private readonly coolDownMs: number;
  private readonly probeTimeoutMs: number;
  private failures = 0;
  private openedUntil = 0;
  private probeStartedAt: number | undefined;
  private current: CircuitState = 'closed';

  constructor(options: CircuitBreakerOptions = {}) {
    this.threshold = options.failureThreshold ?? 5;
    this.coolDownMs = options.coolDownMs ?? 120_000;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 120_000;
  }

  get state(): CircuitState {
    return this.current;
  }

  /** Whether a call may be made at `now`; when not, when to try again. */
  acquire(now: Date): Permit {
    const t = now.getTime();
    if (this.current === 'closed') return { allowed: true, probe: false };
    if (this.current === 'open') {
      if (t < this.openedUntil) return { allowed: false, retryAt: new Date(this.openedUntil) };
      this.current = 'half_open';
      this.probeStartedAt = t;
      return { allowed: true, probe: true };
    }
    // half-open: one probe at a time
    if (this.probeStartedAt !== undefined && t - this.probeStartedAt < this.probeTimeoutMs) {
      return { allowed: false, retryAt: new Date(this.probeStartedAt + Math.min(this.coolDownMs, this.probeTimeoutMs)) };
    }
    this.probeStartedAt = t;
    return { allowed: true, probe: true };
  }

  /** The provider answered (a flight, or "no such flight"). */
  success(): void {
    this.failures = 0;
    this.current = 'closed';
    this.probeStartedAt = undefined;
  }

  /** The provider failed (error, timeout, rejection). */
  failure(now: Date): void {
    this.failures += 1;
    if (this.current === 'half_open' || this.failures >= this.threshold) {
      this.current = 'open';
      this.openedUntil = now.getTime() + this.coolDownMs;
      this.probeStartedAt = undefined;
    }
  }
}
