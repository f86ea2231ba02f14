import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { searchContracts } from '../../src/flight/contracts-repo.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { createTestPartner, openTestDatabase } from '../helper.ts';
import { planNodes, statementOf } from '../query-plan.ts';

/**
 * GET /contracts pages newest first on (created_at, id): each page must be read from an index in that
 * order, not sorted out of every matching contract of the partner (a partner with a million contracts
 * would sort a million rows a page). Asked with sorts and sequential scans made prohibitive, the
 * planner answers without a Sort node only when an index gives the order.
 */
describe('GET /contracts — the page query', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  for (const [name, q] of [
    ['first page', { limit: 51 }],
    ['next page', { limit: 51, before: { at: new Date(), id: '00000000-0000-0000-0000-000000000000' } }],
    [
      'by status and days',
      { limit: 51, statuses: ['active' as const], createdFrom: new Date(0), createdBefore: new Date() },
    ],
  ] as const)
    it(`reads the ${name} in index order, no sort`, async () => {
      const partner = await createTestPartner(database.db);
      const query = await statementOf(database.db, (db) =>
        searchContracts(db, { partnerId: partner.id, environment: 'sandbox' }, q),
      );
      const nodes = (await planNodes(database.db, query)).map((n) => n['Node Type']);
      assert.ok(!nodes.some((n) => /Sort/.test(n)), nodes.join(' → '));
    });
});
