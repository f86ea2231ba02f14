import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { failingSince } from '../../src/webhooks/webhooks-repo.ts';
import { openTestDatabase, usingPostgres } from '../helper.ts';
import { planNodes, statementOf, type PlanNode } from '../query-plan.ts';

/**
 * Since when an endpoint fails (webhooks-repo.ts, failingSince) on an endpoint failing for weeks among
 * endpoints that succeed: its first failed attempt after its latest success must be looked for in each
 * delivery attempted since, by one probe of the failed attempts' index on (delivery_id, at) (migration
 * 0086) — never a join that reads every failed attempt of the table (the hash join the planner chose,
 * ~0.5 s on 1M attempts). The attempts table is given the deliveries of several endpoints over 40
 * days and analysed, as a platform's would be; sequential scans and sorts made prohibitive, the plan
 * shows which index is read and how it is entered. PostgreSQL only: PGlite's planner has no statistics
 * worth the name for this choice.
 */
describe(
  'failing since — its query plan',
  { skip: usingPostgres ? false : 'PostgreSQL only (TEST_DATABASE_URL): a plan on seeded statistics' },
  () => {
    let database: DatabaseHandle;
    const failing = '00000000-0000-0000-0000-000000000001';
    const since = new Date('2026-10-10T00:00:00Z');
    before(async () => {
      database = await openTestDatabase();
      // rows only the planner (and the answer) read: their events, endpoints and partner need not exist
      // (foreign keys off in this transaction; a database of this test alone)
      await database.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL session_replication_role = replica`.execute(trx);
        // 8,000 deliveries over 40 days to 8 endpoints, 5 attempts each; endpoint 1 fails throughout
        await sql`
          INSERT INTO webhook_deliveries (id, event_id, endpoint_id, partner_id, environment, status, attempts,
                                          last_attempt_at, last_error, created_at, succeeded_at)
          SELECT ('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid, 'msg_plan_' || g,
                 ('00000000-0000-0000-0000-' || lpad((g % 8)::text, 12, '0'))::uuid,
                 '00000000-0000-0000-0000-0000000000aa'::uuid, 'production',
                 CASE WHEN g % 8 = 1 THEN 'failed' ELSE 'succeeded' END, 5,
                 timestamptz '2026-10-01' + g * interval '7 minutes' + interval '2 hours',
                 CASE WHEN g % 8 = 1 THEN 'http_500' END,
                 timestamptz '2026-10-01' + g * interval '7 minutes',
                 CASE WHEN g % 8 <> 1 THEN timestamptz '2026-10-01' + g * interval '7 minutes' + interval '2 hours' END
          FROM generate_series(1, 8000) g`.execute(trx);
        await sql`
          INSERT INTO webhook_delivery_attempts (delivery_id, attempt, at, status_code, duration_ms, error)
          SELECT ('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid, n,
                 timestamptz '2026-10-01' + g * interval '7 minutes' + (n - 1) * interval '30 minutes', 500, 10,
                 CASE WHEN g % 8 = 1 OR n < 5 THEN 'http_500' END
          FROM generate_series(1, 8000) g, generate_series(1, 5) n`.execute(trx);
      });
      await sql`ANALYZE webhook_deliveries`.execute(database.db);
      await sql`ANALYZE webhook_delivery_attempts`.execute(database.db);
    });
    after(() => database?.close());

    const describeNodes = (nodes: PlanNode[]) =>
      JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Name'], n['Index Cond']]));

    // This test checks that the index of failed attempts (0086) exists and is used, entered by delivery
    // and time, with sequential scans and sorts made prohibitive. It does not pin the query's shape: the
    // previous query (a plain join of the attempts) passes it too once the index exists. The next test
    // does: with the planner free to choose, the LATERAL … LIMIT 1 leaves it no wholesale join.
    it('reads, per delivery attempted since, its first failed attempt from the index of failed attempts', async () => {
      const nodes = await planNodes(
        database.db,
        await statementOf(database.db, (db) => failingSince(db, [failing], since)),
      );
      assert.ok(!nodes.some((n) => /^(Hash Join|Merge Join|Seq Scan)$/.test(n['Node Type'])), describeNodes(nodes));
      const attempts = nodes.filter((n) => /^webhook_delivery_attempts/.test(n['Index Name'] ?? ''));
      assert.deepEqual(
        attempts.map((n) => [n['Index Name'], /^\(\(delivery_id = d\.id\) AND \(at > /.test(n['Index Cond'] ?? '')]),
        [['webhook_delivery_attempts_failed', true]],
        describeNodes(nodes),
      );
      // the deliveries by the endpoint's range of the index on (endpoint_id, last_attempt_at) (0068)
      assert.ok(
        nodes.some(
          (n) =>
            n['Index Name'] === 'webhook_deliveries_endpoint_attempts' &&
            /endpoint_id = .*last_attempt_at > /.test(n['Index Cond'] ?? ''),
        ),
        describeNodes(nodes),
      );
    });

    // The query's shape: its plan as the planner chooses it (sequential scans and sorts allowed), where
    // the previous query got the hash join reading every failed attempt.
    it('never joins the attempts wholesale, even with sequential scans allowed (the planner’s own choice)', async () => {
      const query = await statementOf(database.db, (db) => failingSince(db, [failing], since));
      const flat = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(flat)];
      const { rows } = await database.db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
        ...query,
        sql: `EXPLAIN (FORMAT JSON) ${query.sql}`,
      });
      const nodes = flat(rows[0]!['QUERY PLAN'][0].Plan);
      assert.ok(!nodes.some((n) => /^(Hash Join|Merge Join)$/.test(n['Node Type'])), describeNodes(nodes));
      assert.ok(
        nodes.some((n) => n['Index Name'] === 'webhook_delivery_attempts_failed'),
        describeNodes(nodes),
      );
    });

    it('answers the first failure of the look-back, failing for longer', async () => {
      // endpoint 1's deliveries g ≡ 1 (mod 8), one every 56 minutes: the first attempt at or after `since`
      // is the first of its own failures there (every attempt of it fails)
      const [row] = await failingSince(database.db, [failing], since);
      const { rows } = await sql<{ at: Date }>`
        SELECT min(a.at) AS at FROM webhook_delivery_attempts a
        JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE d.endpoint_id = ${failing}::uuid AND a.at >= ${since}`.execute(database.db);
      assert.deepEqual(row, { endpoint_id: failing, since: new Date(rows[0]!.at), failing_before: true });
      assert.deepEqual(
        await failingSince(database.db, ['00000000-0000-0000-0000-000000000002'], since),
        [],
        'an endpoint that succeeds is left out',
      );
    });
  },
);
