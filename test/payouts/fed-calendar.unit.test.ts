import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  achEffectiveEntryDate,
  fedHolidays,
  isFedBusinessDay,
  nextFedBusinessDay,
} from '../../src/payouts/fed-calendar.ts';

/** The Federal Reserve's holidays and an ACH file's effective entry date (src/payouts/fed-calendar.ts). */
describe('Federal Reserve calendar', () => {
  it('knows the holidays of 2025 and 2026 as the Federal Reserve publishes them', () => {
    assert.deepEqual(fedHolidays(2025), [
      '2025-01-01',
      '2025-01-20',
      '2025-02-17',
      '2025-05-26',
      '2025-06-19',
      '2025-07-04',
      '2025-09-01',
      '2025-10-13',
      '2025-11-11',
      '2025-11-27',
      '2025-12-25',
    ]);
    assert.deepEqual(fedHolidays(2026), [
      '2026-01-01',
      '2026-01-19',
      '2026-02-16',
      '2026-05-25',
      '2026-06-19',
      // 4 July 2026 is a Saturday: not observed (Friday 3 July open)
      '2026-09-07',
      '2026-10-12',
      '2026-11-11',
      '2026-11-26',
      '2026-12-25',
    ]);
  });

  it('observes a Sunday holiday on the Monday and not a Saturday one', () => {
    // 2023: New Year on a Sunday → Monday 2 January closed, Sunday 1 January is a weekend anyway
    assert.equal(isFedBusinessDay('2023-01-02'), false);
    // 2022: Christmas on a Sunday → Monday 26 December closed
    assert.equal(isFedBusinessDay('2022-12-26'), false);
    // 2026: Independence Day on a Saturday → Friday 3 July open
    assert.equal(isFedBusinessDay('2026-07-03'), true);
    // 2027: Juneteenth on a Saturday → Friday 18 June open
    assert.equal(isFedBusinessDay('2027-06-18'), true);
    // 2022: Juneteenth on a Sunday → Monday 20 June closed; before 2022 no Juneteenth
    assert.equal(isFedBusinessDay('2022-06-20'), false);
    assert.equal(fedHolidays(2021).includes('2021-06-18'), false);
  });

  it('is closed on weekends and open on an ordinary weekday', () => {
    assert.equal(isFedBusinessDay('2026-03-14'), false);
    assert.equal(isFedBusinessDay('2026-03-15'), false);
    assert.equal(isFedBusinessDay('2026-03-16'), true);
    assert.throws(() => isFedBusinessDay('2026-02-30'), RangeError);
  });

  it('dates a file for the next business day in Eastern time', () => {
    // Wednesday 25 Nov 2026, Thanksgiving on the 26th, then Friday 27
    assert.equal(nextFedBusinessDay('2026-11-25'), '2026-11-27');
    // 04:30 UTC on Saturday is still Friday evening in New York: next business day is Monday
    assert.equal(achEffectiveEntryDate(new Date('2026-03-14T04:30:00Z')), '2026-03-16');
    // Friday 24 Dec 2027 (Christmas Saturday, not observed) → Monday 27 December
    assert.equal(achEffectiveEntryDate(new Date('2027-12-23T15:00:00Z')), '2027-12-24');
    assert.equal(achEffectiveEntryDate(new Date('2027-12-24T15:00:00Z')), '2027-12-27');
    // Friday 15 January 2027 → MLK Monday 18 → Tuesday 19
    assert.equal(achEffectiveEntryDate(new Date('2027-01-15T15:00:00Z')), '2027-01-19');
  });
});
