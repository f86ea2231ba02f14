import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/program.ts';
import { JobQueue } from '../../src/platform/jobs.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { childEnv, createTestPartner, eventually, FLIGHT, openTestDatabase, trip, usingPostgres } from '../helper.ts';

/**
 * Several processes, one platform (issue 12 §1), with real processes: two API processes and two
 * workers on one PostgreSQL database (and Redis when it answers). The API processes cache keys for
 * five minutes here (PARASOL_CACHE_TTL_SECONDS=300): only the change notification can make them
 * refuse a revoked key within the test's deadline. Latencies are printed, never asserted.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const QUOTE_LIMIT = 10;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function redisAnswers(url: string): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

function start(script: string, env: Record<string, string>, output: string[]): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...childEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 200) output.shift();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

describe(
  'two API processes and two workers on PostgreSQL',
  { skip: usingPostgres ? false : 'PostgreSQL only (TEST_DATABASE_URL): the embedded database is one process' },
  () => {
    let database: DatabaseHandle;
    const children: ChildProcess[] = [];
    const output: string[] = [];
    let apis: string[] = [];
    let withRedis = false;

    before(async () => {
      database = await openTestDatabase();
      withRedis = await redisAnswers(REDIS_URL);
      const common: Record<string, string> = {
        // the test's own copy of the migrated template: the processes and the test share it
        DATABASE_URL: database.url!,
        PARASOL_MASTER_KEY: crypto.createHash('sha256').update('parasol tests').digest('base64'),
        PARASOL_DATA_DIR: path.join(os.tmpdir(), `parasol-multi-${process.pid}`),
        LOG_LEVEL: 'warn',
        PARASOL_CACHE_TTL_SECONDS: '300',
        PARASOL_RATE_LIMIT_QUOTE_PER_MINUTE: String(QUOTE_LIMIT),
        PARASOL_AUTH_FAILURES_PER_MINUTE: '100000',
        PARASOL_FLIGHT_CAP_DEFAULT: '1000000000',
        ...(withRedis ? { REDIS_URL } : {}),
      };
      const ports = [await freePort(), await freePort()];
      apis = ports.map((port) => `http://127.0.0.1:${port}`);
      for (const port of ports)
        children.push(
          start('src/main.ts', { ...common, PORT: String(port), HOST: '127.0.0.1', PARASOL_WORKERS: 'off' }, output),
        );
      for (let i = 0; i < 2; i++)
        children.push(start('src/worker-main.ts', { ...common, PARASOL_JOB_POLL_SECONDS: '2' }, output));
      try {
        for (const api of apis)
          await eventually(
            async () => ((await fetch(`${api}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined),
            180_000,
          );
      } catch (error) {
        console.log(output.join(''));
        throw error;
      }
    });

    after(async () => {
      await Promise.all(children.map(stop));
      await database?.close();
    });

    const quote = (api: string, auth: Record<string, string>) =>
      fetch(`${api}${FLIGHT}/getPrice`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify(trip()),
      });

    it('a key revoked through one process is refused by every other within a second', async () => {
      const partner = await createTestPartner(database.db);
      for (const api of apis)
        assert.equal(
          (await quote(api, partner.auth)).status,
          200,
          `${api} knows the key (and caches it for 5 minutes)`,
        );
      const key = await database.db
        .selectFrom('api_keys')
        .select('id')
        .where('partner_id', '=', partner.id)
        .executeTakeFirstOrThrow();
      const revokedAt = Date.now();
      assert.equal(
        await runCli(['keys', 'revoke', partner.slug, key.id], {
          db: database.db,
          out: () => undefined,
          err: () => undefined,
        }),
        0,
      );
      const latencies = await Promise.all(
        apis.map(async (api) => {
          await eventually(async () => ((await quote(api, partner.auth)).status === 401 ? true : undefined), 60_000);
          return Date.now() - revokedAt;
        }),
      );
      console.log(`# revocation refused by the API processes after ${latencies.join(' ms and ')} ms (cache TTL 300 s)`);
    });

    it('with Redis, the quotes accepted across both processes stay within the key limit', async (t) => {
      if (!withRedis) return t.skip(`Redis does not answer at ${REDIS_URL}`);
      const partner = await createTestPartner(database.db);
      const statuses: number[] = [];
      for (let i = 0; i < 3 * QUOTE_LIMIT; i++) statuses.push((await quote(apis[i % 2]!, partner.auth)).status);
      const accepted = statuses.filter((s) => s === 200).length;
      console.log(
        `# accepted ${accepted} of ${statuses.length} quotes across two processes (limit ${QUOTE_LIMIT} per minute)`,
      );
      assert.ok(accepted <= QUOTE_LIMIT, `accepted ${accepted} > ${QUOTE_LIMIT}: the processes count apart`);
      assert.ok(accepted > 0);
      assert.ok(
        statuses.every((s) => s === 200 || s === 429),
        statuses.join(','),
      );
    });

    it('a job enqueued is run by a worker woken at once (enqueue → done printed)', async () => {
      const jobs = new JobQueue(database.db, { schedules: false, supervise: false });
      await jobs.start();
      try {
        const runs: number[] = [];
        for (let i = 0; i < 5; i++) {
          // a payout that does not exist: the worker skips it, a few statements
          const id = (await jobs.send('payouts_simulated_bank', { payoutId: crypto.randomUUID() }))!;
          const done = await eventually(async () => {
            const row = (await database.db
              .selectFrom('pgboss.job' as never)
              .select(['state', 'created_on', 'completed_on'] as never[])
              .where('id' as never, '=', id as never)
              .executeTakeFirst()) as { state: string; created_on: Date; completed_on: Date | null } | undefined;
            return row?.state === 'completed' && row.completed_on ? row : undefined;
          }, 60_000);
          runs.push(new Date(done.completed_on!).getTime() - new Date(done.created_on).getTime());
        }
        runs.sort((a, b) => a - b);
        console.log(
          `# payout job enqueue → completed by a worker: ${runs.join(', ')} ms (median ${runs[2]} ms; polling interval 2 s)`,
        );
      } finally {
        await jobs.stop();
      }
    });
  },
);
