import { decodeCursor, encodeCursor, listBinding } from '../platform/cursor.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Executor } from '../platform/db.ts';
import type { ClaimStatus, Environment } from '../platform/db-schema.ts';
import { listClaimsForOperators, type OperatorClaimRow } from './claims-repo.ts';

/**
 * One page of every partner's claims for operators (console /admin/claims, `parasol claims list`),
 * newest first, and the cursor of the next (null: none). Keyset on (opened_at, id), never an offset:
 * claims opened while an operator pages arrive before the first page, not on the next one again.
 * The cursor is bound to its list (`listBinding` under the keyring's `lookup` key, platform/cursor.ts:
 * the status, environment and partner asked): given with other filters it is refused (422
 * `invalid_cursor`), as the partner lists' are, rather than skipping or repeating claims. A cursor
 * handed out before the binding (none) goes on until `UNBOUND_CURSORS_BEFORE`, as theirs did.
 * `cursorField` names where a cursor not ours came from, for the 422.
 */
export async function operatorClaimsPage(
  db: Executor,
  keys: Pick<Keyring, 'lookup'>,
  q: {
    status?: ClaimStatus | undefined;
    environment?: Environment | undefined;
    partnerSlug?: string | undefined;
    cursor?: string | undefined;
    cursorField: string;
    limit: number;
  },
): Promise<{ rows: OperatorClaimRow[]; nextCursor: string | null }> {
  const list = operatorClaimsList(keys.lookup, q);
  const before = q.cursor ? decodeCursor(q.cursor, q.cursorField, list) : undefined;
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
    nextCursor: rows.length > q.limit && last ? encodeCursor(new Date(last.opened_at.getTime()), last.id, list) : null,
  };
}

/** The operators' claims list a cursor belongs to: its filters as the list reads them (absent: null). */
function operatorClaimsList(
  key: Buffer,
  q: { status?: ClaimStatus | undefined; environment?: Environment | undefined; partnerSlug?: string | undefined },
): string {
  return listBinding(key, ['operator_claims', q.status ?? null, q.environment ?? null, q.partnerSlug ?? null]);
}
