import type { Executor } from '../platform/db.ts';
import type { PolicyDeps } from './deps.ts';
import { findNextTerms, type PolicyRow } from './policies-repo.ts';
import { policyView, type PolicyView } from './policy.ts';

/**
 * Policies as answered, each with the status of the term renewing it (`renewedByStatus`), read with
 * the executor given: in a change's transaction, the renewal as the change leaves it (a cascade of
 * cancellations included). One query for a page, none for policies not renewed.
 */
export async function answerPolicies(
  deps: Pick<PolicyDeps, 'keys'>,
  db: Executor,
  rows: readonly PolicyRow[],
  today: string,
): Promise<PolicyView[]> {
  const first = rows[0];
  if (!first) return [];
  const numbers = rows.flatMap((r) => (r.renewed_by_policy_number ? [r.renewed_by_policy_number] : []));
  // a page is one partner's and environment's, as a renewal is its predecessor's
  const next = await findNextTerms(db, { partnerId: first.partner_id, environment: first.environment }, numbers);
  return rows.map((row) =>
    policyView(
      row,
      deps.keys.encryption,
      today,
      row.renewed_by_policy_number ? next.get(row.renewed_by_policy_number) : undefined,
    ),
  );
}

/** One policy as answered (answerPolicies). */
export async function answerPolicy(
  deps: Pick<PolicyDeps, 'keys'>,
  db: Executor,
  row: PolicyRow,
  today: string,
): Promise<PolicyView> {
  return (await answerPolicies(deps, db, [row], today))[0]!;
}
