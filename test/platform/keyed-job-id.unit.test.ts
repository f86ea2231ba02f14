import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyedJobId } from '../../src/platform/jobs.ts';

/**
 * A job id derived from a key (src/platform/jobs.ts, `keyedJobId`): what keeps the resend of an SMS
 * queued again for a passing platform failure to one job per failed send, besides the requeue itself
 * (docs/sms.md, "Delivery receipts"). pg-boss takes ids that are UUIDs.
 */
describe('keyedJobId', () => {
  const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const key = 'sms_send:platform-resend:00000000-0000-0000-0000-000000000001:1';

  it('gives the same key the same id, in every process and release', () => {
    assert.equal(keyedJobId(key), keyedJobId(`${key}`));
    // pinned: a job queued by a process of the previous release and one of this release are one job
    assert.equal(keyedJobId(key), '2bd88a14-eb81-5ffa-81be-975bfcaf3be4');
  });

  it("has a UUID's layout (version 5, RFC 4122 variant)", () => {
    for (const k of [key, '', 'é', 'x'.repeat(10_000)]) assert.match(keyedJobId(k), UUID_V5, k.slice(0, 20));
  });

  it('gives different keys different ids', () => {
    const keys = [
      key,
      'sms_send:platform-resend:00000000-0000-0000-0000-000000000001:2',
      'sms_send:platform-resend:00000000-0000-0000-0000-000000000002:1',
      '',
      ...Array.from({ length: 1000 }, (_, i) => `k${i}`),
    ];
    assert.equal(new Set(keys.map(keyedJobId)).size, keys.length);
  });
});
