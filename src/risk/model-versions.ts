import crypto from 'node:crypto';
import { audit } from '../platform/audit.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Db, Executor } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { ENVIRONMENTS } from '../partners/index.ts';
import { ArtifactFormatError, fitArtifact, parseArtifact, serializeArtifact, type RiskArtifact } from './artifact.ts';
import type { FlightObservation } from './history.ts';
import { modelOf } from './model-source.ts';
import * as repo from './models-repo.ts';
import { defaultRiskArtifact } from './models.ts';

/**
 * Model versions: every fit is a new version kept in the database with its artifact and data
 * cut-off; the operator chooses which one prices new quotes in each environment (docs/pricing.md,
 * "Model versions"). A quote and a contract record the version they were priced with.
 */

export type { RiskModelVersionRow } from './models-repo.ts';

/** Environments whose decided flights are real outcomes: the simulator decides the others. */
export const OBSERVED_ENVIRONMENTS: readonly Environment[] = ['production'];

const VERSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function sha256(bytes: Buffer): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/**
 * First start: stores the shipped model (fitted on the shared history) as a version and makes it
 * price every environment that has no version yet. Idempotent; returns the environments activated.
 */
export async function ensureDefaultModel(db: Db): Promise<Environment[]> {
  const artifact = defaultRiskArtifact();
  const bytes = serializeArtifact(artifact);
  return db.transaction().execute(async (tx) => {
    await repo.insertVersion(tx, {
      version: artifact.version,
      artifact: bytes,
      sha256: sha256(bytes),
      dataCutoff: artifact.dataCutoff,
      source: 'history',
      baseVersion: null,
      observations: 0,
      createdBy: 'system',
    });
    const activated = await repo.activateWhereNone(tx, ENVIRONMENTS, artifact.version, 'system');
    for (const environment of activated) {
      await audit(tx, {
        actor: 'system',
        environment,
        entity: 'risk_model',
        entityId: artifact.version,
        action: 'activated',
        data: { previous: null },
      });
    }
    return activated;
  });
}

/** Stores a model fitted from history files (`parasol risk fit … --out FILE`) as a new version. */
export async function importVersion(
  db: Db,
  actor: string,
  bytes: Buffer,
  versionName?: string,
): Promise<repo.RiskModelVersionRow> {
  let artifact: RiskArtifact;
  try {
    artifact = parseArtifact(bytes);
  } catch (error) {
    throw new DomainError('validation_failed', `Not a Parasol risk model artifact: ${(error as Error).message}`, {
      errors: [{ field: '/artifact', code: 'invalid_format', message: 'not a risk model artifact' }],
    });
  }
  if (versionName !== undefined && versionName !== artifact.version) {
    checkVersionName(versionName);
    artifact = { ...artifact, version: versionName };
    bytes = serializeArtifact(artifact);
  }
  checkVersionName(artifact.version);
  if (artifact.legs === 0 || artifact.cells.airline.length === 0) throw fittedOnNoData(artifact.version);
  return store(db, actor, artifact, bytes, { source: 'history', baseVersion: null, observations: 0 });
}

function fittedOnNoData(version: string): DomainError {
  return new DomainError('validation_failed', `Risk model ${version} was fitted on no data: it cannot price.`, {
    errors: [{ field: '/artifact', code: 'invalid', message: 'fitted on no observations' }],
  });
}

