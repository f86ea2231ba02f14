import { sql } from 'kysely';
import type { Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import type { FlightObservation } from './history.ts';

/** SQL for risk model versions, their activation per environment, and the platform's own outcomes. */

export interface RiskModelVersionRow {
  version: string;
  sha256: string;
  dataCutoff: string;
  source: 'history' | 'refit';
  baseVersion: string | null;
  observations: number;
  createdBy: string;
  createdAt: Date;
  /** Environments this version prices today. */
  activeIn: Environment[];
}

/** A version to store: its row's facts (what the database sets itself left out) and its artifact. */
export type NewRiskModelVersion = Omit<RiskModelVersionRow, 'createdAt' | 'activeIn'> & {
  artifact: Buffer;
  /** A refit's fingerprint of the outcomes it added (migration 0090). */
  outcomesSha256?: string | undefined;
};

/** Inserts a version; false when the version name exists already (nothing changed). */
export async function insertVersion(db: Executor, v: NewRiskModelVersion): Promise<boolean> {
  const inserted = await db
    .insertInto('risk_models')
    .values({
      version: v.version,
      artifact: v.artifact,
      sha256: v.sha256,
      data_cutoff: v.dataCutoff,
      source: v.source,
      base_version: v.baseVersion,
      observations: v.observations,
      outcomes_sha256: v.outcomesSha256 ?? null,
      created_by: v.createdBy,
    })
    .onConflict((oc) => oc.column('version').doNothing())
    .returning('version')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function listVersions(db: Executor): Promise<RiskModelVersionRow[]> {
  const rows = await db
    .selectFrom('risk_models as m')
    .leftJoin('risk_model_activations as a', 'a.version', 'm.version')
    .select([
      'm.version',
      'm.sha256',
      'm.data_cutoff',
      'm.source',
      'm.base_version',
      'm.observations',
      'm.created_by',
      'm.created_at',
      'a.environment',
    ])
    .orderBy('m.created_at', 'desc')
    .orderBy('m.version', 'desc')
    .execute();
  const byVersion = new Map<string, RiskModelVersionRow>();
  for (const r of rows) {
    let row = byVersion.get(r.version);
    if (!row) {
      row = {
        version: r.version,
        sha256: r.sha256,
        dataCutoff: r.data_cutoff,
        source: r.source,
        baseVersion: r.base_version,
        observations: r.observations,
        createdBy: r.created_by,
        createdAt: r.created_at,
        activeIn: [],
      };
      byVersion.set(r.version, row);
    }
    if (r.environment) row.activeIn.push(r.environment);
  }
  return [...byVersion.values()];
}

/** Whether a version of that name is stored. */
export async function versionExists(db: Executor, version: string): Promise<boolean> {
  const row = await db.selectFrom('risk_models').select('version').where('version', '=', version).executeTakeFirst();
  return row !== undefined;
}

export async function findVersion(db: Executor, version: string): Promise<RiskModelVersionRow | undefined> {
  return (await listVersions(db)).find((v) => v.version === version);
}

/** The artifact bytes of one version. */
export async function readArtifact(db: Executor, version: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('risk_models').select('artifact').where('version', '=', version).executeTakeFirst();
  return row ? Buffer.from(row.artifact) : undefined;
}

/** The artifact bytes of one version with the SHA-256 recorded when it was stored. */
export async function readStored(
  db: Executor,
  version: string,
): Promise<{ artifact: Buffer; sha256: string } | undefined> {
  const row = await db
    .selectFrom('risk_models')
    .select(['artifact', 'sha256'])
    .where('version', '=', version)
    .executeTakeFirst();
  return row ? { artifact: Buffer.from(row.artifact), sha256: row.sha256 } : undefined;
}

/**
 * Serialises the activations until the transaction ends: two operators activating at once each read
 * the version they replace after the other's change (the audit's `previous` is the one replaced).
 * Readers (the model sources) are not blocked.
 */
export async function lockActivations(db: Executor): Promise<void> {
  await sql`LOCK TABLE risk_model_activations IN SHARE ROW EXCLUSIVE MODE`.execute(db);
}

/**
 * Serialises the refits of one base version until the transaction ends (the base's row, locked). NO KEY
 * UPDATE: two refits still wait for each other, but not a row referencing the base (its key-share lock).
 */
export async function lockBase(db: Executor, version: string): Promise<void> {
  await db.selectFrom('risk_models').select('version').where('version', '=', version).forNoKeyUpdate().execute();
}

/** The version each environment prices with (environments never activated are absent). */
export async function activeVersions(db: Executor): Promise<Map<Environment, string>> {
  const rows = await db.selectFrom('risk_model_activations').select(['environment', 'version']).execute();
  return new Map(rows.map((r) => [r.environment, r.version]));
}

/** Sets the version of each environment named; returns the previous ones. */
export async function activate(
  db: Executor,
  environments: readonly Environment[],
  version: string,
  actor: string,
): Promise<Map<Environment, string | undefined>> {
  const before = await activeVersions(db);
  for (const environment of environments) {
    await db
      .insertInto('risk_model_activations')
      .values({ environment, version, activated_by: actor })
      .onConflict((oc) =>
        oc.column('environment').doUpdateSet({ version, activated_by: actor, activated_at: sql`now()` }),
      )
      .execute();
  }
  return new Map(environments.map((e) => [e, before.get(e)]));
}

/** Activates `version` only where no version is active yet (first start). */
export async function activateWhereNone(
  db: Executor,
  environments: readonly Environment[],
  version: string,
  actor: string,
): Promise<Environment[]> {
  const done: Environment[] = [];
  for (const environment of environments) {
    const row = await db
      .insertInto('risk_model_activations')
      .values({ environment, version, activated_by: actor })
      .onConflict((oc) => oc.column('environment').doNothing())
      .returning('environment')
      .executeTakeFirst();
    if (row) done.push(environment);
  }
  return done;
}

/** The newest version fitted from history files (the base of every refit). */
export async function latestHistoryVersion(db: Executor): Promise<string | undefined> {
  const row = await db
    .selectFrom('risk_models')
    .select('version')
    .where('source', '=', 'history')
    .orderBy('created_at', 'desc')
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.version;
}

/** The newest refit of a base version, with how many observations it took and their fingerprint. */
export async function latestRefit(
  db: Executor,
  baseVersion: string,
): Promise<{ version: string; observations: number; outcomes_sha256: string | null } | undefined> {
  return db
    .selectFrom('risk_models')
    .select(['version', 'observations', 'outcomes_sha256'])
    .where('source', '=', 'refit')
    .where('base_version', '=', baseVersion)
    .orderBy('created_at', 'desc')
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * The platform's own outcomes: every flight it watched and decided in the given environments, as a
 * history observation (one per flight, whatever the number of contracts on it). Only decided watches
 * count: a flight in manual review or closed without a decision says nothing. The scheduled local
 * departure time comes from the insured legs (the partner sent it), the delay from the decision:
 * `on_time` means arrived at the gate no later than scheduled (0 minutes), `delayed` carries its
 * minutes, `cancelled` and `diverted` their flags.
 */
export async function decidedFlights(
  db: Executor,
  environments: readonly Environment[],
  after?: Date,
): Promise<FlightObservation[]> {
  if (environments.length === 0) return [];
  let query = db
    .selectFrom('flight_watches as w')
    .select([
      'w.flight_number',
      'w.departure_date',
      'w.origin',
      'w.destination',
      'w.decision',
      'w.decided_at',
      sql<
        string | null
      >`(SELECT min(l.departure_local) FROM contract_legs l WHERE l.environment = w.environment AND l.monitored_flight_number = w.flight_number AND l.departure_date = w.departure_date)`.as(
        'departure_local',
      ),
    ])
    .where('w.state', '=', 'decided')
    .where('w.environment', 'in', environments);
  if (after) query = query.where('w.decided_at', '>', after);
  const rows = await query.orderBy('w.departure_date').orderBy('w.flight_number').execute();
  const observations: FlightObservation[] = [];
  for (const r of rows) {
    const observation = toObservation(
      r.flight_number,
      r.departure_date,
      r.origin,
      r.destination,
      r.decision,
      r.departure_local,
    );
    if (observation) observations.push(observation);
  }
  return observations;
}

const DESIGNATOR = /^([A-Z0-9]{2})(\d{1,4})[A-Z]?$/;

/** One decided watch as a history observation; undefined when the decision is not an outcome. */
export function toObservation(
  flightNumber: string,
  departureDate: string,
  origin: string,
  destination: string,
  decision: unknown,
  departureLocal: string | null,
): FlightObservation | undefined {
  const designator = DESIGNATOR.exec(flightNumber);
  const kind = (decision as { kind?: unknown } | null)?.kind;
  if (!designator || typeof kind !== 'string') return undefined;
  const hhmm = departureLocal ? /T(\d\d):(\d\d)/.exec(departureLocal) : null;
  if (!hhmm) return undefined;
  const base = {
    flightDate: departureDate,
    airline: designator[1]!,
    flightNumber: String(Number(designator[2])),
    origin: origin.trim(),
    dest: destination.trim(),
    crsDepTime: `${hhmm[1]}${hhmm[2]}`,
  };
  switch (kind) {
    case 'on_time':
      return { ...base, cancelled: false, diverted: false, arrDelay: 0 };
    case 'delayed': {
      const minutes = Number((decision as { arrivalDelayMinutes?: unknown }).arrivalDelayMinutes);
      return Number.isFinite(minutes) ? { ...base, cancelled: false, diverted: false, arrDelay: minutes } : undefined;
    }
    case 'cancelled':
      return { ...base, cancelled: true, diverted: false, arrDelay: null };
    case 'diverted':
      return { ...base, cancelled: false, diverted: true, arrDelay: null };
    default:
      return undefined;
  }
}
