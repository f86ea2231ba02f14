import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  maxAttempts,
  retryDelayMs,
  RETRY_SCHEDULE_SECONDS,
  signatureHeader,
  excerpt,
} from '../../src/webhooks/webhook-delivery.ts';
import { checkWebhookUrl, nonPublicRange, parseWebhookUrl, type Resolver } from '../../src/webhooks/webhook-url.ts';
import { newWebhookSecret, parseEventTypes } from '../../src/webhooks/webhooks.ts';
import { DomainError } from '../../src/platform/errors.ts';

/** Pure rules of the webhooks: the URL policy, the retry schedule, secrets and signatures. */

const resolving =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

async function refusal(url: string, resolve: Resolver = resolving({})): Promise<DomainError> {
  try {
    await checkWebhookUrl(url, { allowPrivate: false, resolve });
  } catch (error) {
    assert.ok(error instanceof DomainError, `expected a DomainError, got ${String(error)}`);
    return error;
  }
  assert.fail(`${url} was accepted`);
}

describe('webhook URL policy', () => {
  it('classifies every non-public range, IPv4 and IPv6, IPv4-mapped as the IPv4 it carries', () => {
    const cases: [string, string | null][] = [
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['224.0.0.1', 'multicast'],
      ['0.0.0.0', 'unspecified'],
      ['255.255.255.255', 'broadcast'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fe80::1', 'linkLocal'],
      ['fc00::1', 'uniqueLocal'],
      ['fd12:3456::1', 'uniqueLocal'],
      ['ff02::1', 'multicast'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:10.0.0.1', 'private'],
      ['::ffff:a9fe:a9fe', 'linkLocal'],
      ['93.184.216.34', null],
      ['8.8.8.8', null],
      ['172.32.0.1', null],
      ['2606:4700:4700::1111', null],
      ['::ffff:8.8.8.8', null],
    ];
    for (const [address, range] of cases) assert.equal(nonPublicRange(address), range, address);
  });

  it('refuses IP-literal URLs in private ranges with webhook_url_not_allowed and the field /url', async () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'https://10.0.0.5:8443/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://100.100.1.1/',
      'https://[::1]/hook',
      'https://[fd00::5]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:192.168.1.1]/hook',
      'https://0.0.0.0/',
      'https://2130706433/', // 127.0.0.1 written as one number: the URL parser normalises it
      'https://0x7f.1/',
    ]) {
      const error = await refusal(url);
      assert.equal(error.code, 'webhook_url_not_allowed', url);
      assert.equal(error.status, 422);
      assert.equal(error.extra.reason, 'private_address', url);
      assert.equal(error.extra.errors?.[0]?.field, '/url');
    }
  });

  it('refuses localhost names without asking DNS, and names resolving to private addresses', async () => {
    const never: Resolver = async () => assert.fail('DNS must not be asked about localhost');
    for (const url of ['https://localhost/hook', 'https://LOCALHOST.:8443/', 'https://api.localhost/hook']) {
      const error = await refusal(url, never);
      assert.equal(error.extra.reason, 'private_address', url);
      assert.match(error.detail, /loopback/);
    }
    const dns = resolving({
      'internal.example.com': ['10.20.30.40'],
      'mixed.example.com': ['93.184.216.34', '::1'],
      'mapped.example.com': ['::ffff:172.16.5.4'],
    });
    for (const url of [
      'https://internal.example.com/h',
      'https://mixed.example.com/h',
      'https://mapped.example.com/h',
    ]) {
      const error = await refusal(url, dns);
      assert.equal(error.extra.reason, 'private_address', url);
      assert.match(error.detail, /resolves to/);
    }
    const unresolvable = await refusal('https://nowhere.example.com/h', dns);
    assert.equal(unresolvable.extra.reason, 'unresolvable');
  });

  it('measures the length of the URL as stored (percent-encoded), not as typed', () => {
    const typed = `https://hooks.example.com/${'é'.repeat(1000)}`; // 1,026 characters typed, 6,026 once encoded
    assert.ok(typed.length <= 2048);
    assert.throws(
      () => parseWebhookUrl(typed, false),
      (e: unknown) => e instanceof DomainError && e.code === 'validation_failed' && /too long/.test(e.detail),
    );
  });

  it('accepts https URLs whose every address is public', async () => {
    const url = await checkWebhookUrl('https://hooks.example.com/parasol?x=1', {
      allowPrivate: false,
      resolve: resolving({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'] }),
    });
    assert.equal(url.toString(), 'https://hooks.example.com/parasol?x=1');
    assert.equal((await checkWebhookUrl('https://8.8.8.8/h', { allowPrivate: false })).hostname, '8.8.8.8');
  });

  it('requires https, refuses credentials, fragments, other schemes and malformed URLs', async () => {
    assert.equal(
      (await refusal('http://hooks.example.com/h', resolving({ 'hooks.example.com': ['93.184.216.34'] }))).extra.reason,
      'scheme',
    );
    assert.equal((await refusal('ftp://hooks.example.com/h')).extra.reason, 'scheme');
    assert.equal((await refusal('https://user:pw@hooks.example.com/h')).extra.reason, 'credentials');
    assert.equal((await refusal('https://hooks.example.com/h#part')).code, 'validation_failed');
    assert.equal((await refusal('not a url')).code, 'validation_failed');
    assert.equal((await refusal(`https://hooks.example.com/${'a'.repeat(2100)}`)).code, 'validation_failed');
  });

  it('allows http and private addresses only when PARASOL_WEBHOOKS_ALLOW_PRIVATE is on', async () => {
    const never: Resolver = async () => assert.fail('no resolution needed');
    assert.equal(
      (await checkWebhookUrl('http://127.0.0.1:8080/hook', { allowPrivate: true, resolve: never })).port,
      '8080',
    );
    assert.equal(
      (await checkWebhookUrl('http://localhost/hook', { allowPrivate: true, resolve: never })).hostname,
      'localhost',
    );
    assert.equal(
      (await checkWebhookUrl('https://[::1]/hook', { allowPrivate: true, resolve: never })).hostname,
      '[::1]',
    );
    // still a URL: the syntax rules hold
    assert.throws(
      () => parseWebhookUrl('ftp://127.0.0.1/', true),
      (e: DomainError) => e.code === 'webhook_url_not_allowed',
    );
  });

  it("refuses a name that resolves to nothing even when private addresses are allowed (the README's placeholder)", async () => {
    const dns = resolving({ 'receiver.lan': ['192.168.1.20'] });
    const placeholder = await checkWebhookUrl('https://your-receiver.example/hooks', {
      allowPrivate: true,
      resolve: dns,
    }).then(
      () => assert.fail('the placeholder was accepted'),
      (error: unknown) => error,
    );
    assert.ok(placeholder instanceof DomainError, `expected a DomainError, got ${String(placeholder)}`);
    assert.equal(placeholder.code, 'webhook_url_not_allowed', 'refused as a URL');
    assert.equal(placeholder.extra.reason, 'unresolvable', 'because it resolves to nothing');
    const none = await checkWebhookUrl('http://empty.lan/h', { allowPrivate: true, resolve: async () => [] }).then(
      () => undefined,
      (error: DomainError) => error.extra.reason,
    );
    assert.equal(none, 'unresolvable', 'an empty answer is no address either');
    assert.equal(
      (await checkWebhookUrl('http://receiver.lan:4000/hooks', { allowPrivate: true, resolve: dns })).hostname,
      'receiver.lan',
      'a name resolving to a private address is accepted when allowed',
    );
  });
});

describe('retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 14 h, 24 h: ten attempts over about three days', () => {
    const delays = Array.from({ length: 9 }, (_, i) => retryDelayMs(i + 1));
    assert.deepEqual(delays, [5e3, 300e3, 1800e3, 7200e3, 18000e3, 36000e3, 36000e3, 50400e3, 86400e3]);
    assert.equal(retryDelayMs(10), null, 'the tenth attempt is the last');
    assert.equal(maxAttempts(), 10);
    const totalHours = RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0) / 3600;
    assert.ok(totalHours > 60 && totalHours < 80, `about three days, got ${totalHours} h`);
    assert.throws(() => retryDelayMs(0), RangeError);
  });

  it('follows an injected schedule', () => {
    assert.equal(retryDelayMs(1, [0.1, 0.2]), 100);
    assert.equal(retryDelayMs(2, [0.1, 0.2]), 200);
    assert.equal(retryDelayMs(3, [0.1, 0.2]), null);
    assert.equal(maxAttempts([0.1, 0.2]), 3);
  });
});

