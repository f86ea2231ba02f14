import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { claimRows, premiumRows, totals } from '../../src/ledger/ledger-repo.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { openTestDatabase } from '../helper.ts';
import { planNodes, statementOf, type PlanNode } from '../query-plan.ts';

/**
 * The money reports of a month on a partner with years of claims and entries: each must read the
 * claims and the ledger from the period's range of an index (claims_listing on opened_at,
 * ledger_entries_period on occurred_at) or by one claim's id — never every claim or entry the partner
 * ever had, nor every partner's claims of the month (docs/bordereaux.md, "Performance"). Asked with
 * sequential scans and sorts made prohibitive, the planner shows which index it reads and how it enters it.
 * The choice between claims_listing and claims_operators (opened_at alone) follows the table's statistics,
 * and an empty table has none worth the name (either may win): the claims table is given the claims of
 * several partners over two years, and analysed, as a platform's would be.
 */
describe('the money reports — their query plans', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await openTestDatabase();
    // rows only the planner reads: their contracts and legs need not exist (foreign keys off in this
    // transaction; a database of this test alone, which nothing else uses)
    await database.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx);
      await sql`
        INSERT INTO claims (claim_number, partner_id, environment, contract_id, leg_id, reason, event, status,
                            compensation_amount, currency, evidence, opened_at)
        SELECT 'PLAN-' || g, ('00000000-0000-0000-0000-' || lpad((g % 40)::text, 12, '0'))::uuid,
               CASE WHEN g % 3 = 0 THEN 'sandbox' ELSE 'production' END, gen_random_uuid(), gen_random_uuid(),
               'delay', 'delayed', 'paid', 10000, 'EUR', '{}'::jsonb,
               timestamptz '2025-01-01' + (g % 730) * interval '1 day'
        FROM generate_series(1, 4000) g`.execute(trx);
    });
    await sql`ANALYZE claims`.execute(database.db);
  });
  after(() => database.close());

  const scope = { partnerId: '00000000-0000-0000-0000-000000000000', environment: 'production' as const };
  const period = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z') };
  const describeNodes = (nodes: PlanNode[]) =>
    JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Name'], n['Index Cond']]));

  for (const [name, run] of [
    ['claims bordereau', (db: DatabaseHandle['db']) => claimRows(db, scope, period)],
    ['premium bordereau', (db: DatabaseHandle['db']) => premiumRows(db, scope, period)],
    ['partner statement', (db: DatabaseHandle['db']) => totals(db, scope, period)],
  ] as const)
    it(`the ${name} reads claims and entries of the period or of one claim only`, async () => {
      const nodes = await planNodes(database.db, await statementOf(database.db, run));
      assert.ok(!nodes.some((n) => n['Node Type'] === 'Seq Scan'), describeNodes(nodes));
      const unbounded = nodes.filter(
        (n) =>
          /^(claims|ledger_entries)/.test(n['Index Name'] ?? '') &&
          !/opened_at >=|occurred_at >=|\(id = |claim_id = /.test(n['Index Cond'] ?? ''),
      );
      assert.deepEqual(unbounded, [], describeNodes(nodes));
      // a scan entered at the period's range is entered at the partner's too (claims_listing,
      // ledger_entries_period), never at every partner's claims or entries of the period (claims_operators)
      const allPartners = nodes.filter(
        (n) => /opened_at >=|occurred_at >=/.test(n['Index Cond'] ?? '') && !/partner_id = /.test(n['Index Cond']!),
      );
      assert.deepEqual(allPartners, [], describeNodes(nodes));
      if (name === 'claims bordereau')
        assert.ok(
          nodes.some((n) => /^claims/.test(n['Index Name'] ?? '') && /opened_at >=/.test(n['Index Cond'] ?? '')),
          describeNodes(nodes),
        );
      // the expiry batches (audit rows `claims_expired`) by their time (migration 0084), not every batch
      // since the first one read to test its time
      assert.ok(!/'expiry'/.test(describeNodes(nodes)), describeNodes(nodes));
      if (name === 'claims bordereau')
        assert.ok(
          nodes.some((n) => n['Index Name'] === 'audit_log_claims_expiry' && /\bat < /.test(n['Index Cond'] ?? '')),
          describeNodes(nodes),
        );
    });
});
