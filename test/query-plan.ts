import { sql, type CompiledQuery, type KyselyPlugin } from 'kysely';
import type { Db } from '../src/platform/db.ts';

/**
 * Query-plan checks of the paged lists (a page read from an index in its order, entered at its cursor):
 * the statement a repository function sends, compiled without being run, then its plan with sorts and
 * sequential scans made prohibitive — the planner answers without a Sort node only when an index gives
 * the order.
 */

export interface PlanNode {
  'Node Type': string;
  'Index Cond'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The statement `run` sends through the database it is given, compiled (run against the real one). */
export async function statementOf(db: Db, run: (db: Db) => Promise<unknown>): Promise<CompiledQuery> {
  let compiled: CompiledQuery | undefined;
  const capture: KyselyPlugin = {
    transformQuery: (args) => {
      compiled = db.getExecutor().compileQuery(args.node, args.queryId);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  await run(db.withPlugin(capture));
  return compiled!;
}

/** Every node of the statement's plan, sorts and sequential scans made prohibitive. */
export async function planNodes(db: Db, query: CompiledQuery): Promise<PlanNode[]> {
  const flat = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(flat)];
  return db.transaction().execute(async (trx) => {
    await sql`SET LOCAL enable_sort = off`.execute(trx);
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
      ...query,
      sql: `EXPLAIN (FORMAT JSON) ${query.sql}`,
    });
    return flat(rows[0]!['QUERY PLAN'][0].Plan);
  });
}
