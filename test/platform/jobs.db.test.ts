import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { JobQueue } from '../../src/platform/jobs.ts';
import { transaction, type DatabaseHandle } from '../../src/platform/db.ts';
import { JOBS_CHANNEL, Notifications, wakeOnJobs } from '../../src/platform/notifications.ts';
import { openTestDatabase, usingPostgres } from '../helper.ts';

/** Polls until `check` is true (jobs are asynchronous); fails after `ms`. */
async function eventually(check: () => Promise<boolean>, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(100);
  }
}

const fast = { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, schedules: false };
/** This file's queues are its own (unique names), outside the platform's registry. */
type TestJobs = Record<string, { n?: number; tag?: string; payout?: string }>;

describe('job queue (pg-boss on the platform database)', () => {
  let handle: DatabaseHandle;
  let queue: JobQueue<TestJobs>;
  const unique = (name: string) => `${name}_${process.pid}_${Date.now().toString(36)}`;

  before(async () => {
    handle = await openTestDatabase();
    queue = await new JobQueue<TestJobs>(handle.db, fast).start();
  });
  after(async () => {
    await queue.stop({ timeoutMs: 2000 });
    await handle.close();
  });

  it('without an error handler, a queue error reaches stderr as its scrubbed message only', async (t) => {
    const quiet = new JobQueue<TestJobs>(handle.db, fast);
    const printed: unknown[][] = [];
    t.mock.method(console, 'error', (...args: unknown[]) => printed.push(args));
    const error = Object.assign(new Error('duplicate key: jane.roe@example.org'), {
      detail: 'Key (email)=(jane.roe@example.org) already exists.',
    });
    (quiet as unknown as { boss: { emit: (e: string, x: unknown) => void } }).boss.emit('error', error);
    assert.deepEqual(printed, [['job queue error: duplicate key: [redacted]']]);
  });

  it('runs a job sent to a queue', async () => {
    const name = unique('echo');
    await queue.queue(name);
    const seen: unknown[] = [];
    await queue.work(name, async (job) => void seen.push(job.data.n), { pollingIntervalSeconds: 0.5 });
    const id = await queue.send(name, { n: 42 });
    await eventually(async () => (await queue.job(name, id!))?.state === 'completed');
    assert.deepEqual(seen, [42]);
  });

  it('enqueues inside a transaction: nothing runs if it rolls back', async () => {
    const name = unique('trx');
    await queue.queue(name);
    const seen: string[] = [];
    await queue.work(name, async (job) => void seen.push(job.data.tag!), { pollingIntervalSeconds: 0.5 });
    await assert.rejects(
      handle.db.transaction().execute(async (trx) => {
        await queue.send(name, { tag: 'rolled back' }, { trx });
        throw new Error('abort');
      }),
      /abort/,
    );
    const committed = await handle.db.transaction().execute(async (trx) => {
      await sql`SELECT 1`.execute(trx);
      return queue.send(name, { tag: 'committed' }, { trx });
    });
    await eventually(async () => (await queue.job(name, committed!))?.state === 'completed');
    await sleep(1500);
    assert.deepEqual(seen, ['committed']);
  });

  it('announces a job sent in a transaction() after its commit, waking a worker; never a rolled back one', async (t) => {
    // 30 s between polls: only the announcement (sent after the commit, not inside it) runs the job in time
    const name = unique('after_commit');
    await queue.queue(name);
    const feed = await Notifications.open(handle);
    t.after(() => feed.close());
    const announced: string[] = [];
    feed.on(JOBS_CHANNEL, (queueName) => void announced.push(queueName));
    wakeOnJobs(feed, queue);
    const seen: string[] = [];
    await queue.work(name, async (job) => void seen.push(job.data.tag!), { pollingIntervalSeconds: 30 });
    await assert.rejects(
      transaction(handle.db, async (trx) => {
        await queue.send(name, { tag: 'rolled back' }, { trx });
        throw new Error('abort');
      }),
      /abort/,
    );
    await transaction(handle.db, (trx) => queue.send(name, { tag: 'committed' }, { trx }));
    await eventually(async () => seen.length === 1, 15_000);
    assert.deepEqual(seen, ['committed']);
    assert.deepEqual(
      announced.filter((queueName) => queueName === name),
      [name],
    );
  });

  it('retries a failing job with back-off, then fails it', async () => {
    const name = unique('flaky');
    await queue.queue(name, { retryLimit: 2, retryDelay: 1, retryBackoff: true });
    const attempts: number[] = [];
    await queue.work(
      name,
      async () => {
        attempts.push(Date.now());
        throw new Error('provider down');
      },
      { pollingIntervalSeconds: 0.5 },
    );
    const id = await queue.send(name, {});
    await eventually(async () => (await queue.job(name, id!))?.state === 'failed', 120_000);
    assert.equal(attempts.length, 3, 'first attempt + 2 retries');
    const job = await queue.job(name, id!);
    assert.equal(job?.retryCount, 2);
  });

  it('loses no work when a worker dies mid-job: another worker completes it after expiry', async (t) => {
    const name = unique('crash');
    await queue.queue(name, { retryLimit: 3, retryDelay: 0, retryBackoff: false, expireInSeconds: 1 });
    // A first worker (its own pg-boss instance, like another process) takes the job and never finishes.
    const dying = await new JobQueue<TestJobs>(handle.db, fast).start();
    let taken = false;
    await dying.work(
      name,
      async () => {
        taken = true;
        await new Promise(() => {}); // hangs: the process "dies" with the job active
      },
      { pollingIntervalSeconds: 0.5 },
    );
    t.after(() => dying.stop({ graceful: false, timeoutMs: 1000 }));
    const id = await queue.send(name, { payout: 'P-1' });
    await eventually(async () => taken);
    await dying.forget(name); // the process is gone: it polls no more and never reports the job
    // The surviving worker picks the job up once it has expired.
    const done: string[] = [];
    await queue.work(name, async (job) => void done.push(job.data.payout!), { pollingIntervalSeconds: 0.5 });
    await eventually(async () => (await queue.job(name, id!))?.state === 'completed', 120_000);
    assert.deepEqual(done, ['P-1']);
  });

  it("runs a 'singleton' queue's jobs one at a time across processes, and loses none sent meanwhile", async (t) => {
    // the scheduled sweeps (claims_expire, claims_remind, flights_plan…): a tick or a sent job that
    // comes while a run is under way waits for it, then runs — never beside it, never dropped
    const name = unique('singleton');
    await queue.queue(name, { policy: 'singleton', retryLimit: 0 });
    const other = await new JobQueue<TestJobs>(handle.db, fast).start();
    t.after(() => other.stop({ timeoutMs: 1000 }));
    let running = 0;
    let most = 0;
    const ran: number[] = [];
    const handler = async (job: { data: { n?: number } }) => {
      running += 1;
      most = Math.max(most, running);
      await sleep(400);
      ran.push(job.data.n!);
      running -= 1;
    };
    await queue.work(name, handler, { pollingIntervalSeconds: 0.5 });
    await other.work(name, handler, { pollingIntervalSeconds: 0.5 });
    await queue.send(name, { n: 1 });
    await eventually(async () => running === 1);
    await Promise.all([queue.send(name, { n: 2 }), other.send(name, { n: 3 })]);
    await eventually(async () => ran.length === 3, 30_000);
    assert.deepEqual([...ran].sort(), [1, 2, 3], 'every job ran, once');
    assert.equal(most, 1, 'never two at once, though two workers poll');
  });

  it('drains a backlog batch after batch, without waiting a polling interval between batches', async () => {
    // 30 s between polls and no notification listener: only fetching again after a batch that got
    // jobs can run 3 batches of each worker within the few seconds given here (pg-boss alone waits
    // out the interval after every batch: 50 jobs per 2 s was the claim fan-out's drain rate)
    const one = unique('backlog_one');
    const many = unique('backlog_many');
    await queue.queue(one);
    await queue.queue(many);
    await queue.sendMany(
      one,
      Array.from({ length: 3 }, (_, n) => ({ n })),
    );
    await queue.sendMany(
      many,
      Array.from({ length: 30 }, (_, n) => ({ n })),
    );
    const ran = { one: 0, many: 0 };
    await queue.work(one, async () => void ran.one++, { pollingIntervalSeconds: 30 });
    await queue.workConcurrently(many, async () => void ran.many++, { batchSize: 10, pollingIntervalSeconds: 30 });
    await eventually(async () => ran.one === 3 && ran.many === 30, 15_000);
  });

  it('creates the same new queues from several processes at once (each process starting up)', async (t) => {
    // Creating a queue attaches a partition to pgboss.job: two processes creating queues at the same
    // moment could deadlock on PostgreSQL (seen in CI with two API processes starting together).
    const names = Array.from({ length: 8 }, (_, i) => unique(`startup${i}`));
    const processes = await Promise.all(
      Array.from({ length: 4 }, () => new JobQueue<TestJobs>(handle.db, { ...fast, supervise: false }).start()),
    );
    t.after(() => Promise.all(processes.map((p) => p.stop({ timeoutMs: 1000 }))));
    await Promise.all(
      processes.map(async (p, i) => {
        // each in its own order, as registries of different releases might be
        for (const name of i % 2 ? [...names].reverse() : names) await p.queue(name, { retryLimit: 1 + i });
      }),
    );
    const { rows } = await sql<{ name: string }>`SELECT name FROM pgboss.queue WHERE name = ANY(${names})`.execute(
      handle.db,
    );
    assert.deepEqual(rows.map((r) => r.name).sort(), [...names].sort());
  });
});

describe('npm run worker', () => {
  it('explains that the embedded database runs its workers in the API process', async () => {
    const { spawn } = await import('node:child_process');
    const { childEnv } = await import('../helper.ts');
    const { DATABASE_URL: _url, ...env } = childEnv();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker-main.ts'], {
      env: { ...env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 78);
    assert.match(stderr, /needs DATABASE_URL/);
  });

  it(
    'runs jobs against PostgreSQL and stops cleanly on SIGTERM',
    { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' },
    async (t) => {
      const { spawn } = await import('node:child_process');
      const { childEnv } = await import('../helper.ts');
      const database = await openTestDatabase(t); // the test's own copy: the worker migrates and runs there
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker-main.ts'], {
        env: { ...childEnv(), DATABASE_URL: database.url!, LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      await eventually(async () => stdout.includes('worker started'), 120_000);
      child.kill('SIGTERM');
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.equal(code, 0);
    },
  );
});
