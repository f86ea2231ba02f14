import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/platform/db.ts';
import crypto from 'node:crypto';
import { childEnv, openTestDatabase, usingPostgres } from '../helper.ts';

/**
 * `npm start` where its port is taken: one line naming the port and the variable, no stack trace, exit
 * 75, and its embedded database let go: the same data directory opens again at once, its data there.
 */

describe('starting on a port in use', () => {
  it('says which port and which variable to change, exits 75, and its data directory opens again', async (t) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-in-use-'));
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      holder.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const port = (holder.address() as net.AddressInfo).port;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...childEnv(), PARASOL_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(
      stderr,
      `error: the API cannot listen on 127.0.0.1:${port}: another process is using it. Stop that process, or set PORT to another port.\n`,
    );
    assert.equal(code, 75);

    // the lock released and the database whole: the next start on this directory opens it, migrated
    const again = await openDatabase({ dataDir });
    try {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from partners`.execute(again.db);
      assert.ok((rows[0]?.n ?? 0) >= 1, 'what the start wrote (its seed partner) is there');
    } finally {
      await again.close();
    }
  });
});

describe(
  'a worker whose metrics port is in use',
  { skip: usingPostgres ? false : 'PostgreSQL only (TEST_DATABASE_URL): the worker needs DATABASE_URL' },
  () => {
    it('says so, exits 75, and took no job: the port is bound before the workers start', async (t) => {
      const database = await openTestDatabase();
      const holder = net.createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-worker-in-use-'));
      t.after(async () => {
        holder.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
        await database.close();
      });
      // startWorkers schedules the periodic jobs: none scheduled means it never ran (a new copy: none yet)
      const scheduled = async () => {
        const table = await sql<{ t: string | null }>`SELECT to_regclass('pgboss.schedule')::text AS t`.execute(
          database.db,
        );
        if (!table.rows[0]?.t) return 0;
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.schedule`.execute(database.db);
        return rows[0]?.n ?? 0;
      };
      assert.equal(await scheduled(), 0);
      const port = (holder.address() as net.AddressInfo).port;
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker-main.ts'], {
        env: {
          ...childEnv(),
          DATABASE_URL: database.url!,
          PARASOL_MASTER_KEY: crypto.createHash('sha256').update('parasol tests').digest('base64'),
          PARASOL_DATA_DIR: dataDir,
          PARASOL_METRICS_PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
        },
      });
      let stderr = '';
      child.stdout.resume();
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.equal(
        stderr,
        `error: the metrics endpoint cannot listen on 127.0.0.1:${port}: another process is using it. Stop that process, or set PARASOL_METRICS_PORT to another port.\n`,
      );
      assert.equal(code, 75);
      assert.equal(await scheduled(), 0, 'no job scheduled: the workers never started');
    });
  },
);
