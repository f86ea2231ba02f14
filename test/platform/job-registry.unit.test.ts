import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NEVER_NOTIFIED_AFTER_MS } from '../../src/claims/expire-claims.ts';
import { JOBS } from '../../src/jobs/registry.ts';
import { loadConfig } from '../../src/platform/config.ts';
import {
  DEAD_WORKER_RERUN_SECONDS,
  DEFAULT_POLICY,
  MAINTENANCE_INTERVAL_SECONDS,
  rerunBoundSeconds,
  type JobQueue,
  type QueuePolicy,
} from '../../src/platform/jobs.ts';
import { CLAIM_PATH_POLICIES, registerQueues, registerSchedules } from '../../src/worker.ts';

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
      unschedule: async (name: string) => assert.fail(`${name} unscheduled`),
    };
    await registerQueues(recorder as unknown as JobQueue);
    assert.equal(schedules.size, 0, 'only the processes that run the workers set schedules');
    await registerSchedules(recorder as unknown as JobQueue, loadConfig({}));
    assert.deepEqual([...queues.keys()].sort(), Object.keys(JOBS).sort());
    assert.deepEqual(Object.fromEntries(schedules), {
      housekeeping_purge_idempotency_keys: '17 * * * *',
      sms_requeue: '*/10 * * * *',
      email_requeue: '*/10 * * * *',
      webhooks_requeue: '*/10 * * * *',
      webhooks_pause_failing: '41 * * * *',
      claims_expire: '*/15 * * * *',
      claims_remind: '7,22,37,52 * * * *',
      web_sessions_purge: '23 * * * *',
      flights_plan: '*/5 * * * *',
      flights_dispatch: '* * * * *',
      risk_refit: '17 3 * * 1',
      payouts_sepa_batch: '0 * * * 1-5',
      payouts_ach_settle: '47 * * * *',
    });
    assert.equal(queues.get('payouts_sepa_batch')?.policy, 'singleton', 'one SEPA batch run at a time');
    assert.equal(queues.get('payouts_ach_settle')?.policy, 'singleton', 'one ACH settlement run at a time');
    for (const sweep of ['claims_expire', 'claims_remind', 'flights_plan'])
      assert.equal(queues.get(sweep)?.policy, 'singleton', `one ${sweep} run at a time (docs/ARCHITECTURE.md, Jobs)`);
    assert.equal(queues.get('flights_check')?.policy, 'short', 'at most one queued check per watch');
    assert.deepEqual(
      queues.get('risk_refit'),
      { retryLimit: 2, retryDelay: 600, retryBackoff: true, expireInSeconds: 1800, policy: 'singleton' },
      'one refit at a time across workers: the schedule and the console each queue one',
    );
  });
});

describe('the SEPA batch schedule (PARASOL_SEPA_BATCH_SCHEDULE)', () => {
  const registered = async (env: Record<string, string>) => {
    const schedules = new Map<string, string>();
    const unscheduled: string[] = [];
    const recorder = {
      queue: async () => undefined,
      schedule: async (name: string, cron: string) => void schedules.set(name, cron),
      unschedule: async (name: string) => void unscheduled.push(name),
    };
    await registerSchedules(recorder as unknown as JobQueue, loadConfig(env));
    return { cron: schedules.get('payouts_sepa_batch'), unscheduled };
  };

  it('follows the configured cron, in UTC', async () => {
    assert.deepEqual(await registered({ PARASOL_SEPA_BATCH_SCHEDULE: '30 7-17/2 * * MON-FRI' }), {
      cron: '30 7-17/2 * * MON-FRI',
      unscheduled: [],
    });
  });

  it('off: not scheduled, and a schedule stored by an earlier start is removed', async () => {
    for (const off of ['off', 'OFF', 'false'])
      assert.deepEqual(await registered({ PARASOL_SEPA_BATCH_SCHEDULE: off }), {
        cron: undefined,
        unscheduled: ['payouts_sepa_batch'],
      });
  });

  it('refuses what is not a five-field cron, naming the variable', () => {
    for (const bad of ['hourly', '0 * * *', '0 * * * 1-5 2026', '0 * * * 1;rm'])
      assert.throws(() => loadConfig({ PARASOL_SEPA_BATCH_SCHEDULE: bad }), /PARASOL_SEPA_BATCH_SCHEDULE/);
  });
});

// The queues' policies (one file with the registry's test: both load the whole worker, ~2 s of imports each).

/** The queues' policies as registerQueues gives them to pg-boss (a recording stand-in for the queue). */
async function registeredPolicies(): Promise<Map<string, QueuePolicy>> {
  const policies = new Map<string, QueuePolicy>();
  const recorder = {
    queue: async (name: string, policy: Partial<QueuePolicy> = {}) =>
      void policies.set(name, { ...DEFAULT_POLICY, ...policy }),
    schedule: async () => undefined,
    unschedule: async () => undefined,
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

  it('ends the retries of claims_notify before the never-notified sweep queues the claim’s first message again', async () => {
    const policy = (await registeredPolicies()).get('claims_notify')!;
    const pollingIntervalSeconds = loadConfig({}).jobPollSeconds;
    const { retryDelay, retryLimit, retryBackoff } = policy;
    // pg-boss 10 waits retryDelay × 2^n / 2 × (1 + random()) before retry n (1…retryLimit): below
    // retryDelay × 2^n each; without back-off, retryDelay
    const longestWaits = retryBackoff ? retryDelay * 2 * (2 ** retryLimit - 1) : retryDelay * retryLimit;
    // and each of the 1 + retryLimit runs at most its expiry, then is picked up again (rerunBoundSeconds)
    const longestRuns = (1 + retryLimit) * rerunBoundSeconds(policy, { pollingIntervalSeconds });
    const window = longestWaits + longestRuns;
    assert.ok(
      window * 1000 < NEVER_NOTIFIED_AFTER_MS,
      `claims_notify may still be retrying ${(window / 3600).toFixed(2)} h after its claim opened; the sweep re-queues it after ${NEVER_NOTIFIED_AFTER_MS / 3_600_000} h`,
    );
  });
});
