import { completeContractsOnFlight, openClaimsInTransaction, type FlightEvent } from '../claims/index.ts';
import { audit } from '../platform/audit.ts';
import type { FlightWatchState } from '../platform/db-schema.ts';
import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { providerCallsTotal, recordBreakerState } from '../platform/metrics.ts';
import { evidence, flightEventFor } from './flight-event.ts';
import {
  decide,
  ProviderBeyondHistory,
  ProviderError,
  ProviderRejected,
  sameDesignator,
  type Decision,
  type FlightStatus,
} from './flight-status.ts';
import type { FlightProviders } from './providers.ts';
import { backoffMs, gateArrivalGiveUpAt, giveUpAt, MONITORING_SCHEDULE, nextPendingCheck } from './schedule.ts';
import { activeRoutes, findWatch, lockWatch, updateWatch, type FlightWatch } from './watches-repo.ts';

/**
 * One check of one flight watch (job `flights_check`, or `parasol flights check`): ask the
 * environment's provider, decide, and either open the claims (delayed / cancelled / diverted, through
 * the same use case as POST /claims) and mark the watch decided, or plan the next check — by the
 * schedule when pending, with back-off on provider errors, after the breaker's cool-down when it is
 * open — or give the flight to manual review. See docs/monitoring.md.
 *
 * Safe to run twice at once: claims are idempotent (one per leg), and every write to the watch is
 * conditional on its state, so a decision is never overwritten.
 */

export interface CheckDeps {
  db: Db;
  jobs: JobQueue;
  providers: FlightProviders;
  now: () => Date;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void };
  /** Jitter source, [0, 1). */
  random?: () => number;
}

export type ManualReviewReason =
  | 'no_final_status'
  | 'missing_gate_times'
  | 'unknown_flight'
  | 'provider_unavailable'
  | 'several_routes'
  | 'beyond_provider_history';

export type CheckOutcome =
  | { outcome: 'missing' }
  | { outcome: 'skipped'; state: FlightWatchState }
  | { outcome: 'closed' }
  | { outcome: 'decided'; decision: Decision; claimsOpened: number }
  | { outcome: 'pending'; reason: string; nextCheckAt: Date }
  | { outcome: 'manual_review'; reason: ManualReviewReason }
  | { outcome: 'provider_error'; error: string; consecutiveErrors: number; nextCheckAt: Date }
  | { outcome: 'circuit_open'; nextCheckAt: Date }
  | { outcome: 'no_provider'; nextCheckAt: Date }
  /** The provider keeps no data that old (AeroAPI: 10 days): not asked, not a provider failure. */
  | { outcome: 'beyond_provider_history'; provider: string; historyDays: number };

export interface CheckOptions {
  /** An operator's check: also runs on a watch in manual review. */
  manual?: boolean;
  /** Audit author. Default 'system'. */
  actor?: string;
  signal?: AbortSignal;
}

