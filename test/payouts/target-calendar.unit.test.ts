import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  easterSunday,
  executionDateProblem,
  isTargetBusinessDay,
  nextTargetBusinessDay,
  sepaExecutionDate,
  targetBusinessDaysBefore,
} from '../../src/payouts/target-calendar.ts';

/** The TARGET calendar and the execution date of a SEPA file (src/payouts/target-calendar.ts). */
describe('TARGET calendar', () => {
  it('computes Easter Sunday, including its earliest (22 March) and latest (25 April) dates', () => {
    const known: [number, string][] = [
      [1818, '03-22'],
      [2000, '04-23'],
      [2008, '03-23'],
      [2011, '04-24'],
      [2019, '04-21'],
      [2024, '03-31'],
      [2025, '04-20'],
      [2026, '04-05'],
      [2027, '03-28'],
      [2038, '04-25'],
      [2285, '03-22'],
    ];
    for (const [year, date] of known) {
      const { month, day } = easterSunday(year);
      assert.equal(`${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`, date, String(year));
    }
  });

  it('is closed on weekends, 1 January, Good Friday, Easter Monday, 1 May, 25 and 26 December', () => {
    const closed = [
      '2026-01-01',
      '2026-04-03', // Good Friday 2026
      '2026-04-06', // Easter Monday 2026
      '2025-04-18', // Good Friday 2025
      '2025-04-21', // Easter Monday 2025
      '2027-03-26', // Good Friday 2027
      '2027-03-29', // Easter Monday 2027
      '2026-05-01',
      '2026-12-25',
      '2026-12-26', // a Saturday anyway
      '2025-12-26',
      '2026-11-28', // Saturday
      '2026-11-29', // Sunday
    ];
    for (const day of closed) assert.equal(isTargetBusinessDay(day), false, day);
    const open = [
      '2026-04-02', // Maundy Thursday
      '2026-04-07',
      '2026-05-08', // a French holiday, not TARGET's
      '2026-05-14', // Ascension: not TARGET's
      '2026-07-14',
      '2026-12-24',
      '2026-12-31',
      '2026-11-27',
    ];
    for (const day of open) assert.equal(isTargetBusinessDay(day), true, day);
  });

  it('finds the next business day over weekends and holidays', () => {
    assert.equal(nextTargetBusinessDay('2026-11-27'), '2026-11-30', 'Friday → Monday');
    assert.equal(nextTargetBusinessDay('2026-04-02'), '2026-04-07', 'Thursday before Easter → Tuesday after');
    assert.equal(nextTargetBusinessDay('2026-12-24'), '2026-12-28', 'Christmas Eve → Monday 28');
    assert.equal(nextTargetBusinessDay('2027-12-24'), '2027-12-27', '25 and 26 December 2027 are a weekend');
    assert.equal(nextTargetBusinessDay('2026-12-31'), '2027-01-04', '1 January 2027 is a Friday');
    assert.equal(nextTargetBusinessDay('2026-04-30'), '2026-05-04', '1 May 2026 is a Friday');
  });
});

describe('SEPA execution date', () => {
  const cutOff = { hour: 14, minute: 0 };
  const at = (iso: string) => new Date(iso);

  it('is today before the cut-off (Central European Time) on a business day, the next business day after it', () => {
    // Thursday 26 November 2026, CET = UTC+1
    assert.equal(sepaExecutionDate(at('2026-11-26T12:59:00Z'), cutOff), '2026-11-26', '13:59 CET');
    assert.equal(sepaExecutionDate(at('2026-11-26T13:00:00Z'), cutOff), '2026-11-27', '14:00 CET: passed');
    // summer time: CEST = UTC+2
    assert.equal(sepaExecutionDate(at('2026-07-15T11:59:00Z'), cutOff), '2026-07-15', '13:59 CEST');
    assert.equal(sepaExecutionDate(at('2026-07-15T12:00:00Z'), cutOff), '2026-07-16', '14:00 CEST');
    // the day is TARGET's: 23:30 UTC on Thursday is already Friday in Frankfurt
    assert.equal(sepaExecutionDate(at('2026-11-26T23:30:00Z'), cutOff), '2026-11-27');
  });

  it('bank details arriving on Friday evening are paid on Monday; over Easter, on Tuesday', () => {
    assert.equal(sepaExecutionDate(at('2026-11-27T18:00:00Z'), cutOff), '2026-11-30');
    assert.equal(sepaExecutionDate(at('2026-11-28T09:00:00Z'), cutOff), '2026-11-30', 'Saturday morning');
    assert.equal(sepaExecutionDate(at('2026-04-03T08:00:00Z'), cutOff), '2026-04-07', 'Good Friday morning');
    assert.equal(sepaExecutionDate(at('2026-05-01T08:00:00Z'), cutOff), '2026-05-04', '1 May morning');
  });

  it('follows the configured cut-off', () => {
    assert.equal(sepaExecutionDate(at('2026-11-26T15:00:00Z'), { hour: 16, minute: 30 }), '2026-11-26');
    assert.equal(sepaExecutionDate(at('2026-11-26T15:30:00Z'), { hour: 16, minute: 30 }), '2026-11-27');
  });

  it('counts business days back for the transfers the bank has not reported', () => {
    // Monday 30 November 2026 10:00 CET: three business days back is Wednesday 25 November
    assert.equal(targetBusinessDaysBefore(at('2026-11-30T09:00:00Z'), 3).toISOString(), '2026-11-25T09:00:00.000Z');
    // Tuesday after Easter 2026: Thursday 2 April, then Wednesday 1 and Tuesday 31 March
    assert.equal(targetBusinessDaysBefore(at('2026-04-07T08:00:00Z'), 3).toISOString(), '2026-03-31T08:00:00.000Z');
  });
});

