/**
 * When a flight watch is looked at. Pure functions of the clock and what the watch knows
 * (docs/monitoring.md#the-schedule):
 *
 * - first check at the insured legs' scheduled departure (the scheduled gate arrival is not on the
 *   legs; the first answer gives it, and catches a cancellation announced before departure);
 * - then at scheduled arrival + 15 min, then every 30 min (on that grid) until the flight is final;
 * - landed (runway arrival known) without a gate arrival 2 h after touchdown → manual review (the
 *   provider has no gate times for that airport; checks until then stay on the grid);
 * - no decision 24 h after the scheduled arrival → manual review; when the provider never gave a
 *   scheduled arrival, 48 h after the scheduled departure (the longest scheduled flights last about
 *   19 h: 48 h leaves them the same 24 h and more);
 * - provider errors: exponential back-off per watch (1 min, 2, 4… capped at 30 min, at least the
 *   provider's Retry-After, itself at most 1 h), plus up to 20 % jitter so that watches do not retry in step.
 */

import { clampRetryAfter } from '../platform/retry-after.ts';

export const MONITORING_SCHEDULE = {
  /** The planner creates watches for active legs departing within this many hours… */
  planningHorizonHours: 48,
  /** …and catches up on legs that departed up to this many days ago without a watch (planner down). */
  planningLookbackDays: 7,
  afterArrivalMinutes: 15,
  everyMinutes: 30,
  giveUpAfterArrivalHours: 24,
  /** Give-up bound counted from the scheduled departure when the scheduled arrival never became known. */
  giveUpAfterDepartureHours: 48,
  /**
   * A flight on the runway (touchdown known) whose gate arrival is still unknown this long after its
   * touchdown goes to manual review: taxi-in and waiting for a stand take minutes, an hour at worst,
   * and a provider that has no in-block time two hours after landing has none for that airport (no
   * gate data there) — polling until the 24 h deadline would only cost 44 more billed calls (a flight
   * landed on time: 49 calls, arrival + 15 min to the deadline on the grid plus the one at the deadline,
   * instead of 5: arrival + 15, 45, 75, 105 min and touchdown + 2 h) and make the customer wait a day
   * for the operator.
   */
  gateArrivalGraceMinutes: 120,
  /** How far the dispatcher pushes next_check_at when it hands a watch to a check job. */
  leaseMinutes: 10,
  /** Retry interval when production has no provider configured. */
  unconfiguredRetryMinutes: 30,
  backoffBaseSeconds: 60,
  backoffCapSeconds: 30 * 60,
} as const;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * A provider's Retry-After is honoured for at most this long, by the circuit breaker (providers.ts
 * gives it as the breaker's `maxRetryAfterMs`) and by a watch's back-off alike: then one call asks again.
 */
export const MAX_RETRY_AFTER_MS = HOUR;

export interface WatchTimes {
  scheduledDeparture: Date;
  scheduledArrival: Date | null | undefined;
}

/** Past this instant a watch still undecided goes to manual review. */
export function giveUpAt(w: WatchTimes): Date {
  return w.scheduledArrival
    ? new Date(w.scheduledArrival.getTime() + MONITORING_SCHEDULE.giveUpAfterArrivalHours * HOUR)
    : new Date(w.scheduledDeparture.getTime() + MONITORING_SCHEDULE.giveUpAfterDepartureHours * HOUR);
}

/**
 * Past this instant a flight that touched down at `runwayArrival` and still has no gate arrival goes
 * to manual review (`missing_gate_times`): the provider will not give the gate time.
 */
export function gateArrivalGiveUpAt(runwayArrival: Date): Date {
  return new Date(runwayArrival.getTime() + MONITORING_SCHEDULE.gateArrivalGraceMinutes * MINUTE);
}

/**
 * The next check after a pending answer at `now`: the first slot of the grid (scheduled arrival +
 * 15 min, then every 30 min) strictly after now; without a scheduled arrival, the scheduled
 * departure if still ahead, else now + 30 min. Never later than the give-up instant, so the last
 * check happens at the deadline.
 */
export function nextPendingCheck(now: Date, w: WatchTimes): Date {
  const deadline = giveUpAt(w).getTime();
  const t = now.getTime();
  let next: number;
  if (w.scheduledArrival) {
    const first = w.scheduledArrival.getTime() + MONITORING_SCHEDULE.afterArrivalMinutes * MINUTE;
    const every = MONITORING_SCHEDULE.everyMinutes * MINUTE;
    next = t < first ? first : first + (Math.floor((t - first) / every) + 1) * every;
  } else {
    const departure = w.scheduledDeparture.getTime();
    next = t < departure ? departure : t + MONITORING_SCHEDULE.everyMinutes * MINUTE;
  }
  return new Date(Math.max(t, Math.min(next, deadline)));
}

/**
 * Delay before retrying a watch after its `consecutiveErrors`-th failure in a row: 1 min × 2^(n−1),
 * capped at 30 min, at least `retryAfterMs` (itself capped at `MAX_RETRY_AFTER_MS`: a huge or
 * absurd Retry-After waits an hour), plus 0–20 % jitter (`random` in [0, 1)).
 */
export function backoffMs(
  consecutiveErrors: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const n = Math.max(1, consecutiveErrors);
  const base =
    Math.min(MONITORING_SCHEDULE.backoffCapSeconds, MONITORING_SCHEDULE.backoffBaseSeconds * 2 ** Math.min(n - 1, 30)) *
    1000;
  const wanted = Math.max(base, clampRetryAfter(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
  return Math.round(wanted * (1 + 0.2 * random()));
}
