import { DomainError } from '../platform/errors.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import { searchPolicies as search, type PolicyRow } from './policies-repo.ts';
import { POLICY_PAGE, policyView, todayOf, type PolicyStatus, type PolicyView, type Product } from './policy.ts';

export interface PolicyQuery {
  externalReference?: string | undefined;
  status?: PolicyStatus | undefined;
  product?: Product | undefined;
  effectiveFrom?: string | undefined;
  effectiveTo?: string | undefined;
  cursor?: string | undefined;
  /** Decimal text, as it comes in a query string (the schema bounds it). */
  limit?: string | undefined;
}

/**
 * GET /policies: the caller's policies matching the filters, oldest first, paginated with an opaque
 * cursor (the created_at and id of the last policy returned: nothing is skipped or repeated).
 */
export async function searchPolicies(deps: PolicyDeps, caller: Caller, q: PolicyQuery): Promise<{ policies: PolicyView[]; nextCursor: string | null }> {
  if (q.effectiveFrom && q.effectiveTo && q.effectiveTo < q.effectiveFrom) {
    throw new DomainError('validation_failed', 'effectiveTo is before effectiveFrom.', { errors: [{ field: 'querystring:/effectiveTo', message: 'must be on or after effectiveFrom' }] });
  }
  const limit = q.limit ? Number(q.limit) : POLICY_PAGE.default;
  const today = todayOf(deps.now());
  const rows = await search(deps.db, caller, {
    externalReference: q.externalReference,
    product: q.product,
    status: q.status,
    effectiveFrom: q.effectiveFrom,
    effectiveTo: q.effectiveTo,
    today,
    after: q.cursor ? decodeCursor(q.cursor) : undefined,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { policies: page.map((row) => policyView(row, deps.keys.encryption, today)), nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

// created_at is stored at millisecond precision (see the migration), so it round-trips through a
// JavaScript Date exactly; the id breaks ties.
function encodeCursor(row: PolicyRow): string {
  return Buffer.from(JSON.stringify([row.created_at.toISOString(), row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const date = new Date(createdAt);
    if (typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id) && !Number.isNaN(date.getTime())) return { createdAt: date, id };
  } catch {
    // fall through
  }
  throw new DomainError('invalid_cursor', 'The cursor is not one this API returned.', { errors: [{ field: 'querystring:/cursor', message: 'invalid cursor' }] });
}
