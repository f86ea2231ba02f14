import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type CompiledQuery, type KyselyPlugin } from 'kysely';
import { listClaimsForOperators } from '../../src/claims/claims-repo.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { openTestDatabase } from '../helper.ts';

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

  /** The statement listClaimsForOperators sends, compiled, without running it. */
  async function compiledList(q: Parameters<typeof listClaimsForOperators>[1]): Promise<CompiledQuery> {
    let compiled: CompiledQuery | undefined;
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        compiled = database.db.getExecutor().compileQuery(args.node, args.queryId);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    await listClaimsForOperators(database.db.withPlugin(capture), q);
    return compiled!;
  }

  const planNodes = (plan: { 'Node Type': string; Plans?: unknown[] }): string[] => [
    plan['Node Type'],
    ...((plan.Plans ?? []) as (typeof plan)[]).flatMap(planNodes),
  ];

  const before_ = { at: new Date(), id: '00000000-0000-0000-0000-000000000000' };
  for (const [name, q] of [
    ['first page', { limit: 51 }],
    ['next page', { limit: 51, before: before_ }],
    ['next page of a status', { limit: 51, status: 'failed' as const, before: before_ }],
  ] as const)
    it(`reads the ${name} in index order, no sort`, async () => {
      const query = await compiledList(q);
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
