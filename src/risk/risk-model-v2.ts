import { Decimal } from 'decimal.js';
import {
  greatCircleKm,
  haulOf,
  parseLocalDeparture,
  RISK_TABLE_V1,
  type EventExplanation,
  type LegFacts,
  type LegProbabilities,
  type RiskEvent,
  type RiskFactor,
  type RiskModel,
} from '../flight/index.ts';
import * as artifactLayout from './artifact.ts';
import { calendarOf, DELAY_THRESHOLDS, type RiskArtifact } from './artifact.ts';

// The counts layout, copied into this module's own constants: the loops below read them millions of
// times, and an imported binding can cost a getter call per read under a transpiling loader (tsx).
const {
  COUNT_CANCELLED,
  COUNT_DELAY0,
  COUNT_DIVERTED,
  COUNT_N,
  COUNT_OPERATED,
  COUNTS_PER_CELL,
  COUNTS_PER_PERIOD,
  PERIODS,
} = artifactLayout;
const THRESHOLD_COUNT = DELAY_THRESHOLDS.length;

/**
 * Version 2 of the risk model, built from an artifact's counts (see docs/pricing.md).
 *
 * Modelled events, each a binary event on its own exposure:
 *   0 cancellation (per leg), 1 diversion (per leg),
 *   2 + j "arrival delay ≥ t_j given operated" for each t_j in DELAY_THRESHOLDS.
 * P(operated and delay ≥ t_j) = (1 − P(cancel) − P(divert)) × min_{i ≤ j} q_i: the events are disjoint
 * and the survival curve is non-increasing by construction, and its shape is the leg's own (each
 * threshold has its own factors at every level).
 *
 * Each event's probability is the global rate × one multiplicative factor per level:
 *   month, day of week (margins), departure hour, airline, origin, destination, airline at origin,
 *   airline at destination, airline on the route, flight number on the route.
 * A level's factor for group g is the Bühlmann–Straub credibility estimate of its actual ÷ expected
 * ratio, expected being what the levels before it predict: f = Z·A/E + (1 − Z), Z = E / (E + K),
 * K = EPV / VHM estimated per level and event from the data, the EPV from the variation of each group
 * between odd and even months (never below binomial noise). Where the data is silent (an unseen month, a route not flown in the
 * data) a documented prior from RISK_TABLE_V1 enters with half weight and credibility 0.
 */

export const EVENTS = 2 + DELAY_THRESHOLDS.length;
const CANCEL = 0;
const DIVERT = 1;
const STEP0 = 2;

export const LEVELS = [
  'hour',
  'airline',
  'origin',
  'dest',
  'airline-origin',
  'airline-dest',
  'route',
  'flight',
] as const;
export type Level = (typeof LEVELS)[number];

/** Documented constants of version 2. */
export const MODEL_V2 = Object.freeze({
  /** Weight (in legs) of the RISK_TABLE_V1 prior in each global rate: only matters for tiny data sets. */
  priorLegs: 1,
  /** Share of a prior ratio applied where the data is silent (unseen month, route absent from the data). */
  priorWeight: 0.5,
  /** Caps: P(cancel) ≤ 0.9, P(cancel) + P(divert) ≤ 0.95, each delay step ≤ 0.999. */
  maxCancellation: 0.9,
  maxCancelOrDivert: 0.95,
  maxStep: 0.999,
  /** How each level's credibility counts in the leg's credibility (sums to 1; calendar and hour are shared by all legs). */
  /**
   * Levels a diversion factor is fitted at. Diversions are rare (about 0.25 % of legs): below the
   * airport level the groups are a few dozen legs, and the few routes with many diversions in one
   * winter (mountain airports) made every route look credible; on months the model was not fitted on
   * that lost log loss. Diversion is therefore priced from the calendar, hour, airline and airports only.
   */
  diversionLevels: ['hour', 'airline', 'origin', 'dest'] as readonly Level[],
  credibilityWeights: {
    airline: 0.1,
    origin: 0.1,
    dest: 0.1,
    'airline-origin': 0.15,
    'airline-dest': 0.15,
    route: 0.25,
    flight: 0.15,
  } as Partial<Record<Level, number>>,
});

