import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveLegs, TIME_RULES } from '../../src/flight/legs.ts';
import { DomainError } from '../../src/platform/errors.ts';
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

/**
 * The order of a trip's legs (src/flight/legs.ts): the return departs at least TIME_RULES.minReturnGapMinutes
 * after the outbound, compared as instants — each leg's local time read in its own airport's zone —
 * never as wall-clock times. January: Paris is UTC+01:00, New York UTC−05:00.
 */
describe('a return leg departing from another time zone', () => {
  const legs = (departureAirport: string, arrivalAirport: string, out: string, back: string) =>
    resolveLegs({
      departureAirport,
      arrivalAirport,
      airline: 'AF',
      departureDateTime: out,
      returnDepartureDateTime: back,
    });
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      assert.ok(error instanceof DomainError, String(error));
      return { code: error.code, errors: error.extra.errors };
    }
    assert.fail('accepted');
  };
  const outOfOrder = {
    code: 'validation_failed',
    errors: [
      {
        field: '/returnDepartureDateTime',
        code: 'out_of_range',
        message: `must be at least ${TIME_RULES.minReturnGapMinutes} minutes after the outbound departure`,
      },
    ],
  };

  it('east-bound: a return at a later local clock time that departs before the outbound in UTC is refused', () => {
    // JFK 10:00 is 15:00Z; CDG 12:00 is 11:00Z, four hours before it
    assert.deepEqual(
      refusal(() => legs('JFK', 'CDG', '2027-01-15T10:00', '2027-01-15T12:00')),
      outOfOrder,
    );
    // the same instant given with its offset
    assert.deepEqual(
      refusal(() => legs('JFK', 'CDG', '2027-01-15T10:00', '2027-01-15T12:00+01:00')),
      outOfOrder,
    );
  });

  it('east-bound: exactly the minimum gap in UTC is accepted, a minute less is not', () => {
    const [outbound, back] = legs('JFK', 'CDG', '2027-01-15T10:00', '2027-01-15T17:00');
    assert.equal(outbound!.departureAt.toISOString(), '2027-01-15T15:00:00.000Z');
    assert.equal(back!.departureAt.toISOString(), '2027-01-15T16:00:00.000Z');
    assert.equal(back!.departureLocal, '2027-01-15T17:00');
    assert.deepEqual(
      refusal(() => legs('JFK', 'CDG', '2027-01-15T10:00', '2027-01-15T16:59')),
      outOfOrder,
    );
  });

  it('west-bound: a return at an earlier local clock time that departs after the outbound in UTC is accepted; the boundary too', () => {
    // CDG 10:00 is 09:00Z; JFK 05:00 is 10:00Z: the minimum gap exactly, though its clock reads five hours earlier
    const [outbound, back] = legs('CDG', 'JFK', '2027-01-15T10:00', '2027-01-15T05:00');
    assert.equal(outbound!.departureAt.toISOString(), '2027-01-15T09:00:00.000Z');
    assert.equal(back!.departureAt.toISOString(), '2027-01-15T10:00:00.000Z');
    assert.equal(back!.departureAirport, 'JFK');
    assert.deepEqual(
      refusal(() => legs('CDG', 'JFK', '2027-01-15T10:00', '2027-01-15T04:59')),
      outOfOrder,
    );
  });
});
