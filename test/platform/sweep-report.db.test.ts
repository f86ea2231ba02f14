import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job, JobQueue } from '../../src/platform/jobs.ts';
import { createLogger } from '../../src/platform/logging.ts';
import { registry } from '../../src/platform/metrics.ts';
import { reportedSweep, startWorkers, type WorkerContext } from '../../src/worker.ts';
import { openTestDatabase, recordingLog, testConfig } from '../helper.ts';

describe('singleton sweeps report each run (worker.ts reportedSweep)', () => {
  it('a flights_plan run as the worker runs it: one line with its queue, duration and counts, and the histogram', async (tc) => {
    const database = await openTestDatabase(tc);
    const handlers = new Map<string, (job: Job<unknown>) => Promise<void>>();
    const recorder = {
      schedule: async () => {},
      unschedule: async () => {},
      work: async (name: string, handler: (job: Job<unknown>) => Promise<void>) => void handlers.set(name, handler),
      workConcurrently: async (name: string, handler: (job: Job<unknown>) => Promise<void>) =>
        void handlers.set(name, handler),
    } as unknown as JobQueue;
    const log = recordingLog();
    const { lines } = log;
    const ctx = {
      db: database.db,
      config: testConfig(),
      keys: {},
      now: () => new Date(),
      log,
    } as unknown as WorkerContext;
    await startWorkers(recorder, ctx);
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
    assert.match(histogram, /parasol_sweep_duration_seconds_count\{queue="flights_plan",outcome="done"\} 1/);
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
    assert.match(lines[1]!.message, /near its expiry/);
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