export async function checkFlightWatch(
  deps: CheckDeps,
  watchId: string,
  options: CheckOptions = {},
): Promise<CheckOutcome> {
  const actor = options.actor ?? 'system';
  const from: FlightWatchState[] = options.manual ? ['watching', 'manual_review'] : ['watching'];
  const found = await findWatch(deps.db, watchId);
  if (!found) return { outcome: 'missing' };
  if (!from.includes(found.state)) return { outcome: 'skipped', state: found.state };
  let watch = found;
  const now = deps.now();
  const random = deps.random ?? Math.random;

  const routes = await activeRoutes(deps.db, watch);
  if (routes.length === 0) {
    await transition(
      deps,
      watch,
      from,
      { state: 'closed', nextCheckAt: null, lastOutcome: 'no_active_contract' },
      actor,
      'flight_watch_closed',
      { reason: 'no_active_contract' },
    );
    return { outcome: 'closed' };
  }
  if (routes.length > 1) {
    // A through flight insured on two segments under one designator: one answer cannot decide both.
    return manualReview(deps, watch, from, 'several_routes', actor, {
      routes: routes.map((r) => `${r.origin}-${r.destination}`),
    });
  }
  const route = routes[0]!;
  if (
    route.origin !== watch.origin ||
    route.destination !== watch.destination ||
    route.departureAt.getTime() !== watch.scheduledDeparture.getTime()
  ) {
    watch = { ...watch, origin: route.origin, destination: route.destination, scheduledDeparture: route.departureAt };
  }
  const routePatch = {
    origin: watch.origin,
    destination: watch.destination,
    scheduledDeparture: watch.scheduledDeparture,
  };
  const deadline = giveUpAt(watch);

  const monitored = deps.providers.forEnvironment(watch.environment);
  if (!monitored) {
    // Production without PARASOL_FLIGHT_PROVIDER: keep the watch, retry, say so loudly. No give-up:
    // once a provider is configured the checks resume by themselves.
    const nextCheckAt = new Date(now.getTime() + MONITORING_SCHEDULE.unconfiguredRetryMinutes * 60_000);
    deps.log.warn(
      { watchId: watch.id, environment: watch.environment, flight: watch.flightNumber, date: watch.departureDate },
      'no flight-status provider configured (PARASOL_FLIGHT_PROVIDER): flight not checked, retried later',
    );
    await updateWatch(deps.db, watch.id, from, {
      ...routePatch,
      state: 'watching',
      nextCheckAt,
      lastOutcome: 'no_provider',
      lastError: 'no flight-status provider configured for this environment (PARASOL_FLIGHT_PROVIDER)',
    });
    return { outcome: 'no_provider', nextCheckAt };
  }

  const query = {
    flightNumber: watch.flightNumber,
    departureDate: watch.departureDate,
    origin: watch.origin,
    destination: watch.destination,
    scheduledDeparture: watch.scheduledDeparture,
  };
  // A flight older than the provider's history (AeroAPI: 10 days, a 400) is not asked at all: the
  // answer is known, and it is no failure of the provider (no breaker, no error count).
  const history = monitored.provider.history;
  if (history?.beyond(query, now))
    return beyondHistory(deps, watch, from, monitored.provider.name, history.days, actor);

  const permit = await monitored.breaker.acquire(now);
  recordBreakerState(monitored.provider.name, monitored.breaker.state);
  if (!permit.allowed) {
    providerCallsTotal.inc({ provider: monitored.provider.name, outcome: 'circuit_open' });
    if (now >= deadline)
      return manualReview(deps, watch, from, 'provider_unavailable', actor, { lastError: watch.lastError });
    // No call: wait for the breaker, spread over 30 s so that the waiting watches do not return in
    // one burst; never past the deadline, where the watch goes to manual review.
    const nextCheckAt = new Date(
      Math.min(permit.retryAt.getTime() + Math.floor(random() * 30_000), deadline.getTime()),
    );
    await updateWatch(deps.db, watch.id, from, {
      ...routePatch,
      state: 'watching',
      nextCheckAt,
      lastOutcome: 'circuit_open',
    });
    return { outcome: 'circuit_open', nextCheckAt };
  }

  let status: FlightStatus | undefined;
  try {
    status = await monitored.provider.fetchStatus(query, options.signal ? { signal: options.signal } : {});
    if (
      status &&
      (!sameDesignator(status.flightNumber, watch.flightNumber) || status.departureDate !== watch.departureDate)
    ) {
      throw new ProviderError(
        monitored.provider.name,
        'bad_response',
        `${monitored.provider.name} answered for ${status.flightNumber} ${status.departureDate}, not ${watch.flightNumber} ${watch.departureDate}`,
      );
    }
    await monitored.breaker.success(permit);
    recordBreakerState(monitored.provider.name, monitored.breaker.state);
    providerCallsTotal.inc({ provider: monitored.provider.name, outcome: status ? 'ok' : 'unknown_flight' });
  } catch (error) {
    // the provider answered that it keeps no data that old (AeroAPI's 400 at the edge of its 10 days):
    // it is up — a success for the breaker (a half-open probe's permit is returned), a billed call counted
    if (error instanceof ProviderBeyondHistory) {
      await monitored.breaker.success(permit);
      recordBreakerState(monitored.provider.name, monitored.breaker.state);
      providerCallsTotal.inc({ provider: monitored.provider.name, outcome: 'beyond_history' });
      return beyondHistory(deps, watch, from, error.provider, error.historyDays, actor, {
        ...routePatch,
        counted: true,
        consecutiveErrors: 0,
        lastCheckedAt: now,
        lastError: null,
      });
    }
    if (!(error instanceof ProviderError) && !(error instanceof ProviderRejected)) throw error; // shutdown or a bug: the job retries, the lease keeps the watch
    // measured from now, when the failure is known, not from the check's start (a call can take its timeout)
    const failedAt = deps.now();
    // the provider's word on its whole service: monitoring/http.ts keeps a Retry-After on a 429 or a 503
    // only (never a 500's), so it opens the circuit for every watch
    const retryAfterMs = error instanceof ProviderError ? error.retryAfterMs : undefined;
    await monitored.breaker.failure(failedAt, permit, retryAfterMs);
    const consecutiveErrors = watch.consecutiveErrors + 1;
    const kind = error instanceof ProviderError ? error.kind : 'rejected';
    recordBreakerState(monitored.provider.name, monitored.breaker.state);
    providerCallsTotal.inc({ provider: monitored.provider.name, outcome: kind });
    const context = {
      watchId: watch.id,
      environment: watch.environment,
      flight: watch.flightNumber,
      date: watch.departureDate,
      provider: monitored.provider.name,
      kind,
      consecutiveErrors,
      breaker: monitored.breaker.state,
    };
    if (error instanceof ProviderRejected)
      deps.log.error(
        { ...context, err: error.message },
        'flight-status provider refused the request: check its credentials and URL',
      );
    else deps.log.warn({ ...context, err: error.message }, 'flight-status provider failed; retrying with back-off');
    const failed = {
      ...routePatch,
      counted: true,
      consecutiveErrors,
      lastCheckedAt: now,
      lastOutcome: `error:${kind}`,
      lastError: error.message,
    };
    if (now >= deadline)
      return manualReview(deps, watch, from, 'provider_unavailable', actor, { lastError: error.message }, failed);
    // backoffMs caps the Retry-After (MAX_RETRY_AFTER_MS); the deadline bounds it, where the watch
    // goes to manual review
    const nextCheckAt = new Date(
      Math.min(failedAt.getTime() + backoffMs(consecutiveErrors, retryAfterMs, random), deadline.getTime()),
    );
    await updateWatch(deps.db, watch.id, from, { ...failed, state: 'watching', nextCheckAt });
    return { outcome: 'provider_error', error: error.message, consecutiveErrors, nextCheckAt };
  }

  const answered = { ...routePatch, counted: true, consecutiveErrors: 0, lastCheckedAt: now, lastError: null };
  if (!status) {
    // The provider knows no such flight (yet): keep asking on the schedule, then manual review.
    if (now >= deadline)
      return manualReview(
        deps,
        watch,
        from,
        'unknown_flight',
        actor,
        {},
        { ...answered, lastOutcome: 'unknown_flight' },
      );
    const nextCheckAt = nextPendingCheck(now, watch);
    await updateWatch(deps.db, watch.id, from, {
      ...answered,
      state: 'watching',
      nextCheckAt,
      lastOutcome: 'unknown_flight',
    });
    return { outcome: 'pending', reason: 'unknown_flight', nextCheckAt };
  }

  // The record speaks of the watch's flight as the legs spell it: claims are opened by that string.
  const record: FlightStatus = { ...status, flightNumber: watch.flightNumber, departureDate: watch.departureDate };
  const scheduledArrival = record.scheduledArrival ?? watch.scheduledArrival;
  watch = { ...watch, scheduledArrival };
  const seen = { ...answered, lastStatus: evidence(record), scheduledArrival };
  const decision = decide(record);

  switch (decision.kind) {
    case 'delayed':
    case 'cancelled':
    case 'diverted':
    case 'on_time':
      return decided(
        deps,
        watch,
        from,
        decision,
        flightEventFor(watch.environment, record, decision),
        `monitoring:${record.provider}`,
        actor,
        seen,
      );
    case 'pending': {
      const latest = giveUpAt(watch);
      // Landed without a gate time: the provider gives none for this airport if it still has none 2 h
      // after touchdown — manual review then, not 22 h more of polling (docs/monitoring.md).
      const gateGiveUp =
        decision.reason === 'awaiting_gate_arrival' && record.runwayArrival
          ? gateArrivalGiveUpAt(record.runwayArrival)
          : undefined;
      const gateTimesPast = gateGiveUp !== undefined && now >= gateGiveUp;
      if (decision.reason === 'missing_gate_times' || gateTimesPast)
        return manualReview(
          deps,
          watch,
          from,
          'missing_gate_times',
          actor,
          gateTimesPast
            ? {
                pending: decision.reason,
                runwayArrival: record.runwayArrival,
                scheduledArrival: record.scheduledArrival,
              }
            : {},
          { ...seen, lastOutcome: `pending:${decision.reason}` },
        );
      if (now >= latest)
        return manualReview(
          deps,
          watch,
          from,
          'no_final_status',
          actor,
          { pending: decision.reason },
          { ...seen, lastOutcome: `pending:${decision.reason}` },
        );
      // the last check of a landed flight at its gate give-up, not later
      const nextCheckAt = gateGiveUp
        ? new Date(Math.min(nextPendingCheck(now, watch).getTime(), gateGiveUp.getTime()))
        : nextPendingCheck(now, watch);
      await updateWatch(deps.db, watch.id, from, {
        ...seen,
        state: 'watching',
        nextCheckAt,
        lastOutcome: `pending:${decision.reason}`,
      });
      return { outcome: 'pending', reason: decision.reason, nextCheckAt };
    }
  }
}

