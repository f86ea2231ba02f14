import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { claimRows, premiumRows, totals } from '../../src/ledger/ledger-repo.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { openTestDatabase } from '../helper.ts';
import { planNodes, statementOf, type PlanNode } from '../query-plan.ts';

/**
 * The money reports of a month on a partner with years of claims and entries: each must read the
 * claims and the ledger from the period's range of an index (claims_listing on opened_at,
 * ledger_entries_period on occurred_at) or by one claim's id — never every claim or entry the partner
 * ever had (docs/bordereaux.md, "Performance"). Asked with sequential scans and sorts made prohibitive, the
 * planner shows which index it reads and how it enters it.
 */
describe('the money reports — their query plans', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await openTestDatabase();
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
