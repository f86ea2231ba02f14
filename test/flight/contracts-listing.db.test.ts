import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type CompiledQuery, type KyselyPlugin } from 'kysely';
import { searchContracts } from '../../src/flight/contracts-repo.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { createTestPartner, openTestDatabase } from '../helper.ts';

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

  /** The statement searchContracts sends, compiled, without running it. */
  async function compiledSearch(q: Parameters<typeof searchContracts>[2]): Promise<CompiledQuery> {
    let compiled: CompiledQuery | undefined;
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        compiled = database.db.getExecutor().compileQuery(args.node, args.queryId);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const partner = await createTestPartner(database.db);
    await searchContracts(database.db.withPlugin(capture), { partnerId: partner.id, environment: 'sandbox' }, q);
    return compiled!;
  }

  const planNodes = (plan: { 'Node Type': string; Plans?: unknown[] }): string[] => [
    plan['Node Type'],
    ...((plan.Plans ?? []) as (typeof plan)[]).flatMap(planNodes),
  ];

  for (const [name, q] of [
    ['first page', { limit: 51 }],
    ['next page', { limit: 51, before: { at: new Date(), id: '00000000-0000-0000-0000-000000000000' } }],
    [
      'by status and days',
      { limit: 51, statuses: ['active' as const], createdFrom: new Date(0), createdBefore: new Date() },
    ],
  ] as const)
    it(`reads the ${name} in index order, no sort`, async () => {
      const query = await compiledSearch(q);
      const nodes = await database.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL enable_sort = off`.execute(trx);
        await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const { rows } = await trx.executeQuery<{ 'QUERY PLAN': [{ Plan: { 'Node Type': string } }] }>({
          ...query,
          sql: `EXPLAIN (FORMAT JSON) ${query.sql}`,
        });
        return planNodes(rows[0]!['QUERY PLAN'][0].Plan);
      });
      assert.ok(!nodes.some((n) => /Sort/.test(n)), nodes.join(' → '));
    });
});
