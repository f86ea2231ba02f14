import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { QuietHours } from '../../platform/config.ts';

/**
 * Quiet hours: the local hours at which a message that can wait (a reminder, the expiry notice) is
 * not texted — from `from` o'clock to `to` o'clock the next morning (default 21 to 8,
 * PARASOL_SMS_QUIET_HOURS). The claim's first message, a rejected payment's, a resend, the receipt
 * and the withdrawal are not held: the customer is waiting for them, or someone just acted.
 *
 * The customer's time zone comes from their phone number's country (libphonenumber's country of the
 * number, then the IANA zones ICU lists for that region: `Intl.Locale#timeZones`) — the customer's
 * home, where a reminder a month after the flight finds them; the flight's airports say where they
 * were, not where they are. A country with several zones (the United States, Russia, Brazil…) is
 * quiet while it is night in any of them; when they span too many hours to share a daytime hour, the
 * hour of the day when most of them are awake is taken. A number of no known country: no quiet hours.
 */
export type { QuietHours };

/** Every 15 minutes over a day, for the next instant outside the quiet hours. */
const STEP_MS = 15 * 60_000;
const DAY_MS = 86_400_000;

const zonesByCountry = new Map<string, readonly string[]>();

/** The IANA time zones of the phone number's country; empty when unknown. */
export function phoneTimeZones(phone: string): readonly string[] {
  const country = parsePhoneNumberFromString(phone)?.country;
  if (!country) return [];
  let zones = zonesByCountry.get(country);
  if (!zones) {
    const locale = new Intl.Locale(`und-${country}`) as Intl.Locale & {
      timeZones?: string[];
      getTimeZones?: () => string[];
    };
    zones = locale.getTimeZones?.() ?? locale.timeZones ?? [];
    zonesByCountry.set(country, zones);
  }
  return zones;
}

function localHour(instant: Date, timeZone: string): number {
  const hour = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone }).format(instant);
  return Number(hour);
}

function isQuiet(hour: number, q: QuietHours): boolean {
  return q.from > q.to ? hour >= q.from || hour < q.to : hour >= q.from && hour < q.to;
}

/**
 * When a message to `phone` may be texted: `null` now (outside the quiet hours in every zone of its
 * country, or no quiet hours, or no known country), else the next instant (by 15 minutes) outside
 * them — or, if the country's zones never share one, the one when most of its zones are outside them.
 */
export function nextSendableAt(phone: string, now: Date, quiet: QuietHours | null | undefined): Date | null {
  if (!quiet) return null;
  const zones = phoneTimeZones(phone);
  if (zones.length === 0) return null;
  const awake = (at: Date) => zones.filter((z) => !isQuiet(localHour(at, z), quiet)).length;
  const awakeNow = awake(now);
  if (awakeNow === zones.length) return null;
  let best: { at: Date; awake: number } | null = null;
  for (let t = Math.ceil(now.getTime() / STEP_MS) * STEP_MS; t <= now.getTime() + DAY_MS; t += STEP_MS) {
    const at = new Date(t);
    const n = awake(at);
    if (n === zones.length) return at;
    if (!best || n > best.awake) best = { at, awake: n };
  }
  // zones that never share a daytime hour: now, if no later hour has more of them awake
  return best && best.awake > awakeNow ? best.at : null;
}
