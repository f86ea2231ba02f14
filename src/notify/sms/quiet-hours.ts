import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { QuietHours } from '../../platform/config.ts';
import { findAirport } from '../../reference/index.ts';

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
 * hour of the day when most of them are awake is taken. A number of no country (international
 * freephone +800/+808, shared cost +979, the +882/+883 networks, satellite +870/+881…) takes the
 * zones of the trip's ends (`fallbackZones`: the contract's first departure and last arrival
 * airports, whatever leg the claim is on): quiet while it is night at either end of the trip — the
 * customer's home is one of them. No fallback either: no quiet hours.
 *
 * Which messages wait (`QUIET_HOURS_KINDS`), and the exceptions (a reminder whose morning comes too
 * near its due date, a queued message whose morning comes too near its give-up), are decided here
 * once (`quietHoursHold`), for the claim job that writes the message and for the send job that texts it — a message held by a provider outage and released at
 * night waits for the morning as it would have the first time.
 */
export type { QuietHours };

/** Every 15 minutes over a day, for the next instant outside the quiet hours. */
const STEP_MS = 15 * 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Regions ICU lists no zone for: Kosovo (XK, a user-assigned code) lives on Belgrade's time. */
const ZONES_OF_UNLISTED_REGION: Readonly<Record<string, readonly string[]>> = { XK: ['Europe/Belgrade'] };

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
    if (zones.length === 0) zones = ZONES_OF_UNLISTED_REGION[country] ?? [];
    zonesByCountry.set(country, zones);
  }
  return zones;
}

/** One formatter per zone for the life of the process: creating one costs far more than using it. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at `instant`, in ms (to the minute). */
function offsetMs(instant: number, timeZone: string): number {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  const part: Record<string, number> = {};
  for (const p of format.formatToParts(instant)) if (p.type !== 'literal') part[p.type] = Number(p.value);
  const local = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!);
  return local - Math.floor(instant / 60_000) * 60_000;
}

function isQuiet(hour: number, q: QuietHours): boolean {
  return q.from > q.to ? hour >= q.from || hour < q.to : hour >= q.from && hour < q.to;
}

/**
 * The country's zones as their distinct offsets over the day searched: zones with the same offset at
 * `now` and a day later share their hours (a country's zones change clocks at the same local hour), so
 * the United States' 29 zones are 6 or so; `zones` counts the zones of each, for "most of them awake".
 */
interface OffsetGroup {
  zone: string;
  zones: number;
  /** The offset over the whole day, or undefined when it changes (summer time) and is read per instant. */
  fixed: number | undefined;
}

function offsetGroups(zones: readonly string[], now: number): OffsetGroup[] {
  const groups = new Map<string, OffsetGroup>();
  for (const zone of zones) {
    const start = offsetMs(now, zone);
    const end = offsetMs(now + DAY_MS, zone);
    const key = `${start}/${end}`;
    const group = groups.get(key);
    if (group) group.zones++;
    else groups.set(key, { zone, zones: 1, fixed: start === end ? start : undefined });
  }
  return [...groups.values()];
}

function localHour(instant: number, group: OffsetGroup): number {
  const local = instant + (group.fixed ?? offsetMs(instant, group.zone));
  return Math.floor((((local % DAY_MS) + DAY_MS) % DAY_MS) / HOUR_MS);
}

/**
 * The IANA zones of airports (IATA codes: the trip's ends), for a number of no country; an airport the
 * reference data does not know adds none.
 */
export function airportTimeZones(...airports: readonly (string | null | undefined)[]): string[] {
  const zones = new Set<string>();
  for (const iata of airports) {
    const zone = iata ? findAirport(iata)?.timeZone : undefined;
    if (zone) zones.add(zone);
  }
  return [...zones];
}

/**
 * When a message to `phone` may be texted: `null` now (outside the quiet hours in every zone of its
 * country, or no quiet hours, or no zone known), else the next instant (by 15 minutes) outside
 * them — or, if the zones never share one, the one when most of them are outside them. A number of no
 * country takes `fallbackZones` (the trip's ends, the contract's first departure and last arrival
 * airports: `airportTimeZones`).
 */
export function nextSendableAt(
  phone: string,
  now: Date,
  quiet: QuietHours | null | undefined,
  fallbackZones: readonly string[] = [],
): Date | null {
  if (!quiet) return null;
  const own = phoneTimeZones(phone);
  const zones = own.length > 0 ? own : fallbackZones;
  if (zones.length === 0) return null;
  const groups = offsetGroups(zones, now.getTime());
  const awake = (at: number) => groups.reduce((n, g) => (isQuiet(localHour(at, g), quiet) ? n : n + g.zones), 0);
  const awakeNow = awake(now.getTime());
  if (awakeNow === zones.length) return null;
  let best: { at: number; awake: number } | null = null;
  // 97 steps over a handful of offsets, by arithmetic (a formatter only for an offset that changes)
  for (let t = Math.ceil(now.getTime() / STEP_MS) * STEP_MS; t <= now.getTime() + DAY_MS; t += STEP_MS) {
    const n = awake(t);
    if (n === zones.length) return new Date(t);
    if (!best || n > best.awake) best = { at: t, awake: n };
  }
  // zones that never share a daytime hour: now, if no later hour has more of them awake
  return best && best.awake > awakeNow ? new Date(best.at) : null;
}

/** The messages quiet hours hold (a claim message's kind: `messageKind`); the others go at any hour. */
export const QUIET_HOURS_KINDS: readonly string[] = ['reminder', 'expired'];

/**
 * How near a deadline a quiet-hours hold may end: a reminder is not held past its due date less this
 * (sent at night rather than remind of a date already past), nor a queued message past the instant the
 * give-up sweep would take it less this (`giveUpAt`: sent at night rather than given up, or sent once
 * with no retry left).
 */
export const HOLD_MARGIN_MS = 3_600_000;

/**
 * Whether a claim message of `kind` to `phone` waits for the customer's morning, and until when:
 * `null` to send it now — a kind quiet hours do not hold, no quiet hours, daytime there, a reminder
 * whose morning would come within HOLD_MARGIN_MS of its link's due date (`dueAt`), or a message
 * already queued whose morning would come within HOLD_MARGIN_MS of its give-up (`giveUpAt`: the send
 * job's, written + SMS_GIVE_UP_HOURS — the sweep gives up a message by its age, a hold included).
 * `fallbackZones`: see `nextSendableAt`.
 */
export function quietHoursHold(o: {
  kind: string;
  phone: string;
  now: Date;
  quiet: QuietHours | null | undefined;
  fallbackZones?: readonly string[];
  dueAt?: Date | null | undefined;
  giveUpAt?: Date | null | undefined;
}): Date | null {
  if (!QUIET_HOURS_KINDS.includes(o.kind)) return null;
  const later = nextSendableAt(o.phone, o.now, o.quiet, o.fallbackZones);
  if (!later) return null;
  const deadlines = [o.kind === 'reminder' ? o.dueAt : null, o.giveUpAt];
  if (deadlines.some((d) => d && later.getTime() >= d.getTime() - HOLD_MARGIN_MS)) return null;
  return later;
}
