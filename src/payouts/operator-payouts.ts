import { createHash } from 'node:crypto';
import { decodeCursor, encodeCursor, listBinding, otherFiltersCursor } from '../platform/cursor.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Executor } from '../platform/db.ts';
import type { Environment, PayoutStatus } from '../platform/db-schema.ts';
import { listPayouts, type PayoutListRow, type UnreportedDue } from './payouts-repo.ts';

type PayoutsListing = {
  status?: PayoutStatus | undefined;
  environment?: Environment | undefined;
  partnerSlug?: string | undefined;
  unreported?: UnreportedDue | undefined;
  leftOut?: boolean | undefined;
};

/**
 * One page of every partner's payouts for operators (`parasol payouts list`, the console's
 * `/admin/payouts`), and the cursor of the
 * next (null: none). Keyset on (created_at, id), newest first — with `leftOut`, on (left_out_at, id),
 * longest left out first — never an offset: payouts created while an operator pages do not shift the
 * pages. A cursor is bound to the listing that printed it, as every list's is (`listBinding` under the
 * keyring's `lookup` key, platform/cursor.ts): the order (plain or left out) and the filters. A cursor of
 * another listing is refused (422 `invalid_cursor`, the partner lists' refusal) — a plain listing's
 * created_at never gets compared with left_out_at. A cursor printed before the binding (`legacyCursor`:
 * its listing's unkeyed hash, a dot, an unbound cursor) is read while its instant is before
 * `UNBOUND_CURSORS_BEFORE`, for its own listing only. `cursorField` names where a cursor not ours came
 * from, for the 422.
 */
export async function operatorPayoutsPage(
  db: Executor,
  keys: Pick<Keyring, 'lookup'>,
  q: PayoutsListing & {
    cursor?: string | undefined;
    cursorField: string;
    limit: number;
  },
): Promise<{ rows: PayoutListRow[]; nextCursor: string | null }> {
  const list = listBinding(keys.lookup, [
    'operator_payouts',
    q.leftOut ? 'left_out' : 'created',
    q.status ?? null,
    q.environment ?? null,
    q.partnerSlug ?? null,
    // the unreported cut-off moves with the clock: only whether it is asked
    q.unreported !== undefined,
  ]);
  const after = q.cursor === undefined ? undefined : readCursor(q.cursor, q.cursorField, list, q);
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
    nextCursor: rows.length > q.limit && last && key ? encodeCursor(new Date(key.getTime()), last.id, list) : null,
  };
}

/**
 * A cursor of the listing bound `list`; or one printed before the binding (`scope.cursor`): read, as
 * the unbound cursors of the partner lists were, while its instant is before `UNBOUND_CURSORS_BEFORE`
 * (`decodeCursor` refuses it after) and only with the listing whose unkeyed hash it carries.
 */
function readCursor(cursor: string, field: string, list: string, q: PayoutsListing) {
  const dot = cursor.indexOf('.');
  if (dot < 0) return decodeCursor(cursor, field, list);
  const after = decodeCursor(cursor.slice(dot + 1), field, list);
  if (cursor.slice(0, dot) !== legacyScope(q)) throw otherFiltersCursor(field);
  return after;
}

/**
 * The unkeyed hash of order and filters the cursors printed before the binding carry before their dot.
 * Read only: no cursor is printed with it since. Such a cursor is accepted for a row before
 * `UNBOUND_CURSORS_BEFORE` (the row's instant is compared, not the current time), so passing that
 * date does not end it: removing this refuses the old cursors still kept.
 */
function legacyScope(q: PayoutsListing): string {
  const listing = [
    q.leftOut ? 'left_out' : 'created',
    q.status ?? null,
    q.environment ?? null,
    q.partnerSlug ?? null,
    q.unreported !== undefined,
  ];
  return createHash('sha256').update(JSON.stringify(listing)).digest('base64url').slice(0, 8);
}
