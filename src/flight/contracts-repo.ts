import { sql, type Insertable, type Selectable } from 'kysely';
import type { ContractLegsTable, ContractsTable, ContractVersionsTable, Environment } from '../platform/db-schema.ts';
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

/** A leg as `insertContractWithLegs` writes it: its contract's id comes from the contract's insert. */
/** A leg as sold: its claim's void (claims', migration 0057) comes later, if ever. */
export type NewLeg = Omit<
  Insertable<ContractLegsTable>,
  'contract_id' | 'id' | 'monitored_flight_number' | 'claim_voided_at' | 'claim_void_cause'
>;

/** The columns of contract_legs a new leg gives, with their types (jsonb_to_recordset's column list). */
const NEW_LEG_COLUMNS = {
  leg_index: 'smallint',
  partner_id: 'uuid',
  environment: 'text',
  flight_number: 'text',
  operating_flight_number: 'text',
  airline: 'text',
  departure_airport: 'text',
  arrival_airport: 'text',
  departure_local: 'text',
  departure_date: 'date',
  departure_at: 'timestamptz',
  share_net: 'bigint',
  share_tax: 'bigint',
  share_commission: 'bigint',
} as const satisfies Record<keyof NewLeg, string>;

/**
 * Inserts a contract and its legs in one statement (one round trip, where insertContract then
 * insertLegs take two): unless the contract number or the quote is already taken — then nothing is
 * written and it returns undefined, as insertContract does. The statement answers one row per leg,
 * the contract's columns and the leg's (prefixed `leg_`), split here.
 */
export async function insertContractWithLegs(
  db: Executor,
  contract: Insertable<ContractsTable>,
  legs: NewLeg[],
): Promise<{ contract: ContractRow; legs: LegRow[] } | undefined> {
  const columns = Object.keys(NEW_LEG_COLUMNS) as (keyof NewLeg)[];
  const columnList = sql.raw(columns.join(', '));
  const fromRecord = sql.raw(columns.map((c) => `v.${c}`).join(', '));
  const recordType = sql.raw(columns.map((c) => `${c} ${NEW_LEG_COLUMNS[c]}`).join(', '));
  const legColumns = sql.raw(
    ['id', 'contract_id', 'monitored_flight_number', ...columns].map((c) => `l.${c} AS leg_${c}`).join(', '),
  );
  const values = legs.map((leg) => Object.fromEntries(columns.map((c) => [c, leg[c] ?? null])));
  const insertContractQuery = db
    .insertInto('contracts')
    .values(contract)
    .onConflict((oc) => oc.doNothing())
    .returningAll();
  const { rows } = await sql<Record<string, unknown>>`
    WITH c AS (${insertContractQuery}),
    l AS (
      INSERT INTO contract_legs (contract_id, ${columnList})
      SELECT c.id, ${fromRecord} FROM c, jsonb_to_recordset(${JSON.stringify(values)}::jsonb) AS v(${recordType})
      RETURNING *
    )
    SELECT c.*, ${legColumns} FROM c JOIN l ON l.contract_id = c.id ORDER BY l.leg_index`.execute(db);
  if (rows.length === 0) return undefined;
  const split = rows.map((row) => {
    const contractPart: Record<string, unknown> = {};
    const legPart: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      if (key.startsWith('leg_'))
        legPart[key.slice(4)] = value; // contracts has no column named leg_…
      else contractPart[key] = value;
    }
    return { contract: contractPart as ContractRow, leg: legPart as LegRow };
  });
  return { contract: split[0]!.contract, legs: split.map((s) => s.leg) };
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

/**
 * A partner's contracts, newest first, keyset-paginated on (created_at, id): created_at is stored to
 * the millisecond (migration 0041), so the cursor's JavaScript Date holds it exactly, and the index
 * contracts_listing gives the order (a page reads its rows, never sorts the partner's contracts).
 */
