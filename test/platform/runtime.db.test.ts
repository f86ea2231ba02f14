import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/platform/db.ts';
import { JOBS } from '../../src/jobs/registry.ts';
import { migrateDatabase, openRuntime } from '../../src/runtime.ts';
import { childEnv, openTestDatabase, testConfig } from '../helper.ts';

/** The one bootstrap of API, worker and CLI (src/runtime.ts). */
describe('runtime bootstrap', () => {
  it('opens, migrates, derives the keys, starts the queue with every queue of the registry; close() releases the database', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-runtime-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const config = testConfig({ PARASOL_DATA_DIR: dir });
    const runtime = await openRuntime(
      { ...config, databaseUrl: undefined },
      { jobOptions: { schedules: false, supervise: false } },
    );
    try {
      assert.ok(runtime.applied.length > 0, 'a fresh database is migrated');
      assert.equal(runtime.keys.encryption.current.key.length, 32);
      const queues = (await sql<{ name: string }>`SELECT name FROM pgboss.queue`.execute(runtime.db)).rows.map(
        (r) => r.name,
      );
      for (const name of Object.keys(JOBS)) assert.ok(queues.includes(name), `${name} registered`);
    } finally {
      await runtime.close();
    }
    // the embedded database is released: another open succeeds
    const again = await openDatabase({ dataDir: dir });
    await again.close();
  });

  it("`parasol db migrate` migrates the schema and pg-boss's, and starts no job queue: no queue, schedule, job or key file", async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-migrate-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const { DATABASE_URL: _url, PARASOL_MASTER_KEY: _key, ...base } = childEnv();
    const run = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', '--json', 'db', 'migrate'],
        { env: { ...base, PARASOL_DATA_DIR: dir, LOG_LEVEL: 'silent' } },
        (error, out, err) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out, err }),
      );
    });
    assert.equal(run.code, 0, run.err);
    const report = JSON.parse(run.out) as { appliedNow: string[]; pending: string[] };
    assert.ok(report.appliedNow.length > 0, 'a fresh database is migrated');
    assert.deepEqual(report.pending, []);
    assert.equal(fs.existsSync(path.join(dir, 'master.key')), false, 'a migration needs no key');
    const handle = await openDatabase({ dataDir: dir });
    try {
      const count = async (table: string) =>
        Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(handle.db)).rows[0]!.n);
      // pg-boss's schema is there, at its version, and nothing of a running queue
      assert.equal(await count('pgboss.version'), 1);
      assert.deepEqual(
        [await count('pgboss.queue'), await count('pgboss.schedule'), await count('pgboss.job')],
        [0, 0, 0],
        'no queue created, no cron schedule written, no job',
      );
    } finally {
      await handle.close();
    }
  });

  it('migrateDatabase leaves a database the caller gave open, and a runtime then starts on it', async (t) => {
    const handle = await openTestDatabase(t);
    const migrated = await migrateDatabase(testConfig(), { database: handle });
    assert.deepEqual(migrated.applied, [], 'the test database is migrated already');
    await migrated.close();
    assert.equal((await sql<{ one: number }>`SELECT 1 AS one`.execute(handle.db)).rows[0]!.one, 1);
  });

  it('closes the database it opened when a later step throws', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-runtime-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const config = testConfig({ PARASOL_DATA_DIR: dir });
    await assert.rejects(
      openRuntime(
        { ...config, databaseUrl: undefined },
        {
          prepare: async () => {
            throw new Error('seed failed');
          },
        },
      ),
      /seed failed/,
    );
    // a database left open would hold the data directory's lock
    const again = await openDatabase({ dataDir: dir });
    await again.close();
  });

  it('leaves a database the caller gave open, whatever happens', async (t) => {
    const handle = await openTestDatabase(t);
    await assert.rejects(
      openRuntime(testConfig(), {
        database: handle,
        prepare: async () => {
          throw new Error('seed failed');
        },
      }),
      /seed failed/,
    );
    const runtime = await openRuntime(testConfig(), {
      database: handle,
      jobOptions: { schedules: false, supervise: false },
    });
    await runtime.close();
    assert.equal((await sql<{ one: number }>`SELECT 1 AS one`.execute(handle.db)).rows[0]?.one, 1, 'still open');
  });
});