/** A leg in the model's terms. `flightNumber` is the digits, when the designator is the operating airline's. */
export interface LegKey {
  airline: string;
  flightNumber: number | null;
  origin: string;
  dest: string;
  hour: number;
  month: number;
  dayOfWeek: number;
}

/** Credibility estimate of one level: per group, per event, a factor and its credibility Z. */
interface LevelFit {
  factors: Map<string, Float64Array>;
  credibility: Map<string, Float64Array>;
  /** K = EPV / VHM per event (Infinity when the groups do not differ beyond noise). */
  k: Float64Array;
}

function keyOf(
  level: Level,
  k: { airline: string; flightNumber: number | null; origin: string; dest: string; hour: number },
): string | null {
  switch (level) {
    case 'hour':
      return String(k.hour);
    case 'airline':
      return k.airline;
    case 'origin':
      return k.origin;
    case 'dest':
      return k.dest;
    case 'airline-origin':
      return `${k.airline}|${k.origin}`;
    case 'airline-dest':
      return `${k.airline}|${k.dest}`;
    case 'route':
      return `${k.airline}|${k.origin}|${k.dest}`;
    case 'flight':
      return k.flightNumber ? `${k.airline}|${k.flightNumber}|${k.origin}|${k.dest}` : null;
  }
}

/** Actual count and exposure of every event in every period of every cell: index (cell × EVENTS + e) × PERIODS + p. */
interface EventTable {
  actual: Float64Array;
  exposure: Float64Array;
}

function eventTable(cellCount: number, counts: ArrayLike<number>): EventTable {
  const actual = new Float64Array(cellCount * EVENTS * PERIODS);
  const exposure = new Float64Array(cellCount * EVENTS * PERIODS);
  for (let c = 0; c < cellCount; c++) {
    for (let p = 0; p < PERIODS; p++) {
      const offset = c * COUNTS_PER_CELL + p * COUNTS_PER_PERIOD;
      const legs = counts[offset + COUNT_N]!;
      const operated = counts[offset + COUNT_OPERATED]!;
      // Index of event e: (c × EVENTS + e) × PERIODS + p.
      const at = c * EVENTS * PERIODS + p;
      actual[at + CANCEL * PERIODS] = counts[offset + COUNT_CANCELLED]!;
      exposure[at + CANCEL * PERIODS] = legs;
      actual[at + DIVERT * PERIODS] = counts[offset + COUNT_DIVERTED]!;
      exposure[at + DIVERT * PERIODS] = legs;
      for (let j = 0; j < THRESHOLD_COUNT; j++) {
        actual[at + (STEP0 + j) * PERIODS] = counts[offset + COUNT_DELAY0 + j]!;
        exposure[at + (STEP0 + j) * PERIODS] = operated;
      }
    }
  }
  return { actual, exposure };
}

/** P(delay ≥ t_j | operated) implied by RISK_TABLE_V1's curve, used as a weak prior. */
function v1Delays(): number[] {
  const v1 = RISK_TABLE_V1.base;
  const operated = 1 - v1.cancellation - v1.diversion;
  const survival = DELAY_THRESHOLDS.map((t) => {
    const points = v1.delayAtLeast;
    const exact = points.find((p) => p.minutes === t);
    if (exact) return exact.probability;
    const i = points.findIndex((p) => p.minutes > t);
    const a = points[i - 1]!;
    const b = points[i]!;
    return a.probability * (b.probability / a.probability) ** ((t - a.minutes) / (b.minutes - a.minutes));
  });
  return survival.map((s) => s / operated);
}

/**
 * Bühlmann–Straub estimate over groups with actual A[g][p] and expected E[g][p] per period p:
 * EPV = Σ_g Σ_p E_gp (X_gp − X_g)² / Σ_g (T_g − 1), VHM = (Σ_g E_g (X_g − X̄)² − (G − 1)·EPV) / (E − Σ E_g² / E),
 * K = EPV / VHM. Returns Infinity when VHM ≤ 0 (no credible difference between groups).
 */
