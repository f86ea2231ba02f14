import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listClaimsForOperators } from '../../src/claims/claims-repo.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { openTestDatabase } from '../helper.ts';
import { planNodes, statementOf } from '../query-plan.ts';

/**
 * The operators' claims list pages newest first on (opened_at, id) across partners: each page must be
 * read from an index in that order (migration 0045), not sorted out of every claim. Asked with sorts
 * and sequential scans made prohibitive, the planner answers without a Sort node only when an index
 * gives the order.
 */
describe('the operators’ claims list — the page query', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  const before_ = { at: new Date(), id: '00000000-0000-0000-0000-000000000000' };
  // a next page starts where the cursor points: the index is entered there (an Index Cond on opened_at),
  // not read from its newest row
  for (const [name, q, entered] of [
    ['first page', { limit: 51 }, false],
    ['next page', { limit: 51, before: before_ }, true],
    ['next page of a status', { limit: 51, status: 'failed' as const, before: before_ }, true],
  ] as const)
    it(`reads the ${name} in index order, no sort`, async () => {
      const query = await statementOf(database.db, (db) => listClaimsForOperators(db, q));
      const nodes = await planNodes(database.db, query);
      const names = nodes.map((n) => n['Node Type']);
      assert.ok(!names.some((n) => /Sort/.test(n)), names.join(' → '));
      assert.equal(
        nodes.some((n) => /opened_at/.test(n['Index Cond'] ?? '')),
        entered,
        JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Cond']])),
      );
    });
});
