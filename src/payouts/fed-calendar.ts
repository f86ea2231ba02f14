import { DateTime } from 'luxon';

/**
 * The Federal Reserve's calendar, which ACH settles on (FedACH): open every weekday except the
 * Federal Reserve holidays — New Year's Day (1 January), Birthday of Martin Luther King Jr. (third
 * Monday of January), Washington's Birthday (third Monday of February), Memorial Day (last Monday of
 * May), Juneteenth (19 June, from 2022), Independence Day (4 July), Labor Day (first Monday of
 * September), Columbus Day (second Monday of October), Veterans Day (11 November), Thanksgiving
 * (fourth Thursday of November) and Christmas Day (25 December). A fixed-date holiday on a Sunday is
 * observed the Monday after; one on a Saturday is not observed (the Federal Reserve Banks are open
 * the Friday before). Its day is Eastern time (America/New_York).
 */

/** The time zone of the Federal Reserve's operating day. */
export const FED_ZONE = 'America/New_York';

/** The nth (1-based) `weekday` (1 = Monday … 7 = Sunday) of a month; n = -1: the last. */
function nthWeekday(year: number, month: number, weekday: number, n: number): DateTime {
  if (n > 0) {
    const first = DateTime.fromObject({ year, month, day: 1 }, { zone: 'utc' });
    return first.plus({ days: ((weekday - first.weekday + 7) % 7) + 7 * (n - 1) });
  }
  const last = DateTime.fromObject({ year, month, day: 1 }, { zone: 'utc' }).endOf('month').startOf('day');
  return last.minus({ days: (last.weekday - weekday + 7) % 7 });
}

/** A fixed-date holiday as the Fed observes it: a Sunday one on the Monday after; a Saturday one not at all. */
function observed(year: number, month: number, day: number): string | null {
  const date = DateTime.fromObject({ year, month, day }, { zone: 'utc' });
  if (date.weekday === 6) return null;
  return (date.weekday === 7 ? date.plus({ days: 1 }) : date).toISODate()!;
}

/** The days of a year on which the Federal Reserve Banks are closed other than weekends, as ISO dates, in order. */
export function fedHolidays(year: number): string[] {
  const fixed = (month: number, day: number) => observed(year, month, day);
  const days = [
    fixed(1, 1),
    nthWeekday(year, 1, 1, 3).toISODate(), // Martin Luther King Jr.
    nthWeekday(year, 2, 1, 3).toISODate(), // Washington's Birthday
    nthWeekday(year, 5, 1, -1).toISODate(), // Memorial Day
    year >= 2022 ? fixed(6, 19) : null, // Juneteenth
    fixed(7, 4),
    nthWeekday(year, 9, 1, 1).toISODate(), // Labor Day
    nthWeekday(year, 10, 1, 2).toISODate(), // Columbus Day
    fixed(11, 11), // Veterans Day
    nthWeekday(year, 11, 4, 4).toISODate(), // Thanksgiving
    fixed(12, 25),
  ];
  return days.filter((d): d is string => d !== null);
}

/** Whether ACH settles on this calendar date (YYYY-MM-DD). */
export function isFedBusinessDay(isoDate: string): boolean {
  const day = DateTime.fromISO(isoDate, { zone: 'utc' });
  if (!day.isValid) throw new RangeError(`not a calendar date: ${isoDate}`);
  if (day.weekday > 5) return false;
  return !fedHolidays(day.year).includes(day.toISODate()!);
}

/** The first Federal Reserve business day after `isoDate`. */
export function nextFedBusinessDay(isoDate: string): string {
  let day = DateTime.fromISO(isoDate, { zone: 'utc' }).plus({ days: 1 });
  while (!isFedBusinessDay(day.toISODate()!)) day = day.plus({ days: 1 });
  return day.toISODate()!;
}

/**
 * The effective entry date of an ACH file made at `now`: the next Federal Reserve business day after
 * today in Eastern time (a next-day credit: the RDFI makes it available that day; no same-day ACH).
 */
export function achEffectiveEntryDate(now: Date): string {
  return nextFedBusinessDay(DateTime.fromJSDate(now, { zone: FED_ZONE }).toISODate()!);
}

/** The Federal Reserve business day before `isoDate`. */
export function previousFedBusinessDay(isoDate: string): string {
  let day = DateTime.fromISO(isoDate, { zone: 'utc' }).minus({ days: 1 });
  while (!isFedBusinessDay(day.toISODate()!)) day = day.minus({ days: 1 });
  return day.toISODate()!;
}

/**
 * The latest effective entry date whose return window of `windowDays` Federal Reserve business days
 * has passed by `now` (Eastern time): an entry of that date or earlier not returned yet is taken as
 * paid. An entry settled Monday with a window of 2 is settled paid from Thursday (Tuesday and
 * Wednesday were its window).
 */
export function achReturnWindowPassedFor(now: Date, windowDays: number): string {
  // the last business day before today, then `windowDays` business days earlier
  let day = previousFedBusinessDay(DateTime.fromJSDate(now, { zone: FED_ZONE }).toISODate()!);
  for (let i = 0; i < windowDays; i++) day = previousFedBusinessDay(day);
  return day;
}
