import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  UnknownRow,
} from 'kysely';
import { openKeyring } from '../../src/platform/crypto.ts';
import type { Environment } from '../../src/platform/db-schema.ts';
import { afterCommit, transaction, type DatabaseHandle, type Db } from '../../src/platform/db.ts';
import { JobQueue } from '../../src/platform/jobs.ts';
import { applyChange, followChanges, Notifications } from '../../src/platform/notifications.ts';
import { WebhookEndpointCache } from '../../src/webhooks/endpoint-cache.ts';
import { emitWebhookEvents, type AnyWebhookEventInput } from '../../src/webhooks/webhook-events.ts';
import { addEndpoint, removeEndpoint, setEndpointEnabled, type WebhookDeps } from '../../src/webhooks/webhooks.ts';
import * as repo from '../../src/webhooks/webhooks-repo.ts';
import { createTestPartner, eventually, openTestDatabase, testConfig, type TestPartner } from '../helper.ts';

/**
 * The cache of live webhook endpoints (src/webhooks/endpoint-cache.ts): what one process changes
 * through the use cases, its own cache sees at once and another process's cache within a second (the
 * change notification of migration 0032; the caches' TTL here is ten minutes, so only the
 * notification can explain it); a miss inside a transaction reads through it and fills nothing from
 * it; a cached emission sends no query. "Another process" is a second cache with a listener of its own
 * on the same database (on PostgreSQL its own LISTEN connection).
 */

const TEN_MINUTES = 600_000;

/** Counts the statements Kysely sends through a database handle, and those that read webhook_endpoints. */
class StatementLog implements KyselyPlugin {
  statements = 0;
  endpointReads = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    this.statements += 1;
    if (args.node.kind === 'SelectQueryNode' && JSON.stringify(args.node).includes('"webhook_endpoints"'))
      this.endpointReads += 1;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
  /** What `run` sent. */
  async during<T>(run: () => Promise<T>): Promise<{ result: T; statements: number; endpointReads: number }> {
    const [statements, endpointReads] = [this.statements, this.endpointReads];
    const result = await run();
    return { result, statements: this.statements - statements, endpointReads: this.endpointReads - endpointReads };
  }
}

/** A process's view: its database handle (counted), its cache, its listener. */
interface Process {
  db: Db;
  log: StatementLog;
  cache: WebhookEndpointCache;
}

let database: DatabaseHandle;
let jobs: JobQueue;
const feeds: Notifications[] = [];
const processes: Process[] = [];

before(async () => {
  database = await openTestDatabase();
  jobs = new JobQueue(database.db, { schedules: false, supervise: false });
  await jobs.start();
  await jobs.queue('webhooks_deliver');
});
after(async () => {
  for (const p of processes) await p.cache.settled();
  for (const feed of feeds) await feed.close();
  await jobs.stop();
  await database.close();
});

/** A cache as an API process holds it, following the change notifications when `listening`. */
async function openProcess(options: { listening?: boolean; ttlMs?: number } = {}): Promise<Process> {
  const log = new StatementLog();
  const db = database.db.withPlugin(log);
  const cache = new WebhookEndpointCache(db, options.ttlMs ?? TEN_MINUTES, (error) => assert.fail(String(error)));
  if (options.listening ?? true) {
    const feed = await Notifications.open(database);
    feeds.push(feed);
    followChanges(feed, { webhookEndpoints: cache });
  }
  const p = { db, log, cache };
  processes.push(p);
  return p;
}

const keys = openKeyring(testConfig());

function depsOf(p: Process): WebhookDeps {
  return {
    db: p.db,
    jobs,
    keys,
    allowPrivate: true,
    now: () => new Date(),
    endpoints: p.cache,
  };
}

let sequence = 0;
function cancelled(partner: TestPartner, environment: Environment = 'sandbox'): AnyWebhookEventInput {
  return {
    partnerId: partner.id,
    environment,
    type: 'contract.cancelled',
    occurredAt: new Date(),
    data: {
      contractNumber: `FD-CACHE-${++sequence}`,
      status: 'cancelled',
      reason: 'customer_request',
      cancelledAt: new Date().toISOString(),
      refund: { amount: 1234, currency: 'EUR' },
    },
  };
}

/**
 * One event emitted through `p`'s cache in a transaction of `p`'s (as the partner APIs' writes emit),
 * then the cache's fill once committed awaited: the deliveries created, and the statements sent.
 */
async function emitThrough(p: Process, partner: TestPartner, environment: Environment = 'sandbox') {
  const counted = await p.log.during(() =>
    transaction(p.db, (trx) =>
      emitWebhookEvents(trx, jobs, keys.encryption, [cancelled(partner, environment)], p.cache),
    ),
  );
  await p.cache.settled();
  return {
    deliveries: counted.result.deliveries,
    statements: counted.statements,
    endpointReads: counted.endpointReads,
  };
}

const operator = { actor: 'operator:test' };

