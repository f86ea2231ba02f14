import { decodeCursor, encodeCursor } from '../platform/cursor.ts';
import type { Executor } from '../platform/db.ts';
import type { Environment, PayoutStatus } from '../platform/db-schema.ts';
import { listPayouts, type PayoutListRow, type UnreportedDue } from './payouts-repo.ts';

/**
 * One page of every partner's payouts for operators (`parasol payouts list`), and the cursor of the
 * next (null: none). Keyset on (created_at, id), newest first — with `leftOut`, on (left_out_at, id),
 * longest left out first — never an offset: payouts created while an operator pages do not shift the
 * pages. A cursor goes with the filters of the page that printed it. `cursorField` names where a
 * cursor not ours came from, for the 422.
 */
export async function operatorPayoutsPage(
  db: Executor,
  q: {
    status?: PayoutStatus | undefined;
    environment?: Environment | undefined;
    partnerSlug?: string | undefined;
    unreported?: UnreportedDue | undefined;
    leftOut?: boolean | undefined;
    cursor?: string | undefined;
    cursorField: string;
    limit: number;
  },
): Promise<{ rows: PayoutListRow[]; nextCursor: string | null }> {
  const after = q.cursor ? decodeCursor(q.cursor, q.cursorField) : undefined;
  const rows = await listPayouts(db, {
    status: q.status,
    environment: q.environment,
    partnerSlug: q.partnerSlug,
    unreported: q.unreported,
    leftOut: q.leftOut,
    after,
    limit: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  const key = last ? (q.leftOut ? last.left_out_at : last.created_at) : null;
  return {
    rows: page,
    nextCursor: rows.length > q.limit && last && key ? encodeCursor(new Date(key.getTime()), last.id) : null,
  };
}
