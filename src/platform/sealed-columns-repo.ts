import { sql, type RawBuilder } from 'kysely';
import { BOOKING_REFERENCE_LOOKUP } from './crypto.ts';
import type { Db, Executor } from './db.ts';

/**
 * Every column holding a value sealed with the master key (crypto.encrypt), by table, with the
 * table's primary key: what `parasol master-key rotate` re-seals and `master-key status` counts. A new
 * encrypted column must be added here (test/platform/key-rotation.db.test.ts checks the list against
 * the schema's `*_enc` columns).
 * `lookups` are the keyed hashes (crypto.lookupHash) of a sealed column, found by exact match:
 * derived from the master key too, re-hashed whenever their column is re-sealed (both are always
 * written together, under the same key).
 */
export const SEALED_COLUMNS: readonly {
  table: string;
  key: readonly string[];
  columns: readonly string[];
  lookups?: readonly { column: string; of: string; purpose: string }[];
}[] = [
  {
    table: 'contracts',
    key: ['id'],
    columns: [
      'customer_first_name_enc',
      'customer_last_name_enc',
      'customer_email_enc',
      'customer_phone_enc',
      'booking_reference_enc',
    ],
    lookups: [{ column: 'booking_reference_hmac', of: 'booking_reference_enc', purpose: BOOKING_REFERENCE_LOOKUP }],
  },
  {
    table: 'policies',
    key: ['id'],
    columns: [
      'holder_first_name_enc',
      'holder_last_name_enc',
      'holder_birth_date_enc',
      'holder_email_enc',
      'holder_phone_enc',
      'holder_address_enc',
      'risk_enc',
    ],
  },
  { table: 'policy_corrections', key: ['id'], columns: ['before_enc', 'after_enc'] },
  { table: 'claim_bank_details', key: ['claim_id'], columns: ['account_holder_enc', 'iban_enc', 'us_account_enc'] },
  { table: 'sepa_batches', key: ['id'], columns: ['xml_enc'] },
  { table: 'sms_outbox', key: ['id'], columns: ['to_enc', 'body_enc', 'link_enc'] },
  { table: 'sms_messages', key: ['id'], columns: ['to_enc', 'body_enc'] },
  { table: 'emails', key: ['id'], columns: ['to_enc', 'subject_enc', 'text_enc', 'html_enc'] },
  { table: 'idempotency_keys', key: ['partner_id', 'environment', 'key'], columns: ['response_enc'] },
  { table: 'webhook_endpoints', key: ['id'], columns: ['secret_enc', 'previous_secret_enc'] },
  { table: 'webhook_events', key: ['id'], columns: ['payload_enc'] },
];

export type SealedTable = (typeof SEALED_COLUMNS)[number];

/** A value sealed under another key than the one whose prefix (`v2.<id>.`) is given. */
function stale(column: string, prefix: string): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(column)} IS NOT NULL AND left(${sql.ref(column)}, ${prefix.length}) <> ${prefix})`;
}

/** Per column: the values sealed (not null) and those not under the key of `prefix`. */
export async function countSealed(
  db: Db,
  table: SealedTable,
  prefix: string,
): Promise<{ column: string; sealed: number; stale: number }[]> {
  const selections = table.columns.flatMap((column, i) => [
    sql`count(${sql.ref(column)})::int AS ${sql.ref(`s${i}`)}`,
    sql`(count(*) FILTER (WHERE ${stale(column, prefix)}))::int AS ${sql.ref(`r${i}`)}`,
  ]);
  const row = (
    await sql<Record<string, number>>`SELECT ${sql.join(selections)} FROM ${sql.table(table.table)}`.execute(db)
  ).rows[0]!;
  return table.columns.map((column, i) => ({ column, sealed: Number(row[`s${i}`]), stale: Number(row[`r${i}`]) }));
}

/** The rows with a value not under the key of `prefix` (locked or not). */
export async function countStaleRows(db: Executor, table: SealedTable, prefix: string): Promise<number> {
  const anyStale = sql.join(
    table.columns.map((c) => stale(c, prefix)),
    sql` OR `,
  );
  const { rows } = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM ${sql.table(table.table)} WHERE (${anyStale})`.execute(db);
  return Number(rows[0]!.n);
}

/**
 * The next rows after `after` (primary key order) with a value not under the key of `prefix`, locked
 * until the transaction ends (the service may write them meanwhile: it waits for the batch). A row
 * another transaction holds locked is skipped (SKIP LOCKED), never waited for: the rotation never
 * holds a batch's locks while waiting for another, so it cannot deadlock with a service transaction
 * locking rows of the table in another order (a policy then its renewals); a later pass takes it.
 */
export async function lockStaleRows(
  trx: Executor,
  table: SealedTable,
  prefix: string,
  after: readonly unknown[] | undefined,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const key = sql.join(table.key.map((c) => sql.ref(c)));
  const anyStale = sql.join(
    table.columns.map((c) => stale(c, prefix)),
    sql` OR `,
  );
  const cursor = after ? sql`AND (${key}) > (${sql.join(after.map((v) => sql`${v}`))})` : sql``;
  const columns = sql.join([...table.key, ...table.columns].map((c) => sql.ref(c)));
  return (
    await sql<
      Record<string, unknown>
    >`SELECT ${columns} FROM ${sql.table(table.table)} WHERE (${anyStale}) ${cursor} ORDER BY ${key} LIMIT ${limit} FOR UPDATE SKIP LOCKED`.execute(
      trx,
    )
  ).rows;
}

/** Writes a row's re-sealed values. */
export async function updateSealed(
  trx: Executor,
  table: SealedTable,
  row: Record<string, unknown>,
  values: Record<string, string>,
): Promise<void> {
  const set = sql.join(Object.entries(values).map(([column, value]) => sql`${sql.ref(column)} = ${value}`));
  const where = sql.join(
    table.key.map((c) => sql`${sql.ref(c)} = ${row[c]}`),
    sql` AND `,
  );
  await sql`UPDATE ${sql.table(table.table)} SET ${set} WHERE ${where}`.execute(trx);
}
