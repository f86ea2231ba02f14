import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  CircuitBreaker,
  SharedCircuitBreaker,
  type Breaker,
  type Granted,
} from '../../src/platform/circuit-breaker.ts';
import { CHANGES_CHANNEL, JOBS_CHANNEL, Notifications } from '../../src/platform/notifications.ts';
import {
  PartnerRateLimits,
  RedisKeyRateLimiter,
  MemoryKeyRateLimiter,
  rateClassOf,
} from '../../src/platform/shared-rate-limit.ts';
import { JobQueue } from '../../src/platform/jobs.ts';
import {
  buildTestApp,
  circuitTimePassed,
  createTestPartner,
  eventually,
  FLIGHT,
  openTestDatabase,
  post,
  runCliOn,
  trip,
  type TestApp,
} from '../helper.ts';

/**
 * Several processes, one platform (issue 12 §1), in one process: what another process would write
 * is written here straight to the database, bypassing this app's own invalidation, so only the
 * change notification (LISTEN/NOTIFY) can make the app see it before its cache's TTL (one minute
 * here). test/platform/multi-process.http.test.ts runs real processes on PostgreSQL.
 */

const MINUTE = 60_000;

describe('change notifications', () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp({ cacheTtlMs: 10 * MINUTE })));
  after(() => t.close());

  it('a key revoked by another process is refused at once, not after the cache TTL', async () => {
    const partner = await createTestPartner(t.db);
    assert.equal((await post(t.app, `${FLIGHT}/getPrice`, trip(), partner.auth)).status, 200); // now cached for 10 minutes
    await t.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('partner_id', '=', partner.id).execute();
    const started = Date.now();
    await eventually(
      async () => ((await post(t.app, `${FLIGHT}/getPrice`, trip(), partner.auth)).status === 401 ? true : undefined),
      30_000,
    );
    console.log(`# revocation seen after ${Date.now() - started} ms`);
  });

  it('a key used again (last_used_at written) sends nothing: only what caches hold notifies', async (tc) => {
    const database = await openTestDatabase(tc);
    const feed = await Notifications.open(database);
    tc.after(() => feed.close());
    const seen: string[] = [];
    feed.on(CHANGES_CHANNEL, (table) => seen.push(table));
    const partner = await createTestPartner(database.db);
    await eventually(async () => (seen.includes('api_keys') ? true : undefined), 30_000);
    seen.length = 0;
    await database.db
      .updateTable('api_keys')
      .set({ last_used_at: new Date() })
      .where('partner_id', '=', partner.id)
      .execute();
    await database.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('partner_id', '=', partner.id)
      .execute();
    await eventually(async () => (seen.includes('api_keys') ? true : undefined), 30_000);
    assert.deepEqual(seen, ['api_keys'], 'one notification: the revocation, not the usage');
  });

  it('a job sent announces its queue at commit, not before', async (tc) => {
    const database = await openTestDatabase(tc);
    const feed = await Notifications.open(database);
    tc.after(() => feed.close());
    const jobs = new JobQueue<Record<string, { n: number }>>(database.db, { schedules: false, supervise: false });
    await jobs.start();
    tc.after(() => jobs.stop());
    const queue = `scale_out_${Date.now().toString(36)}`;
    await jobs.queue(queue);
    const announced: string[] = [];
    feed.on(JOBS_CHANNEL, (name) => announced.push(name));
    await database.db.transaction().execute(async (trx) => {
      await jobs.send(queue, { n: 1 }, { trx });
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(!announced.includes(queue), 'nothing delivered before the commit');
    });
    await eventually(async () => (announced.includes(queue) ? true : undefined), 30_000);
  });
});

