import { decodeCursor, encodeCursor } from '../platform/cursor.ts';
import type { Executor } from '../platform/db.ts';
import type { ClaimStatus, Environment } from '../platform/db-schema.ts';
import { listClaimsForOperators, type OperatorClaimRow } from './claims-repo.ts';

/**
 * One page of every partner's claims for operators (console /admin/claims, `parasol claims list`),
 * newest first, and the cursor of the next (null: none). Keyset on (opened_at, id), never an offset:
 * claims opened while an operator pages arrive before the first page, not on the next one again.
 * `cursorField` names where a cursor not ours came from, for the 422.
 */
export async function operatorClaimsPage(
  db: Executor,
  q: {
    status?: ClaimStatus | undefined;
    environment?: Environment | undefined;
    partnerSlug?: string | undefined;
    cursor?: string | undefined;
    cursorField: string;
    limit: number;
  },
): Promise<{ rows: OperatorClaimRow[]; nextCursor: string | null }> {
  const before = q.cursor ? decodeCursor(q.cursor, q.cursorField) : undefined;
  const rows = await listClaimsForOperators(db, {
    status: q.status,
    environment: q.environment,
    partnerSlug: q.partnerSlug,
    before,
    limit: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    rows: page,
    nextCursor: rows.length > q.limit && last ? encodeCursor(new Date(last.opened_at.getTime()), last.id) : null,
  };
}
