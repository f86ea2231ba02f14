import crypto from 'node:crypto';
import type { RiskModel, RiskModelSource } from '../flight/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Db } from '../platform/db.ts';
import { ArtifactFormatError, parseArtifact } from './artifact.ts';
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
  /** Counts the refreshes started: the latest one alone sets `active_`. */
  private generation = 0;

  private constructor(
    private readonly db: Db,
    private readonly fallback: RiskModel,
    private readonly options: SourceOptions,
  ) {}

  /**
   * Loads the active versions; `refreshMs` > 0 keeps them fresh in the background. A version that
   * cannot be built does not stop the process starting: the error goes to `onError` and its
   * environment prices with `shipped` (the version stored at first start), else the fallback.
   */
  static async open(
    db: Db,
    options: SourceOptions & { fallback: RiskModel; refreshMs?: number; onError?: (error: Error) => void },
  ): Promise<DbRiskModelSource> {
    const source = new DbRiskModelSource(db, options.fallback, options);
    await source.refresh().catch((error: Error) => options.onError?.(error));
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
    const stored = await repo.readStored(this.db, version);
    return stored ? modelOf(version, stored.artifact, stored.sha256) : undefined;
  }

  /**
   * Reloads which version is active where. Refreshes overlap (the timer, a change notified, an
   * activation in this process): only the latest one started sets the models, so one that read the
   * activations earlier and finished later (it had a version to build) never puts a replaced version
   * back. A version that cannot be built leaves its environment on the model it had (the shipped one
   * in a process starting) and the refresh rejects with the first such error once the others are set
   * (a refresh overtaken by a later one sets nothing and rejects all the same).
   */
  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const versions = await repo.activeVersions(this.db);
    const next = new Map<Environment, RiskModel>();
    const failures: Error[] = [];
    for (const [environment, version] of versions) {
      try {
        const model = this.get(version) ?? (await this.load(version));
        if (model) next.set(environment, model);
        else failures.push(new Error(`risk model version ${version} (active in ${environment}) is not stored`));
      } catch (error) {
        failures.push(
          new Error(`risk model version ${version} (active in ${environment}): ${(error as Error).message}`),
        );
      }
      if (!next.has(environment)) {
        const kept = this.active_.get(environment) ?? (await this.shipped());
        if (kept) next.set(environment, kept);
      }
    }
    await this.options.beforeApply?.();
    // a later refresh read newer activations: it sets the models; the failures read here are reported still
    if (generation === this.generation) this.active_ = next;
    if (failures.length > 0) throw failures[0]!;
  }

  /** The shipped version's model, for an environment whose version fails before it had one (a start). */
  private async shipped(): Promise<RiskModel | undefined> {
    const version = this.options.shipped;
    if (version === undefined) return undefined;
    try {
      return this.get(version) ?? (await this.load(version));
    } catch {
      return undefined; // the fallback then
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

interface SourceOptions {
  /** The version an environment whose active version cannot be built prices with, when it had no model yet. */
  shipped?: string;
  /** Tests: runs in each refresh once its models are built, before they are set (a test holds one there). */
  beforeApply?: () => Promise<void> | void;
}

/** Built models by version, shared by every source of the process (a version's bytes never change). */
const loaded = new Map<string, { sha: string; model: RiskModel }>();

/**
 * The model of a stored version, built once per process (the cache is keyed by version and bytes).
 * Throws an ArtifactFormatError for bytes that are not those stored (`sha256`, the hash recorded with
 * them), not an artifact, an artifact of another version, or one fitted on no data — a version that
 * must not price (activateModelVersion refuses it first).
 */
export function modelOf(version: string, bytes: Buffer, sha256?: string): RiskModel {
  const sha = crypto.createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== undefined && sha !== sha256)
    throw new ArtifactFormatError(`the stored bytes of ${version} do not match their SHA-256 (corrupt)`);
  const cached = loaded.get(version);
  if (cached && cached.sha === sha) return cached.model;
  const artifact = parseArtifact(bytes);
  if (artifact.version !== version)
    throw new ArtifactFormatError(`the artifact stored as ${version} names version ${artifact.version}`);
  if (artifact.legs === 0 || artifact.cells.airline.length === 0)
    throw new ArtifactFormatError(`${version} was fitted on no data`);
  let model: RiskModel;
  try {
    model = riskModelFromArtifact(artifact);
  } catch (error) {
    // figures out of range in an artifact that parsed (a hand-edited file): it cannot price either
    if (!(error instanceof RangeError)) throw error;
    throw new ArtifactFormatError(`${version} cannot be built: ${error.message}`);
  }
  loaded.set(version, { sha, model });
  return model;
}