export function buhlmannK(actual: Float64Array, expected: Float64Array, groups: number, binomialEpv: number): number {
  let epvNum = 0;
  let epvDen = 0;
  let total = 0;
  let totalA = 0;
  let sumSq = 0;
  let g0 = 0;
  for (let g = 0; g < groups; g++) {
    let a = 0;
    let e = 0;
    let periods = 0;
    for (let p = 0; p < PERIODS; p++) {
      a += actual[g * PERIODS + p]!;
      e += expected[g * PERIODS + p]!;
      if (expected[g * PERIODS + p]! > 0) periods++;
    }
    if (e <= 0) continue;
    g0++;
    const x = a / e;
    for (let p = 0; p < PERIODS; p++) {
      const ep = expected[g * PERIODS + p]!;
      if (ep > 0) epvNum += ep * (actual[g * PERIODS + p]! / ep - x) ** 2;
    }
    epvDen += periods - 1;
    total += e;
    totalA += a;
    sumSq += e * e;
  }
  if (g0 < 2 || total <= 0) return Number.POSITIVE_INFINITY;
  // Never below the binomial noise: sparse groups (rare events) would otherwise understate it.
  // A margin whose groups each fall in one period (month of year) has only the binomial noise.
  const epv = epvDen > 0 ? Math.max(epvNum / epvDen, binomialEpv) : binomialEpv;
  const mean = totalA / total;
  let between = 0;
  for (let g = 0; g < groups; g++) {
    let a = 0;
    let e = 0;
    for (let p = 0; p < PERIODS; p++) {
      a += actual[g * PERIODS + p]!;
      e += expected[g * PERIODS + p]!;
    }
    if (e > 0) between += e * (a / e - mean) ** 2;
  }
  const vhm = (between - (g0 - 1) * epv) / (total - sumSq / total);
  if (!(vhm > 0)) return Number.POSITIVE_INFINITY;
  return Math.max(epv, 1e-12) / vhm;
}

/**
 * How a level groups cells: a numeric id per cell (−1: the cell has no group at this level, e.g. a
 * merged flight cell), cheap to compute for every cell, and the group's key (keyOf) for one cell of
 * each group, built once per group.
 */
interface Grouping {
  idOf: (cell: number) => number;
  keyOf: (cell: number) => string;
}

/** Groups the cells of one level: the group index of every cell (−1: no group) and the groups' keys. */
function groupCells(cellCount: number, grouping: Grouping): { groupOfCell: Int32Array; keys: string[] } {
  const index = new Map<number, number>();
  const keys: string[] = [];
  const groupOfCell = new Int32Array(cellCount);
  for (let c = 0; c < cellCount; c++) {
    const id = grouping.idOf(c);
    if (id < 0) {
      groupOfCell[c] = -1;
      continue;
    }
    let g = index.get(id);
    if (g === undefined) {
      index.set(id, (g = keys.length));
      keys.push(grouping.keyOf(c));
    }
    groupOfCell[c] = g;
  }
  return { groupOfCell, keys };
}

/**
 * Fits one level: groups the cells by `grouping`, compares actual with the current prediction `pred`
 * (per cell and event) and returns the credibility-weighted factors. One pass over the cells
 * accumulates every event; `factorOfGroup` (group × EVENTS) lets the caller update its prediction.
 */