type Patch = Parameters<typeof updateWatch>[3];

/**
 * Decides the watch: in one transaction, while the watch is still in `from` (locked: an operator's
 * decision in between wins, and this one changes nothing), opens the claims the event causes, marks
 * the watch decided with its audit row, and completes the contracts whose legs are now all over.
 */
async function decided(
  deps: CheckDeps,
  watch: FlightWatch,
  from: FlightWatchState[],
  decision: Decision,
  event: FlightEvent | undefined,
  source: string,
  actor: string,
  patch: Patch,
): Promise<CheckOutcome> {
  const now = deps.now();
  const claimsOpened = await deps.db.transaction().execute(async (trx) => {
    if (!(await lockWatch(trx, watch.id, from))) return undefined;
    const opened = event ? await openClaimsInTransaction(trx, deps.jobs, event, actor, now) : [];
    const summary = { ...decision, claimsOpened: opened.length, source };
    await updateWatch(trx, watch.id, from, {
      ...patch,
      state: 'decided',
      nextCheckAt: null,
      decision: summary,
      decidedAt: now,
      lastOutcome: decision.kind,
      reviewReason: null,
    });
    await audit(trx, {
      actor,
      environment: watch.environment,
      entity: 'flight_watch',
      entityId: watch.id,
      action: 'flight_decided',
      at: now,
      data: { flightNumber: watch.flightNumber, departureDate: watch.departureDate, ...summary },
    });
    await completeContractsOnFlight(trx, watch, now);
    return opened.length;
  });
  if (claimsOpened === undefined) {
    const current = await findWatch(deps.db, watch.id);
    return { outcome: 'skipped', state: current?.state ?? 'closed' };
  }
  deps.log.info(
    {
      watchId: watch.id,
      environment: watch.environment,
      flight: watch.flightNumber,
      date: watch.departureDate,
      decision: decision.kind,
      claimsOpened,
    },
    'flight decided',
  );
  return { outcome: 'decided', decision, claimsOpened };
}

