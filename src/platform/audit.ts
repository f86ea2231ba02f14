import type { Environment } from './db-schema.ts';
import type { Executor } from './db.ts';

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
  await db
    .insertInto('audit_log')
    .values({
      actor: entry.actor,
      partner_id: entry.partnerId ?? null,
      environment: entry.environment ?? null,
      entity: entry.entity,
      entity_id: entry.entityId,
      action: entry.action,
      data: JSON.stringify(entry.data ?? {}),
    })
    .execute();
}