function fitLevel(
  cellCount: number,
  table: EventTable,
  pred: Float64Array,
  grouping: Grouping,
  fitted: (e: number) => boolean = () => true,
): LevelFit & { groupOfCell: Int32Array; factorOfGroup: Float64Array } {
  const { groupOfCell, keys } = groupCells(cellCount, grouping);
  const groups = keys.length;
  // actual and expected per event, group and period: index (e × groups + g) × PERIODS + p.
  const actual = new Float64Array(EVENTS * groups * PERIODS);
  const expected = new Float64Array(EVENTS * groups * PERIODS);
  // Binomial EPV of A/E per unit of expected count, per event: Σ x·p(1 − p) / Σ x·p.
  const noise = new Float64Array(EVENTS);
  const mass = new Float64Array(EVENTS);
  const A = table.actual;
  const X = table.exposure;
  for (let c = 0; c < cellCount; c++) {
    const g = groupOfCell[c]!;
    if (g < 0) continue;
    const cell = c * EVENTS;
    for (let e = 0; e < EVENTS; e++) {
      const q = pred[cell + e]!;
      const pc = q < 1 ? q : 1;
      const at = (cell + e) * PERIODS;
      const to = (e * groups + g) * PERIODS;
      let n = noise[e]!;
      let m = mass[e]!;
      for (let p = 0; p < PERIODS; p++) {
        const x = X[at + p]!;
        actual[to + p]! += A[at + p]!;
        expected[to + p]! += x * q;
        n += x * pc * (1 - pc);
        m += x * pc;
      }
      noise[e] = n;
      mass[e] = m;
    }
  }
  const factorOfGroup = new Float64Array(groups * EVENTS).fill(1);
  const zOfGroup = new Float64Array(groups * EVENTS);
  const k = new Float64Array(EVENTS);
  for (let e = 0; e < EVENTS; e++) {
    const span = groups * PERIODS;
    const ae = actual.subarray(e * span, (e + 1) * span);
    const xe = expected.subarray(e * span, (e + 1) * span);
    // An event not fitted at this level: K infinite, every factor 1 with credibility 0.
    const K = fitted(e) ? buhlmannK(ae, xe, groups, mass[e]! > 0 ? noise[e]! / mass[e]! : 1) : Number.POSITIVE_INFINITY;
    k[e] = K;
    if (!Number.isFinite(K)) continue;
    for (let g = 0; g < groups; g++) {
      let a = 0;
      let x = 0;
      for (let p = 0; p < PERIODS; p++) {
        a += ae[g * PERIODS + p]!;
        x += xe[g * PERIODS + p]!;
      }
      if (x <= 0) continue;
      const z = x / (x + K);
      factorOfGroup[g * EVENTS + e] = z * (a / x) + (1 - z);
      zOfGroup[g * EVENTS + e] = z;
    }
  }
  const factors = new Map<string, Float64Array>();
  const credibility = new Map<string, Float64Array>();
  for (let g = 0; g < groups; g++) {
    factors.set(keys[g]!, factorOfGroup.subarray(g * EVENTS, (g + 1) * EVENTS));
    credibility.set(keys[g]!, zOfGroup.subarray(g * EVENTS, (g + 1) * EVENTS));
  }
  return { factors, credibility, k, groupOfCell, factorOfGroup };
}

/** The fitted quantities a v2 model prices with; plain data, inspectable in tests. */
export interface FittedV2 {
  version: string;
  dataCutoff: string;
  global: Float64Array;
  month: LevelFit;
  dayOfWeek: LevelFit;
  levels: Record<Level, LevelFit>;
  /** Month-of-year priors (for months without data) and haul priors (for routes without data), per event. */
  monthPrior: Map<number, Float64Array>;
  haulPrior: Record<'short' | 'medium' | 'long', Float64Array>;
  airports: Set<string>;
  airlines: Set<string>;
}

function v1EventFactors(f: { cancellation: number; diversion: number; delay: number }): Float64Array {
  const out = new Float64Array(EVENTS).fill(1);
  out[CANCEL] = f.cancellation;
  out[DIVERT] = f.diversion;
  for (let j = 0; j < DELAY_THRESHOLDS.length; j++) out[STEP0 + j] = f.delay; // scales the whole delay curve
  return out;
}

/** Prior ratio relative to the data's mix, applied with weight MODEL_V2.priorWeight. */
function priorFactors(prior: Float64Array, mix: Float64Array): Float64Array {
  return prior.map((p, e) => 1 + MODEL_V2.priorWeight * (p / mix[e]! - 1));
}

