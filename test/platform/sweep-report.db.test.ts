import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Job, JobQueue } from '../../src/platform/jobs.ts';
import { createLogger } from '../../src/platform/logging.ts';
import { registry } from '../../src/platform/metrics.ts';
import { sql } from 'kysely';
import { JOBS, SweepFailure } from '../../src/jobs/registry.ts';
import type { Db } from '../../src/platform/db.ts';
import { ensureDefaultModel, listModelVersions } from '../../src/risk/model-versions.ts';
import { reportedSweep, startWorkers, type WorkerContext } from '../../src/worker.ts';
import { createAchBatch } from '../../src/payouts/sepa-batch.ts';
import { openCancelledFlightClaim } from '../claims/claim-setup.ts';
import {
  buildTestApp,
  createTestPartner,
  insureFlight,
  openTestDatabase,
  operatorToken,
  recordingLog,
  testConfig,
} from '../helper.ts';
import { achBatchDeps, achPayoutsEnv, usAccountClaim } from '../payouts/ach-setup.ts';

/** The seven queues of pg-boss policy 'singleton' (docs/OPERATIONS.md, "Logs"). */
const SINGLETON_QUEUES = [
  'payouts_sepa_batch',
  'payouts_ach_settle',
  'claims_expire',
  'claims_remind',
  'webhooks_pause_failing',
  'flights_plan',
  'risk_refit',
] as const;

/** Every worker's handler as startWorkers registers it, on `db`, and what they log (`now`, `keys`: the runs'). */
async function startedWorkers(db: Db, o: { now?: () => Date; keys?: WorkerContext['keys'] } = {}) {
  const handlers = new Map<string, (job: Job<unknown>) => Promise<void>>();
  const recorder = {
    // what a run sends goes nowhere: the runs are the test's
    send: async () => null,
    sendMany: async () => {},
    schedule: async () => {},
    unschedule: async () => {},
    work: async (name: string, handler: (job: Job<unknown>) => Promise<void>) => void handlers.set(name, handler),
    workConcurrently: async (name: string, handler: (job: Job<unknown>) => Promise<void>) =>
      void handlers.set(name, handler),
  } as unknown as JobQueue;
  const log = recordingLog();
  const ctx = {
    db,
    config: testConfig(),
    keys: o.keys ?? {},
    now: o.now ?? (() => new Date()),
    log,
  } as unknown as WorkerContext;
  await startWorkers(recorder, ctx);
  log.lines.length = 0; // what the start says (a configuration warning) is not a run's
  return { handlers, log };
}

