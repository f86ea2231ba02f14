import { DomainError } from '../platform/errors.ts';
import type { PolicyDeps } from './deps.ts';
import { searchPolicies as search, type Scope } from './policies-repo.ts';
import { POLICY_PAGE, todayOf, type PolicyStatus, type PolicyView, type Product } from './policy.ts';
import { answerPolicies } from './policy-answer.ts';
import { commitHorizon, decodeCursor, listBinding, oldestFirstPage, type Keyset } from '../platform/cursor.ts';

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
 * cursor (the created_at and id of the last policy returned: nothing is skipped or repeated). A page
 * stops at the commit horizon (platform/cursor.ts), so a policy committed while paging is not passed over.
 * A cursor is bound to its list (the key's partner and environment, every filter): given with other
 * filters, it is refused (422 invalid_cursor) rather than skipping or repeating policies.
 */
export async function searchPolicies(
  deps: PolicyDeps,
  caller: Scope,
  q: PolicyQuery,
): Promise<{ policies: PolicyView[]; nextCursor: string | null }> {
  if (q.effectiveFrom && q.effectiveTo && q.effectiveTo < q.effectiveFrom) {
    throw new DomainError('validation_failed', 'effectiveTo is before effectiveFrom.', {
      errors: [
        { field: 'querystring:/effectiveTo', code: 'out_of_range', message: 'must be on or after effectiveFrom' },
      ],
    });
  }
  const limit = q.limit ? Number(q.limit) : POLICY_PAGE.default;
  if (limit < POLICY_PAGE.min || limit > POLICY_PAGE.max)
    throw new DomainError('validation_failed', `limit is ${POLICY_PAGE.min} to ${POLICY_PAGE.max}.`, {
      errors: [
        {
          field: 'querystring:/limit',
          code: 'out_of_range',
          message: `must be ${POLICY_PAGE.min} to ${POLICY_PAGE.max}`,
        },
      ],
    });
  const today = todayOf(deps.now());
  const list = listBinding(deps.keys.lookup, [
    'policies.search',
    caller.partnerId,
    caller.environment,
    q.externalReference ?? null,
    q.status ?? null,
    q.product ?? null,
    q.effectiveFrom ?? null,
    q.effectiveTo ?? null,
  ]);
  const after = q.cursor ? decodeCursor(q.cursor, 'querystring:/cursor', list) : undefined;
  const horizon = await commitHorizon(deps.db); // before the rows: see commitHorizon
  const rows = await search(deps.db, caller, {
    externalReference: q.externalReference,
    product: q.product,
    status: q.status,
    effectiveFrom: q.effectiveFrom,
    effectiveTo: q.effectiveTo,
    today,
    after: after && keysetOf(after),
    limit: limit + 1,
  });
  const { page, nextCursor } = oldestFirstPage(rows, keyOf, horizon, limit, after, list);
  return { policies: await answerPolicies(deps, deps.db, page, today), nextCursor };
}

// The cursor is the (created_at, id) of the last policy returned (platform/cursor.ts).
const keysetOf = (k: Keyset) => ({ createdAt: k.at, id: k.id });
const keyOf = (r: { created_at: Date; id: string }): Keyset => ({ at: r.created_at, id: r.id });