export function fitV2(artifact: RiskArtifact): FittedV2 {
  const { cells } = artifact;
  const n = cells.airline.length;
  const counts = cells.counts;
  const keys = Array.from({ length: n }, (_, c) => ({
    airline: artifact.airlines[cells.airline[c]!]!,
    flightNumber: cells.flightNumber[c]! || null,
    origin: artifact.airports[cells.origin[c]!]!,
    dest: artifact.airports[cells.dest[c]!]!,
    hour: cells.hour[c]!,
  }));

  const table = eventTable(n, counts);
  // Global rates, with a one-leg RISK_TABLE_V1 prior so that an empty tail is not exactly zero.
  const prior = [RISK_TABLE_V1.base.cancellation, RISK_TABLE_V1.base.diversion, ...v1Delays()];
  const totalActual = new Float64Array(EVENTS);
  const totalExposure = new Float64Array(EVENTS);
  for (let c = 0; c < n; c++) {
    for (let e = 0; e < EVENTS; e++) {
      for (let p = 0; p < PERIODS; p++) {
        totalActual[e]! += table.actual[(c * EVENTS + e) * PERIODS + p]!;
        totalExposure[e]! += table.exposure[(c * EVENTS + e) * PERIODS + p]!;
      }
    }
  }
  const global = new Float64Array(EVENTS);
  for (let e = 0; e < EVENTS; e++)
    global[e] = (totalActual[e]! + MODEL_V2.priorLegs * prior[e]!) / (totalExposure[e]! + MODEL_V2.priorLegs);

  // Calendar margins against the global rates.
  const margin = (table: Record<string, number[]>): LevelFit => {
    const entries = Object.entries(table);
    const flat = entries.flatMap(([, v]) => v);
    const pred = new Float64Array(entries.length * EVENTS);
    for (let i = 0; i < entries.length; i++) pred.set(global, i * EVENTS);
    const { factors, credibility, k } = fitLevel(entries.length, eventTable(entries.length, flat), pred, {
      idOf: (i) => i,
      keyOf: (i) => entries[i]![0],
    });
    return { factors, credibility, k };
  };
  const month = margin(artifact.months);
  const dayOfWeek = margin(artifact.daysOfWeek);

  // A cell's group at each structural level as a number from its columns (the same partition as keyOf).
  const airports = artifact.airports.length;
  const groupIdOf = (level: Level, c: number): number => {
    const a = cells.airline[c]!;
    const o = cells.origin[c]!;
    const d = cells.dest[c]!;
    switch (level) {
      case 'hour':
        return cells.hour[c]!;
      case 'airline':
        return a;
      case 'origin':
        return o;
      case 'dest':
        return d;
      case 'airline-origin':
        return a * airports + o;
      case 'airline-dest':
        return a * airports + d;
      case 'route':
        return (a * airports + o) * airports + d;
      case 'flight': {
        const f = cells.flightNumber[c]!;
        return f === 0 ? -1 : ((a * 10_000 + f) * airports + o) * airports + d;
      }
    }
  };

  // Structural levels in order, each against the prediction of the ones before it.
  const pred = new Float64Array(n * EVENTS);
  for (let c = 0; c < n; c++) pred.set(global, c * EVENTS);
  const levels = {} as Record<Level, LevelFit>;
  for (const level of LEVELS) {
    const grouping: Grouping = { idOf: (c) => groupIdOf(level, c), keyOf: (c) => keyOf(level, keys[c]!)! };
    const { factors, credibility, k, groupOfCell, factorOfGroup } = fitLevel(
      n,
      table,
      pred,
      grouping,
      (e) => e !== DIVERT || MODEL_V2.diversionLevels.includes(level),
    );
    levels[level] = { factors, credibility, k };
    for (let c = 0; c < n; c++) {
      const g = groupOfCell[c]!;
      if (g < 0) continue;
      for (let e = 0; e < EVENTS; e++) pred[c * EVENTS + e]! *= factorOfGroup[g * EVENTS + e]!;
    }
  }

  // Priors where the data is silent, relative to the data's own mix of months and hauls.
  const seasonOf = (m: number) =>
    RISK_TABLE_V1.seasons.find((s) => (s.months as readonly number[]).includes(m))?.factors ?? {
      cancellation: 1,
      diversion: 1,
      delay: 1,
    };
  const monthMix = new Float64Array(EVENTS);
  let monthLegs = 0;
  for (const [m, v] of Object.entries(artifact.months)) {
    const legs = v[COUNT_N]! + v[COUNTS_PER_PERIOD + COUNT_N]!;
    const f = v1EventFactors(seasonOf(Number(m)));
    for (let e = 0; e < EVENTS; e++) monthMix[e]! += legs * f[e]!;
    monthLegs += legs;
  }
  for (let e = 0; e < EVENTS; e++) monthMix[e] = monthLegs > 0 ? monthMix[e]! / monthLegs : 1;
  const monthPrior = new Map<number, Float64Array>();
  for (let m = 1; m <= 12; m++) monthPrior.set(m, priorFactors(v1EventFactors(seasonOf(m)), monthMix));

  const haulFactors = {
    short: v1EventFactors(RISK_TABLE_V1.haul.short.factors),
    medium: v1EventFactors(RISK_TABLE_V1.haul.medium.factors),
    long: v1EventFactors(RISK_TABLE_V1.haul.long.factors),
  };
  const haulMix = new Float64Array(EVENTS);
  let haulLegs = 0;
  const distance = new Map<number, number | null>();
  for (let c = 0; c < n; c++) {
    const route = cells.origin[c]! * airports + cells.dest[c]!;
    if (!distance.has(route)) {
      try {
        distance.set(route, distanceKm(keys[c]!.origin, keys[c]!.dest));
      } catch {
        distance.set(route, null);
      }
    }
    const km = distance.get(route);
    if (km === null || km === undefined) continue;
    const legs = counts[c * COUNTS_PER_CELL + COUNT_N]! + counts[c * COUNTS_PER_CELL + COUNTS_PER_PERIOD + COUNT_N]!;
    const f = haulFactors[haulOf(km)];
    for (let e = 0; e < EVENTS; e++) haulMix[e]! += legs * f[e]!;
    haulLegs += legs;
  }
  for (let e = 0; e < EVENTS; e++) haulMix[e] = haulLegs > 0 ? haulMix[e]! / haulLegs : 1;
  const haulPrior = {
    short: priorFactors(haulFactors.short, haulMix),
    medium: priorFactors(haulFactors.medium, haulMix),
    long: priorFactors(haulFactors.long, haulMix),
  };

  return {
    version: artifact.version,
    dataCutoff: artifact.dataCutoff,
    global,
    month,
    dayOfWeek,
    levels,
    monthPrior,
    haulPrior,
    airports: new Set(artifact.airports),
    airlines: new Set(artifact.airlines),
  };
}