/**
 * The provider keeps no data on the flight any more: nothing to poll. A watching watch goes to manual
 * review (`beyond_provider_history`); one already there stays as it is (an operator's `flights check`).
 * `answered`: when the provider said so itself (a call made), the watch records that answer (a check,
 * errors reset), as any other answer.
 */
async function beyondHistory(
  deps: CheckDeps,
  watch: FlightWatch,
  from: FlightWatchState[],
  provider: string,
  historyDays: number,
  actor: string,
  answered: Patch = {},
): Promise<CheckOutcome> {
  if (watch.state === 'watching')
    await manualReview(
      deps,
      watch,
      from,
      'beyond_provider_history',
      actor,
      { provider, historyDays },
      { ...answered, lastOutcome: 'beyond_provider_history' },
    );
  return { outcome: 'beyond_provider_history', provider, historyDays };
}

async function manualReview(
  deps: CheckDeps,
  watch: FlightWatch,
  from: FlightWatchState[],
  reason: ManualReviewReason,
  actor: string,
  data: Record<string, unknown>,
  patch: Patch = {},
): Promise<CheckOutcome> {
  const applied = await transition(
    deps,
    watch,
    from,
    { ...patch, state: 'manual_review', nextCheckAt: null, reviewReason: reason },
    actor,
    'flight_watch_manual_review',
    { reason, ...data },
  );
  if (applied) {
    deps.log.warn(
      {
        watchId: watch.id,
        environment: watch.environment,
        flight: watch.flightNumber,
        date: watch.departureDate,
        reason,
        ...data,
      },
      `flight given to manual review: decide it with parasol flights event --env ${watch.environment} ${watch.flightNumber} ${watch.departureDate} --status …`,
    );
  }
  return { outcome: 'manual_review', reason };
}

/** A state change of the watch and its audit row, in one transaction; nothing when the watch moved on meanwhile. */
async function transition(
  deps: CheckDeps,
  watch: FlightWatch,
  from: FlightWatchState[],
  patch: Patch,
  actor: string,
  action: string,
  data: Record<string, unknown>,
): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const applied = await updateWatch(trx, watch.id, from, patch);
    if (applied) {
      await audit(trx, {
        actor,
        environment: watch.environment,
        entity: 'flight_watch',
        entityId: watch.id,
        action,
        data: { flightNumber: watch.flightNumber, departureDate: watch.departureDate, ...data },
      });
    }
    return applied;
  });
}
