import { LRUCache } from 'lru-cache';
import type { KeyDirectory, KeyEntry } from '../platform/auth.ts';
import type { Db } from '../platform/db.ts';
import type { FieldError } from '../platform/errors.ts';
import { agreementAt } from './amendments.ts';
import { API_KEY_FORMAT, hashApiKey } from './api-keys.ts';
import type { Agreement, ApiName, Configuration, DocumentSet } from './model.ts';
import * as repo from './partners-repo.ts';
import { checkTerms } from './terms.ts';

export interface PartnerTerms {
  /**
   * Every version of the agreement, oldest first, with their effective instants (or the draft alone):
   * the version in force is chosen at the instant of each quote (`termsAt`), so an amendment takes
   * effect at its effective instant in every process without a notification.
   */
  versions: Agreement[];
  configuration: Configuration | undefined;
  /** The agreement's current compliance pack (documents.ts). */
  documents: DocumentSet | undefined;
}

/** The partner's terms at an instant: the agreement version in force and what of the configuration it rejects. */
export interface TermsInForce {
  agreement: Agreement | undefined;
  configuration: Configuration | undefined;
  documents: DocumentSet | undefined;
  /** The configuration checked against the version in force (empty when acceptable, or nothing to check). */
  violations: FieldError[];
}

/** The terms check of a configuration against a version, once per pair (the quote path asks it each time). */
const checked = new WeakMap<Agreement, WeakMap<Configuration, FieldError[]>>();

export function termsAt(terms: PartnerTerms, at: Date): TermsInForce {
  const agreement = agreementAt(terms.versions, at);
  const { configuration, documents } = terms;
  let violations: FieldError[] = [];
  if (agreement && configuration) {
    let byConfiguration = checked.get(agreement);
    if (!byConfiguration) checked.set(agreement, (byConfiguration = new WeakMap()));
    violations = byConfiguration.get(configuration) ?? checkTerms(agreement, configuration);
    if (agreement.currency !== configuration.currency)
      violations = [
        ...violations,
        { field: '/currency', code: 'not_allowed', message: `must be ${agreement.currency}` },
      ];
    byConfiguration.set(configuration, violations);
  }
  return { agreement, configuration, documents, violations };
}

/** Bound on cached known keys (only keys found in the database are cached here). */
const MAX_CACHED = 10_000;
/** Bound on the negative cache of unknown keys (by hash): an LRU, so a flood evicts only its own entries. */
const MAX_UNKNOWN = 20_000;

interface Cached<T> {
  value: T;
  expires: number;
}

/**
 * Resolves API keys and partner terms with a short in-memory cache, so the hot path (a quote)
 * costs no database round trip. Changes made in this process invalidate the cache at once;
 * changes made by another process (the CLI, another API instance) show within `ttlMs`.
 * Last-used times are gathered in memory and written every few seconds, never on the request path.
 *
 * Unknown keys are cheap: a presented key that cannot be a Parasol key (`API_KEY_FORMAT`) is refused
 * without hashing or a query; a key the database does not know is remembered by its SHA-256 in a
 * bounded LRU negative cache for `ttlMs`, apart from the known keys, so a flood of random keys
 * neither evicts partners' cached keys nor repeats a lookup for a key already refused; concurrent
 * lookups of one key share one query. The negative cache is emptied with the rest by `invalidate()`
 * (a key created in this process works at once); a key created by another process (the CLI) is
 * accepted within `ttlMs` by a process that refused it just before.
 */
