import { DateTime } from 'luxon';
/**
 * The provider-neutral flight status record, the pure decision taken from it, the provider interface
 * and its typed errors. Every flight-data adapter (FlightAware AeroAPI, Cirium FlightStats, the
 * sandbox simulator) fills a `FlightStatus`; nothing downstream reads a provider payload.
 *
 * Trigger rule (DESIGN.md): the delay is the ARRIVAL delay AT THE GATE, computed here from the
 * scheduled and actual gate arrival times — never from a provider's status text or delay field.
 * See docs/monitoring.md.
 */

/** What one provider said about one flight at one moment. Times are instants (UTC inside a Date). */
export interface FlightStatus {
  /** Provider name, e.g. 'flightaware', 'flightstats', 'simulator'. */
  provider: string;
  /**
   * The designator as Parasol stores it on the contract leg (the query's, upper-cased, spaces
   * removed: e.g. "AF006"), NOT rewritten to the provider's form ("AF6", "AFR6"): claims are opened
   * by this exact string. Providers are matched by airline + numeric value (see `sameDesignator`).
   */
  flightNumber: string;
  /** Local departure date at the origin airport, 'YYYY-MM-DD' (the query's). */
  departureDate: string;
  /** Planned origin and destination, IATA codes (the query's). */
  origin: string;
  destination: string;
  /** Scheduled / actual departure (gate when known, else runway). Informational. */
  scheduledDeparture?: Date;
  actualDeparture?: Date;
  /** Scheduled gate arrival at the planned destination: the reference of the delay. */
  scheduledArrival?: Date;
  /** Latest estimated gate arrival, while the flight is not final. Informational. */
  estimatedArrival?: Date;
  /** Actual gate arrival ("in" / block-on). */
  actualArrival?: Date;
  /** Actual runway arrival ("on" / touchdown). Never used to compute the delay. */
  runwayArrival?: Date;
  cancelled: boolean;
  diverted: boolean;
  /** IATA (or provider) code of the airport the flight was diverted to, when known. */
  divertedTo?: string;
  /**
   * Nothing more will change for the decision: arrived at the gate, cancelled, or diverted and
   * landed. A flight that is not final is looked at again later.
   */
  final: boolean;
  /** Provider's own status text or code, kept for operators. NEVER used to decide. */
  providerStatus?: string;
  /** Provider's identifier of this flight (fa_flight_id, FlightStats flightId), for evidence. */
  providerFlightId?: string;
  /** When Parasol received this answer. */
  observedAt: Date;
  /** The provider's record(s) behind this status, kept as evidence with the claim. No credentials. */
  raw: unknown;
}

export type PendingReason =
  /** Not departed, in the air, or data not final yet. */
  | 'not_final'
  /** Landed (runway arrival known) but no gate arrival yet. */
  | 'awaiting_gate_arrival'
  /** Final, but the scheduled or actual gate arrival is missing: the delay cannot be computed. */
  | 'missing_gate_times';

export type Decision =
  | { kind: 'pending'; reason: PendingReason }
  | { kind: 'on_time' }
  | { kind: 'delayed'; arrivalDelayMinutes: number }
  | { kind: 'cancelled' }
  | { kind: 'diverted' };

/**
 * The decision Parasol takes from one status record. Pure.
 *
 * - cancelled → `cancelled`;
 * - diverted → `diverted` once final (landed elsewhere), `pending` while still in the air;
 * - otherwise only a final record with both gate times decides: delay = floor((actual − scheduled
 *   gate arrival) / 1 min); > 0 → `delayed` (the claims code applies the tiers, so a 3-minute delay
 *   is `delayed` and simply pays nothing), ≤ 0 → `on_time`;
 * - runway arrival without gate arrival → `pending` ('awaiting_gate_arrival'): the runway time is
 *   never used as a substitute. The caller (the monitoring job) keeps polling and, 2 h after the
 *   touchdown (the provider has no gate data for that airport), gives the flight up to manual review.
 * - final but without gate times → `pending` ('missing_gate_times'): the caller sends it to manual
 *   review at once — polling will not make the times appear.
 */
export function decide(status: FlightStatus): Decision {
  if (status.cancelled) return { kind: 'cancelled' };
  if (status.diverted) return status.final ? { kind: 'diverted' } : { kind: 'pending', reason: 'not_final' };
  if (!status.actualArrival) {
    if (status.final) return { kind: 'pending', reason: 'missing_gate_times' };
    return { kind: 'pending', reason: status.runwayArrival ? 'awaiting_gate_arrival' : 'not_final' };
  }
  if (!status.final) return { kind: 'pending', reason: 'not_final' };
  if (!status.scheduledArrival) return { kind: 'pending', reason: 'missing_gate_times' };
  const minutes = Math.floor((status.actualArrival.getTime() - status.scheduledArrival.getTime()) / 60_000);
  return minutes > 0 ? { kind: 'delayed', arrivalDelayMinutes: minutes } : { kind: 'on_time' };
}

/** What the monitoring job asks a provider: one insured leg, as stored on the contract. */
export interface FlightQuery {
  /** IATA designator as stored on the leg, e.g. "AF006" (leading zeros and a space are tolerated). */
  flightNumber: string;
  /** Local departure date at the origin, 'YYYY-MM-DD'. */
  departureDate: string;
  /** IATA codes. */
  origin: string;
  destination: string;
  /**
   * Optional hint: the leg's scheduled departure instant. Used to choose when a provider returns two
   * matching flights on the same day, and by the simulator as its schedule.
   */
  scheduledDeparture?: Date;
}

