import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDeparture } from '../../src/reference/validate.ts';

/** Local departure times around daylight-saving changes (src/reference/validate.ts). */
describe('a local departure time that occurs twice (clocks go back)', () => {
  const at = (value: string, airport: string) => parseDeparture(value, airport, '/departureDateTime').at.toISOString();

  it('is its second occurrence, north and south of the equator alike', () => {
    // New York leaves daylight saving time on 2026-11-01 (01:30 is first EDT, −04:00, then EST, −05:00)
    assert.equal(at('2026-11-01T01:30', 'JFK'), '2026-11-01T06:30:00.000Z');
    // Paris on 2026-10-25 (02:30 is first +02:00, then +01:00)
    assert.equal(at('2026-10-25T02:30', 'CDG'), '2026-10-25T01:30:00.000Z');
    // Sydney leaves it on 2027-04-04 (02:30 is first +11:00, then +10:00): Luxon alone gave the first
    assert.equal(at('2027-04-04T02:30', 'SYD'), '2027-04-03T16:30:00.000Z');
    // Auckland on 2027-04-04 (02:30 is first +13:00, then +12:00)
    assert.equal(at('2027-04-04T02:30', 'AKL'), '2027-04-03T14:30:00.000Z');
  });

  it('is the first one when the offset says so, and an ordinary time has one reading', () => {
    assert.equal(at('2027-04-04T02:30+11:00', 'SYD'), '2027-04-03T15:30:00.000Z');
    assert.equal(at('2027-04-04T03:30', 'SYD'), '2027-04-03T17:30:00.000Z');
    assert.equal(at('2026-07-01T10:00', 'CDG'), '2026-07-01T08:00:00.000Z');
  });
});
