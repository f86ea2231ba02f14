import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../../src/partners/users.ts';
import { deliverWebhook } from '../../src/webhooks/webhook-delivery.ts';
import { emitWebhookEvents } from '../../src/webhooks/webhook-events.ts';
import {
  checkWebhookUrl,
  guardedLookup,
  nonPublicRange,
  normaliseAddress,
  type Resolver,
} from '../../src/webhooks/webhook-url.ts';
import { addEndpoint, removeEndpoint, type WebhookDeps } from '../../src/webhooks/webhooks.ts';
import { DomainError } from '../../src/platform/errors.ts';
import { buildTestApp, createTestPartner, uniqueSlug, type TestApp } from '../helper.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';

/**
 * Issue 9, security defect 4: every spelling of a non-public address is refused, at registration
 * (use case, console) and at connect time (the delivery's literal check and its DNS lookup hook).
 */

/** Hosts that name a loopback, private, link-local or unspecified address in a roundabout way. */
const DISGUISED_URLS = [
  'https://[::7f00:1]/', // IPv4-compatible ::127.0.0.1, as the URL parser prints it
  'https://[::127.0.0.1]/',
  'https://[::a00:5]/h', // ::10.0.0.5
  'https://[0:0:0:0:0:ffff:127.0.0.1]/h',
  'https://[::ffff:7f00:1]/h',
  'https://[64:ff9b::a9fe:a9fe]/latest', // NAT64 of 169.254.169.254
  'https://[64:ff9b:1::1]/h', // local-use NAT64 prefix
  'https://2130706433/h', // decimal
  'https://017700000001/h', // octal, one part
  'https://0177.0.0.1/h', // octal parts
  'https://0x7f000001/h', // hex
  'https://0x7f.1/h',
  'https://127.1/h',
  'https://0x0A.0.0.1/h',
  'https://0/h',
  'https://0.0.0.0/h',
  'https://0.1.2.3/h',
  'https://[::]/h',
  'https://[::808:808]/h', // IPv4-compatible, even of a public address: deprecated
];

/** What a resolver might answer for a name: the same disguises, as addresses. */
const DISGUISED_ADDRESSES = [
  '::7f00:1',
  '::127.0.0.1',
  '::ffff:10.0.0.1',
  '::ffff:0.0.0.0',
  '64:ff9b::c0a8:101',
  '0.0.0.0',
  '::',
  'fe80::1%eth0',
  '::808:808',
];