describe('rate limits per key and operation class', () => {
  let t: TestApp;
  before(
    async () =>
      (t = await buildTestApp({
        env: {
          PARASOL_RATE_LIMIT_QUOTE_PER_MINUTE: '5',
          PARASOL_RATE_LIMIT_WRITE_PER_MINUTE: '2',
          PARASOL_RATE_LIMIT_READ_PER_MINUTE: '2',
        },
      })),
  );
  after(() => t.close());

  it('quotes and writes have budgets of their own', async () => {
    const partner = await createTestPartner(t.db);
    const quotes = [];
    for (let i = 0; i < 6; i++) quotes.push((await post(t.app, `${FLIGHT}/getPrice`, trip(), partner.auth)).status);
    assert.deepEqual(quotes, [200, 200, 200, 200, 200, 429]);
    const first = await post(t.app, `${FLIGHT}/getPrice`, trip(), partner.auth);
    assert.equal(first.headers['ratelimit-limit'], '5');
    // writes are counted apart: the quote budget spent does not refuse a subscription attempt
    const write = await post(t.app, `${FLIGHT}/subscribe`, {}, partner.auth);
    assert.notEqual(write.status, 429);
    assert.equal(write.headers['ratelimit-limit'], '2');
  });

  it("the operator's limits for a partner apply to its keys (CLI), others keep the default", async () => {
    const partner = await createTestPartner(t.db);
    const other = await createTestPartner(t.db);
    // the database alone, as the operator's CLI process: the app learns it from the notification
    const set = await runCliOn({ db: t.db }, ['rate-limits', 'set', partner.slug, '--quote', '2']);
    assert.equal(set.code, 0, set.err);
    // the app learns it from the notification (or its 30 s refresh)
    await eventually(async () => {
      const reply = await post(t.app, `${FLIGHT}/getPrice`, trip(), partner.auth);
      return reply.headers['ratelimit-limit'] === '2' ? true : undefined;
    }, 60_000);
    assert.equal((await post(t.app, `${FLIGHT}/getPrice`, trip(), other.auth)).headers['ratelimit-limit'], '5');
    const show = await runCliOn({ db: t.db }, ['--json', 'rate-limits', 'show', partner.slug], {
      config: t.app.parasol.config,
    });
    const shown = JSON.parse(show.out);
    assert.deepEqual(shown.limits.quote, { perMinute: 2, default: false });
    assert.deepEqual(shown.limits.write, { perMinute: 2, default: true });
    const refused = await runCliOn({ db: t.db }, ['rate-limits', 'set', partner.slug, '--quote', '0']);
    assert.equal(refused.code, 1);
  });

  it('classifies routes: quotes declared, GET reads, the rest writes', () => {
    assert.equal(rateClassOf('POST', 'quote'), 'quote');
    assert.equal(rateClassOf('GET', undefined), 'read');
    assert.equal(rateClassOf('POST', undefined), 'write');
  });
});

describe('rate limits in Redis', () => {
  const url = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const defaults = { quote: 4, write: 2, read: 2 };
  const limitsOf = () => new PartnerRateLimits(undefined as never, defaults);

  it('two limiters (two processes) share one budget per key', async (tc) => {
    const prefix = `parasol-test:${process.pid}:${Date.now()}`;
    const a = await RedisKeyRateLimiter.open(url, limitsOf(), { prefix });
    const b = await RedisKeyRateLimiter.open(url, limitsOf(), { prefix });
    tc.after(async () => {
      await a.close();
      await b.close();
    });
    if (!a.connected || !b.connected) return tc.skip(`Redis not reachable at ${url}`);
    const accepted = [];
    for (let i = 0; i < 10; i++) accepted.push(!(await (i % 2 ? a : b).hit('key-1', 'quote')).exceeded);
    assert.equal(accepted.filter(Boolean).length, 4, 'the quote limit, across both');
    assert.equal((await a.hit('key-2', 'quote')).exceeded, false, 'another key has its own budget');
  });

  it('counts in memory while Redis is unreachable: still limited, never all refused', async (tc) => {
    const down = await RedisKeyRateLimiter.open('redis://127.0.0.1:1', limitsOf(), { prefix: 'unused' });
    tc.after(() => down.close());
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push((await down.hit('key', 'write')).exceeded);
    assert.deepEqual(decisions, [false, false, true, true]);
  });

  it('in memory without Redis', () => {
    const memory = new MemoryKeyRateLimiter(limitsOf());
    assert.deepEqual(
      [1, 2, 3].map(() => memory.hit('key', 'write').exceeded),
      [false, false, true],
    );
  });
});

