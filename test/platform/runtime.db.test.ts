import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/platform/db.ts';
import { JOBS } from '../../src/jobs/registry.ts';
import { openRuntime } from '../../src/runtime.ts';
import { openTestDatabase, testConfig } from '../helper.ts';

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
