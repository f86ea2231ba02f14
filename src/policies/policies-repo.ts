import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Environment, PoliciesTable } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';

/** SQL for policies. Every query is scoped by partner and environment. */

/** Every change written on a policy moves its version on (its ETag): each update below sets it. */
const nextVersion = sql<number>`version + 1`;

export type PolicyRow = Selectable<PoliciesTable>;

export interface Scope {
  partnerId: string;
  environment: Environment;
}

const scoped = (db: Executor, scope: Scope) =>
  db
    .selectFrom('policies')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment);

/**
 * Inserts unless the policy number or the external reference is already taken — then returns
 * undefined and the caller finds out which. A concurrent insert of the same external reference
 * waits here for the other transaction, then skips: no unique violation aborts the transaction.
 * `created_at` and the first `updated_at` are one value, the inserting transaction's start on the
 * database's clock to the millisecond (as a claim's opened_at): the listing's key, behind the commit
 * horizon (docs/ARCHITECTURE.md, "Clocks"); a new policy is never updated before it was created.
 */
export async function insertPolicy(
  db: Executor,
  values: Omit<Insertable<PoliciesTable>, 'created_at' | 'updated_at'>,
): Promise<PolicyRow | undefined> {
  const transactionStart = sql<Date>`date_trunc('milliseconds', now())`;
  return db
    .insertInto('policies')
    .values({ ...values, created_at: transactionStart, updated_at: transactionStart })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findPolicy(
  db: Executor,
  scope: Scope,
  policyNumber: string,
  options: { forUpdate?: boolean } = {},
): Promise<PolicyRow | undefined> {
  let query = scoped(db, scope).where('policy_number', '=', policyNumber);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** A policy by its number, in any scope: for the insurer's operators only. */
export async function findPolicyByNumber(db: Executor, policyNumber: string): Promise<PolicyRow | undefined> {
  return db.selectFrom('policies').selectAll().where('policy_number', '=', policyNumber).executeTakeFirst();
}

export async function findByExternalReference(
  db: Executor,
  scope: Scope,
  externalReference: string,
): Promise<PolicyRow | undefined> {
  return scoped(db, scope).where('external_reference', '=', externalReference).executeTakeFirst();
}

export interface PolicyFilter {
  externalReference?: string | undefined;
  product?: string | undefined;
  /**
   * As statusOn reads a row: pending and active exclude expired policies and those whose scheduled
   * cancellation took effect; expired is pending or active past the expiry date; cancelled includes a
   * cancellation scheduled from a day reached.
   */
  status?: 'pending' | 'active' | 'cancelled' | 'expired' | undefined;
  effectiveFrom?: string | undefined;
  effectiveTo?: string | undefined;
  /** The calendar day deciding expiry. */
  today: string;
  /** Keyset: the (created_at, id) of the last row of the previous page. */
  after?: { createdAt: Date; id: string } | undefined;
  limit: number;
}

/** The scope's policies matching the filter, oldest first (created_at, id). */
export async function searchPolicies(db: Executor, scope: Scope, f: PolicyFilter): Promise<PolicyRow[]> {
  let query = scoped(db, scope);
  if (f.externalReference !== undefined) query = query.where('external_reference', '=', f.externalReference);
  if (f.product !== undefined) query = query.where('product', '=', f.product as PolicyRow['product']);
  if (f.effectiveFrom !== undefined) query = query.where('effective_date', '>=', f.effectiveFrom);
  if (f.effectiveTo !== undefined) query = query.where('effective_date', '<=', f.effectiveTo);
  // as statusOn (policy.ts) reads a row: cancelled at once, or from a scheduled date reached; else
  // expired from the expiry date (a cancellation date is before it: a policy cancelled never expires)
  if (f.status === 'cancelled')
    query = query.where((eb) => eb.or([eb('status', '=', 'cancelled'), eb('cancellation_date', '<=', f.today)]));
  if (f.status === 'expired')
    query = query
      .where('status', '<>', 'cancelled')
      .where('cancellation_date', 'is', null)
      .where('expiry_date', '<=', f.today);
  if (f.status === 'pending' || f.status === 'active')
    query = query
      .where('status', '=', f.status)
      .where('expiry_date', '>', f.today)
      .where((eb) => eb.or([eb('cancellation_date', 'is', null), eb('cancellation_date', '>', f.today)]));
  if (f.after) {
    // a row comparison, not an OR: the page enters the listing index at the cursor
    const { createdAt, id } = f.after;
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(createdAt, id)));
  }
  return query.orderBy('created_at').orderBy('id').limit(f.limit).execute();
}