describe('an execution date an operator asks for', () => {
  // Friday 3 April 2026, 16:00 in Frankfurt: Good Friday, TARGET closed
  const now = new Date('2026-04-03T14:00:00Z');
  it('is refused on a TARGET holiday or a weekend, naming the next business day', () => {
    for (const [date, next] of [
      ['2026-04-03', '2026-04-07'], // Good Friday
      ['2026-04-06', '2026-04-07'], // Easter Monday
      ['2026-04-04', '2026-04-07'], // a Saturday
      ['2026-05-01', '2026-05-04'], // 1 May
    ]) {
      const problem = executionDateProblem(date!, now);
      assert.equal(problem?.code, 'not_allowed', date);
      assert.match(problem!.message, new RegExp(`next business day is ${next}`));
    }
    // Christmas, asked for on 1 December
    const christmas = executionDateProblem('2026-12-25', new Date('2026-12-01T10:00:00Z'));
    assert.equal(christmas?.code, 'not_allowed');
    assert.match(christmas!.message, /next business day is 2026-12-28/);
  });
  it('is refused before today in Central European Time, naming the earliest', () => {
    const problem = executionDateProblem('2026-04-02', now);
    assert.equal(problem?.code, 'out_of_range');
    assert.match(problem!.message, /today is 2026-04-03.*the earliest is 2026-04-07/);
    // 23:30 UTC on 2 April is already 3 April in Frankfurt
    assert.equal(executionDateProblem('2026-04-02', new Date('2026-04-02T23:30:00Z'))?.code, 'out_of_range');
  });
  it('is taken on any later TARGET business day, today included; a non-date is refused', () => {
    assert.equal(executionDateProblem('2026-04-07', now), undefined);
    assert.equal(executionDateProblem('2026-04-02', new Date('2026-04-02T07:00:00Z')), undefined);
    assert.equal(executionDateProblem('2026-02-31', now)?.code, 'invalid_format');
    assert.equal(executionDateProblem('7 April', now)?.code, 'invalid_format');
  });
});

describe("an execution date and the bank's cut-off", () => {
  // Tuesday 7 April 2026, 15:00 in Frankfurt (summer time): after the default 14:00 cut-off
  const afterCutOff = new Date('2026-04-07T13:00:00Z');
  it('refuses today after the cut-off, naming the earliest date a file made now asks for', () => {
    const problem = executionDateProblem('2026-04-07', afterCutOff);
    assert.equal(problem?.code, 'out_of_range');
    assert.match(problem!.message, /after the bank's cut-off \(14:00 .*the earliest is 2026-04-08/);
    assert.equal(sepaExecutionDate(afterCutOff), '2026-04-08', 'the rule and its earliest agree');
    assert.equal(executionDateProblem('2026-04-08', afterCutOff), undefined);
    // before the cut-off, today is the earliest
    assert.equal(executionDateProblem('2026-04-07', new Date('2026-04-07T11:00:00Z')), undefined);
  });
  it('reads the cut-off it is given (PARASOL_SEPA_CUTOFF), not the default', () => {
    const late = { hour: 16, minute: 30 };
    assert.equal(executionDateProblem('2026-04-07', afterCutOff, late), undefined, '15:00 is before 16:30');
    const early = { hour: 9, minute: 5 };
    const problem = executionDateProblem('2026-04-07', new Date('2026-04-07T07:30:00Z'), early);
    assert.equal(problem?.code, 'out_of_range');
    assert.match(problem!.message, /cut-off \(09:05 .*the earliest is 2026-04-08/);
  });
  it('refuses a date more than 30 TARGET business days ahead, naming the latest', () => {
    // from Tuesday 7 April 2026: 30 TARGET business days later (1 May a holiday) is Wednesday 20 May
    assert.equal(executionDateProblem('2026-05-20', afterCutOff), undefined);
    const problem = executionDateProblem('2026-05-21', afterCutOff);
    assert.equal(problem?.code, 'out_of_range');
    assert.match(problem!.message, /more than 30 TARGET business days ahead: the latest is 2026-05-20/);
    assert.equal(executionDateProblem('2036-04-08', afterCutOff)?.code, 'out_of_range');
  });
});