describe('secrets and signatures', () => {
  it('makes whsec_ secrets of 24 random bytes that standardwebhooks accepts', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.notEqual(secret, newWebhookSecret());
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 24);
  });

  it('signs with every secret given, each verifying on its own (rotation)', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: {} });
    const at = new Date();
    const header = signatureHeader([current, previous], 'msg_abc', at, body);
    assert.equal(header.split(' ').length, 2);
    const headers = {
      'webhook-id': 'msg_abc',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': header,
    };
    assert.deepEqual(new Webhook(current).verify(body, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(previous).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
  });

  it('checks event type filters', () => {
    assert.equal(parseEventTypes(undefined), null);
    assert.deepEqual(parseEventTypes(['claim.paid', 'contract.created', 'claim.paid']), [
      'contract.created',
      'claim.paid',
    ]);
    assert.throws(
      () => parseEventTypes(['claim.paid', 'claim.nope']),
      (e: DomainError) => e.code === 'validation_failed' && e.extra.errors?.[0]?.field === '/eventTypes/1',
    );
    assert.throws(
      () => parseEventTypes([]),
      (e: DomainError) => e.code === 'validation_failed',
    );
  });

  it('keeps log excerpts printable and short', () => {
    assert.equal(excerpt('a\nb\u0000c'), 'a b c');
    assert.equal(excerpt('x'.repeat(500)).length, 200);
  });
});

describe('PARASOL_WEBHOOKS_ALLOW_PRIVATE', () => {
  it('is off by default, on when asked, and refuses anything else naming the variable', async () => {
    const { loadConfig, ConfigError } = await import('../../src/platform/config.ts');
    assert.equal(loadConfig({}).webhooksAllowPrivate, false);
    assert.equal(loadConfig({ PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on' }).webhooksAllowPrivate, true);
    assert.equal(loadConfig({ PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'off' }).webhooksAllowPrivate, false);
    assert.throws(
      () => loadConfig({ PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'sometimes' }),
      (e: Error) => e instanceof ConfigError && /PARASOL_WEBHOOKS_ALLOW_PRIVATE/.test(e.message),
    );
  });
});