/** What statusOn reads of the scope's policies numbered (the renewals a page of policies names), by number. */
export async function findNextTerms(
  db: Executor,
  scope: Scope,
  policyNumbers: readonly string[],
): Promise<Map<string, Pick<PolicyRow, 'status' | 'expiry_date' | 'cancellation_date'>>> {
  if (!policyNumbers.length) return new Map();
  const rows = await db
    .selectFrom('policies')
    .select(['policy_number', 'status', 'expiry_date', 'cancellation_date'])
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('policy_number', 'in', [...new Set(policyNumbers)])
    .execute();
  return new Map(rows.map((r) => [r.policy_number, r]));
}

/** The policyholder's columns given (encrypted by the caller), and updated_at. */
export async function updatePolicyholder(
  db: Executor,
  id: string,
  values: Pick<
    Updateable<PoliciesTable>,
    | 'holder_email_enc'
    | 'holder_phone_enc'
    | 'holder_address_enc'
    | 'holder_first_name_enc'
    | 'holder_last_name_enc'
    | 'holder_first_name'
    | 'holder_last_name'
    | 'holder_birth_date_enc'
  > & {
    updated_at: Date;
  },
): Promise<PolicyRow> {
  return db
    .updateTable('policies')
    .set({ ...values, version: nextVersion })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The insured risk, sealed by the caller (the clear column emptied), and updated_at. */
export async function updateRisk(db: Executor, id: string, riskEnc: string, at: Date): Promise<PolicyRow> {
  return db
    .updateTable('policies')
    .set({ risk_enc: riskEnc, risk: null, updated_at: at, version: nextVersion })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** pending → active, covered from `effectiveDate`; only a pending row changes (the caller holds it locked). */
export async function markActive(db: Executor, id: string, effectiveDate: string, at: Date): Promise<PolicyRow> {
  return db
    .updateTable('policies')
    .set({ status: 'active', effective_date: effectiveDate, updated_at: at, version: nextVersion })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Records a cancellation: `atOnce`, the status goes cancelled; else it is scheduled, the status kept
 * (pending or active) until the date, from which the policy reads cancelled (policy.ts, statusOn). A
 * cancellation scheduled on the row is replaced (a renewal cancelled with its policy, from inception).
 */
export async function markCancelled(
  db: Executor,
  id: string,
  cancellation: { reason: string; date: string; at: Date; atOnce: boolean },
): Promise<PolicyRow> {
  return db
    .updateTable('policies')
    .set({
      ...(cancellation.atOnce ? { status: 'cancelled' as const } : {}),
      cancel_reason: cancellation.reason,
      cancellation_date: cancellation.date,
      cancelled_at: cancellation.at,
      updated_at: cancellation.at,
      version: nextVersion,
    })
    .where('id', '=', id)
    .where('status', '<>', 'cancelled')
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Links a policy to its renewal; only a policy not renewed yet changes (the caller holds it locked). */
export async function markRenewed(db: Executor, id: string, renewal: string, at: Date): Promise<PolicyRow> {
  return db
    .updateTable('policies')
    .set({ renewed_by_policy_number: renewal, updated_at: at, version: nextVersion })
    .where('id', '=', id)
    .where('renewed_by_policy_number', 'is', null)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Unlinks a policy from its renewal cancelled from inception, so it can be renewed again (the caller holds it locked). */
export async function releaseRenewal(db: Executor, id: string, renewal: string, at: Date): Promise<void> {
  await db
    .updateTable('policies')
    .set({ renewed_by_policy_number: null, updated_at: at, version: nextVersion })
    .where('id', '=', id)
    .where('renewed_by_policy_number', '=', renewal)
    .execute();
}

/** Records a correction of the policyholder's identity (the values sealed by the caller); its id. */
export async function insertCorrection(
  db: Executor,
  values: { policyId: string; reason: string; beforeEnc: string; afterEnc: string; at: Date },
): Promise<string> {
  const row = await db
    .insertInto('policy_corrections')
    .values({
      policy_id: values.policyId,
      reason: values.reason,
      before_enc: values.beforeEnc,
      after_enc: values.afterEnc,
      created_at: values.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
