import type { Environment } from '../platform/db-schema.ts';
import { afterCommit, type Db, type Executor } from '../platform/db.ts';
import * as repo from './webhooks-repo.ts';

/** Bound on the (partner, environment) pairs held: beyond it the cache starts again empty. */
const MAX_SCOPES = 10_000;

interface Scope {
  partnerId: string;
  environment: Environment;
}

const keyOf = (partnerId: string, environment: Environment) => `${partnerId}/${environment}`;

/**
 * The live webhook endpoints of each (partner, environment), held by an API process so that emitting
 * an event — in the transaction of every sale, cancellation and change — costs no query in the common
 * case, and none at all for a partner without endpoints (an empty list is cached like any other).
 *
 * Freshness, as the partner directory's caches: a change made through the endpoint use cases of this
 * process (`WebhookDeps.endpoints`) drops everything at once; a change made by any other process
 * reaches this one by the `webhook_endpoints_changed` trigger (migration 0032) on `parasol_changes`
 * (platform/notifications.ts `followChanges`), which drops everything too, as does the listener's
 * reconnection; `ttlMs` (PARASOL_CACHE_TTL_SECONDS) is the fallback, 0 disables the cache.
 *
 * How it is filled, and why so:
 * - A miss reads through the caller's executor, the emitting transaction: on the embedded database
 *   there is one connection, which that transaction holds — a read through `this.db` would wait for it
 *   forever. The answer serves that emission only.
 * - The cache is filled by a read of its own through `this.db`, outside any transaction: started once
 *   the emitting transaction has committed (`afterCommit`; nothing when it rolls back — what it read
 *   may include endpoints it wrote itself), or at once when the executor is not a transaction. Never
 *   from a transaction's read, whose snapshot may be older than a change notified meanwhile.
 * - A generation counter, bumped by each invalidation: a read that was under way when one arrived is
 *   thrown away, as it may predate the change.
 *
 * A transaction that itself changes endpoints must emit without the cache (a hit would hide its own
 * change): no code path does today — the endpoint use cases emit no event.
 */
export class WebhookEndpointCache {
  private readonly scopes = new Map<string, { endpoints: readonly repo.LiveEndpoint[]; expires: number }>();
  /** The reads under way, per scope (one at a time each). */
  private readonly loading = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();
  private generation = 0;

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /**
   * The enabled, not removed endpoints of these events' (partner, environment) pairs: from the cache,
   * and for the pairs not cached, one query through `trx` (see above).
   */
  async liveEndpointsFor(trx: Executor, events: readonly Scope[]): Promise<repo.LiveEndpoint[]> {
    const now = Date.now();
    const found: repo.LiveEndpoint[] = [];
    const seen = new Set<string>();
    const missing: Scope[] = [];
    for (const { partnerId, environment } of events) {
      const key = keyOf(partnerId, environment);
      if (seen.has(key)) continue;
      seen.add(key);
      const cached = this.scopes.get(key);
      if (cached && cached.expires > now) found.push(...cached.endpoints);
      else missing.push({ partnerId, environment });
    }
    if (missing.length === 0) return found;
    if (this.ttlMs > 0 && !(trx.isTransaction && afterCommit(trx, () => this.load(missing)))) {
      // not in a transaction opened by transaction(): the fill reads apart, now (the answer below
      // does not wait for it; on the embedded database it runs once the connection is free)
      this.load(missing);
    }
    return [...found, ...(await repo.liveEndpointsFor(trx, missing))];
  }

  /** Forgets everything cached, and what reads under way would bring: after any change of endpoints. */
  invalidate(): void {
    this.generation += 1;
    this.scopes.clear();
    this.loading.clear();
  }

  /** Resolves once the reads under way have ended (before the database closes; tests). */
  async settled(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  /** Reads the scopes not being read already through `this.db` and caches them, unless invalidated meanwhile. */
  private load(scopes: readonly Scope[]): void {
    const wanted = scopes.filter((s) => !this.loading.has(keyOf(s.partnerId, s.environment)));
    if (wanted.length === 0) return;
    const generation = this.generation;
    const read: Promise<void> = repo
      .liveEndpointsFor(this.db, wanted)
      .then((rows) => {
        if (generation !== this.generation) return;
        const byScope = new Map<string, repo.LiveEndpoint[]>(
          wanted.map((s) => [keyOf(s.partnerId, s.environment), []]),
        );
        for (const row of rows) byScope.get(keyOf(row.partner_id, row.environment))?.push(row);
        if (this.scopes.size + byScope.size > MAX_SCOPES) this.scopes.clear();
        const expires = Date.now() + this.ttlMs;
        for (const [key, endpoints] of byScope) this.scopes.set(key, { endpoints, expires });
      })
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        this.inFlight.delete(read);
        for (const s of wanted) {
          const key = keyOf(s.partnerId, s.environment);
          if (this.loading.get(key) === read) this.loading.delete(key);
        }
      });
    this.inFlight.add(read);
    for (const s of wanted) this.loading.set(keyOf(s.partnerId, s.environment), read);
  }
}
