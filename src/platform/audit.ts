import type { Environment } from './db-schema.ts';
import type { Executor, PendingWrite } from './db.ts';

export interface AuditEntry {
  /** Who did it: `operator:<name>`, `key:<api key id>`, `system`, `seed`. */
  actor: string;
  partnerId?: string | null;
  environment?: Environment | null;
  entity: string;
  entityId: string;
  action: string;
  data?: unknown;
}

/** Written in the same transaction as the change it records. */
export async function audit(db: Executor, entry: AuditEntry): Promise<void> {
  await auditWrite(db, entry).execute();
}

/** The audit row built and not sent, for `writeTogether` (platform/db.ts) to send with the change's other writes. */
export function auditWrite(db: Executor, entry: AuditEntry) {
  return db.insertInto('audit_log').values({
    actor: entry.actor,
    partner_id: entry.partnerId ?? null,
    environment: entry.environment ?? null,
    entity: entry.entity,
    entity_id: entry.entityId,
    action: entry.action,
    data: JSON.stringify(entry.data ?? {}),
  }) satisfies PendingWrite;
}
