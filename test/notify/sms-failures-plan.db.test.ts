import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { listPlatformFailures } from '../../src/notify/sms/sms-repo.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { openTestDatabase } from '../helper.ts';
import { planNodes, statementOf, type PlanNode } from '../query-plan.ts';

/**
 * `parasol sms failures` (sms-repo.ts, listPlatformFailures) on an audit trail of many rows, most of
 * them not the SMS's: the failures must be read from the partial index of the SMS failure audit rows by
 * (at, id) (audit_log_sms_failures_at_id, migration 0097, which replaced 0096's on `at` alone), in the
 * listing's order — no Sort node, not even an incremental one on id —, entered at --since when given —
 * never every SMS audit row from the index on (entity, entity_id), nor the whole trail — and each
 * message by its id. Asked with sequential scans and sorts made prohibitive, the planner shows which
 * index it reads and how it enters it.
 */
describe('the SMS failures listing — its query plan', () => {
  let database: DatabaseHandle;
  const partnerId = '00000000-0000-0000-0000-000000000003';
  before(async () => {
    database = await openTestDatabase();
    // rows only the planner reads: their messages and partners need not exist (foreign keys off in this
    // transaction; a database of this test alone)
    await database.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx);
      await sql`
        INSERT INTO audit_log (at, actor, partner_id, environment, entity, entity_id, action, data)
        SELECT timestamptz '2026-01-01' + g * interval '5 minutes', 'system',
               ('00000000-0000-0000-0000-' || lpad((g % 8)::text, 12, '0'))::uuid, 'production',
               CASE WHEN g % 10 = 0 THEN 'sms' ELSE 'claim' END,
               CASE WHEN g % 10 = 0 THEN ('00000000-0000-0000-0000-' || lpad(g::text, 12, '0')) ELSE 'FD-' || g END,
               CASE WHEN g % 10 <> 0 THEN 'claim_opened' WHEN g % 20 = 0 THEN 'sms_undelivered' ELSE 'sms_rejected' END,
               CASE WHEN g % 40 = 0 THEN '{"platformFailure": true}'::jsonb ELSE '{"reason": "invalid_number"}'::jsonb END
        FROM generate_series(1, 20000) g`.execute(trx);
    });
    await sql`ANALYZE audit_log`.execute(database.db);
  });
  after(() => database?.close());

  const describeNodes = (nodes: PlanNode[]) =>
    JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Name'], n['Index Cond']]));

  for (const [name, options] of [
    ['every failure', {}],
    ['since an instant', { since: new Date('2026-02-01T00:00:00Z') }],
    ["one partner's, since an instant", { since: new Date('2026-02-01T00:00:00Z'), partnerId }],
  ] as const)
    it(`reads ${name} from the index of the SMS failure audit rows in its order, and each message by its id`, async () => {
      const nodes = await planNodes(
        database.db,
        await statementOf(database.db, (db) => listPlatformFailures(db, { ...options, limit: 50 })),
      );
      assert.ok(!nodes.some((n) => n['Node Type'] === 'Seq Scan'), describeNodes(nodes));
      // the index gives the order (at, id) whole: no sort of the rows it yields
      assert.ok(!nodes.some((n) => /Sort/.test(n['Node Type'])), describeNodes(nodes));
      const audit = nodes.filter((n) => /^audit_log/.test(n['Index Name'] ?? ''));
      assert.deepEqual(
        audit.map((n) => n['Index Name']),
        ['audit_log_sms_failures_at_id'],
        describeNodes(nodes),
      );
      if ('since' in options) assert.match(audit[0]!['Index Cond'] ?? '', /\bat >= /, describeNodes(nodes));
      assert.ok(
        nodes.some((n) => n['Index Name'] === 'sms_messages_pkey' && /\bid = /.test(n['Index Cond'] ?? '')),
        describeNodes(nodes),
      );
    });
});