const distances = new Map<string, number>();
/** Great-circle distance, memoised (the airport reference is a linear lookup). */
function distanceKm(from: string, to: string): number {
  const key = `${from}|${to}`;
  let km = distances.get(key);
  if (km === undefined) distances.set(key, (km = greatCircleKm(from, to)));
  return km;
}

/** Thrown for a leg the model cannot price: an airport neither in the data nor in the airport reference. */
export class UnpriceableLegError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'UnpriceableLegError';
  }
}

/** One stage of a leg's prediction: a labelled factor per event. */
interface Stage {
  label: string;
  factors: ArrayLike<number>;
  credibility: ArrayLike<number>;
  level?: Level;
}

const NO_LABELS: Record<Level, string> = Object.fromEntries(LEVELS.map((l) => [l, l])) as Record<Level, string>;
/** The explanation's day-of-week labels (index 1 = Monday); each has its French word (i18n `riskFactor`). */
export const DAY_NAMES = ['', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** The stages (factors) that apply to a leg, in the order of the hierarchy. */
export function stagesOf(fit: FittedV2, k: LegKey, labelled = true): Stage[] {
  for (const airport of [k.origin, k.dest]) {
    if (!fit.airports.has(airport)) {
      try {
        distanceKm(airport, airport);
      } catch {
        throw new UnpriceableLegError(
          `unknown airport ${airport}: neither in the model's data nor in the airport reference`,
        );
      }
    }
  }
  const stages: Stage[] = [];
  const zeros = new Float64Array(EVENTS);
  const m = fit.month.factors.get(String(k.month));
  if (m)
    stages.push({ label: `month ${k.month}`, factors: m, credibility: fit.month.credibility.get(String(k.month))! });
  else stages.push({ label: `month ${k.month} (prior)`, factors: fit.monthPrior.get(k.month)!, credibility: zeros });
  const d = fit.dayOfWeek.factors.get(String(k.dayOfWeek));
  if (d)
    stages.push({
      label: DAY_NAMES[k.dayOfWeek]!,
      factors: d,
      credibility: fit.dayOfWeek.credibility.get(String(k.dayOfWeek))!,
    });
  const route = `${k.origin}–${k.dest}`;
  const labels: Record<Level, string> = !labelled
    ? NO_LABELS
    : {
        hour: `hour ${k.hour}`,
        airline: k.airline,
        origin: `from ${k.origin}`,
        dest: `to ${k.dest}`,
        'airline-origin': `${k.airline} at ${k.origin}`,
        'airline-dest': `${k.airline} into ${k.dest}`,
        route: `${k.airline} on ${route}`,
        flight: `${k.airline}${k.flightNumber ?? ''} on ${route}`,
      };
  for (const level of LEVELS) {
    const key = keyOf(level, k);
    if (key === null) continue;
    const f = fit.levels[level].factors.get(key);
    if (f)
      stages.push({ label: labels[level], factors: f, credibility: fit.levels[level].credibility.get(key)!, level });
  }
  if (!fit.levels.route.factors.has(`${k.airline}|${k.origin}|${k.dest}`)) {
    try {
      const haul = haulOf(distanceKm(k.origin, k.dest));
      stages.push({ label: `${haul}-haul (prior)`, factors: fit.haulPrior[haul], credibility: zeros });
    } catch {
      // An airport known from the data but not to the reference: no haul prior.
    }
  }
  return stages;
}

/** Raw event probabilities (numbers) of a leg after the given stages, before caps. */
function combine(global: Float64Array, stages: readonly Stage[]): Float64Array {
  const p = Float64Array.from(global);
  for (const s of stages) for (let e = 0; e < EVENTS; e++) p[e]! *= s.factors[e]!;
  return p;
}

/** Survival P(operated and delay ≥ t_j) on the threshold grid, from raw event probabilities. */
function survivalOf(
  p: Float64Array,
  capped: boolean,
): { cancellation: number; diversion: number; survival: Float64Array } {
  let cancellation = p[CANCEL]!;
  let diversion = p[DIVERT]!;
  if (capped) {
    cancellation = Math.min(cancellation, MODEL_V2.maxCancellation);
    diversion = Math.min(diversion, MODEL_V2.maxCancelOrDivert - cancellation);
  }
  const survival = new Float64Array(DELAY_THRESHOLDS.length);
  const operated = 1 - cancellation - diversion;
  // Each threshold is estimated on its own; the curve is made non-increasing by a running minimum.
  let q = Number.POSITIVE_INFINITY;
  for (let j = 0; j < DELAY_THRESHOLDS.length; j++) {
    q = Math.min(q, capped ? Math.min(p[STEP0 + j]!, MODEL_V2.maxStep) : p[STEP0 + j]!);
    survival[j] = operated * q;
  }
  return { cancellation, diversion, survival };
}

/** P(delay ≥ minutes) from the grid: exact on the grid, log-linear between points, last segment's decay beyond. */
export function survivalAt(survival: ArrayLike<number>, minutes: number): number {
  if (!Number.isFinite(minutes) || minutes < 0)
    throw new RangeError(`minutes must be a finite number ≥ 0, got ${minutes}`);
  const t = DELAY_THRESHOLDS;
  let i = t.findIndex((x) => x >= minutes);
  if (i !== -1 && t[i] === minutes) return survival[i]!;
  if (i === -1) i = t.length - 1;
  const a = survival[i - 1]!;
  const b = survival[i]!;
  if (a <= 0) return 0;
  const value = a * (b / a) ** ((minutes - t[i - 1]!) / (t[i]! - t[i - 1]!));
  return Math.min(a, value);
}

/** Index of the delay threshold that governs `minutes` (the last one at or below it). */
function stepFor(minutes: number): number {
  let j = 0;
  while (j + 1 < DELAY_THRESHOLDS.length && DELAY_THRESHOLDS[j + 1]! <= minutes) j++;
  return j;
}

/** Fast numeric prediction of a leg (evaluation, predict): cancellation, diversion and the survival grid. */
export function predictLeg(
  fit: FittedV2,
  k: LegKey,
): { cancellation: number; diversion: number; survival: Float64Array; credibility: number } {
  const stages = stagesOf(fit, k, false);
  return { ...survivalOf(combine(fit.global, stages), true), credibility: legCredibility(stages) };
}

const STEP_60 = STEP0 + DELAY_THRESHOLDS.indexOf(60);

/** Σ_level weight × Z over the airline/airport/route/flight levels, averaged over cancellation and the 60-minute delay step. */
function legCredibility(stages: readonly Stage[]): number {
  let sum = 0;
  for (const s of stages) {
    const w = s.level ? (MODEL_V2.credibilityWeights[s.level] ?? 0) : 0;
    sum += (w * (s.credibility[CANCEL]! + s.credibility[STEP_60]!)) / 2;
  }
  return Math.min(1, Math.max(0, sum));
}

const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}$/;

