import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createApiKey, revokeApiKey } from '../../src/partners/api-keys.ts';
import { PartnerDirectory } from '../../src/partners/directory.ts';
import type { Db } from '../../src/platform/db.ts';
import { addressBucket, FailedAuthLimiter } from '../../src/platform/rate-limit.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  openTestDatabase,
  trip,
  type TestApp,
} from '../helper.ts';

/**
 * Issue 9, security defect 5: failed authentications are cheap and bounded — malformed keys never
 * reach the database, unknown keys are looked up once (negative cache), a flood of them evicts no
 * partner's cached key, and an address failing too often gets 429 with Retry-After.
 */

const randomKey = () => `psl_sbx_${crypto.randomBytes(24).toString('base64url')}`;

/** The database, counting the key lookups made through it (selects from api_keys). */
function counting(db: Db): { db: Db; lookups: () => number } {
  let lookups = 0;
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === 'selectFrom') {
        return (from: unknown) => {
          if (String(from).startsWith('api_keys')) lookups += 1;
          return (value as (f: unknown) => unknown).call(target, from);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: proxy, lookups: () => lookups };
}

describe('failed-authentication limiter, pure', () => {
  it('blocks an address once it reached the limit, until its window ends; other addresses are free', () => {
    const limiter = new FailedAuthLimiter(3, 60_000);
    const t0 = 1_000_000;
    for (let i = 0; i < 2; i++) limiter.fail('203.0.113.7', t0 + i);
    assert.equal(limiter.blockedFor('203.0.113.7', t0 + 10), 0);
    limiter.fail('203.0.113.7', t0 + 20);
    assert.equal(limiter.blockedFor('203.0.113.7', t0 + 30), 60);
    assert.equal(limiter.blockedFor('203.0.113.7', t0 + 45_000), 15);
    assert.equal(limiter.blockedFor('203.0.113.8', t0 + 30), 0);
    assert.equal(limiter.blockedFor('203.0.113.7', t0 + 60_000), 0, 'a new minute, a new count');
  });

  it('counts IPv6 addresses per /64 and IPv4-mapped ones as their IPv4 address', () => {
    assert.equal(addressBucket('2001:db8:1:2:aaaa::1'), addressBucket('2001:db8:1:2:bbbb::2'));
    assert.notEqual(addressBucket('2001:db8:1:2::1'), addressBucket('2001:db8:1:3::1'));
    assert.equal(addressBucket('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(addressBucket('203.0.113.7'), '203.0.113.7');
    const limiter = new FailedAuthLimiter(2);
    limiter.fail('2001:db8:1:2::1');
    limiter.fail('2001:db8:1:2::99');
    assert.ok(limiter.blockedFor('2001:db8:1:2:ffff::5') > 0);
  });

  it('holds a bounded number of addresses', () => {
    const limiter = new FailedAuthLimiter(1, 60_000, 100);
    for (let i = 0; i < 1000; i++) limiter.fail(`10.0.${i >> 8}.${i & 255}`);
    assert.equal(limiter.blockedFor('10.0.0.0'), 0, 'the oldest addresses were evicted');
    assert.ok(limiter.blockedFor('10.0.3.231') > 0, 'the newest are kept');
  });
});

describe('PartnerDirectory and unknown keys', () => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  before(async () => {
    handle = await openTestDatabase();
  });
  after(() => handle.close());

  it('refuses a malformed key without a query, and looks an unknown key up once', async () => {
    const { db, lookups } = counting(handle.db);
    const directory = new PartnerDirectory(db, 60_000);
    for (const malformed of ['short', 'psl_sbx_has.dots.and~tildes.in.it.000000', 'x'.repeat(201)])
      assert.equal(directory.authenticate(malformed), undefined, malformed);
    assert.equal(lookups(), 0);
    const unknown = randomKey();
    const first = directory.authenticate(unknown);
    assert.ok(first instanceof Promise);
    assert.equal(await first, undefined);
    assert.equal(lookups(), 1);
    assert.equal(directory.authenticate(unknown), undefined, 'answered from the negative cache, synchronously');
    assert.equal(lookups(), 1);
    // concurrent presentations of a new unknown key share one lookup
    const other = randomKey();
    await Promise.all(Array.from({ length: 10 }, async () => directory.authenticate(other)));
    assert.equal(lookups(), 2);
  });

  it('the per-address check (onMiss) runs for keys never found, not for known keys whose cache entry expired', async () => {
    const partner = await createTestPartner(handle.db);
    const directory = new PartnerDirectory(handle.db, 50);
    const blocked = () => {
      throw new Error('blocked');
    };
    assert.throws(() => directory.authenticate(randomKey(), blocked), /blocked/);
    assert.throws(() => directory.authenticate('short', blocked), /blocked/);
    assert.equal((await directory.authenticate(partner.key))?.caller.partnerId, partner.id);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the 50 ms cache entry is gone
    assert.equal(
      (await directory.authenticate(partner.key, blocked))?.caller.partnerId,
      partner.id,
      'looked up again, not blocked',
    );
  });

  it('a flood of random keys does not evict a known key', async () => {
    const partner = await createTestPartner(handle.db);
    const { db, lookups } = counting(handle.db);
    const directory = new PartnerDirectory(db, 60_000);
    assert.equal((await directory.authenticate(partner.key))?.caller.partnerId, partner.id);
    await Promise.all(Array.from({ length: 300 }, async () => directory.authenticate(randomKey())));
    const before = lookups();
    const again = directory.authenticate(partner.key);
    assert.ok(!(again instanceof Promise), 'still cached: answered synchronously');
    assert.equal(again?.caller.partnerId, partner.id);
    assert.equal(lookups(), before);
  });

  it('a key refused a moment ago works as soon as it is created in this process', async () => {
    const partner = await createTestPartner(handle.db);
    const directory = new PartnerDirectory(handle.db, 60_000);
    const key = randomKey();
    assert.equal(await directory.authenticate(key), undefined);
    assert.equal(directory.authenticate(key), undefined, 'negative-cached');
    await createApiKey(handle.db, 'operator:test', { partnerId: partner.id, environment: 'sandbox', plaintext: key });
    directory.invalidate(); // what every route creating a key does
    assert.equal((await directory.authenticate(key))?.caller.partnerId, partner.id);
  });

  it('a lookup that started before invalidate() caches nothing', async () => {
    const partner = await createTestPartner(handle.db);
    const directory = new PartnerDirectory(handle.db, 60_000);
    const key = randomKey();
    const pending = directory.authenticate(key); // in flight: the key does not exist yet
    directory.invalidate();
    assert.equal(await pending, undefined);
    await createApiKey(handle.db, 'operator:test', { partnerId: partner.id, environment: 'sandbox', plaintext: key });
    assert.equal(
      (await directory.authenticate(key))?.caller.partnerId,
      partner.id,
      'the stale "unknown" was not cached',
    );
  });

  it('a key created by another process is accepted once the negative entry expires', async () => {
    const partner = await createTestPartner(handle.db);
    const directory = new PartnerDirectory(handle.db, 300);
    const key = randomKey();
    assert.equal(await directory.authenticate(key), undefined);
    await createApiKey(handle.db, 'operator:test', { partnerId: partner.id, environment: 'sandbox', plaintext: key }); // no invalidate(): the CLI
    const entry = await eventually(async () => (await directory.authenticate(key)) ?? undefined, 10_000);
    assert.equal(entry.caller.partnerId, partner.id);
  });
});

describe('unknown keys over HTTP', () => {
  let t: TestApp;
  before(async () => {
    // the production cache (5 s) and a low limit; no trusted proxy: the peer address counts
    t = await buildTestApp({ cacheTtlMs: 5_000, env: { PARASOL_AUTH_FAILURES_PER_MINUTE: '5' } });
  });
  after(() => t.close());

  const getPrice = (remoteAddress: string, authorization: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/getPrice`,
      remoteAddress,
      payload: trip(),
      headers: { authorization, 'content-type': 'application/json', ...headers },
    });

  it('an address failing 5 times gets 429 with Retry-After; its known keys still work; other addresses do not notice', async () => {
    const partner = await createTestPartner(t.db);
    const attacker = '198.51.100.23';
    assert.equal((await getPrice(attacker, partner.auth.authorization)).statusCode, 200, 'the key is cached as known');
    for (let i = 0; i < 5; i++) {
      const res = await getPrice(attacker, i % 2 ? `Bearer ${randomKey()}` : 'Bearer not-a-key!');
      assert.equal(res.statusCode, 401, `attempt ${i + 1}`);
    }
    const blocked = await getPrice(attacker, `Bearer ${randomKey()}`, { 'x-forwarded-for': '192.0.2.1' }); // not trusted: no escape
    assert.equal(blocked.statusCode, 429);
    assert.match(String(blocked.headers['content-type']), /application\/problem\+json/);
    assert.equal(blocked.json().code, 'rate_limited');
    const retryAfter = Number(blocked.headers['retry-after']);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
      String(blocked.headers['retry-after']),
    );
    assert.equal((await getPrice(attacker, 'Bearer not-a-key!')).statusCode, 429);

    assert.equal(
      (await getPrice(attacker, partner.auth.authorization)).statusCode,
      200,
      'a known key from that address works',
    );
    assert.equal(
      (await getPrice('198.51.100.24', `Bearer ${randomKey()}`)).statusCode,
      401,
      'another address still gets 401',
    );
    assert.equal((await getPrice('198.51.100.24', partner.auth.authorization)).statusCode, 200);
  });

  it('a revoked key is refused at once in this process, and a new key works at once', async () => {
    const partner = await createTestPartner(t.db);
    const address = '198.51.100.40';
    assert.equal((await getPrice(address, partner.auth.authorization)).statusCode, 200);
    const fresh = await createApiKey(t.db, 'operator:test', { partnerId: partner.id, environment: 'sandbox' });
    assert.equal(
      (await getPrice(address, `Bearer ${fresh.plaintext}`)).statusCode,
      200,
      'a new key never presented before works at once, even created elsewhere',
    );
    const early = randomKey();
    assert.equal(
      (await getPrice(address, `Bearer ${early}`)).statusCode,
      401,
      'presented before it exists: remembered as unknown',
    );
    const created = await createApiKey(t.db, 'operator:test', {
      partnerId: partner.id,
      environment: 'sandbox',
      plaintext: early,
    });
    // created by another process: the change notification (LISTEN/NOTIFY) drops the negative entry
    await eventually(
      async () => ((await getPrice(address, `Bearer ${early}`)).statusCode === 200 ? true : undefined),
      30_000,
    );
    t.app.parasol.directory.invalidate(); // the portal and the consoles do this when they create or revoke a key
    assert.equal(
      (await getPrice(address, `Bearer ${early}`)).statusCode,
      200,
      'created in this process: works at once',
    );
    const keyId = (
      await t.db
        .selectFrom('api_keys')
        .select('id')
        .where('partner_id', '=', partner.id)
        .where('id', 'not in', [created.key.id, fresh.key.id])
        .executeTakeFirstOrThrow()
    ).id;
    await revokeApiKey(t.db, 'operator:test', partner.id, keyId);
    t.app.parasol.directory.invalidate();
    const revoked = await getPrice(address, partner.auth.authorization);
    assert.equal(revoked.statusCode, 401);
    assert.equal(revoked.json().code, 'unauthenticated');
  });
});