export async function searchContracts(
  db: Executor,
  scope: Scope,
  q: {
    /** The keyed hashes of the booking reference searched (one per known key): any matches. */
    bookingReferenceHashes?: readonly string[] | undefined;
    statuses?: readonly ContractRow['status'][] | undefined;
    createdFrom?: Date | undefined;
    createdBefore?: Date | undefined;
    before?: { at: Date; id: string } | undefined;
    limit: number;
  },
): Promise<ContractRow[]> {
  let query = db
    .selectFrom('contracts')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment);
  if (q.bookingReferenceHashes?.length) query = query.where('booking_reference_hmac', 'in', q.bookingReferenceHashes);
  if (q.statuses?.length) query = query.where('status', 'in', q.statuses);
  if (q.createdFrom) query = query.where('created_at', '>=', q.createdFrom);
  if (q.createdBefore) query = query.where('created_at', '<', q.createdBefore);
  if (q.before) {
    const { at, id } = q.before;
    query = query.where((eb) =>
      eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', id)])]),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}

/** The legs of several contracts, in contract then leg order. */
export async function findLegsOf(db: Executor, contractIds: string[]): Promise<LegRow[]> {
  if (contractIds.length === 0) return [];
  return db
    .selectFrom('contract_legs')
    .selectAll()
    .where('contract_id', 'in', contractIds)
    .orderBy('contract_id')
    .orderBy('leg_index')
    .execute();
}

/** New sealed contact columns (and language) of a contract. */
export async function updateContact(
  db: Executor,
  contractId: string,
  set: {
    customer_email_enc?: string;
    customer_phone_enc?: string;
    customer_language?: ContractRow['customer_language'];
  },
): Promise<void> {
  await db.updateTable('contracts').set(set).where('id', '=', contractId).execute();
}

export async function findLegs(db: Executor, contractId: string): Promise<LegRow[]> {
  return db
    .selectFrom('contract_legs')
    .selectAll()
    .where('contract_id', '=', contractId)
    .orderBy('leg_index')
    .execute();
}

/**
 * The claims that keep a contract from being cancelled (/cancel) or its passengers from leaving it
 * (a partial cancellation): every claim but one the insurer voided because the flight data was wrong (its leg's `claim_void_cause`
 * `flight_data`, as long as no later claim of the leg was voided for another cause). Such a claim told
 * of an event that did not happen and paid nothing (a void is refused once its payout is instructed):
 * the contract is refunded or compensated, never both, and it was not compensated. A claim voided for
 * another cause (fraud, sanctions, a duplicate) still counts, as does the new claim an operator's event
 * opened on the leg afterwards. A leg with any claim, voided or not, never leaves its contract
 * (claimedLegIds): the claim keeps its leg.
 */
const cancellationBarringClaims = (db: Executor) =>
  db
    .selectFrom('claims as cl')
    .innerJoin('contract_legs as l', 'l.id', 'cl.leg_id')
    .select(['cl.id', 'cl.leg_id'])
    .where((eb) =>
      eb.or([eb('cl.status', '<>', 'voided'), eb('l.claim_void_cause', 'is distinct from', 'flight_data')]),
    );

/** Whether the contract has a claim that bars its cancellation (cancellationBarringClaims). */
export async function hasClaims(db: Executor, contractId: string): Promise<boolean> {
  return (
    (await cancellationBarringClaims(db).where('cl.contract_id', '=', contractId).limit(1).executeTakeFirst()) !==
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

export type ContractVersionRow = Selectable<ContractVersionsTable>;

/** The versions of a changed contract, oldest first (none for a contract never changed). */
export async function findVersions(db: Executor, contractId: string): Promise<ContractVersionRow[]> {
  return db
    .selectFrom('contract_versions')
    .selectAll()
    .where('contract_id', '=', contractId)
    .orderBy('version')
    .execute();
}

export async function insertVersions(db: Executor, rows: Insertable<ContractVersionsTable>[]): Promise<void> {
  await db
    .insertInto('contract_versions')
    .values(rows)
    .onConflict((oc) => oc.columns(['contract_id', 'version']).doNothing())
    .execute();
}

/** The contract's terms after a change, at the next version; only from the version the caller read (locked). */
export async function updateAfterChange(
  db: Executor,
  contractId: string,
  fromVersion: number,
  set: {
    passengers: number;
    premium_net: number;
    premium_tax: number;
    premium_commission: number;
    premium_total: number;
    first_departure_at: Date;
  },
): Promise<ContractRow> {
  return db
    .updateTable('contracts')
    .set({ ...set, version: fromVersion + 1 })
    .where('id', '=', contractId)
    .where('version', '=', fromVersion)
    .where('status', '=', 'active')
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes legs no longer insured (cancelled or replaced); a leg with a claim cannot go (its claim references it). */
export async function deleteLegs(db: Executor, contractId: string, legIds: string[]): Promise<void> {
  if (legIds.length === 0) return;
  await db.deleteFrom('contract_legs').where('contract_id', '=', contractId).where('id', 'in', legIds).execute();
}

/** The legs among `legIds` with a claim, any status (voided too): such a leg never leaves its contract. */
export async function claimedLegIds(db: Executor, legIds: string[]): Promise<string[]> {
  if (legIds.length === 0) return [];
  const rows = await db.selectFrom('claims').select('leg_id').where('leg_id', 'in', legIds).execute();
  return rows.map((r) => r.leg_id);
}
