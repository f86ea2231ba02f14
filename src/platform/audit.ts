import type { Environment } from './db-schema.ts';
import type { Executor, PendingWrite } from './db.ts';

export interface AuditEntry {
  /**
   * Who did it: `operator:<name>`, `key:<api key id>`, `user:<partner user id>`, `system`,
   * `schedule:<job>` (a scheduled job acting as an operator would: the SEPA batch), `seed`, or
   * `anonymous` (someone without a session: a password reset asked for on the sign-in page).
   */
  actor: string;
  partnerId?: string | null;
  environment?: Environment | null;
  entity: string;
  entityId: string;
  action: string;
  data?: unknown;
  /**
   * When it happened, when the use case has its own clock (`deps.now()`) and dates the change it
   * records by it (a claim's status changes: the claims bordereau reads them against a period's end,
   * with the ledger entries and `paid_at` the same use case writes; a contract's changes through the
   * partner API; a SEPA batch's creation). Without it, the database's `now()`: the writing
   * transaction's start — for technical rows, and those listed as left on the database clock in
   * docs/ARCHITECTURE.md ("Clocks").
   */
  at?: Date;
}

/** Written in the same transaction as the change it records. */
export async function audit(db: Executor, entry: AuditEntry): Promise<void> {
  await auditWrite(db, entry).execute();
}

/** Several rows written in the same transaction as the change they record, in one statement (none: nothing sent). */
export async function auditAll(db: Executor, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length > 0) await db.insertInto('audit_log').values(entries.map(auditRow)).execute();
}

/** The audit row built and not sent, for `writeTogether` or `alongWrites` (platform/db.ts) to send with the change's other writes. */
export function auditWrite(db: Executor, entry: AuditEntry) {
  return db.insertInto('audit_log').values(auditRow(entry)) satisfies PendingWrite;
}

function auditRow(entry: AuditEntry) {
  return {
    actor: entry.actor,
    partner_id: entry.partnerId ?? null,
    environment: entry.environment ?? null,
    entity: entry.entity,
    entity_id: entry.entityId,
    action: entry.action,
    data: JSON.stringify(entry.data ?? {}),
    ...(entry.at ? { at: entry.at } : {}),
  };
}

export interface AuditRow {
  at: Date;
  actor: string;
  entity: string;
  entityId: string;
  action: string;
  data: unknown;
}

/**
 * One entity's rows in a trail: every row of `ids`, or with `action` and `at` only the rows of that
 * action at that instant (a flight's `claims_opened` row of one claim's opening, in its environment),
 * and narrowed further with `partnerOrNone` (rows of that partner or of none) and `actor`.
 */
export interface AuditSubject {
  entity: string;
  ids: string[];
  action?: string;
  at?: Date;
  environment?: Environment;
  /** Rows whose partner_id is this partner's or null (an operator's, the monitoring's), not another partner's. */
  partnerOrNone?: string;
  actor?: string;
}

/** The audit rows of some entities (`{ entity, ids }`), newest first: a claim page's trail of the claim and its contract. */
export async function auditTrail(db: Executor, subjects: AuditSubject[], limit = 200): Promise<AuditRow[]> {
  const wanted = subjects.filter((s) => s.ids.length > 0);
  if (wanted.length === 0) return [];
  const rows = await db
    .selectFrom('audit_log')
    .select(['at', 'actor', 'entity', 'entity_id', 'action', 'data'])
    .where((eb) =>
      eb.or(
        wanted.map((s) =>
          eb.and([
            eb('entity', '=', s.entity),
            eb('entity_id', 'in', s.ids),
            ...(s.action !== undefined ? [eb('action', '=', s.action)] : []),
            ...(s.at !== undefined ? [eb('at', '=', s.at)] : []),
            ...(s.environment !== undefined ? [eb('environment', '=', s.environment)] : []),
            ...(s.partnerOrNone !== undefined
              ? [eb.or([eb('partner_id', 'is', null), eb('partner_id', '=', s.partnerOrNone)])]
              : []),
            ...(s.actor !== undefined ? [eb('actor', '=', s.actor)] : []),
          ]),
        ),
      ),
    )
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    at: r.at,
    actor: r.actor,
    entity: r.entity,
    entityId: r.entity_id,
    action: r.action,
    data: r.data,
  }));
}
