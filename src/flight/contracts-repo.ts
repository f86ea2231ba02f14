import { sql, type Insertable, type Selectable } from 'kysely';
import type { ContractLegsTable, ContractsTable, Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';

/**
 * SQL for contracts and their legs. A read by contract number (`findContract`) is scoped by partner
 * and environment: contract numbers come from callers. `quoteAlreadyUsed` is global on purpose (a
 * quote id is random and subscribes once, whoever holds it). The others take a contract id the
 * caller got from a scoped read or has just created, never from a request.
 */

export type ContractRow = Selectable<ContractsTable>;
export type LegRow = Selectable<ContractLegsTable>;

export interface Scope {
  partnerId: string;
  environment: Environment;
}

export async function quoteAlreadyUsed(db: Executor, quoteId: string): Promise<boolean> {
  return (
    (await db.selectFrom('contracts').select('id').where('quote_id', '=', quoteId).executeTakeFirst()) !== undefined
  );
}

/**
 * Inserts unless the contract number or the quote is already taken — then returns undefined and the
 * caller finds out which (a concurrent subscription of the same quote waits here for the other
 * transaction, then skips: no unique-violation error aborts the transaction).
 */
export async function insertContract(
  db: Executor,
  values: Insertable<ContractsTable>,
): Promise<ContractRow | undefined> {
  return db
    .insertInto('contracts')
    .values(values)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function insertLegs(db: Executor, legs: Insertable<ContractLegsTable>[]): Promise<LegRow[]> {
  return db.insertInto('contract_legs').values(legs).returningAll().execute();
}

export async function findContract(
  db: Executor,
  scope: Scope,
  contractNumber: string,
  options: { forUpdate?: boolean } = {},
): Promise<ContractRow | undefined> {
  let query = db
    .selectFrom('contracts')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('contract_number', '=', contractNumber);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findLegs(db: Executor, contractId: string): Promise<LegRow[]> {
  return db
    .selectFrom('contract_legs')
    .selectAll()
    .where('contract_id', '=', contractId)
    .orderBy('leg_index')
    .execute();
}

export async function hasClaims(db: Executor, contractId: string): Promise<boolean> {
  return (
    (await db.selectFrom('claims').select('id').where('contract_id', '=', contractId).limit(1).executeTakeFirst()) !==
    undefined
  );
}

export async function markCancelled(
  db: Executor,
  contractId: string,
  reason: string,
  at: Date,
  refund: number,
): Promise<ContractRow> {
  return db
    .updateTable('contracts')
    .set({ status: 'cancelled', cancelled_at: at, cancel_reason: reason, refund_amount: refund })
    .where('id', '=', contractId)
    .where('status', '=', 'active')
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Adds quote counts per (partner, environment, hour) in one statement; several processes add up. */
export async function addQuoteCounts(
  db: Executor,
  rows: { partner_id: string; environment: Environment; hour: Date; quotes: number }[],
): Promise<void> {
  await db
    .insertInto('quote_counts')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['partner_id', 'environment', 'hour'])
        .doUpdateSet({ quotes: sql`quote_counts.quotes + excluded.quotes` }),
    )
    .execute();
}
