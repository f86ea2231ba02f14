import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clampRetryAfter, parseRetryAfter } from '../../src/platform/retry-after.ts';
import { backoffMs, MAX_RETRY_AFTER_MS } from '../../src/monitoring/schedule.ts';
import { deferralDelayMs, SMS_RETRY_AFTER_MAX_MS } from '../../src/notify/sms/sms-queue.ts';

describe('clampRetryAfter: a Retry-After as its caller obeys it', () => {
  it('never negative nor NaN, at most the cap given', () => {
    assert.equal(clampRetryAfter(5000, 60_000), 5000);
    assert.equal(clampRetryAfter(-5, 60_000), 0);
    assert.equal(clampRetryAfter(Number.NaN, 60_000), 0);
    assert.equal(clampRetryAfter(1e20, 60_000), 60_000);
    assert.equal(clampRetryAfter(Number.POSITIVE_INFINITY, 60_000), 60_000);
    assert.equal(clampRetryAfter(parseRetryAfter('120')!, 60_000), 60_000);
  });

  it('each caller its own cap: the flight monitoring an hour, the SMS queue 15 minutes', () => {
    assert.equal(
      backoffMs(1, 1e20, () => 0),
      MAX_RETRY_AFTER_MS,
    );
    assert.equal(deferralDelayMs(1e20, 0), SMS_RETRY_AFTER_MAX_MS);
    assert.ok(SMS_RETRY_AFTER_MAX_MS < MAX_RETRY_AFTER_MS);
  });
});
