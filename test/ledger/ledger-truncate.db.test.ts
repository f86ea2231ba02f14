import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { openTestDatabase } from '../helper.ts';

/**
 * The ledger is append-only (migration 0023 refuses UPDATE and DELETE, test/ledger/ledger.http.test.ts);
 * TRUNCATE fires no row trigger, so migration 0083 refuses it with a statement trigger — also when it
 * comes through a table the ledger references (TRUNCATE … CASCADE). On a database of this test alone:
 * a TRUNCATE takes an exclusive lock on every table it reaches, which on an app's database would wait
 * for (or deadlock with) its background jobs' transactions.
 */
describe('the ledger cannot be emptied by TRUNCATE', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  it('TRUNCATE of the ledger is refused', async () => {
    await assert.rejects(sql`TRUNCATE ledger_entries`.execute(database.db), /append-only/);
  });

  it('TRUNCATE … CASCADE of a table the ledger references is refused', async () => {
    for (const table of ['partners', 'contracts', 'claims', 'payouts'])
      await assert.rejects(sql`TRUNCATE ${sql.table(table)} CASCADE`.execute(database.db), /append-only/, table);
  });
});
