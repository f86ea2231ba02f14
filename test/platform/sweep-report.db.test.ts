import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job, JobQueue } from '../../src/platform/jobs.ts';
import { registry } from '../../src/platform/metrics.ts';
import { reportedSweep, startWorkers, type WorkerContext } from '../../src/worker.ts';
import { openTestDatabase, testConfig } from '../helper.ts';

type Line = { level: string; data: Record<string, unknown>; message: string };

/** A logger that keeps what it is given (as the SEPA schedule test's). */
function capture() {
  const lines: Line[] = [];
  const record = (level: string) => (data: unknown, message?: string) =>
    void lines.push({ level, data: data as Record<string, unknown>, message: message ?? '' });
  return { lines, log: { info: record('info'), warn: record('warn'), error: record('error') } };
}

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
    const { lines, log } = capture();
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

  it('a run past half its expireInSeconds is a warning; a failed run is reported, then thrown', async () => {
    const { lines, log } = capture();
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
    assert.deepEqual(lines[2]!.data, { queue: 'flights_plan', durationMs: 10, outcome: 'failed', err: failure });
  });
});