describe('address normalisation', () => {
  it('reads every IPv4 spelling and unwraps IPv6 addresses carrying an IPv4 address', () => {
    const cases: [string, string, string | undefined][] = [
      ['2130706433', '127.0.0.1', undefined],
      ['0x7f.1', '127.0.0.1', undefined],
      ['0177.0.0.1', '127.0.0.1', undefined],
      ['127.1', '127.0.0.1', undefined],
      ['[::7f00:1]', '127.0.0.1', 'ipv4Compatible'],
      ['::127.0.0.1', '127.0.0.1', 'ipv4Mapped'], // ipaddr.js reads the dotted tail as mapped; either way the IPv4 it carries
      ['::ffff:a00:1', '10.0.0.1', 'ipv4Mapped'],
      ['64:ff9b::808:808', '8.8.8.8', 'nat64'],
      ['::1', '::1', undefined],
      ['::', '::', undefined],
      ['2606:4700::1111', '2606:4700::1111', undefined],
      ['fe80::1%eth0', 'fe80::1', undefined],
    ];
    for (const [text, address, carrier] of cases) {
      const normal = normaliseAddress(text);
      assert.ok(normal, text);
      assert.equal(normal.ip.toString(), address, text);
      assert.equal(normal.carrier, carrier, text);
    }
    assert.equal(normaliseAddress('hooks.example.com'), undefined);
    assert.equal(normaliseAddress('1.2.3.4.5'), undefined);
  });

  it('judges an address by the IPv4 address it carries, and refuses IPv4-compatible ones', () => {
    const cases: [string, string | null][] = [
      ['::7f00:1', 'loopback'],
      ['::a00:1', 'private'],
      ['::a9fe:a9fe', 'linkLocal'],
      ['::808:808', 'ipv4Compatible'],
      ['64:ff9b::7f00:1', 'loopback'],
      ['64:ff9b::a00:1', 'private'],
      ['64:ff9b::808:808', null],
      ['64:ff9b:1::808:808', 'rfc6052'], // the local-use NAT64 prefix (RFC 8215): never public
      ['::ffff:0:0', 'unspecified'],
      ['0x7f.1', 'loopback'],
      ['0', 'unspecified'],
      ['0.1.2.3', 'unspecified'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['8.8.8.8', null],
      ['2606:4700:4700::1111', null],
    ];
    for (const [address, range] of cases) assert.equal(nonPublicRange(address), range, address);
  });

  it('refuses every disguised literal at registration, naming the address it means', async () => {
    const never: Resolver = async () => assert.fail('an IP literal needs no DNS');
    for (const url of DISGUISED_URLS) {
      const error = await checkWebhookUrl(url, { allowPrivate: false, resolve: never }).then(
        () => assert.fail(`${url} was accepted`),
        (e: unknown) => e,
      );
      assert.ok(error instanceof DomainError, url);
      assert.equal(error.code, 'webhook_url_not_allowed', url);
      assert.equal(error.extra.reason, 'private_address', url);
    }
    const compatible = await checkWebhookUrl('https://[::7f00:1]/', { allowPrivate: false }).catch(
      (e: DomainError) => e,
    );
    assert.match((compatible as DomainError).detail, /::7f00:1 \(127\.0\.0\.1\) is a loopback address/);
  });

  it('refuses a name resolving to any disguised address, at registration and in the lookup hook', async () => {
    for (const address of DISGUISED_ADDRESSES) {
      const resolve: Resolver = async () => ['93.184.216.34', address];
      const error = await checkWebhookUrl('https://hooks.example.com/h', { allowPrivate: false, resolve }).catch(
        (e: unknown) => e,
      );
      assert.ok(error instanceof DomainError && error.extra.reason === 'private_address', address);
      const lookup = guardedLookup({ allowPrivate: false, resolve });
      const failure = await new Promise<NodeJS.ErrnoException | null>((done) =>
        lookup('hooks.example.com', { all: true } as never, (err) => done(err)),
      );
      assert.equal(failure?.code, 'EWEBHOOKURL', address);
    }
    const lookup = guardedLookup({ allowPrivate: false, resolve: async () => ['64:ff9b::808:808'] });
    const addresses = await new Promise<unknown>((done) =>
      lookup('hooks.example.com', { all: true } as never, (err, found) => done(err ?? found)),
    );
    assert.deepEqual(addresses, [{ address: '64:ff9b::808:808', family: 6 }]);
  });
});

describe('disguised addresses end to end', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_WORKERS: 'off' } }); // private URLs not allowed: the production policy
  });
  after(() => t.close());

  it('the console refuses every disguised URL with 422 and stores nothing', async () => {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('hooks')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: 'a webhook password' });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, 'a webhook password')).statusCode, 303);
    const csrf = csrfOf((await browser.get('/console/webhooks')).body)!;
    for (const url of DISGUISED_URLS) {
      const response = await browser.post('/console/webhooks', { _csrf: csrf, env: 'sandbox', url });
      assert.equal(response.statusCode, 422, url);
      assert.match(response.body, /is a [^<]+ address/, url);
    }
    const stored = await t.db
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('partner_id', '=', partner.id)
      .execute();
    assert.equal(stored.length, 0);
  });

  it('a delivery to an endpoint stored with a disguised address never connects', async () => {
    const partner = await createTestPartner(t.db);
    const { jobs, keys } = t.app.parasol;
    // registered while private URLs were allowed; now they are not
    const lenient: WebhookDeps = {
      db: t.db,
      jobs,
      keys,
      allowPrivate: true,
      now: () => new Date(),
      resolve: async () => ['10.1.2.3'], // rebound.example.com resolved (to a private address) when registered
    };
    const endpoints: string[] = [];
    const environments = ['sandbox', 'preproduction', 'production'] as const; // at most 10 endpoints per environment
    const urls = [...DISGUISED_URLS, 'https://rebound.example.com/h'];
    for (const [i, url] of urls.entries()) {
      endpoints.push(
        (
          await addEndpoint(
            lenient,
            { actor: 'operator:test', partnerId: partner.id, environment: environments[i % 3]! },
            { url },
          )
        ).endpoint.id,
      );
    }
    try {
      const data = {
        contractNumber: 'FD-NORM-0001',
        status: 'cancelled' as const,
        reason: 'customer_request' as const,
        cancelledAt: new Date().toISOString(),
        refund: { amount: 1, currency: 'EUR' },
      };
      await t.db.transaction().execute((trx) =>
        emitWebhookEvents(
          trx,
          jobs,
          keys.encryption,
          environments.map((environment) => ({
            partnerId: partner.id,
            environment,
            type: 'contract.cancelled' as const,
            occurredAt: new Date(),
            data,
          })),
        ),
      );
      const deliveries = await t.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'endpoint_id'])
        .where('endpoint_id', 'in', endpoints)
        .execute();
      assert.equal(deliveries.length, endpoints.length);
      let resolved = 0;
      const resolve: Resolver = async () => (resolved++, ['::7f00:1']);
      for (const d of deliveries) {
        assert.equal(
          await deliverWebhook(
            { db: t.db, jobs, keys, allowPrivate: false, now: () => new Date(), timeoutMs: 2_000, resolve },
            { deliveryId: d.id, attempt: 1 },
          ),
          'retry_scheduled',
        );
        const attempt = await t.db
          .selectFrom('webhook_delivery_attempts')
          .select(['status_code', 'error'])
          .where('delivery_id', '=', d.id)
          .executeTakeFirstOrThrow();
        assert.equal(attempt.status_code, null);
        assert.match(attempt.error!, /^url_not_allowed: /, attempt.error!);
      }
      assert.equal(resolved, 1, 'only the name was resolved; every literal was refused before any lookup');
    } finally {
      for (const id of endpoints) await removeEndpoint(lenient, { actor: 'operator:test' }, id);
    }
  });
});
