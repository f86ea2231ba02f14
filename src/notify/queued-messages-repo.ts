import { sql } from 'kysely';
import type { Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';

/**
 * SQL the two channels share: the give-up sweep (`giveUpStaleMessages`) over the send queues,
 * `sms_messages` and `emails`, each with the messages it may take (`sweeps`):
 * - email: the messages a provider sends for real — a production customer's, and the platform's own,
 *   which carry no environment (partner users' invitations and password resets, webhook pause
 *   notices). Sandbox and preproduction emails are the outbox's: sent into it at once, never swept.
 *   The requeue sweep (`findStaleQueuedEmails`) takes the same ones.
 * - SMS: every queued message. Only production writes to `sms_messages` (claims_notify; sandbox and
 *   preproduction SMS go straight to `sms_outbox`), and any message there is sent through the
 *   provider, so any left queued a day is given up, whatever its environment.
 */
export const QUEUES = {
  sms: { table: 'sms_messages', sweeps: sql<boolean>`true` },
  email: { table: 'emails', sweeps: sql<boolean>`(environment IS NULL OR environment = 'production')` },
} as const;

/** What a given-up message answers, by channel (no sealed column). */
export interface GivenUpRows {
  sms: {
    id: string;
    partner_id: string;
    environment: Environment;
    attempts: number;
    claim_id: string | null;
    idempotency_key: string;
  };
  email: {
    id: string;
    partner_id: string | null;
    environment: Environment | null;
    attempts: number;
    kind: string;
  };
}

const RETURNED = {
  sms: sql`id, partner_id, environment, attempts, claim_id, idempotency_key`,
  email: sql`id, partner_id, environment, attempts, kind`,
} as const;

/** The channel's messages (`QUEUES`) written more than `olderThanHours` before `now`, still queued and not being sent, oldest first. */
export async function findExpiredQueuedMessages(
  db: Executor,
  channel: keyof typeof QUEUES,
  o: { olderThanHours: number; now: Date; limit: number },
): Promise<string[]> {
  const q = QUEUES[channel];
  const result = await sql<{ id: string }>`
    SELECT id FROM ${sql.table(q.table)}
    WHERE status = 'queued' AND ${q.sweeps}
      AND created_at < ${new Date(o.now.getTime() - o.olderThanHours * 3_600_000)}
      AND (locked_until IS NULL OR locked_until < now())
    ORDER BY created_at
    LIMIT ${o.limit}`.execute(db);
  return result.rows.map((r) => r.id);
}

/** Gives up a queued message not being sent: `rejected` with why; the message, or undefined when it moved on meanwhile. */
export async function giveUpQueuedMessage<C extends keyof typeof QUEUES>(
  db: Executor,
  channel: C,
  messageId: string,
  error: string,
): Promise<GivenUpRows[C] | undefined> {
  const result = await sql<GivenUpRows[C]>`
    UPDATE ${sql.table(QUEUES[channel].table)}
    SET status = 'rejected', last_error = ${error}, locked_until = NULL
    WHERE id = ${messageId} AND status = 'queued' AND (locked_until IS NULL OR locked_until < now())
    RETURNING ${RETURNED[channel]}`.execute(db);
  return result.rows[0];
}
