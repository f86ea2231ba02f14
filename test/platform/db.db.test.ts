import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DatabaseLockedError, migrationFiles, openDatabase } from '../../src/platform/db.ts';
import pg from 'pg';
import { childEnv, eventually, openTestDatabase, usingPostgres } from '../helper.ts';

describe('database', () => {
  it('applies every migration once, and again is a no-op', async (t) => {
    const handle = await openTestDatabase(t);
    assert.deepEqual(await handle.migrate(), []);
    const rows = (
      await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name`.execute(handle.db)
    ).rows.map((r) => r.name);
    assert.deepEqual(rows, migrationFiles());
  });

  it('locks the embedded data directory against a second process, and says so', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-lock-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const handle = await openDatabase({ dataDir: dir });
    try {
      await assert.rejects(
        openDatabase({ dataDir: dir }),
        (error: unknown) =>
          error instanceof DatabaseLockedError && /already open in another process/.test(String(error)),
      );
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { ...childEnv(), PARASOL_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.equal(code, 75);
      assert.match(stderr, /already open in another process \(pid \d+\)/);
    } finally {
      await handle.close();
    }
    // released on close: it opens again, and keeps its data
    const again = await openDatabase({ dataDir: dir });
    await again.close();
  });

  it('ignores the pid file earlier versions left, even one naming a live process or this very process', async (t) => {
    // a container restarted after a crash gets the same pid again; pid 1 is always alive
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-stale-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    for (const pid of [String(process.pid), '1', '999999999']) {
      fs.writeFileSync(path.join(dir, 'parasol.lock'), pid);
      const handle = await openDatabase({ dataDir: dir });
      try {
        const row = await sql<{ one: number }>`SELECT 1 AS one`.execute(handle.db);
        assert.equal(row.rows[0]?.one, 1, `opens over a pid file naming ${pid}`);
        assert.equal(fs.existsSync(path.join(dir, 'parasol.lock')), false, 'the old pid file is removed');
      } finally {
        await handle.close();
      }
    }
  });

  it('excludes a live process holding the directory, and a process killed with SIGKILL releases it', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-held-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/platform/hold-data-dir.ts', dir], {
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    t.after(() => child.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('held\n')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`the child exited (${code}) before holding the lock`)));
    });
    await assert.rejects(
      openDatabase({ dataDir: dir }),
      (error: unknown) => error instanceof DatabaseLockedError && String(error).includes(`(pid ${child.pid})`),
    );
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    // no clean-up ran in the child: the kernel released its lock
    const handle = await openDatabase({ dataDir: dir });
    try {
      assert.deepEqual(await handle.migrate(), [], 'the data the killed process migrated is there');
    } finally {
      await handle.close();
    }
  });

  it(
    'survives an idle PostgreSQL connection terminated by the server (57P01), and goes on',
    { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' },
    async () => {
      const lost: string[] = [];
      const handle = await openDatabase({
        databaseUrl: process.env.TEST_DATABASE_URL,
        poolSize: 1,
        onPoolError: (error) => lost.push(error.code ?? ''),
      });
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      admin.on('error', () => undefined);
      await admin.connect();
      try {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(handle.db);
        // the pool's one connection is idle now: the server ends it, as DROP DATABASE … WITH (FORCE) does
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        await eventually(async () => (lost.length > 0 ? true : undefined));
        assert.deepEqual(lost, ['57P01'], 'reported, not thrown: the process is still here');
        const again = await sql<{ one: number }>`SELECT 1 AS one`.execute(handle.db);
        assert.equal(again.rows[0]?.one, 1, 'a new connection serves the next query');
      } finally {
        await admin.end();
        await handle.close();
      }
    },
  );

  it('keeps committed data across a restart of the embedded database', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-durable-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const first = await openDatabase({ dataDir: dir });
    await first.migrate();
    await first.db.insertInto('partners').values({ slug: 'durable', name: 'Durable' }).execute();
    await first.close();
    const second = await openDatabase({ dataDir: dir });
    const row = await second.db.selectFrom('partners').select('name').where('slug', '=', 'durable').executeTakeFirst();
    await second.close();
    assert.equal(row?.name, 'Durable');
  });
});
