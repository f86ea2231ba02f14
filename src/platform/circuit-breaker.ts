/**
 * A circuit breaker per provider — the flight-data providers' (monitoring/providers.ts), and the SMTP
 * server's (`email:smtp`, notify/email/email-queue.ts `SMTP_CIRCUIT`, opened by one refused login) —
 * so that an outage costs one probe per cool-down instead of a call per watch or per message: after
 * `failureThreshold` failures in a row it opens (no call is made; the caller reschedules its work to
 * when it may close), after `coolDownMs` it lets ONE probe through (half-open): a success closes it,
 * a failure opens it again. A failure that says when to come back (429 or 503 with `Retry-After`: a
 * quota or an outage of the whole key, not of one call) opens it at once until then (at most
 * `maxRetryAfterMs`), so that the other callers stop calling too.
 *
 * Each time the circuit opens its generation goes up by one, and every permit carries the generation it
 * was given in: an answer to a call made before the circuit opened (a straggler) is of an older
 * generation and never closes it, nor counts; while half-open, only the probe's own answer closes it
 * (success) or opens it again (failure). A straggler's Retry-After still opens it: that is the
 * provider speaking now.
 *
 * A probe's permit also carries the instant its probe started, the half-open circuit's mark: a probe
 * that timed out (`probeTimeoutMs`) is replaced by a newer one, with a newer mark, and the old probe's
 * late answer — success, failure or release — is then a straggler's: it neither closes the circuit,
 * nor opens it by count, nor clears the newer probe's mark (which would let a third probe through
 * beside it); nor, once the newer probe closed the circuit (closing keeps the generation), counts or
 * resets the count: a probe's answer acts only while it is the current probe. Two probes of one
 * generation never share a mark: the next one starts at least `probeTimeoutMs` after, or once the mark was cleared by the previous one's own answer.
 *
 * `CircuitBreaker` keeps its state in this process's memory (tests, one-off providers);
 * `SharedCircuitBreaker` (below) keeps it in the database, shared by every worker, its instants on
 * the database's clock: what the platform's providers and the SMTP sends use, so one process's outage
 * finding protects the others.
 * Generic (no domain): monitoring and notify both use it; the callers keep their work as rows in the
 * database, so nothing is lost with either.
 */
import { sql } from 'kysely';
import type { Db } from './db.ts';
import { clampRetryAfter } from './retry-after.ts';

/** The longest Retry-After a breaker obeys unless told otherwise: then one probe asks again. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60 * 60_000;

export interface CircuitBreakerOptions {
  /** Failures in a row that open the circuit. Default 5. */
  failureThreshold?: number;
  /** How long it stays open before a probe. Default 2 min. */
  coolDownMs?: number;
  /** A probe that never reported back (its job died) no longer blocks others after this. Default 2 min. */
  probeTimeoutMs?: number;
  /**
   * A provider's Retry-After is obeyed for at most this long (a huge one would hold every call that
   * long). Default `DEFAULT_MAX_RETRY_AFTER_MS` (1 h); the flight monitoring passes its own
   * `MAX_RETRY_AFTER_MS`, which its watches' back-off shares.
   */
  maxRetryAfterMs?: number;
}

export type CircuitState = 'closed' | 'open' | 'half_open';

/** What both breakers share: the options with their defaults, and the state last seen. */
abstract class BreakerSettings {
  protected readonly threshold: number;
  protected readonly coolDownMs: number;
  protected readonly probeTimeoutMs: number;
  protected readonly maxRetryAfterMs: number;
  protected current: CircuitState = 'closed';

  constructor(options: CircuitBreakerOptions = {}) {
    this.threshold = options.failureThreshold ?? 5;
    this.coolDownMs = options.coolDownMs ?? 120_000;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 120_000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  }

  get state(): CircuitState {
    return this.current;
  }
}

/**
 * Until when a failure opens the circuit (undefined: it stays as it is): the cool-down when it is
 * the `threshold`-th in a row or the probe's, at least the provider's Retry-After (capped), which
 * opens it on its own.
 */
function openUntil(
  now: Date,
  opensByCount: boolean,
  coolDownMs: number,
  retryAfterMs: number | undefined,
  maxRetryAfterMs: number,
): Date | undefined {
  const wait = retryAfterMs === undefined ? undefined : clampRetryAfter(retryAfterMs, maxRetryAfterMs);
  if (!opensByCount && !wait) return undefined;
  return new Date(now.getTime() + Math.max(opensByCount ? coolDownMs : 0, wait ?? 0));
}

/**
 * Leave to call the provider: `generation` the circuit's when given; `probe` when it is the half-open
 * circuit's one probe, `probeStartedAt` then its mark (the instant it was let through), which its
 * answer must still find to act as the probe's.
 */
