import type { Environment } from '../platform/db-schema.ts';
import type { Db } from '../platform/db.ts';
import * as repo from './limits-repo.ts';
import {
  capacityExceeded,
  checkStopSales,
  defaultCap,
  flightKeyString,
  largestPolicyExposure,
  type FlightKey,
  type LegToCheck,
  StopSaleIndex,
} from './limits.ts';

/** How often each process reloads the snapshot from the database (docs/limits.md: the staleness window). */
export const SNAPSHOT_REFRESH_MS = 2_000;
/** At most this many near-full flights are held in memory; beyond, the quote path lets subscribe decide. */
const MAX_NEAR_FULL = 100_000;

interface Snapshot {
  caps: Map<string, number>;
  /** Per `environment|currency`: the exposure from which a flight is near full (cap − largest policy). */
  thresholds: Map<string, number>;
  /** Upcoming flights whose remaining capacity may be below the largest possible policy: key → exposure. */
  nearFull: Map<string, number>;
  /** The stop-sales in force on departures a quote can name, by environment, airline, route and airport. */
  stops: StopSaleIndex;
}

const EMPTY: Snapshot = { caps: new Map(), thresholds: new Map(), nearFull: new Map(), stops: new StopSaleIndex([]) };

/**
 * What /getPrice knows of the limits without a database round trip: the caps, the upcoming flights
 * whose remaining capacity is below the largest policy any agreement allows (every other flight can
 * take any quote), and the stop-sales in force. Reloaded every SNAPSHOT_REFRESH_MS, and at once in
 * this process after an operator change or a contract change made here; a subscription or a
 * cancellation made here tells it its flights' new exposure instead (noteExposures). Between
 * reloads a quote may be answered from a state a few seconds old; the subscribe transaction is the
 * authority and refuses what no longer fits.
 */
export class LimitsSnapshot {
  private current: Snapshot = EMPTY;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly db: Db,
    private readonly options: {
      now: () => Date;
      /** Passengers a policy may cover (flight's PRICING.maxPassengers): bounds one policy's exposure. */
      maxPassengers: number;
      onError?: (error: unknown) => void;
      defaultCapMajor?: number | undefined;
      /**
       * How far ahead a departure can be quoted (flight's TIME_RULES.maxAheadDays): stop-sales of
       * departures beyond (and a day more: the snapshot is a few seconds old) are not loaded.
       */
      maxAheadDays?: number | undefined;
    },
  ) {}

  /** The cap where the operator set none, in major units (config.flightCapDefault); subscribe uses the same. */
  get defaultCapMajor(): number | undefined {
    return this.options.defaultCapMajor;
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), SNAPSHOT_REFRESH_MS).unref();
  }

  /** Stops the timer and waits for a reload under way (before the database closes). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.again = false;
    await this.running;
  }

  /** Reloads from the database; concurrent calls share one reload and ask for one more after it. */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.load()
      .catch((error) => this.options.onError?.(error))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          void this.refresh();
        }
      });
    return this.running;
  }

  private async load(): Promise<void> {
    const now = this.options.now();
    const [capRows, currencies, stops] = await Promise.all([
      repo.listCapRows(this.db),
      repo.agreementCurrencies(this.db),
      repo.listStopSales(this.db, {
        after: now,
        startingBefore: new Date(now.getTime() + ((this.options.maxAheadDays ?? 365) + 1) * 86_400_000),
      }),
    ]);
    const caps = new Map(capRows.map((c) => [`${c.environment}|${c.currency}`, c.amount]));
    // a flight can refuse a quote only when its remaining capacity is below the largest policy: load those
    // per environment and currency: each has its own cap (one low cap must not load every flight)
    const thresholds = new Map<string, { environment: Environment; currency: string; atLeast: number }>();
    for (const { currency, compensationMax } of currencies) {
      const largest = largestPolicyExposure(this.options.maxPassengers, compensationMax);
      for (const environment of ['sandbox', 'preproduction', 'production'] as const) {
        const atLeast =
          (caps.get(`${environment}|${currency}`) ?? defaultCap(currency, this.options.defaultCapMajor)) - largest;
        const key = `${environment}|${currency}`;
        if (atLeast < (thresholds.get(key)?.atLeast ?? Number.POSITIVE_INFINITY))
          thresholds.set(key, { environment, currency, atLeast });
      }
    }
    const nearFull = new Map<string, number>();
    for (const f of await repo.exposuresAtLeast(this.db, now, [...thresholds.values()], MAX_NEAR_FULL))
      nearFull.set(flightKeyString(f), f.amount);
    this.current = {
      caps,
      thresholds: new Map([...thresholds].map(([key, t]) => [key, t.atLeast])),
      nearFull,
      stops: new StopSaleIndex(stops),
    };
  }

  /**
   * A subscription or cancellation committed in this process: its flights' exposure now, as the
   * database returned it. A flight near full enters the snapshot, one no longer near full leaves it;
   * no reload (a reload under way may have read before the commit: one more follows it).
   */
  noteExposures(exposures: readonly { key: FlightKey; amount: number }[]): void {
    if (this.running) this.again = true;
    for (const { key, amount } of exposures) {
      const threshold = this.current.thresholds.get(`${key.environment}|${key.currency}`);
      if (threshold === undefined) {
        // a currency no agreement had at the last reload: reload rather than guess its threshold
        void this.refresh();
        return;
      }
      const flight = flightKeyString(key);
      if (amount >= threshold) this.current.nearFull.set(flight, amount);
      else this.current.nearFull.delete(flight);
    }
  }

  /**
   * Throws 409 sales_suspended or capacity_exceeded (naming the leg) when the quote could not be
   * subscribed as far as this snapshot knows. Costs a few map look-ups per leg (stop-sales, near-full flights).
   */
  checkQuote(environment: Environment, currency: string, legs: readonly LegToCheck[], perLegExposure: number): void {
    const snapshot = this.current;
    checkStopSales(snapshot.stops, environment, legs);
    if (perLegExposure <= 0) return;
    const cap = snapshot.caps.get(`${environment}|${currency}`) ?? defaultCap(currency, this.options.defaultCapMajor);
    for (let i = 0; i < legs.length; i++) {
      const leg = legs[i]!;
      const used =
        snapshot.nearFull.size === 0
          ? 0
          : (snapshot.nearFull.get(
              `${environment}|${currency}|${leg.airline}|${leg.departureAirport}|${leg.arrivalAirport}|${leg.departureLocal}`,
            ) ?? 0);
      if (used + perLegExposure > cap) throw capacityExceeded(leg, i, currency, '/departureDateTime');
    }
  }
}
