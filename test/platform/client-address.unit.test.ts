import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientAddressHmac, clientNetwork, tagClientAddress } from '../../src/platform/client-address.ts';

describe('client addresses', () => {
  const key = Buffer.alloc(32, 7);

  it('keeps the /24 of an IPv4 address and the /48 of an IPv6 one, an IPv4-mapped address as IPv4', () => {
    assert.equal(clientNetwork('203.0.113.77'), '203.0.113.0/24');
    assert.equal(clientNetwork('::ffff:203.0.113.77'), '203.0.113.0/24');
    assert.equal(clientNetwork('2001:db8:abcd:12::1'), '2001:db8:abcd::/48');
    assert.equal(clientNetwork('not an address'), 'unknown');
  });

  it('hashes an address under the key: equal for every spelling of it, never the address itself', () => {
    const tag = tagClientAddress(key, '203.0.113.77');
    assert.equal(tag.addressHmac, clientAddressHmac(key, '::ffff:203.0.113.77'));
    assert.equal(tag.addressHmac, clientAddressHmac(key, ' 203.0.113.77 '));
    assert.notEqual(tag.addressHmac, clientAddressHmac(key, '203.0.113.78'));
    assert.notEqual(tag.addressHmac, clientAddressHmac(Buffer.alloc(32, 8), '203.0.113.77'));
    assert.match(tag.addressHmac, /^[A-Za-z0-9_-]{43}$/);
    assert.doesNotMatch(JSON.stringify(tag), /203\.0\.113\.77/);
  });
});