export type Granted =
  | { allowed: true; probe: false; generation: number }
  | { allowed: true; probe: true; generation: number; probeStartedAt: Date };

export type Permit = Granted | { allowed: false; retryAt: Date };

export class CircuitBreaker extends BreakerSettings implements Breaker {
  private failures = 0;
  private openedUntil = 0;
  private probeStartedAt: number | undefined;
  private generation = 0;

  /** Whether a call may be made at `now`; when not, when to try again. */
  acquire(now: Date): Permit {
    const t = now.getTime();
    if (this.current === 'closed') return { allowed: true, probe: false, generation: this.generation };
    if (this.current === 'open') {
      if (t < this.openedUntil) return { allowed: false, retryAt: new Date(this.openedUntil) };
      this.current = 'half_open';
      this.probeStartedAt = t;
      return { allowed: true, probe: true, generation: this.generation, probeStartedAt: new Date(t) };
    }
    // half-open: one probe at a time
    if (this.probeStartedAt !== undefined && t - this.probeStartedAt < this.probeTimeoutMs) {
      return {
        allowed: false,
        retryAt: new Date(this.probeStartedAt + Math.min(this.coolDownMs, this.probeTimeoutMs)),
      };
    }
    this.probeStartedAt = t;
    return { allowed: true, probe: true, generation: this.generation, probeStartedAt: new Date(t) };
  }

  /**
   * The provider answered (a flight, or "no such flight") the call `permit` let through. Closes the
   * circuit (resets the count) only when the permit is a call of the closed circuit's current
   * generation, or the half-open circuit's current probe: a straggler's answer — a call made before it
   * opened, or a probe a newer one replaced (even once the newer one closed it) — does not, least of
   * all against the provider's Retry-After.
   */
  success(permit: Granted): void {
    if (!closes(permit, this.generation, this.current, this.probeStartedAt)) return;
    this.failures = 0;
    this.current = 'closed';
    this.probeStartedAt = undefined;
  }

  /**
   * The call `permit` let through was not made, or told nothing of the provider (a network error):
   * the probe's turn is given back — the next acquire may probe at once instead of after the probe's
   * timeout. Nothing for a permit of a closed circuit, nor a straggler's (a probe a newer one
   * replaced: the mark is the newer probe's).
   */
  release(permit: Granted): void {
    if (isCurrentProbe(permit, this.generation, this.current, this.probeStartedAt)) this.probeStartedAt = undefined;
  }

  /**
   * The provider failed (error, timeout, rejection) at `now` (when the failure is recorded);
   * `retryAfterMs`: it said when to come back. Counts only as `counts` says; a probe's failure opens
   * it again only while it is the current probe (not once a newer probe closed it). A Retry-After
   * opens it whoever says it.
   */
  failure(now: Date, permit: Granted, retryAfterMs?: number): void {
    const counted = counts(permit, this.generation, this.current, this.probeStartedAt);
    if (counted) this.failures += 1;
    const byCount = permit.probe ? counted : counted && this.current === 'closed' && this.failures >= this.threshold;
    const until = openUntil(now, byCount, this.coolDownMs, retryAfterMs, this.maxRetryAfterMs);
    if (until) {
      const wasOpen = this.current === 'open';
      if (!wasOpen) this.generation += 1;
      this.current = 'open';
      this.openedUntil = wasOpen ? Math.max(this.openedUntil, until.getTime()) : until.getTime();
      this.probeStartedAt = undefined;
    }
  }
}

/** What a caller needs of a breaker (the flight check job, the SMTP send): the in-memory one above, or the shared one below. */
export interface Breaker {
  /** The state as this process last saw it (metrics, logs). */
  readonly state: CircuitState;
  acquire(now: Date): Permit | Promise<Permit>;
  success(permit: Granted): void | Promise<void>;
  /** The call was not made, or told nothing: a probe's turn given back (`CircuitBreaker.release`). */
  release(permit: Granted): void | Promise<void>;
  /** `retryAfterMs`: the provider said when to come back (Retry-After) — opens the circuit until then. */
  failure(now: Date, permit: Granted, retryAfterMs?: number): void | Promise<void>;
}

/**
 * Whether `permit` is the half-open circuit's current probe (generation `generation`, in `state`, its
 * mark `probeStartedAt`): not one a newer probe replaced after it timed out.
 */
function isCurrentProbe(
  permit: Granted,
  generation: number,
  state: CircuitState,
  probeStartedAt: number | undefined,
): boolean {
  return (
    permit.probe &&
    permit.generation === generation &&
    state === 'half_open' &&
    probeStartedAt === permit.probeStartedAt.getTime()
  );
}

