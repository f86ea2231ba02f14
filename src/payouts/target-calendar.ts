import { DateTime } from 'luxon';

/**
 * The TARGET calendar (T2, the Eurosystem's settlement system that SEPA credit transfers between banks
 * settle through): open every weekday except New Year's Day, Good Friday, Easter Monday, Labour Day
 * (1 May), Christmas Day and 26 December. A SEPA file asks for an execution date on one of those days;
 * its time is TARGET's own, Central European Time (Europe/Berlin, summer time included).
 */

/** The time zone of TARGET's operating day. */
export const TARGET_ZONE = 'Europe/Berlin';

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm: Meeus/Jones/Butcher). */
export function easterSunday(year: number): { month: number; day: number } {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return { month, day };
}

/** The TARGET closing days of a year that are not weekends by rule: as ISO dates (some may fall on a weekend). */
export function targetHolidays(year: number): string[] {
  const easter = DateTime.fromObject({ year, ...easterSunday(year) }, { zone: 'utc' });
  return [
    `${year}-01-01`,
    easter.minus({ days: 2 }).toISODate()!, // Good Friday
    easter.plus({ days: 1 }).toISODate()!, // Easter Monday
    `${year}-05-01`,
    `${year}-12-25`,
    `${year}-12-26`,
  ];
}

/** Whether TARGET settles on this calendar date (YYYY-MM-DD). */
export function isTargetBusinessDay(isoDate: string): boolean {
  const day = DateTime.fromISO(isoDate, { zone: 'utc' });
  if (!day.isValid) throw new RangeError(`not a calendar date: ${isoDate}`);
  if (day.weekday > 5) return false;
  return !targetHolidays(day.year).includes(day.toISODate()!);
}

/** The first TARGET business day after `isoDate`. */
export function nextTargetBusinessDay(isoDate: string): string {
  let day = DateTime.fromISO(isoDate, { zone: 'utc' }).plus({ days: 1 });
  while (!isTargetBusinessDay(day.toISODate()!)) day = day.plus({ days: 1 });
  return day.toISODate()!;
}

/** A time of day in TARGET's zone, e.g. the bank's cut-off for files executed the same day. */
export interface CutOff {
  readonly hour: number;
  readonly minute: number;
}

/** Default cut-off (PARASOL_SEPA_CUTOFF): 14:00 Central European Time. */
export const DEFAULT_SEPA_CUTOFF: CutOff = Object.freeze({ hour: 14, minute: 0 });

/**
 * The execution date a file made at `now` asks for: today (in TARGET's zone) when today is a TARGET
 * business day and its cut-off has not passed; otherwise the next TARGET business day.
 */
export function sepaExecutionDate(now: Date, cutOff: CutOff = DEFAULT_SEPA_CUTOFF): string {
  const local = DateTime.fromJSDate(now, { zone: TARGET_ZONE });
  const today = local.toISODate()!;
  const beforeCutOff = local.hour * 60 + local.minute < cutOff.hour * 60 + cutOff.minute;
  return beforeCutOff && isTargetBusinessDay(today) ? today : nextTargetBusinessDay(today);
}

/** How far ahead an operator may date a pain.001 (`--execution-date`): this many TARGET business days after today. */
export const MAX_EXECUTION_DATE_BUSINESS_DAYS = 30;

/**
 * Why a requested execution date given by an operator (`parasol payouts batch --execution-date`) is
 * one no bank executes, or undefined when it is fine: not a calendar date (`invalid_format`); before
 * the earliest date a file made at `now` can ask for (`out_of_range`: `sepaExecutionDate` with the
 * bank's cut-off — a past day, or today once the cut-off has passed or TARGET is closed today);
 * more than MAX_EXECUTION_DATE_BUSINESS_DAYS TARGET business days after today (`out_of_range`: banks
 * keep a future-dated file a limited time, and a date years ahead is a typing slip); a day TARGET is
 * closed (`not_allowed`: a weekend, 1 January, Good Friday, Easter Monday, 1 May, 25 or 26 December),
 * named with the next business day. Once the file is made its payouts are `instructed`: a date the
 * bank refuses would leave them in a file that never pays, unpaid until the bank's rejection is imported.
 */
export function executionDateProblem(
  isoDate: string,
  now: Date,
  cutOff: CutOff = DEFAULT_SEPA_CUTOFF,
): { code: 'invalid_format' | 'out_of_range' | 'not_allowed'; message: string } | undefined {
  const day = DateTime.fromISO(isoDate, { zone: 'utc' });
  if (!/^\d{4}-\d{2}-\d{2}$/.test(isoDate) || !day.isValid)
    return { code: 'invalid_format', message: 'must be a calendar date YYYY-MM-DD' };
  const today = DateTime.fromJSDate(now, { zone: TARGET_ZONE }).toISODate()!;
  const earliest = sepaExecutionDate(now, cutOff);
  if (isoDate < today)
    return {
      code: 'out_of_range',
      message: `is in the past (today is ${today} in Central European Time): a bank refuses a transfer asked for a past date; the earliest is ${earliest}`,
    };
  let latest = today;
  for (let i = 0; i < MAX_EXECUTION_DATE_BUSINESS_DAYS; i++) latest = nextTargetBusinessDay(latest);
  if (isoDate > latest)
    return {
      code: 'out_of_range',
      message: `is more than ${MAX_EXECUTION_DATE_BUSINESS_DAYS} TARGET business days ahead: the latest is ${latest}`,
    };
  if (!isTargetBusinessDay(isoDate))
    return {
      code: 'not_allowed',
      message: `is not a TARGET business day (a weekend or a TARGET holiday): no transfer is executed that day; the next business day is ${nextTargetBusinessDay(isoDate)}`,
    };
  // today, a business day, after the bank's cut-off: it executes the file the next business day
  if (isoDate < earliest)
    return {
      code: 'out_of_range',
      message: `is today, after the bank's cut-off (${pad(cutOff.hour)}:${pad(cutOff.minute)} Central European Time, PARASOL_SEPA_CUTOFF): a file made now is executed on the next business day; the earliest is ${earliest}`,
    };
  return undefined;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * The instant `days` TARGET business days before `now` (same time of day, in TARGET's zone): a
 * transfer instructed before it has had that many business days for the bank to report it.
 */
export function targetBusinessDaysBefore(now: Date, days: number): Date {
  let day = DateTime.fromJSDate(now, { zone: TARGET_ZONE });
  for (let left = days; left > 0;) {
    day = day.minus({ days: 1 });
    if (isTargetBusinessDay(day.toISODate()!)) left -= 1;
  }
  return day.toJSDate();
}
