import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flyingAirline, quotedFlightNumbers } from '../../src/flight/flight-numbers.ts';
import { DomainError } from '../../src/platform/errors.ts';

const fields = (fn: () => unknown): { code: string; fields: string[] } => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof DomainError);
    return { code: error.code, fields: (error.extra?.errors ?? []).map((e) => e.field) };
  }
  assert.fail('expected a DomainError');
};

describe('quoted flight numbers and codeshares', () => {
  const roundTrip = { returnDepartureDateTime: '2027-01-03T18:00' };

  it('reads the marketing and operating flights of each leg, normalised', () => {
    assert.deepEqual(
      quotedFlightNumbers(
        {
          ...roundTrip,
          flightNumber: 'af 3612',
          operatingFlightNumber: 'dl264',
          returnFlightNumber: 'AF3613',
          returnOperatingFlightNumber: 'AF3613', // the flight itself: no codeshare
        },
        'AF',
      ),
      [
        { flightNumber: 'AF3612', operatingFlightNumber: 'DL264' },
        { flightNumber: 'AF3613', operatingFlightNumber: undefined },
      ],
    );
    assert.deepEqual(quotedFlightNumbers({}, 'AF'), [undefined, undefined]);
  });

  it('an operating flight needs its marketing flight and a known airline', () => {
    assert.deepEqual(
      fields(() => quotedFlightNumbers({ ...roundTrip, returnOperatingFlightNumber: 'DL265' }, 'AF')),
      { code: 'validation_failed', fields: ['/returnOperatingFlightNumber'] },
    );
    assert.deepEqual(
      fields(() => quotedFlightNumbers({ flightNumber: 'AF3612', operatingFlightNumber: '9Z264' }, 'AF')),
      { code: 'unknown_airline', fields: ['/operatingFlightNumber'] },
    );
    assert.deepEqual(
      fields(() => quotedFlightNumbers({ flightNumber: 'KL3612', operatingFlightNumber: '9Z264' }, 'AF')),
      { code: 'validation_failed', fields: ['/flightNumber', '/operatingFlightNumber'] },
    );
  });

  it('the airline that flies a leg is the operating carrier', () => {
    assert.equal(flyingAirline({ airline: 'AF', operatingFlightNumber: 'DL264' }), 'DL');
    assert.equal(flyingAirline({ airline: 'AF', operatingFlightNumber: null }), 'AF');
    assert.equal(flyingAirline({ airline: 'AF' }), 'AF');
  });
});