export class PartnerDirectory implements KeyDirectory<ApiName> {
  private readonly keys = new Map<string, Cached<KeyEntry<ApiName>>>();
  private readonly unknown: LRUCache<string, true> | undefined;
  /** Keys found in the database at least once by this process: not an authority (they are looked up
   * as any other when not cached), only exempt from `onMiss` — the per-address limit. */
  private readonly known = new LRUCache<string, true>({ max: MAX_CACHED });
  private readonly loading = new Map<string, Promise<KeyEntry<ApiName> | undefined>>();
  /** Bumped by invalidate(): a lookup started before it must not cache its (stale) answer. */
  private generation = 0;
  private readonly terms = new Map<string, Cached<PartnerTerms>>();
  private readonly used = new Map<string, Date>();
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
  ) {
    this.unknown = ttlMs > 0 ? new LRUCache<string, true>({ max: MAX_UNKNOWN, ttl: ttlMs }) : undefined;
  }

  /**
   * Resolves a key; answers synchronously from the cache when it can (the common case). The cache
   * of known keys is keyed by the presented key itself — it is in this process's memory with every
   * request anyway — so a cached key costs no hashing; the database only ever sees the SHA-256.
   * `onMiss` runs when the key is not cached and was never found by this process, before anything
   * else is done for it.
   */
  authenticate(
    plaintext: string,
    onMiss?: () => void,
  ): KeyEntry<ApiName> | undefined | Promise<KeyEntry<ApiName> | undefined> {
    const now = Date.now();
    const cached = this.keys.get(plaintext);
    if (cached && cached.expires > now) return this.used_(cached.value, now);
    if (!this.known.has(plaintext)) onMiss?.(); // e.g. the per-address limit on failed authentications: may throw
    if (!API_KEY_FORMAT.test(plaintext)) return undefined;
    const hash = hashApiKey(plaintext);
    if (this.unknown?.has(hash)) return undefined;
    let pending = this.loading.get(hash);
    if (!pending) {
      const generation = this.generation;
      const loading: Promise<KeyEntry<ApiName> | undefined> = this.loadKey(hash)
        .then((value) => {
          if (value) this.known.set(plaintext, true);
          if (this.ttlMs > 0 && generation === this.generation) {
            if (value) {
              if (this.keys.size >= MAX_CACHED) this.keys.clear();
              this.keys.set(plaintext, { value, expires: Date.now() + this.ttlMs });
            } else this.unknown?.set(hash, true);
          }
          return value;
        })
        // invalidate() may have dropped it and a later lookup taken its place: that one stays
        .finally(() => {
          if (this.loading.get(hash) === loading) this.loading.delete(hash);
        });
      this.loading.set(hash, (pending = loading));
    }
    return pending.then((value) => this.used_(value, now));
  }

  private used_(entry: KeyEntry<ApiName> | undefined, now: number): KeyEntry<ApiName> | undefined {
    if (entry && !entry.revoked) this.used.set(entry.caller.keyId, new Date(now));
    return entry;
  }

  private async loadKey(hash: string): Promise<KeyEntry<ApiName> | undefined> {
    const row = await this.db
      .selectFrom('api_keys as k')
      .innerJoin('partners as p', 'p.id', 'k.partner_id')
      .leftJoin('agreements as a', 'a.partner_id', 'k.partner_id')
      .select(['k.id', 'k.partner_id', 'k.environment', 'k.revoked_at', 'p.name', 'a.status'])
      .where('k.key_hash', '=', hash)
      .executeTakeFirst();
    if (!row) return undefined;
    const apis = await repo.listSubscriptions(this.db, row.partner_id);
    return {
      caller: {
        partnerId: row.partner_id,
        partnerName: row.name,
        environment: row.environment,
        keyId: row.id,
        actor: `key:${row.id}`,
      },
      revoked: row.revoked_at !== null,
      apis: new Set(apis),
      agreementSigned: row.status === 'signed',
    };
  }

  /** The cached terms of a partner, if fresh: lets the hot path skip a promise. */
  cachedTerms(partnerId: string): PartnerTerms | undefined {
    const cached = this.terms.get(partnerId);
    return cached && cached.expires > Date.now() ? cached.value : undefined;
  }

  /** The agreement's versions and current configuration of a partner (cached like keys). */
  async partnerTerms(partnerId: string): Promise<PartnerTerms> {
    const now = Date.now();
    const cached = this.terms.get(partnerId);
    if (cached && cached.expires > now) return cached.value;
    const generation = this.generation;
    const [versions, configuration, documents] = await Promise.all([
      repo.listAgreementVersions(this.db, partnerId),
      repo.findCurrentConfiguration(this.db, partnerId),
      repo.findDocuments(this.db, partnerId),
    ]);
    const value = { versions, configuration, documents };
    // read before an invalidate() that came meanwhile: answered, never cached (it may be stale)
    if (this.ttlMs > 0 && generation === this.generation)
      this.terms.set(partnerId, { value, expires: now + this.ttlMs });
    return value;
  }

  /**
   * Forget everything cached: call after changing keys, subscriptions, agreements or configuration.
   * Lookups under way are not joined by later ones (a key revoked meanwhile is read again) and cache
   * nothing.
   */
  invalidate(): void {
    this.generation += 1;
    this.loading.clear();
    this.keys.clear();
    this.unknown?.clear();
    this.terms.clear();
  }

  /** Writes the last-used times gathered since the previous flush. */
  async flushUsage(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.used.size === 0) return;
    const batch = new Map(this.used);
    this.used.clear();
    this.flushing = repo.touchApiKeys(this.db, batch).finally(() => (this.flushing = undefined));
    return this.flushing;
  }
}