export interface FetchOptions {
  /** Cancels the call (e.g. the job is shutting down): rejects with the signal's reason, not a ProviderError. */
  signal?: AbortSignal;
}

export interface FlightStatusProvider {
  readonly name: string;
  /**
   * The current status of the flight, or `undefined` when the provider does not know a flight with
   * this designator, date, origin and destination. Throws `ProviderError` (retry later),
   * `ProviderRejected` (configuration problem: do not retry, alert an operator) or
   * `ProviderBeyondHistory` (a provider with a `history`: the flight is older than it keeps, said
   * before calling or by its own answer — the provider is up, the flight is the operator's to decide).
   */
  fetchStatus(query: FlightQuery, options?: FetchOptions): Promise<FlightStatus | undefined>;
  /**
   * The provider's history limit, when it has one (AeroAPI's flights endpoint: 10 days). The check
   * asks `beyond` before calling, so a flight older than that is never asked (nor counted against
   * the provider's health).
   */
  readonly history?: ProviderHistory;
}

export interface ProviderHistory {
  /** How many days back the provider answers. */
  readonly days: number;
  /** Whether the provider keeps no data on this flight any more at `now` (older than `days`). */
  beyond(query: FlightQuery, now: Date): boolean;
}

// ---------------------------------------------------------------------------------------------
// Errors

export type ProviderErrorKind = 'http' | 'rate_limited' | 'timeout' | 'network' | 'bad_response';

/**
 * A failure worth retrying later: 5xx, 408, 429 (with `retryAfterMs` when the provider said how
 * long to wait), timeouts, network errors, unreadable responses. The job backs off and counts it
 * towards the provider's circuit breaker; the flight stays watched.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly retryable = true as const;
  readonly provider: string;
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(
    provider: string,
    kind: ProviderErrorKind,
    message: string,
    extra: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.provider = provider;
    this.kind = kind;
    this.status = extra.status;
    this.retryAfterMs = extra.retryAfterMs;
  }
}

/**
 * The provider refused the request for a reason retrying will not fix: 401/403 (key wrong, expired,
 * plan without this endpoint), 400, 404 (wrong base URL)… An operator must act: the check logs it as an
 * error and retries with back-off (it counts for the circuit breaker) until the flight's deadline,
 * then sends it to manual review.
 */
export class ProviderRejected extends Error {
  override readonly name = 'ProviderRejected';
  readonly retryable = false as const;
  readonly provider: string;
  readonly status: number | undefined;

  constructor(provider: string, message: string, extra: { status?: number } = {}) {
    super(message);
    this.provider = provider;
    this.status = extra.status;
  }
}

/**
 * The provider has no data on a flight that old (AeroAPI: a `start` more than 10 days in the past is a
 * 400). Not a failure of the provider — it answered as documented — nor a configuration problem: the
 * check neither retries it nor counts it for the circuit breaker; the flight is the operator's to
 * decide (`parasol flights event`).
 */
export class ProviderBeyondHistory extends Error {
  override readonly name = 'ProviderBeyondHistory';
  readonly provider: string;
  readonly historyDays: number;

  constructor(provider: string, historyDays: number, message: string) {
    super(message);
    this.provider = provider;
    this.historyDays = historyDays;
  }
}

// ---------------------------------------------------------------------------------------------
// Designators

export interface Designator {
  /** Two-character IATA airline code, e.g. "AF", "U2", "9W". */
  airline: string;
  /** Numeric part, leading zeros dropped: "AF006" → 6. */
  number: number;
  /** Operational suffix letter, or ''. */
  suffix: string;
}

const IATA_DESIGNATOR = /^([A-Z0-9]{2})(\d{1,4})([A-Z]?)$/;

/** Parses an IATA designator ("AF006", "af 6", "U21234", "BA123A"); undefined when it is not one. */
export function parseDesignator(value: string): Designator | undefined {
  const match = IATA_DESIGNATOR.exec(value.replace(/\s+/g, '').toUpperCase());
  if (!match || /^\d\d$/.test(match[1]!)) return undefined;
  return { airline: match[1]!, number: Number(match[2]), suffix: match[3]! };
}

/** Same airline, same number (ignoring leading zeros), same suffix: "AF006" ≡ "AF6". */
export function sameDesignator(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const x = parseDesignator(a);
  const y = parseDesignator(b);
  return (
    x !== undefined && y !== undefined && x.airline === y.airline && x.number === y.number && x.suffix === y.suffix
  );
}

/** Parses an ISO 8601 instant; undefined for null, missing or unparseable values. */
/** A calendar date 'YYYY-MM-DD' that exists (2025-02-30 does not). */
export function isLocalDate(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && DateTime.fromISO(text, { zone: 'utc' }).isValid;
}

export function toDate(value: string | null | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Of several candidate flights, the one departing closest to the hint (the first without a hint). */
export function closestTo<T>(
  candidates: T[],
  hint: Date | undefined,
  departure: (candidate: T) => Date | undefined,
): T | undefined {
  if (candidates.length <= 1 || !hint) return candidates[0];
  const distance = (c: T) => Math.abs((departure(c)?.getTime() ?? Infinity) - hint.getTime());
  return [...candidates].sort((a, b) => distance(a) - distance(b))[0];
}

type TimeField =
  | 'scheduledDeparture'
  | 'actualDeparture'
  | 'scheduledArrival'
  | 'estimatedArrival'
  | 'actualArrival'
  | 'runwayArrival';

/** Sets a time of the record only when the provider gave one (optional fields stay absent). */
export function assignTime(status: FlightStatus, key: TimeField, value: Date | undefined): void {
  if (value) status[key] = value;
}