function checkVersionName(version: string): void {
  if (!VERSION_NAME.test(version)) {
    throw new DomainError(
      'validation_failed',
      'A version name is 1 to 64 letters, digits, dots, dashes or underscores.',
      {
        errors: [
          { field: '/version', code: 'invalid_format', message: 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
        ],
      },
    );
  }
}

type Origin = { source: 'history' | 'refit'; baseVersion: string | null; observations: number };

async function store(
  db: Db,
  actor: string,
  artifact: RiskArtifact,
  bytes: Buffer,
  origin: Origin,
): Promise<repo.RiskModelVersionRow> {
  return db.transaction().execute(async (tx) => storeIn(tx, actor, artifact, bytes, origin));
}

/** Stores a new version in the caller's transaction (audited); a name taken already is a conflict. */
async function storeIn(
  tx: Executor,
  actor: string,
  artifact: RiskArtifact,
  bytes: Buffer,
  origin: Origin,
  outcomesSha256?: string,
): Promise<repo.RiskModelVersionRow> {
  const inserted = await repo.insertVersion(tx, {
    outcomesSha256,
    version: artifact.version,
    artifact: bytes,
    sha256: sha256(bytes),
    dataCutoff: artifact.dataCutoff,
    createdBy: actor,
    ...origin,
  });
  if (!inserted) throw new DomainError('conflict', `Risk model version ${artifact.version} exists already.`);
  await audit(tx, {
    actor,
    entity: 'risk_model',
    entityId: artifact.version,
    action: 'created',
    data: { ...origin, dataCutoff: artifact.dataCutoff },
  });
  const row = await repo.findVersion(tx, artifact.version);
  return row!;
}

export async function listModelVersions(db: Db): Promise<repo.RiskModelVersionRow[]> {
  return repo.listVersions(db);
}

/** Makes `version` price new quotes in the environments named (audited); quotes already given keep theirs. */
export async function activateModelVersion(
  db: Db,
  actor: string,
  version: string,
  environments: readonly Environment[],
): Promise<void> {
  if (environments.length === 0)
    throw new DomainError('validation_failed', 'Name at least one environment.', {
      errors: [{ field: '/environment', code: 'required', message: `one of ${ENVIRONMENTS.join(', ')} or all` }],
    });
  // A version that cannot price is refused here, not found out by every server's refresh: its stored
  // bytes must be those hashed when it was stored, an artifact of this version, fitted on data. The
  // model is built once (minutes of nothing: the process's cache, which its refresh then reuses).
  const stored = await repo.readStored(db, version);
  if (!stored) throw new DomainError('not_found', `No risk model version ${version}.`);
  try {
    modelOf(version, stored.artifact, stored.sha256);
  } catch (error) {
    if (!(error instanceof ArtifactFormatError)) throw error;
    throw new DomainError('validation_failed', `Risk model version ${version} cannot price: ${error.message}.`, {
      errors: [{ field: '/version', code: 'invalid', message: `${version} cannot price: ${error.message}` }],
    });
  }
  await db.transaction().execute(async (tx) => {
    // one activation at a time: each audits the version it actually replaced
    await repo.lockActivations(tx);
    const previous = await repo.activate(tx, environments, version, actor);
    for (const [environment, was] of previous) {
      await audit(tx, {
        actor,
        environment,
        entity: 'risk_model',
        entityId: version,
        action: 'activated',
        data: { previous: was ?? null },
      });
    }
  });
}

/** The artifact of a stored version (`parasol risk export`, the model source). */
export async function readModelArtifact(db: Db, version: string): Promise<Buffer> {
  const bytes = await repo.readArtifact(db, version);
  if (!bytes) throw new DomainError('not_found', `No risk model version ${version}.`);
  return bytes;
}

export type RefitOutcome =
  | { kind: 'created'; version: string; baseVersion: string; observations: number; dataCutoff: string }
  | {
      kind: 'unchanged';
      reason: 'no_history_version' | 'no_new_observations';
      baseVersion?: string;
      observations: number;
    };

/**
 * The fingerprint of a refit's outcomes: the SHA-256 of its observations, one canonical line each,
 * sorted (whatever order the database returns them in).
 */
export function outcomesFingerprint(observations: readonly FlightObservation[]): string {
  const lines = observations
    .map((o) =>
      JSON.stringify([
        o.flightDate,
        o.airline,
        o.flightNumber,
        o.origin,
        o.dest,
        o.crsDepTime,
        o.cancelled,
        o.diverted,
        o.arrDelay,
      ]),
    )
    .sort();
  return crypto.createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** Whether the newest refit of a base took exactly these outcomes (by count for a refit older than migration 0090). */
function sameOutcomes(
  last: { observations: number; outcomes_sha256: string | null } | undefined,
  count: number,
  fingerprint: string,
): boolean {
  if (!last) return false;
  return last.outcomes_sha256 === null ? last.observations === count : last.outcomes_sha256 === fingerprint;
}

/** The most refits of one base a minute can name (`-002` to `-999` after the first): see `refitVersionName`. */
export const REFITS_PER_MINUTE = 999;

/**
 * A refit's version name: `<base>.r<UTC yyyyMMddHHmm>`, and for the `n`th refit of that base in the
 * same minute `-n` after it, zero-padded to three digits (`-002`, `-003`… `-999`), so that names sort
 * by time whatever the count (`-010` after `-009`; refits before this scheme were named `-2`… `-9`:
 * names of other minutes, which they still sort with, by the stamp). A refit is a fit of every decided
 * flight, seconds at least: a minute never holds 999 of one base; past it the refit is refused (a
 * RangeError) rather than named out of order. At most 64 characters: a base longer than 46 is cut to
 * its first 46, never the stamp or the suffix, the same cut for every refit of it (room kept for
 * `-999`) so that its names keep sorting by time (a name a cut base shares with another base's refit
 * is taken already: the next `-n`).
 */
export function refitVersionName(baseVersion: string, now: Date, n = 1): string {
  if (!Number.isInteger(n) || n < 1 || n > REFITS_PER_MINUTE)
    throw new RangeError(`a refit is the 1st to ${REFITS_PER_MINUTE}th of its base in a minute, got ${n}`);
  const stamp = `.r${now.toISOString().replace(/[-:]/g, '').slice(0, 13).replace('T', '')}`;
  const suffix = n > 1 ? `-${String(n).padStart(3, '0')}` : '';
  return `${baseVersion.slice(0, 64 - stamp.length - 4)}${stamp}${suffix}`;
}

/**
 * Refit from the platform's own outcomes: the newest history version's statistics plus every
 * production flight the platform decided (each once: one watch per flight, with its decision as it
 * stands), as a new version named `<base>.r<UTC yyyyMMddHHmm>` (`refitVersionName`). Nothing is
 * activated: the operator compares the new version and activates it. When the outcomes are those of
 * the last refit of the same base (the same flights, the same decisions: their fingerprint), nothing
 * is created. Safe to run twice at once or again after a crash: the fit is in memory, the version is
 * stored in one transaction that first takes the base's lock and checks again that no refit took
 * these outcomes. Under that lock the name is chosen: a refit with other outcomes stored in the same
 * minute took it already, so this one is `-002` (then `-003`…), its artifact renamed to match.
 */
export async function refitFromOutcomes(db: Db, actor: string, now: Date): Promise<RefitOutcome> {
  const baseVersion = await repo.latestHistoryVersion(db);
  if (!baseVersion) return { kind: 'unchanged', reason: 'no_history_version', observations: 0 };
  const observations = await repo.decidedFlights(db, OBSERVED_ENVIRONMENTS);
  const fingerprint = outcomesFingerprint(observations);
  const unchanged: RefitOutcome = {
    kind: 'unchanged',
    reason: 'no_new_observations',
    baseVersion,
    observations: observations.length,
  };
  if (
    observations.length === 0 ||
    sameOutcomes(await repo.latestRefit(db, baseVersion), observations.length, fingerprint)
  )
    return unchanged;
  const base = parseArtifact((await repo.readArtifact(db, baseVersion))!);
  const fitted = await fitArtifact(observations, { version: refitVersionName(baseVersion, now), base });
  const fittedBytes = serializeArtifact(fitted);
  const row = await db.transaction().execute(async (tx) => {
    await repo.lockBase(tx, baseVersion);
    // another refit (a second worker, the CLI) may have stored these outcomes while this one fitted
    if (sameOutcomes(await repo.latestRefit(tx, baseVersion), observations.length, fingerprint)) return undefined;
    // one of other outcomes may have taken this minute's name: the next free one, chosen under the lock
    let n = 1;
    while (await repo.versionExists(tx, refitVersionName(baseVersion, now, n))) n += 1;
    const artifact = n === 1 ? fitted : { ...fitted, version: refitVersionName(baseVersion, now, n) };
    const bytes = n === 1 ? fittedBytes : serializeArtifact(artifact);
    return storeIn(
      tx,
      actor,
      artifact,
      bytes,
      { source: 'refit', baseVersion, observations: observations.length },
      fingerprint,
    );
  });
  if (!row) return unchanged;
  return {
    kind: 'created',
    version: row.version,
    baseVersion,
    observations: observations.length,
    dataCutoff: row.dataCutoff,
  };
}
