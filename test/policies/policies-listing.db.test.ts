import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { searchPolicies } from '../../src/policies/policies-repo.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { createTestPartner, openTestDatabase } from '../helper.ts';
import { planNodes, statementOf } from '../query-plan.ts';

/**
 * GET /policies pages oldest first on (created_at, id): each page is read from the policies_listing
 * index in that order, and a next page enters the index at its cursor (an Index Cond on created_at),
 * not read from the partner's oldest policy and filtered row by row.
 */
describe('GET /policies — the page query', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  const after_ = { createdAt: new Date(), id: '00000000-0000-0000-0000-000000000000' };
  for (const [name, q, entered] of [
    ['first page', { limit: 51 }, false],
    ['next page', { limit: 51, after: after_ }, true],
    ['next page of a status', { limit: 51, status: 'active' as const, after: after_ }, true],
  ] as const)
    it(`reads the ${name} in index order, no sort`, async () => {
      const partner = await createTestPartner(database.db);
      const query = await statementOf(database.db, (db) =>
        searchPolicies(db, { partnerId: partner.id, environment: 'sandbox' }, { today: '2026-03-10', ...q }),
      );
      const nodes = await planNodes(database.db, query);
      const names = nodes.map((n) => n['Node Type']);
      assert.ok(!names.some((n) => /Sort/.test(n)), names.join(' → '));
      assert.equal(
        nodes.some((n) => /created_at/.test(n['Index Cond'] ?? '')),
        entered,
        JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Cond']])),
      );
    });
});
