import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  airportTimeZones,
  nextSendableAt,
  phoneTimeZones,
  quietHoursHold,
  HOLD_MARGIN_MS,
} from '../../src/notify/sms/quiet-hours.ts';
import { ConfigError, parseQuietHours } from '../../src/platform/config.ts';
import { testConfig } from '../helper.ts';

const QUIET = { from: 21, to: 8 };
const PARIS = '+33612345678';

describe('quiet hours: the time zone of the phone number’s country', () => {
  it('a French mobile at 23:00 in Paris waits until 08:00 Paris time; at 10:00 it goes now', () => {
    assert.deepEqual(phoneTimeZones(PARIS), ['Europe/Paris']);
    // 15 Jan 2026, 22:00 UTC = 23:00 in Paris (UTC+1)
    assert.equal(
      nextSendableAt(PARIS, new Date('2026-01-15T22:00:00Z'), QUIET)?.toISOString(),
      '2026-01-16T07:00:00.000Z',
    );
    // summer time: 02:30 in Paris (UTC+2) → 08:00 Paris = 06:00 UTC
    assert.equal(
      nextSendableAt(PARIS, new Date('2026-07-15T00:30:00Z'), QUIET)?.toISOString(),
      '2026-07-15T06:00:00.000Z',
    );
    assert.equal(nextSendableAt(PARIS, new Date('2026-01-15T09:00:00Z'), QUIET), null);
    assert.equal(nextSendableAt(PARIS, new Date('2026-01-15T19:59:00Z'), QUIET), null, '20:59 in Paris');
    assert.notEqual(nextSendableAt(PARIS, new Date('2026-01-15T20:00:00Z'), QUIET), null, '21:00 in Paris');
  });

  it('a country of several zones waits until it is day in all of them', () => {
    const us = '+14155552345';
    assert.ok(phoneTimeZones(us).includes('America/New_York') && phoneTimeZones(us).includes('Pacific/Honolulu'));
    // 15 Jan 2026, 14:00 UTC: 09:00 in New York but 04:00 in Honolulu and 06:00 in Los Angeles
    const at = nextSendableAt(us, new Date('2026-01-15T14:00:00Z'), QUIET);
    // 08:00 in Honolulu (UTC-10) and Adak (UTC-10) = 18:00 UTC; 13:00 in New York
    assert.equal(at?.toISOString(), '2026-01-15T18:00:00.000Z');
    assert.equal(nextSendableAt(us, at!, QUIET), null);
  });

  it('a US number at night: a formatter per zone at most, made once (not one per zone per 15 minutes)', () => {
    const us = '+12125552345';
    const Original = Intl.DateTimeFormat;
    let created = 0;
    const Counting = function (this: unknown, ...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      created++;
      return new Original(...args);
    } as unknown as typeof Intl.DateTimeFormat;
    Intl.DateTimeFormat = Counting;
    try {
      // 15 Jan 2026, 06:00 UTC: 01:00 in New York, 20:00 the day before in Honolulu
      assert.notEqual(nextSendableAt(us, new Date('2026-01-15T06:00:00Z'), QUIET), null);
      assert.notEqual(nextSendableAt(us, new Date('2026-07-15T05:00:00Z'), QUIET), null);
    } finally {
      Intl.DateTimeFormat = Original;
    }
    assert.ok(created <= phoneTimeZones(us).length, `${created} formatters for ${phoneTimeZones(us).length} zones`);
  });

  it('Kosovo (XK, no zone in ICU): Belgrade’s time', () => {
    assert.deepEqual(phoneTimeZones('+38343201234'), ['Europe/Belgrade']);
    assert.notEqual(nextSendableAt('+38343201234', new Date('2026-01-15T22:00:00Z'), QUIET), null);
  });

  it('no quiet hours, or a number of no known country and no flight to go by: now', () => {
    assert.equal(nextSendableAt(PARIS, new Date('2026-01-15T22:00:00Z'), null), null);
    assert.equal(nextSendableAt('+99912345678', new Date('2026-01-15T22:00:00Z'), QUIET), null);
  });

  it('a number of no country (+800, +808, +870, +881, +882, +883) goes by the insured flight’s two airports', () => {
    const cdgJfk = airportTimeZones('CDG', 'JFK');
    assert.deepEqual(cdgJfk, ['Europe/Paris', 'America/New_York']);
    assert.deepEqual(airportTimeZones('CDG', 'XXX', null), ['Europe/Paris'], 'an unknown airport adds none');
    for (const phone of [
      '+80012345678',
      '+80812345678',
      '+870773111632',
      '+881631234567',
      '+882161234567',
      '+88351000000',
    ]) {
      assert.deepEqual(phoneTimeZones(phone), [], phone);
      // 23:00 in Paris, 17:00 in New York: night at one end of the trip; the first hour both are awake is
      // 08:00 in New York (14:00 in Paris)
      assert.equal(
        nextSendableAt(phone, new Date('2026-01-15T22:00:00Z'), QUIET, cdgJfk)?.toISOString(),
        '2026-01-16T13:00:00.000Z',
        phone,
      );
      assert.equal(nextSendableAt(phone, new Date('2026-01-15T15:00:00Z'), QUIET, cdgJfk), null, `${phone} by day`);
    }
    // a number of a country keeps its country's zones, whatever the flight
    assert.equal(nextSendableAt(PARIS, new Date('2026-01-15T15:00:00Z'), QUIET, cdgJfk), null);
  });

  it('what waits: a reminder and an expiry notice; a reminder too near its due date does not', () => {
    const night = new Date('2026-01-15T22:00:00Z');
    const morning = '2026-01-16T07:00:00.000Z';
    for (const kind of ['opened', 'payment_failed', 'resend', 'paid', 'voided'])
      assert.equal(quietHoursHold({ kind, phone: PARIS, now: night, quiet: QUIET }), null, kind);
    assert.equal(quietHoursHold({ kind: 'expired', phone: PARIS, now: night, quiet: QUIET })?.toISOString(), morning);
    const farDue = new Date('2026-01-20T00:00:00Z');
    assert.equal(
      quietHoursHold({ kind: 'reminder', phone: PARIS, now: night, quiet: QUIET, dueAt: farDue })?.toISOString(),
      morning,
    );
    const nearDue = new Date(Date.parse(morning) + HOLD_MARGIN_MS - 1);
    assert.equal(quietHoursHold({ kind: 'reminder', phone: PARIS, now: night, quiet: QUIET, dueAt: nearDue }), null);
    assert.equal(
      quietHoursHold({
        kind: 'reminder',
        phone: '+80012345678',
        now: night,
        quiet: QUIET,
        fallbackZones: ['Europe/Paris'],
      })?.toISOString(),
      morning,
    );
  });

  it('a queued message whose morning would come within an hour of its give-up is not held, whatever its kind', () => {
    const night = new Date('2026-01-15T22:00:00Z');
    const morning = Date.parse('2026-01-16T07:00:00.000Z');
    for (const kind of ['reminder', 'expired']) {
      const hold = (giveUpAt: number) =>
        quietHoursHold({ kind, phone: PARIS, now: night, quiet: QUIET, giveUpAt: new Date(giveUpAt) });
      assert.equal(hold(morning + HOLD_MARGIN_MS + 1)?.getTime(), morning, `${kind}: over an hour to spare`);
      assert.equal(hold(morning + HOLD_MARGIN_MS), null, `${kind}: an hour exactly`);
      // the reminder's due date does not shield an expiry notice from its give-up
      assert.equal(hold(night.getTime() + 1.5 * 3_600_000), null, kind);
    }
  });

  it('PARASOL_SMS_QUIET_HOURS: 21-8 by default, off, or refused naming the variable', () => {
    assert.deepEqual(parseQuietHours('21-8'), { from: 21, to: 8 });
    assert.deepEqual(parseQuietHours('22 - 7'), { from: 22, to: 7 });
    assert.equal(parseQuietHours('off'), null);
    assert.deepEqual(testConfig({ PARASOL_SMS_QUIET_HOURS: '' }).smsQuietHours, { from: 21, to: 8 });
    assert.equal(testConfig().smsQuietHours, null, 'off in tests unless asked');
    for (const bad of ['8', '25-8', '8-8', 'night'])
      assert.throws(() => testConfig({ PARASOL_SMS_QUIET_HOURS: bad }), ConfigError, bad);
  });
});
