/**
 * The `Retry-After` header of an HTTP answer (RFC 9110 §10.2.3), in milliseconds from `now`: a
 * number of seconds or an HTTP date; undefined when absent or unreadable. Used by the provider
 * adapters (flight status, SMS) to wait as long as they are told.
 */
export function parseRetryAfter(value: string | null, now: Date = new Date()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/**
 * A provider's Retry-After as the caller obeys it: never negative (nor NaN), at most `maxMs` — a huge
 * one (a day, 1e20) would hold a watch or a message that long. Each caller has its own cap: the flight
 * monitoring's MAX_RETRY_AFTER_MS (schedule, and its circuit breakers: platform/circuit-breaker.ts), the SMS queue's SMS_RETRY_AFTER_MAX_MS.
 */
export function clampRetryAfter(ms: number, maxMs: number): number {
  return Number.isNaN(ms) ? 0 : Math.min(Math.max(0, ms), maxMs);
}