/**
 * Whether `permit`'s answer counts (generation `generation`, in `state`, its probe's mark
 * `probeStartedAt`): a probe's only while it is the half-open circuit's current probe — a replaced
 * probe's, even once the newer one closed the circuit (closing keeps the generation), is a
 * straggler's —, a call of the closed circuit's while of the current generation.
 */
function counts(permit: Granted, generation: number, state: CircuitState, probeStartedAt: number | undefined): boolean {
  return permit.probe ? isCurrentProbe(permit, generation, state, probeStartedAt) : permit.generation === generation;
}

/** Whether a success on `permit` closes the circuit (resets its count): as `counts`, a call's only while closed. */
function closes(permit: Granted, generation: number, state: CircuitState, probeStartedAt: number | undefined): boolean {
  return permit.probe
    ? isCurrentProbe(permit, generation, state, probeStartedAt)
    : permit.generation === generation && state === 'closed';
}

/**
 * The same breaker with its state in PostgreSQL (table provider_circuits, one row per environment
 * and provider), on the database's clock, shared by every worker process: once one process has seen `failureThreshold`
 * failures in a row the circuit is open for all of them, and one probe in all is let through after
 * the cool-down. While closed, a check costs one primary-key read (no lock, no write); transitions
 * take the row's lock, so two processes never both probe.
 */
export class SharedCircuitBreaker extends BreakerSettings implements Breaker {
  private ensured = false;

  /**
   * The instants the processes compare — the probe's mark (`probe_started_at`) and the end of the
   * cool-down (`opened_until`) — are the database's clock (`statement_timestamp()` of the statement
   * that reads or writes them), never a caller's `now`: two processes whose clocks disagree by more
   * than the probe's timeout would otherwise both probe (the fast one finding the other's probe timed
   * out), or one wait past the cool-down. Every shared breaker (the flight-data providers', the SMTP
   * server's) is shared across processes, so none has a reason to compare on its own clock; the
   * in-memory `CircuitBreaker` is the one on the caller's. The caller's `now` still dates its own
   * permit: a refusal's `retryAt` is the database's instant moved into the caller's clock (its distance
   * from the database's now), so the caller schedules by its own clock (a test's fake one included).
   * Tests move the shared state's time on the database side: they move its stored instants into the past.
   */
  constructor(
    private readonly db: Db,
    private readonly key: string,
    options: CircuitBreakerOptions = {},
  ) {
    super(options);
  }

  /**
   * The instant the shared state is compared at, as SQL: the database's `statement_timestamp()` (when
   * the statement reached the database — not `now()`, the transaction's start).
   */
  private clock() {
    return sql<Date | string>`statement_timestamp()`;
  }

  private async ensure(): Promise<void> {
    if (this.ensured) return;
    await this.db
      .insertInto('provider_circuits')
      .values({ provider: this.key, updated_at: new Date() })
      .onConflict((oc) => oc.column('provider').doNothing())
      .execute();
    this.ensured = true;
  }

