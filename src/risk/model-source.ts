import crypto from 'node:crypto';
import type { RiskModel, RiskModelSource } from '../flight/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Db } from '../platform/db.ts';
import { parseArtifact } from './artifact.ts';
import * as repo from './models-repo.ts';
import { riskModelFromArtifact } from './models.ts';

/**
 * The models that price quotes, from the database: the version active in each environment and every
 * version a quote still in force may name. Models live in memory (the request path looks them up,
 * never builds one); `refresh()` reloads the activations, runs every `refreshMs` in the background
 * and at once after an activation in this process. A version is built once per process whatever the
 * number of apps (tests build many): the cache below is keyed by version and artifact hash.
 */
export class DbRiskModelSource implements RiskModelSource {
  private active_ = new Map<Environment, RiskModel>();
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly db: Db,
    private readonly fallback: RiskModel,
  ) {}

  /** Loads the active versions; `refreshMs` > 0 keeps them fresh in the background. */
  static async open(
    db: Db,
    options: { fallback: RiskModel; refreshMs?: number; onError?: (error: Error) => void },
  ): Promise<DbRiskModelSource> {
    const source = new DbRiskModelSource(db, options.fallback);
    await source.refresh();
    if (options.refreshMs && options.refreshMs > 0) {
      source.timer = setInterval(() => {
        source.refresh().catch((error: Error) => options.onError?.(error));
      }, options.refreshMs);
      source.timer.unref();
    }
    return source;
  }

  /** The model pricing new quotes in `environment` (the fallback until a version is activated). */
  active(environment: Environment): RiskModel {
    return this.active_.get(environment) ?? this.fallback;
  }

  /** A version already loaded by this process (active now or earlier), or the fallback's. */
  get(version: string): RiskModel | undefined {
    if (version === this.fallback.version) return this.fallback;
    return loaded.get(version)?.model;
  }

  /** Loads any version not in memory yet; for a quote naming a version this process never loaded. */
  async load(version: string): Promise<RiskModel | undefined> {
    const known = this.get(version);
    if (known) return known;
    const bytes = await repo.readArtifact(this.db, version);
    return bytes ? modelOf(version, bytes) : undefined;
  }

  async refresh(): Promise<void> {
    const versions = await repo.activeVersions(this.db);
    const next = new Map<Environment, RiskModel>();
    for (const [environment, version] of versions) {
      const model = this.get(version) ?? (await this.load(version));
      if (model) next.set(environment, model);
    }
    this.active_ = next;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Built models by version, shared by every source of the process (a version's bytes never change). */
const loaded = new Map<string, { sha: string; model: RiskModel }>();

function modelOf(version: string, bytes: Buffer): RiskModel {
  const sha = crypto.createHash('sha256').update(bytes).digest('hex');
  const cached = loaded.get(version);
  if (cached && cached.sha === sha) return cached.model;
  const model = riskModelFromArtifact(parseArtifact(bytes));
  loaded.set(version, { sha, model });
  return model;
}