/** The model's key of a leg; throws RangeError for a malformed departure time. */
export function legKeyOf(leg: LegFacts): LegKey {
  const { month, hour } = parseLocalDeparture(leg.departureLocal);
  const date = ISO_DATE_TIME.exec(leg.departureLocal)![1]!;
  const designator = leg.flightNumber !== undefined ? /^([A-Z0-9]{2})(\d{1,4})[A-Z]?$/.exec(leg.flightNumber) : null;
  const flightNumber = designator && designator[1] === leg.airline ? Number(designator[2]) : null;
  return {
    airline: leg.airline,
    flightNumber,
    origin: leg.departureAirport,
    dest: leg.arrivalAirport,
    hour,
    month,
    dayOfWeek: calendarOf(date).dayOfWeek,
  };
}

const round = (x: number): number => Number(x.toPrecision(12));

/** Version 2 as a RiskModel: numbers computed once per leg, Decimals at the boundary. */
export function riskModelV2(fit: FittedV2): RiskModel {
  return {
    version: fit.version,
    probabilities(leg: LegFacts): LegProbabilities {
      const key = legKeyOf(leg);
      const stages = stagesOf(fit, key);
      const final = survivalOf(combine(fit.global, stages), true);
      const credibility = legCredibility(stages);
      const eventValue = (
        r: { cancellation: number; diversion: number; survival: Float64Array },
        event: RiskEvent,
      ): number =>
        event === 'cancellation'
          ? r.cancellation
          : event === 'diversion'
            ? r.diversion
            : survivalAt(r.survival, event.delayAtLeast);
      return {
        cancellation: new Decimal(round(final.cancellation)),
        diversion: new Decimal(round(final.diversion)),
        delayAtLeast: (minutes: number) => new Decimal(round(survivalAt(final.survival, minutes))),
        credibility,
        explain(event: RiskEvent): EventExplanation {
          const probability = eventValue(final, event);
          const e =
            event === 'cancellation' ? CANCEL : event === 'diversion' ? DIVERT : STEP0 + stepFor(event.delayAtLeast);
          const base = eventValue(survivalOf(fit.global, false), event);
          const factors: RiskFactor[] = [];
          let before = base;
          for (let i = 0; i < stages.length; i++) {
            const after = eventValue(survivalOf(combine(fit.global, stages.slice(0, i + 1)), false), event);
            factors.push({
              label: stages[i]!.label,
              factor: before > 0 ? after / before : 1,
              credibility: stages[i]!.credibility[e]!,
            });
            before = after;
          }
          if (Math.abs(probability - before) > 1e-15 * Math.max(1, probability)) {
            factors.push({ label: 'cap', factor: before > 0 ? probability / before : 1, credibility: 1 });
          }
          return { base, factors, probability };
        },
      };
    },
  };
}

/** The global-average probabilities (every factor 1): the baseline an evaluation compares with. */
export function globalAverage(fit: FittedV2): { cancellation: number; diversion: number; survival: Float64Array } {
  return survivalOf(fit.global, true);
}
