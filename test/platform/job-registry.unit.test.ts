import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JOBS } from '../../src/jobs/registry.ts';
import { DEFAULT_POLICY, type JobQueue, type QueuePolicy } from '../../src/platform/jobs.ts';
import { registerQueues } from '../../src/worker.ts';

/**
 * The job registry (src/jobs/registry.ts) types the queue: the `@ts-expect-error` lines below are
 * checked by `npm run check` — if a wrong queue name or payload were accepted, type-checking fails.
 */
export async function typeChecks(jobs: JobQueue): Promise<void> {
  await jobs.send('claims_notify', { claimId: 'c' });
  await jobs.sendMany('flights_check', [{ watchId: 'w' }], { singletonKey: (job) => job.watchId });
  // @ts-expect-error an unknown queue
  await jobs.send('claims_notfy', { claimId: 'c' });
  // @ts-expect-error a payload of another queue
  await jobs.send('claims_notify', { payoutId: 'p' });
  // @ts-expect-error a payload missing its field
  await jobs.send('webhooks_deliver', { deliveryId: 'd' });
  // @ts-expect-error a handler reading a field its queue does not carry
  await jobs.work('sms_send', async (job) => void job.data.payoutId);
}

describe('job registry', () => {
  it('registers every queue of the registry once, with its policy and schedule', async () => {
    const queues = new Map<string, QueuePolicy>();
    const schedules = new Map<string, string>();
    const recorder = {
      queue: async (name: string, policy: Partial<QueuePolicy> = {}) => {
        assert.ok(!queues.has(name), `${name} registered once`);
        queues.set(name, { ...DEFAULT_POLICY, ...policy });
      },
      schedule: async (name: string, cron: string) => void schedules.set(name, cron),
    };
    await registerQueues(recorder as unknown as JobQueue);
    assert.deepEqual([...queues.keys()].sort(), Object.keys(JOBS).sort());
    assert.deepEqual(Object.fromEntries(schedules), {
      housekeeping_purge_idempotency_keys: '17 * * * *',
      sms_requeue: '*/10 * * * *',
      claims_expire: '*/15 * * * *',
      web_sessions_purge: '23 * * * *',
      flights_plan: '*/5 * * * *',
      flights_dispatch: '* * * * *',
      risk_refit: '17 3 * * 1',
    });
    assert.equal(queues.get('flights_check')?.policy, 'short', 'at most one queued check per watch');
    assert.deepEqual(queues.get('risk_refit'), {
      retryLimit: 2,
      retryDelay: 600,
      retryBackoff: true,
      expireInSeconds: 1800,
    });
  });
});