  async acquire(now: Date): Promise<Permit> {
    await this.ensure();
    const seen = await this.db
      .selectFrom('provider_circuits')
      .select(['state', 'generation'])
      .where('provider', '=', this.key)
      .executeTakeFirst();
    this.current = seen?.state ?? 'closed';
    if (this.current === 'closed') return { allowed: true, probe: false, generation: seen?.generation ?? 0 };
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('provider_circuits')
        .selectAll()
        // the instant every process's marks are compared at, read by the locking statement itself (its
        // start: a wait for the lock is another process's short transaction; milliseconds, as stored)
        .select(this.clock().as('compared_at'))
        .where('provider', '=', this.key)
        .forUpdate()
        .executeTakeFirstOrThrow();
      this.current = row.state;
      if (row.state === 'closed') return { allowed: true, probe: false, generation: row.generation } as const;
      const at = new Date(row.compared_at);
      const t = at.getTime();
      // an instant of the shared state, as far from the caller's `now` as it is from `at`
      const inCallerClock = (instant: number) => new Date(now.getTime() + (instant - t));
      const openedUntil = row.opened_until ? new Date(row.opened_until).getTime() : 0;
      if (row.state === 'open' && t < openedUntil)
        return { allowed: false, retryAt: inCallerClock(openedUntil) } as const;
      const probeStartedAt = row.probe_started_at ? new Date(row.probe_started_at).getTime() : undefined;
      if (row.state === 'half_open' && probeStartedAt !== undefined && t - probeStartedAt < this.probeTimeoutMs) {
        return {
          allowed: false,
          retryAt: inCallerClock(probeStartedAt + Math.min(this.coolDownMs, this.probeTimeoutMs)),
        } as const;
      }
      await trx
        .updateTable('provider_circuits')
        .set({ state: 'half_open', probe_started_at: at, updated_at: new Date() })
        .where('provider', '=', this.key)
        .execute();
      this.current = 'half_open';
      // the mark, as stored (milliseconds): the probe's answer finds its probe by it
      return { allowed: true, probe: true, generation: row.generation, probeStartedAt: at } as const;
    });
  }

  async success(permit: Granted): Promise<void> {
    const row = await this.db
      .updateTable('provider_circuits')
      .set({ state: 'closed', failures: 0, probe_started_at: null, updated_at: new Date() })
      .where('provider', '=', this.key)
      // the same rule as closes(): a straggler's answer (an older generation; a call of the closed
      // circuit while half-open; a probe that is not the current one — replaced by a newer one, even once
      // that one closed it) leaves it as it is
      .where('generation', '=', permit.generation)
      .where((eb) =>
        permit.probe
          ? eb.and([eb('state', '=', 'half_open'), eb('probe_started_at', '=', permit.probeStartedAt)])
          : eb.and([eb('state', '=', 'closed'), eb('failures', '<>', 0)]),
      )
      .returning('state')
      .executeTakeFirst();
    if (row) {
      this.current = 'closed';
      return;
    }
    // nothing changed (already closed and counting nothing, or a straggler's answer ignored): what the row says
    const seen = await this.db
      .selectFrom('provider_circuits')
      .select('state')
      .where('provider', '=', this.key)
      .executeTakeFirst();
    this.current = seen?.state ?? 'closed';
  }

  /**
   * As `CircuitBreaker.release`: the half-open circuit's probe mark cleared, the next call probes —
   * only while the mark is still this probe's (a newer probe's is left alone).
   */
  async release(permit: Granted): Promise<void> {
    if (!permit.probe) return;
    await this.db
      .updateTable('provider_circuits')
      .set({ probe_started_at: null, updated_at: new Date() })
      .where('provider', '=', this.key)
      .where('generation', '=', permit.generation)
      .where('state', '=', 'half_open')
      .where('probe_started_at', '=', permit.probeStartedAt)
      .execute();
  }

  /** `now` (the caller's) is not read: the circuit opens from the database's clock. */
  async failure(_now: Date, permit: Granted, retryAfterMs?: number): Promise<void> {
    await this.ensure();
    // the same rule as counts(): a probe's failure only while it is the current probe (half-open, its
    // mark still there) — and then it opens the circuit again; a call's while of the current generation
    const counted = permit.probe
      ? sql<boolean>`(generation = ${permit.generation} AND state = 'half_open' AND probe_started_at = ${permit.probeStartedAt}::timestamptz)`
      : sql<boolean>`(generation = ${permit.generation})`;
    const byCount = permit.probe
      ? counted
      : sql<boolean>`(${counted} AND state = 'closed' AND failures + 1 >= ${this.threshold})`;
    // the instant for each case, NULL when that case does not open the circuit: the wait from the
    // database's clock, which `acquire` compares it with, read by this statement (no round trip)
    const epoch = new Date(0);
    const waitByCount = openUntil(epoch, true, this.coolDownMs, retryAfterMs, this.maxRetryAfterMs)!.getTime();
    const waitByRetryAfter = openUntil(epoch, false, this.coolDownMs, retryAfterMs, this.maxRetryAfterMs)?.getTime();
    const from = this.clock();
    const untilByCount = sql`(${from}::timestamptz + ${waitByCount}::double precision * interval '1 millisecond')`;
    const untilByRetryAfter =
      waitByRetryAfter === undefined
        ? sql`NULL::timestamptz`
        : sql`(${from}::timestamptz + ${waitByRetryAfter}::double precision * interval '1 millisecond')`;
    const until = sql`CASE WHEN ${byCount} THEN ${untilByCount} ELSE ${untilByRetryAfter} END`;
    const opens = sql<boolean>`(${until} IS NOT NULL)`;
    const row = await this.db
      .updateTable('provider_circuits')
      .set({
        failures: sql`CASE WHEN ${counted} THEN failures + 1 ELSE failures END`,
        state: sql`CASE WHEN ${opens} THEN 'open' ELSE state END`,
        generation: sql`CASE WHEN ${opens} AND state <> 'open' THEN generation + 1 ELSE generation END`,
        // already open (a straggler's failure): never earlier than it was
        opened_until: sql`CASE WHEN ${opens} THEN GREATEST(CASE WHEN state = 'open' THEN opened_until END, ${until}) ELSE opened_until END`,
        probe_started_at: sql`CASE WHEN ${opens} THEN NULL ELSE probe_started_at END`,
        updated_at: new Date(),
      })
      .where('provider', '=', this.key)
      .returning('state')
      .executeTakeFirst();
    if (row) this.current = row.state;
  }
}
