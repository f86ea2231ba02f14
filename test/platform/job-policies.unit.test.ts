import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/platform/config.ts';
import {
  DEAD_WORKER_RERUN_SECONDS,
  DEFAULT_POLICY,
  MAINTENANCE_INTERVAL_SECONDS,
  rerunBoundSeconds,
  type JobQueue,
  type QueuePolicy,
} from '../../src/platform/jobs.ts';
import { CLAIM_PATH_POLICIES, registerQueues } from '../../src/worker.ts';

/** The queues' policies as registerQueues gives them to pg-boss (a recording stand-in for the queue). */
async function registeredPolicies(): Promise<Map<string, QueuePolicy>> {
  const policies = new Map<string, QueuePolicy>();
  const recorder = {
    queue: async (name: string, policy: Partial<QueuePolicy> = {}) =>
      void policies.set(name, { ...DEFAULT_POLICY, ...policy }),
    schedule: async () => undefined,
  };
  await registerQueues(recorder as unknown as JobQueue);
  return policies;
}

describe('job policies: a dead worker’s jobs run again soon', () => {
  it('bounds the wait: expiry + two maintenance intervals + the longest first retry delay + a poll', () => {
    const policy: QueuePolicy = { retryLimit: 3, retryDelay: 4, retryBackoff: true, expireInSeconds: 10 };
    assert.equal(
      rerunBoundSeconds(policy, { maintenanceIntervalSeconds: 3, pollingIntervalSeconds: 2 }),
      10 + 6 + 8 + 2,
    );
    assert.equal(
      rerunBoundSeconds(
        { ...policy, retryBackoff: false },
        { maintenanceIntervalSeconds: 3, pollingIntervalSeconds: 2 },
      ),
      10 + 6 + 4 + 2,
    );
    assert.equal(MAINTENANCE_INTERVAL_SECONDS, 3, 'the job queue runs maintenance every 3 s unless told otherwise');
  });

  it(`the claim path (notifications, SMS, payouts, webhooks) reruns within ${DEAD_WORKER_RERUN_SECONDS} s at the default polling interval`, async () => {
    const policies = await registeredPolicies();
    const pollingIntervalSeconds = loadConfig({}).jobPollSeconds;
    const names = Object.keys(CLAIM_PATH_POLICIES);
    assert.deepEqual(names.sort(), ['claims_notify', 'payouts_simulated_bank', 'sms_send', 'webhooks_deliver'].sort());
    for (const name of names) {
      const policy = policies.get(name);
      assert.ok(policy, `${name} is registered`);
      const bound = rerunBoundSeconds(policy, { pollingIntervalSeconds });
      assert.ok(bound <= DEAD_WORKER_RERUN_SECONDS, `${name}: ${bound} s`);
      assert.ok(policy.expireInSeconds >= 15, `${name}: its batch (10 s HTTP timeouts at most) fits in its expiry`);
    }
  });

  it('keeps the retries of a real failure spread over hours for notifications and payouts', async () => {
    const policies = await registeredPolicies();
    for (const name of ['claims_notify', 'payouts_simulated_bank']) {
      const { retryDelay, retryLimit } = policies.get(name)!;
      const shortestTotal = retryDelay * (2 ** retryLimit - 1); // back-off: delay × 2^k / 2 × (1 + random)
      assert.ok(shortestTotal >= 3 * 3600, `${name}: ${shortestTotal} s at least`);
    }
  });
});
