import { createHash } from 'node:crypto';
import { decodeCursor, encodeCursor } from '../platform/cursor.ts';
import { DomainError } from '../platform/errors.ts';
import type { Executor } from '../platform/db.ts';
import type { Environment, PayoutStatus } from '../platform/db-schema.ts';
import { listPayouts, type PayoutListRow, type UnreportedDue } from './payouts-repo.ts';

/**
 * One page of every partner's payouts for operators (`parasol payouts list`, the console's
 * `/admin/payouts`), and the cursor of the
 * next (null: none). Keyset on (created_at, id), newest first — with `leftOut`, on (left_out_at, id),
 * longest left out first — never an offset: payouts created while an operator pages do not shift the
 * pages. A cursor is tied to the listing that printed it: it carries a short hash of the order
 * (plain or left out) and the filters, and a cursor of another listing is refused (invalid_cursor) —
 * a plain listing's created_at never gets compared with left_out_at. `cursorField` names where a
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
  const scope = listingScope(q);
  let after;
  if (q.cursor !== undefined) {
    const dot = q.cursor.indexOf('.');
    after = decodeCursor(dot < 0 ? q.cursor : q.cursor.slice(dot + 1), q.cursorField);
    if (dot < 0 || q.cursor.slice(0, dot) !== scope)
      throw new DomainError(
        'invalid_cursor',
        'The cursor belongs to another listing (other filters or order): give the same options as the page that printed it, or start again without a cursor.',
        { errors: [{ field: q.cursorField, code: 'invalid', message: 'cursor of another listing' }] },
      );
  }
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
    nextCursor:
      rows.length > q.limit && last && key ? `${scope}.${encodeCursor(new Date(key.getTime()), last.id)}` : null,
  };
}

/** The listing a cursor belongs to: a short hash of the order and the filters (the unreported cut-off moves with the clock: only whether it is asked). */
function listingScope(q: {
  status?: PayoutStatus | undefined;
  environment?: Environment | undefined;
  partnerSlug?: string | undefined;
  unreported?: UnreportedDue | undefined;
  leftOut?: boolean | undefined;
}): string {
  const listing = [
    q.leftOut ? 'left_out' : 'created',
    q.status ?? null,
    q.environment ?? null,
    q.partnerSlug ?? null,
    q.unreported !== undefined,
  ];
  return createHash('sha256').update(JSON.stringify(listing)).digest('base64url').slice(0, 8);
}