describe('circuit breaker shared through the database', () => {
  /** A call let through at `now` (fails the test when refused). */
  async function granted(breaker: Breaker, now: Date): Promise<Granted> {
    const permit = await breaker.acquire(now);
    assert.ok(permit.allowed, 'a call is let through');
    return permit;
  }

  /**
   * A refusal's `retryAt`: `expected` exactly for the in-memory breaker (the caller's clock); for the
   * shared one (the database's clock, moved into the caller's) as far from the caller's `now` as the
   * stored instant is from the database's now — `expected`, less the time the database's clock moved
   * between the failure and the refusal: no more than the test's own time since `startedAt`
   * (`performance.now()` before the failure; 1 ms more for the rounding to milliseconds).
   */
  function assertRetryAt(
    permit: Awaited<ReturnType<Breaker['acquire']>>,
    expected: Date,
    shared: boolean,
    startedAt: number,
  ): void {
    const elapsed = performance.now() - startedAt;
    assert.ok(!permit.allowed, `refused: ${JSON.stringify(permit)}`);
    if (!shared) return assert.deepEqual(permit.retryAt, expected);
    const early = expected.getTime() - permit.retryAt.getTime();
    assert.ok(
      early >= 0 && early <= Math.ceil(elapsed) + 1,
      `retryAt ${permit.retryAt.toISOString()} ≈ ${expected.toISOString()} (${early} ms early, ${elapsed} ms taken)`,
    );
  }

  it("one process's outage finding opens the circuit for the others; one probe in all", async (tc) => {
    const database = await openTestDatabase(tc);
    const key = `production:test-${Date.now().toString(36)}`;
    const options = { failureThreshold: 2, coolDownMs: MINUTE };
    const one = new SharedCircuitBreaker(database.db, key, options);
    const two = new SharedCircuitBreaker(database.db, key, options);
    const now = new Date();
    assert.deepEqual(await two.acquire(now), { allowed: true, probe: false, generation: 0 });
    await one.failure(now, await granted(one, now));
    const failing = performance.now();
    await one.failure(now, await granted(one, now));
    assert.equal(one.state, 'open');
    const refused = await two.acquire(now);
    assert.equal(refused.allowed, false, 'the other process makes no call');
    assertRetryAt(refused, new Date(now.getTime() + MINUTE), true, failing);
    // the cool-down over, on the database's clock (the instants compared are its, not `now`)
    await circuitTimePassed(database.db, key, MINUTE + 1);
    const later = new Date(now.getTime() + MINUTE + 1);
    const probe = await two.acquire(later);
    assert.ok(probe.allowed && probe.probe, JSON.stringify(probe));
    assert.equal(probe.generation, 1);
    assert.equal((await one.acquire(later)).allowed, false, 'one probe at a time, across processes');
    await two.success(probe);
    assert.deepEqual(await one.acquire(later), { allowed: true, probe: false, generation: 1 });
    // the in-memory breaker keeps the same rules
    const local = new CircuitBreaker(options);
    local.failure(now, await granted(local, now));
    local.failure(now, await granted(local, now));
    assert.equal(local.acquire(now).allowed, false);
  });

  for (const kind of ['shared', 'in-memory'] as const) {
    it(`half-open (${kind}): only the probe's own answer closes the circuit or opens it again, not a straggler's`, async (tc) => {
      const database = await openTestDatabase(tc);
      const key = `production:test-${Math.random().toString(36).slice(2)}`;
      const options = { failureThreshold: 2, coolDownMs: MINUTE };
      const local = new CircuitBreaker(options);
      const [one, two]: [Breaker, Breaker] =
        kind === 'shared'
          ? [new SharedCircuitBreaker(database.db, key, options), new SharedCircuitBreaker(database.db, key, options)]
          : [local, local];
      const now = new Date();
      const at = (ms: number) => new Date(now.getTime() + ms);
      const shared = kind === 'shared';
      // the in-memory breaker's time is each call's `now`; the shared one's the database's, moved here
      const passed = (ms: number) => (shared ? circuitTimePassed(database.db, key, ms) : Promise.resolve());
      // four calls let through while closed; two fail and open it
      const stragglers = [await granted(two, now), await granted(two, now)];
      await one.failure(now, await granted(one, now));
      await one.failure(now, await granted(one, now));
      await passed(MINUTE);
      const probe = await granted(one, at(MINUTE));
      assert.equal(probe.probe, true);
      await two.success(stragglers[0]!);
      assert.equal(two.state, 'half_open', "a straggler's success leaves it half-open (and the state says so)");
      await two.failure(at(MINUTE + 1), stragglers[1]!);
      assert.equal(two.state, 'half_open', "a straggler's failure is not the probe's");
      assert.equal((await two.acquire(at(MINUTE + 2))).allowed, false, 'the probe is still the one');
      const failing = performance.now();
      await one.failure(at(MINUTE + 10_000), probe);
      assert.equal(one.state, 'open', "the probe's own failure opens it again");
      // in the caller's clock: the cool-down from the probe's failure (shared: the database's, moved into it)
      assertRetryAt(
        await two.acquire(at(MINUTE + 10_001)),
        shared ? at(2 * MINUTE + 10_001) : at(2 * MINUTE + 10_000),
        shared,
        failing,
      );
      await one.success(probe);
      assert.equal(one.state, 'open', "the previous generation's probe answering late does not close it");
      await passed(MINUTE);
      const next = await granted(two, at(2 * MINUTE + 10_000));
      assert.equal(next.probe, true);
      assert.equal(next.generation, 2);
      if (!shared) assert.deepEqual(next.probeStartedAt, at(2 * MINUTE + 10_000));
      await two.success(next);
      assert.equal(two.state, 'closed', 'the probe of this generation closes it');
      assert.deepEqual(await one.acquire(at(2 * MINUTE + 10_001)), { allowed: true, probe: false, generation: 2 });
    });

    it(`half-open (${kind}): a probe that timed out and was replaced answers late as a straggler — its release leaves the newer probe's mark`, async (tc) => {
      const database = await openTestDatabase(tc);
      const key = `production:test-${kind}-replaced-probe`;
      const options = { failureThreshold: 1, coolDownMs: MINUTE, probeTimeoutMs: 2 * MINUTE };
      const local = new CircuitBreaker(options);
      const [one, two]: [Breaker, Breaker] =
        kind === 'shared'
          ? [new SharedCircuitBreaker(database.db, key, options), new SharedCircuitBreaker(database.db, key, options)]
          : [local, local];
      // the callers' clock, years away from the database's: the shared breaker compares on the latter
      const t0 = new Date('2031-06-01T12:00:00Z');
      const at = (ms: number) => new Date(t0.getTime() + ms);
      const shared = kind === 'shared';
      const passed = (ms: number) => (shared ? circuitTimePassed(database.db, key, ms) : Promise.resolve());
      await one.failure(t0, await granted(one, t0));
      assert.equal(one.state, 'open');
      // the first probe hangs (its job died, or its call is slow): after its timeout a second one goes
      await passed(MINUTE);
      const first = await granted(one, at(MINUTE));
      assert.equal(first.probe, true);
      // a cool-down after the probe started, short of its timeout: compared with coolDownMs it would go
      await passed(MINUTE);
      assert.equal((await two.acquire(at(2 * MINUTE))).allowed, false, 'the first probe is still the one');
      await passed(MINUTE);
      const second = await granted(two, at(3 * MINUTE));
      assert.equal(second.probe, true, 'a probe that never reported back no longer blocks');
      // the first answers late: nothing it says is the probe's any more
      await one.release(first);
      assert.equal(
        (await two.acquire(at(3 * MINUTE + 1_000))).allowed,
        false,
        "the first probe's late release leaves the second probe's mark: no third probe beside it",
      );
      await one.success(first);
      assert.equal(one.state, 'half_open', "the first probe's late success does not close it");
      await one.failure(at(3 * MINUTE + 2_000), first);
      assert.equal(one.state, 'half_open', 'nor does its late failure open it again');
      assert.equal((await one.acquire(at(3 * MINUTE + 3_000))).allowed, false, 'the second probe is still the one');
      // the second probe's own answers act: its release gives the turn back, its success closes the circuit
      await two.release(second);
      const third = await granted(one, at(3 * MINUTE + 4_000));
      assert.equal(third.probe, true, 'released by the probe that held it, the turn is taken at once');
      await one.success(third);
      assert.equal(one.state, 'closed');
      // closing keeps the generation: the replaced probes answering now are still stragglers
      await two.failure(at(3 * MINUTE + 5_000), first);
      await one.failure(at(3 * MINUTE + 5_000), second);
      assert.equal(
        two.state,
        'closed',
        "a replaced probe's late failure does not open the circuit the newer one closed",
      );
      assert.deepEqual(await one.acquire(at(3 * MINUTE + 6_000)), { allowed: true, probe: false, generation: 1 });
      // but its Retry-After is the provider speaking now
      const failing = performance.now();
      await two.failure(at(3 * MINUTE + 7_000), first, 30_000);
      assertRetryAt(
        await one.acquire(at(3 * MINUTE + 8_000)),
        shared ? at(3 * MINUTE + 38_000) : at(3 * MINUTE + 37_000),
        shared,
        failing,
      );
    });
  }
});