describe('the cache of live webhook endpoints', () => {
  it('sees an endpoint added, disabled, enabled and removed through the use cases: at once in this process, within a second in another', async () => {
    // this process does not listen: what it sees at once is its use cases' own invalidation
    const here = await openProcess({ listening: false });
    const there = await openProcess();
    const partner = await createTestPartner(database.db);
    const scope = { ...operator, partnerId: partner.id, environment: 'sandbox' as const };
    // both cache "no endpoint" for the partner: their next emission reads nothing
    for (const p of [here, there]) {
      assert.equal((await emitThrough(p, partner)).deliveries, 0);
      assert.deepEqual(await emitThrough(p, partner), { deliveries: 0, statements: 0, endpointReads: 0 });
    }

    /** `there` sees `deliveries` per event, having held the previous answer until the notification. */
    const seenThere = async (deliveries: number) => {
      const started = Date.now();
      const latency = await eventually(async () => {
        const emitted = await emitThrough(there, partner);
        return emitted.deliveries === deliveries ? Date.now() - started : undefined;
      }, 30_000);
      // cached again at once: the next emission sends no read of endpoints
      const again = await emitThrough(there, partner);
      assert.equal(again.deliveries, deliveries);
      assert.equal(again.endpointReads, 0);
      return latency;
    };
    const latencies: number[] = [];

    const { endpoint } = await addEndpoint(depsOf(here), scope, { url: 'http://127.0.0.1:9/hook' });
    assert.equal((await emitThrough(here, partner)).deliveries, 1, 'this process: at once');
    latencies.push(await seenThere(1));

    await setEndpointEnabled(depsOf(here), scope, endpoint.id, false);
    assert.equal((await emitThrough(here, partner)).deliveries, 0, 'disabled: at once');
    latencies.push(await seenThere(0));

    await setEndpointEnabled(depsOf(here), scope, endpoint.id, true);
    assert.equal((await emitThrough(here, partner)).deliveries, 1, 'enabled again: at once');
    latencies.push(await seenThere(1));

    await removeEndpoint(depsOf(here), scope, endpoint.id);
    assert.equal((await emitThrough(here, partner)).deliveries, 0, 'removed: at once');
    latencies.push(await seenThere(0));

    console.log(`# another process saw the changes after ${latencies.join(', ')} ms`);
    assert.ok(Math.max(...latencies) < 1_000, `within a second: ${latencies.join(', ')} ms`);
  });

  it('a cached emission sends no query: none at all without endpoints, only its writes with one', async () => {
    const p = await openProcess({ listening: false });
    const without = await createTestPartner(database.db);
    const withOne = await createTestPartner(database.db);
    await addEndpoint(
      depsOf(p),
      { ...operator, partnerId: withOne.id, environment: 'production' },
      {
        url: 'http://127.0.0.1:9/hook',
      },
    );

    const first = await emitThrough(p, without);
    assert.equal(first.endpointReads, 2, 'a miss: read in the transaction, then filled apart after commit');
    for (let i = 0; i < 3; i++)
      assert.deepEqual(await emitThrough(p, without), { deliveries: 0, statements: 0, endpointReads: 0 });

    assert.equal((await emitThrough(p, withOne, 'production')).deliveries, 1);
    const cached = await emitThrough(p, withOne, 'production');
    assert.equal(cached.deliveries, 1);
    assert.equal(cached.endpointReads, 0, 'the endpoints from the cache');
    assert.ok(cached.statements > 0, 'the event, its delivery and its job are written');
    // another environment of the same partner is a scope of its own
    assert.deepEqual(await emitThrough(p, withOne, 'sandbox'), { deliveries: 0, statements: 2, endpointReads: 2 });
  });

  it('a miss inside a transaction reads through it, and a rolled-back transaction leaves nothing cached', async () => {
    const p = await openProcess({ listening: false });
    const partner = await createTestPartner(database.db);
    const rolledBack = new Error('rolled back');
    await assert.rejects(
      transaction(p.db, async (trx) => {
        // this transaction's own endpoint, never committed: only a read through the transaction sees it
        // (on the embedded database a read through the cache's handle would wait for this one forever)
        await repo.insertEndpoint(trx, {
          partner_id: partner.id,
          environment: 'sandbox',
          url: 'https://example.com/rolled-back',
          description: null,
          secret_enc: 'not a secret',
          event_types: null,
        });
        const emitted = await emitWebhookEvents(trx, jobs, keys.encryption, [cancelled(partner)], p.cache);
        assert.equal(emitted.deliveries, 1);
        throw rolledBack;
      }),
      (error) => error === rolledBack,
    );
    await p.cache.settled();
    const next = await emitThrough(p, partner);
    assert.equal(next.deliveries, 0, 'the rolled-back endpoint is nowhere');
    assert.equal(next.endpointReads, 2, 'nothing was cached by the rolled-back transaction: a miss');
    assert.deepEqual(await emitThrough(p, partner), { deliveries: 0, statements: 0, endpointReads: 0 });
  });

  it('an invalidation arriving while a fill is under way throws that fill away', async () => {
    const p = await openProcess({ listening: false });
    const partner = await createTestPartner(database.db);
    await transaction(p.db, async (trx) => {
      await emitWebhookEvents(trx, jobs, keys.encryption, [cancelled(partner)], p.cache); // a miss: its fill starts at commit
      afterCommit(trx, () => p.cache.invalidate()); // right after, before that fill can have answered
    });
    await p.cache.settled();
    assert.equal((await emitThrough(p, partner)).endpointReads, 2, 'not cached: a miss again');
    assert.equal((await emitThrough(p, partner)).endpointReads, 0);
  });

  it('is dropped by a change of webhook_endpoints and after the listener reconnects, not by other tables', () => {
    const dropped: string[] = [];
    const targets = { webhookEndpoints: { invalidate: () => dropped.push('dropped') } };
    applyChange(targets, 'api_keys');
    applyChange(targets, 'webhook_endpoints');
    applyChange(targets, undefined); // the reconnection: notifications may have been missed
    assert.deepEqual(dropped, ['dropped', 'dropped']);
  });

  it('caches nothing with a TTL of 0', async () => {
    const p = await openProcess({ listening: false, ttlMs: 0 });
    const partner = await createTestPartner(database.db);
    for (let i = 0; i < 2; i++) assert.equal((await emitThrough(p, partner)).endpointReads, 1);
  });
});