/** A counter's value for one set of labels, as the metrics page shows it (0 when absent). */
async function counted(metric: string, labels: string): Promise<number> {
  const text = await registry.getSingleMetricAsString(metric);
  const line = text.split('\n').find((l) => l.startsWith(`${metric}{${labels}} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('singleton sweeps report each run (worker.ts reportedSweep)', () => {
  it('the seven singleton queues are those of the registry', () => {
    assert.deepEqual(
      Object.entries(JOBS)
        .filter(([, job]) => job.policy.policy === 'singleton')
        .map(([name]) => name)
        .sort(),
      [...SINGLETON_QUEUES].sort(),
    );
  });

  it('a flights_plan run as the worker runs it: one line with its queue, duration and counts, and the histogram', async (tc) => {
    const database = await openTestDatabase(tc);
    const { handlers, log } = await startedWorkers(database.db);
    const { lines } = log;
    await handlers.get('flights_plan')!({ id: 'plan-1', data: {} });
    const runs = lines.filter((l) => l.message === 'sweep run');
    assert.equal(runs.length, 1, JSON.stringify(lines));
    const { durationMs, ...rest } = runs[0]!.data;
    assert.equal(typeof durationMs, 'number');
    assert.ok((durationMs as number) >= 0);
    assert.deepEqual(rest, {
      queue: 'flights_plan',
      outcome: 'done',
      created: 0,
      reopened: 0,
      closed: 0,
      claimsOpened: 0,
    });
    const histogram = await registry.getSingleMetricAsString('parasol_sweep_duration_seconds');
    assert.match(histogram, /^parasol_sweep_duration_seconds_count\{queue="flights_plan",outcome="done"\} 1$/m);
    // a queue that is not a singleton sweep says nothing of its runs
    await handlers.get('housekeeping_purge_idempotency_keys')!({ id: 'purge-1', data: {} });
    assert.equal(lines.filter((l) => l.message === 'sweep run').length, 1);
  });

  it('a run past half its expireInSeconds is a warning; a failed run is reported at error, then thrown', async () => {
    const log = recordingLog();
    const { lines } = log;
    let clock = 0;
    const elapsed = () => clock;
    const taking = (ms: number) => async () => {
      clock += ms;
      return { expired: 2 };
    };
    await reportedSweep('claims_expire', 600, taking(300_000), log, elapsed)({ id: 'a', data: {} });
    await reportedSweep('claims_expire', 600, taking(300_001), log, elapsed)({ id: 'b', data: {} });
    assert.deepEqual(
      lines.map((l) => [l.level, l.data]),
      [
        ['info', { queue: 'claims_expire', durationMs: 300_000, outcome: 'done', expired: 2 }],
        ['warn', { queue: 'claims_expire', durationMs: 300_001, outcome: 'done', expireInSeconds: 600, expired: 2 }],
      ],
    );
    assert.equal(lines[1]!.message, 'sweep run near its expiry: it took more than half its expireInSeconds');
    const failure = new Error('database gone');
    const failing = async () => {
      clock += 10;
      throw failure;
    };
    await assert.rejects(reportedSweep('flights_plan', 300, failing, log, elapsed)({ id: 'c', data: {} }), failure);
    assert.deepEqual(
      [lines[2]!.level, lines[2]!.message, lines[2]!.data],
      ['error', 'sweep run failed', { queue: 'flights_plan', durationMs: 10, outcome: 'failed', err: failure }],
    );
    // a run's count named as one of the line's own fields does not replace it
    const clashing = async () => ({ queue: 'other', outcome: 'weird', durationMs: -1, expired: 1 });
    await reportedSweep('claims_expire', 600, clashing, log, elapsed)({ id: 'd', data: {} });
    assert.deepEqual(lines[3]!.data, { queue: 'claims_expire', durationMs: 0, outcome: 'done', expired: 1 });
  });

  it('a run longer than its expireInSeconds is past its expiry: pastExpiry and its own message, done or failed', async () => {
    const log = recordingLog();
    const { lines } = log;
    let clock = 0;
    const taking = (ms: number, fail?: Error) => async () => {
      clock += ms;
      if (fail) throw fail;
      return { expired: 1 };
    };
    await reportedSweep('claims_expire', 600, taking(600_000), log, () => clock)({ id: 'a', data: {} });
    await reportedSweep('claims_expire', 600, taking(600_001), log, () => clock)({ id: 'b', data: {} });
    const failure = new Error('database gone');
    await assert.rejects(
      reportedSweep('claims_expire', 600, taking(700_000, failure), log, () => clock)({ id: 'c', data: {} }),
      failure,
    );
    assert.deepEqual(
      lines.map((l) => [l.level, l.message, l.data]),
      [
        [
          'warn',
          'sweep run near its expiry: it took more than half its expireInSeconds',
          { queue: 'claims_expire', durationMs: 600_000, outcome: 'done', expireInSeconds: 600, expired: 1 },
        ],
        [
          'warn',
          'sweep run past its expiry: the queue may have started it again beside itself',
          {
            queue: 'claims_expire',
            durationMs: 600_001,
            outcome: 'done',
            expireInSeconds: 600,
            pastExpiry: true,
            expired: 1,
          },
        ],
        [
          'error',
          'sweep run failed',
          {
            queue: 'claims_expire',
            durationMs: 700_000,
            outcome: 'failed',
            expireInSeconds: 600,
            pastExpiry: true,
            err: failure,
          },
        ],
      ],
    );
  });

  it("a failed SEPA batch run as the worker runs it: one error line, the wrapper's, with batchOutcome; the queue gets its own error", async (tc) => {
    const database = await openTestDatabase(tc);
    // the batch's first query fails as with the database gone
    await sql`alter table sepa_batches rename to sepa_batches_gone`.execute(database.db);
    const { handlers, log } = await startedWorkers(database.db);
    const before = await counted('parasol_sepa_batch_runs_total', 'outcome="error"');
    await assert.rejects(handlers.get('payouts_sepa_batch')!({ id: 'sepa-1', data: {} }), (error: unknown) => {
      assert.ok(!(error instanceof SweepFailure), "pg-boss records the run's own error");
      assert.match(String(error), /sepa_batches/);
      return true;
    });
    assert.deepEqual(
      log.lines.map((l) => [l.level, l.message]),
      [['error', 'sweep run failed']],
      'logged once, by the worker',
    );
    const { err, durationMs, ...rest } = log.lines[0]!.data;
    assert.match(String(err), /sepa_batches/);
    assert.equal(typeof durationMs, 'number');
    assert.deepEqual(rest, { queue: 'payouts_sepa_batch', outcome: 'failed', batchOutcome: 'error' });
    assert.equal(await counted('parasol_sepa_batch_runs_total', 'outcome="error"'), before + 1);
  });

  it('the singleton sweeps log no line of their own for a run, each with something to do: the sweep line carries their counts (risk_refit: the version it created)', async (tc) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-sweep-report-'));
    const t = await buildTestApp({ env: achPayoutsEnv(dir) });
    tc.after(async () => {
      await t.close();
      await fs.rm(dir, { recursive: true, force: true });
    });
    const seq = 4100 + (process.pid % 400);
    // a production US-account claim, its payout in an ACH file made on Wednesday 7 May 2031 (its return
    // window passed on Tuesday 13 May: test/payouts/ach-settle.http.test.ts)
    const usd = await createTestPartner(t.db, { environment: 'production', agreement: { currency: 'USD' } });
    const operator = (await operatorToken(t, 'sweep-report')).auth;
    await usAccountClaim(t, usd, { flightNumber: `AF${seq}`, operator });
    const batch = await createAchBatch(achBatchDeps(t, dir, '2031-05-07T14:00:00Z'), { actor: 'operator:test' });
    assert.ok(batch && 'batchId' in batch, JSON.stringify(batch));
    // a sandbox claim waiting for bank details: reminded two days before its due date, expired after it
    const sandbox = await createTestPartner(t.db);
    const { c } = await openCancelledFlightClaim(t.app, sandbox, `AF${seq + 1}`);
    const { bank_details_due_at: dueAt } = await t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select('cl.bank_details_due_at')
      .where('c.contract_number', '=', c.contractNumber)
      .executeTakeFirstOrThrow();
    // a flight insured, the day before its departure: a watch to create
    const insured = await insureFlight(t.app, sandbox, { flightNumber: `AF${seq + 2}` });
    const departure = new Date(`${insured.departureDate}T10:30:00Z`);
    const at: Partial<Record<(typeof SINGLETON_QUEUES)[number], Date>> = {
      payouts_ach_settle: new Date('2031-05-13T12:00:00Z'),
      claims_remind: new Date(dueAt!.getTime() - 2 * 86_400_000),
      claims_expire: new Date(dueAt!.getTime() + 60_000),
      flights_plan: new Date(departure.getTime() - 86_400_000),
    };
    await ensureDefaultModel(t.db);
    let clock: Date | undefined;
    const { handlers, log } = await startedWorkers(t.db, {
      now: () => clock ?? new Date(),
      keys: t.app.parasol.keys,
    });
    // the reminder before the expiry
    const order: (typeof SINGLETON_QUEUES)[number][] = [
      ...SINGLETON_QUEUES.filter((q) => q !== 'claims_expire'),
      'claims_expire',
    ];
    for (const queue of order) {
      clock = at[queue];
      await handlers.get(queue)!({ id: `${queue}-1`, data: {} });
    }
    assert.deepEqual(
      log.lines.map((l) => [l.level, l.message, l.data.queue]),
      order.map((queue) => ['info', 'sweep run', queue]),
      JSON.stringify(log.lines),
    );
    const line = (queue: string) => log.lines.find((l) => l.data.queue === queue)!.data;
    // each of those four did something: their handlers' own info lines were logged only then
    assert.ok((line('payouts_ach_settle').paid as number) > 0, JSON.stringify(line('payouts_ach_settle')));
    assert.ok((line('claims_remind').reminded as number) > 0, JSON.stringify(line('claims_remind')));
    assert.ok((line('claims_expire').expired as number) > 0, JSON.stringify(line('claims_expire')));
    assert.ok((line('flights_plan').created as number) > 0, JSON.stringify(line('flights_plan')));
    // risk_refit created a version from the production flight decided (its claim): the line names it
    const { durationMs: _ms, outcome: _outcome, queue: _queue, ...refit } = line('risk_refit');
    const [made] = (await listModelVersions(t.db)).filter((v) => v.source === 'refit');
    assert.ok(made, 'the refit stored a version');
    assert.deepEqual(refit, {
      refit: 'created',
      version: made.version,
      baseVersion: made.baseVersion,
      observations: made.observations,
      dataCutoff: made.dataCutoff,
    });
    assert.ok(made.observations > 0);
  });

  it('through the worker process logger: one JSON line with the message, the queue, the duration and the counts', async () => {
    const written: string[] = [];
    const stream = { write: (line: string) => void written.push(line) };
    const log = createLogger({ logLevel: 'info' }, { name: 'worker', stream });
    let clock = 0;
    const taking = async () => {
      clock += 42;
      return { expired: 2, requeued: 0 };
    };
    await reportedSweep('claims_expire', 600, taking, log, () => clock)({ id: 'e', data: {} });
    assert.equal(written.length, 1, JSON.stringify(written));
    const text = written.join('');
    assert.equal(text.split('\n').length, 2, `one line, ending with its line break: ${text}`);
    assert.ok(text.endsWith('\n'));
    const line = JSON.parse(text) as Record<string, unknown>;
    assert.deepEqual(
      {
        level: line.level,
        name: line.name,
        msg: line.msg,
        queue: line.queue,
        durationMs: line.durationMs,
        outcome: line.outcome,
        expired: line.expired,
        requeued: line.requeued,
      },
      {
        level: 30,
        name: 'worker',
        msg: 'sweep run',
        queue: 'claims_expire',
        durationMs: 42,
        outcome: 'done',
        expired: 2,
        requeued: 0,
      },
    );
  });
});
