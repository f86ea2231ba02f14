import { gunzipSync, gzipSync } from 'node:zlib';
import type { FlightObservation } from './history.ts';

/**
 * The model artifact: sufficient statistics, not fitted rates. For every cell "airline, flight number,
 * origin, destination, departure hour" it keeps event counts, split into two periods, odd and even
 * months, so that the credibility fit can measure how much a cell's rate varies from one month to the
 * next (storms cancel whole days, a hub's bad month does not repeat): that is the horizon a price is
 * used for. Month-of-year and day-of-week margins are kept the
 * same way. Rates, credibility weights and factors are all derived from these counts when a model is
 * built (risk-model-v2.ts), so a refit adds observations to the counts without the original files.
 */

/** Arrival-delay thresholds (minutes) of the delay distribution: P(delay ≥ m | operated) is modelled as a chain of steps. */
export const DELAY_THRESHOLDS = [0, 15, 30, 45, 60, 90, 120, 150, 180, 240, 300, 360, 480, 720] as const;

/** Counts per cell and period: legs, cancelled, diverted, operated with a known arrival delay, then one count per threshold (delay ≥ m). */
export const COUNT_N = 0;
export const COUNT_CANCELLED = 1;
export const COUNT_DIVERTED = 2;
export const COUNT_OPERATED = 3;
export const COUNT_DELAY0 = 4;
export const COUNTS_PER_PERIOD = 4 + DELAY_THRESHOLDS.length;
/** Two periods: even and odd months. */
export const PERIODS = 2;
export const COUNTS_PER_CELL = COUNTS_PER_PERIOD * PERIODS;

/** Flight cells with fewer legs than this are merged into their airline–route–hour cell (flight number 0) when saved. */
export const MIN_FLIGHT_CELL_LEGS = 8;

export const ARTIFACT_FORMAT = 'parasol-risk';
export const ARTIFACT_FORMAT_VERSION = 1;

export interface RiskArtifact {
  format: 'parasol-risk';
  formatVersion: number;
  /** Model version name, e.g. 'v2-2008q1'. */
  version: string;
  /** Latest flight date observed (YYYY-MM-DD): the data cut-off. */
  dataCutoff: string;
  /** Earliest flight date observed. */
  dataFrom: string;
  /** Legs counted. */
  legs: number;
  thresholds: number[];
  minFlightCellLegs: number;
  airlines: string[];
  airports: string[];
  /** Column-wise cells, sorted by (airline, flight number, origin, destination, hour). flightNumber 0 = merged small flights. */
  cells: {
    airline: number[];
    flightNumber: number[];
    origin: number[];
    dest: number[];
    hour: number[];
    /** COUNTS_PER_CELL integers per cell, period 0 then period 1. */
    counts: number[];
  };
  /** Month of year (1–12) → COUNTS_PER_CELL counts. */
  months: Record<string, number[]>;
  /** ISO day of week (1 = Monday … 7) → COUNTS_PER_CELL counts. */
  daysOfWeek: Record<string, number[]>;
}

const DAY_MS = 86_400_000;
/** A Monday. */
const MONDAY = Date.UTC(1970, 0, 5);

/** Month, ISO day of week (1 = Monday) and period (month parity: 1 odd months, 0 even months) of a YYYY-MM-DD date. */
export function calendarOf(date: string): { month: number; dayOfWeek: number; parity: number } {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  const d = Number(date.slice(8, 10));
  const t = Date.UTC(y, m - 1, d);
  const days = Math.floor((t - MONDAY) / DAY_MS);
  const dayOfWeek = (((days % 7) + 7) % 7) + 1;
  return { month: m, dayOfWeek, parity: m % 2 };
}

/** Adds one observation's events to a counts vector (COUNTS_PER_CELL long) in its period. */
function addObservation(counts: Int32Array | number[], o: FlightObservation, parity: number): void {
  const at = parity * COUNTS_PER_PERIOD;
  counts[at + COUNT_N]! += 1;
  if (o.cancelled) counts[at + COUNT_CANCELLED]! += 1;
  else if (o.diverted) counts[at + COUNT_DIVERTED]! += 1;
  else if (o.arrDelay !== null) {
    counts[at + COUNT_OPERATED]! += 1;
    for (let j = 0; j < DELAY_THRESHOLDS.length; j++) {
      if (o.arrDelay >= DELAY_THRESHOLDS[j]!) counts[at + COUNT_DELAY0 + j]! += 1;
      else break;
    }
  }
}

interface Counter {
  cells: Map<string, Int32Array>;
  months: Map<number, Int32Array>;
  days: Map<number, Int32Array>;
  from: string;
  cutoff: string;
  legs: number;
}

function bump(map: Map<number, Int32Array>, key: number): Int32Array {
  let c = map.get(key);
  if (!c) map.set(key, (c = new Int32Array(COUNTS_PER_CELL)));
  return c;
}

function counterFrom(base: RiskArtifact | undefined): Counter {
  const counter: Counter = {
    cells: new Map(),
    months: new Map(),
    days: new Map(),
    from: '9999-12-31',
    cutoff: '0000-01-01',
    legs: 0,
  };
  if (!base) return counter;
  const { cells } = base;
  for (let i = 0; i < cells.airline.length; i++) {
    const key = `${base.airlines[cells.airline[i]!]}|${cells.flightNumber[i]}|${base.airports[cells.origin[i]!]}|${base.airports[cells.dest[i]!]}|${cells.hour[i]}`;
    counter.cells.set(key, Int32Array.from(cells.counts.slice(i * COUNTS_PER_CELL, (i + 1) * COUNTS_PER_CELL)));
  }
  for (const [k, v] of Object.entries(base.months)) counter.months.set(Number(k), Int32Array.from(v));
  for (const [k, v] of Object.entries(base.daysOfWeek)) counter.days.set(Number(k), Int32Array.from(v));
  counter.from = base.dataFrom;
  counter.cutoff = base.dataCutoff;
  counter.legs = base.legs;
  return counter;
}

/**
 * Counts observations into an artifact. With `base`, adds them to the base's counts (a refit with
 * the platform's own outcomes, without the original files). Deterministic: the same observations
 * give the same artifact, whatever their order.
 */
export async function fitArtifact(
  observations: AsyncIterable<FlightObservation> | Iterable<FlightObservation>,
  options: { version: string; base?: RiskArtifact },
): Promise<RiskArtifact> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(options.version)) {
    throw new RangeError(`version must be 1 to 64 letters, digits, '.', '_' or '-', got '${options.version}'`);
  }
  const counter = counterFrom(options.base);
  const { cells } = counter;
  for await (const o of observations) {
    const hour = Number(o.crsDepTime.slice(0, 2)) % 24;
    const key = `${o.airline}|${o.flightNumber}|${o.origin}|${o.dest}|${hour}`;
    let c = cells.get(key);
    if (!c) cells.set(key, (c = new Int32Array(COUNTS_PER_CELL)));
    const { month, dayOfWeek, parity } = calendarOf(o.flightDate);
    addObservation(c, o, parity);
    addObservation(bump(counter.months, month), o, parity);
    addObservation(bump(counter.days, dayOfWeek), o, parity);
    counter.legs++;
    if (o.flightDate < counter.from) counter.from = o.flightDate;
    if (o.flightDate > counter.cutoff) counter.cutoff = o.flightDate;
  }
  if (counter.legs === 0) throw new RangeError('no observations to fit');
  return toArtifact(counter, options.version);
}

function toArtifact(counter: Counter, version: string): RiskArtifact {
  // Merge the small flight cells into their airline–route–hour remainder (flight number 0).
  const merged = new Map<string, Int32Array>();
  for (const [key, counts] of counter.cells) {
    const [airline, , origin, dest, hour] = key.split('|') as [string, string, string, string, string];
    const legs = counts[COUNT_N]! + counts[COUNTS_PER_PERIOD + COUNT_N]!;
    const target = legs < MIN_FLIGHT_CELL_LEGS ? `${airline}|0|${origin}|${dest}|${hour}` : key;
    const into = merged.get(target);
    if (!into) merged.set(target, Int32Array.from(counts));
    else for (let i = 0; i < COUNTS_PER_CELL; i++) into[i]! += counts[i]!;
  }
  const rows = [...merged.entries()].map(([key, counts]) => {
    const [airline, flight, origin, dest, hour] = key.split('|') as [string, string, string, string, string];
    return { airline, flight: Number(flight), origin, dest, hour: Number(hour), counts };
  });
  rows.sort((a, b) =>
    a.airline !== b.airline
      ? a.airline < b.airline
        ? -1
        : 1
      : a.flight !== b.flight
        ? a.flight - b.flight
        : a.origin !== b.origin
          ? a.origin < b.origin
            ? -1
            : 1
          : a.dest !== b.dest
            ? a.dest < b.dest
              ? -1
              : 1
            : a.hour - b.hour,
  );
  const airlines = [...new Set(rows.map((r) => r.airline))].sort();
  const airports = [...new Set(rows.flatMap((r) => [r.origin, r.dest]))].sort();
  const airlineId = new Map(airlines.map((a, i) => [a, i]));
  const airportId = new Map(airports.map((a, i) => [a, i]));
  const counts: number[] = [];
  for (const r of rows) for (const c of r.counts) counts.push(c);
  const byKey = (map: Map<number, Int32Array>): Record<string, number[]> =>
    Object.fromEntries([...map.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), [...v]]));
  return {
    format: ARTIFACT_FORMAT,
    formatVersion: ARTIFACT_FORMAT_VERSION,
    version,
    dataCutoff: counter.cutoff,
    dataFrom: counter.from,
    legs: counter.legs,
    thresholds: [...DELAY_THRESHOLDS],
    minFlightCellLegs: MIN_FLIGHT_CELL_LEGS,
    airlines,
    airports,
    cells: {
      airline: rows.map((r) => airlineId.get(r.airline)!),
      flightNumber: rows.map((r) => r.flight),
      origin: rows.map((r) => airportId.get(r.origin)!),
      dest: rows.map((r) => airportId.get(r.dest)!),
      hour: rows.map((r) => r.hour),
      counts,
    },
    months: byKey(counter.months),
    daysOfWeek: byKey(counter.days),
  };
}

/** Gzip JSON, deterministic (no timestamp in the gzip header). */
export function serializeArtifact(artifact: RiskArtifact): Buffer {
  return gzipSync(Buffer.from(JSON.stringify(artifact)), { level: 9 });
}

/** A model artifact that fails validation; the message says what is wrong. */
export class ArtifactFormatError extends Error {
  constructor(message: string) {
    super(`not a valid Parasol risk model: ${message}`);
    this.name = 'ArtifactFormatError';
  }
}

const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

/** Checks the counts vector starting at `offset` of `v` (COUNTS_PER_CELL counts), without copying it. */
function checkCounts(v: readonly unknown[], offset: number, what: string): void {
  for (let i = 0; i < COUNTS_PER_CELL; i++)
    if (!isCount(v[offset + i])) throw new ArtifactFormatError(`${what} must hold ${COUNTS_PER_CELL} counts`);
  const c = v as readonly number[];
  for (let p = 0; p < PERIODS; p++) {
    const at = offset + p * COUNTS_PER_PERIOD;
    let ok =
      c[at + COUNT_CANCELLED]! + c[at + COUNT_DIVERTED]! + c[at + COUNT_OPERATED]! <= c[at + COUNT_N]! &&
      c[at + COUNT_DELAY0]! <= c[at + COUNT_OPERATED]!;
    for (let j = COUNT_DELAY0 + 1; ok && j < COUNTS_PER_PERIOD; j++) ok = c[at + j]! <= c[at + j - 1]!;
    if (!ok) throw new ArtifactFormatError(`${what} has inconsistent counts`);
  }
}

function checkCountsVector(v: unknown, what: string): void {
  if (!Array.isArray(v) || v.length !== COUNTS_PER_CELL)
    throw new ArtifactFormatError(`${what} must hold ${COUNTS_PER_CELL} counts`);
  checkCounts(v, 0, what);
}

/** Parses and validates an artifact (gzip JSON, or plain JSON). */
export function parseArtifact(bytes: Buffer): RiskArtifact {
  let json: unknown;
  try {
    const text = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
    json = JSON.parse(text);
  } catch (error) {
    throw new ArtifactFormatError(`cannot read it as gzip JSON (${(error as Error).message})`);
  }
  const a = json as Partial<RiskArtifact>;
  if (typeof a !== 'object' || a === null || a.format !== ARTIFACT_FORMAT)
    throw new ArtifactFormatError(`format must be '${ARTIFACT_FORMAT}'`);
  if (a.formatVersion !== ARTIFACT_FORMAT_VERSION)
    throw new ArtifactFormatError(
      `formatVersion ${String(a.formatVersion)} is not supported (expected ${ARTIFACT_FORMAT_VERSION})`,
    );
  if (typeof a.version !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(a.version))
    throw new ArtifactFormatError('version is missing or malformed');
  for (const field of ['dataCutoff', 'dataFrom'] as const) {
    if (typeof a[field] !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(a[field]))
      throw new ArtifactFormatError(`${field} must be YYYY-MM-DD`);
  }
  if (!isCount(a.legs)) throw new ArtifactFormatError('legs must be a count');
  if (JSON.stringify(a.thresholds) !== JSON.stringify(DELAY_THRESHOLDS))
    throw new ArtifactFormatError(`thresholds must be ${DELAY_THRESHOLDS.join(',')}`);
  if (!isCount(a.minFlightCellLegs)) throw new ArtifactFormatError('minFlightCellLegs must be a count');
  if (!Array.isArray(a.airlines) || !a.airlines.every((x) => typeof x === 'string' && /^[A-Z0-9]{2}$/.test(x)))
    throw new ArtifactFormatError('airlines must be IATA codes');
  if (!Array.isArray(a.airports) || !a.airports.every((x) => typeof x === 'string' && /^[A-Z]{3}$/.test(x)))
    throw new ArtifactFormatError('airports must be IATA codes');
  const cells = a.cells;
  if (typeof cells !== 'object' || cells === null) throw new ArtifactFormatError('cells are missing');
  const n = Array.isArray(cells.airline) ? cells.airline.length : -1;
  const columns = [
    ['airline', a.airlines.length],
    ['origin', a.airports.length],
    ['dest', a.airports.length],
    ['hour', 24],
    ['flightNumber', 10_000],
  ] as const;
  for (const [column, bound] of columns) {
    const values = cells[column];
    if (!Array.isArray(values) || values.length !== n || !values.every((v) => isCount(v) && v < bound))
      throw new ArtifactFormatError(`cells.${column} must hold ${n} ids below ${bound}`);
  }
  if (!Array.isArray(cells.counts) || cells.counts.length !== n * COUNTS_PER_CELL)
    throw new ArtifactFormatError(`cells.counts must hold ${COUNTS_PER_CELL} counts per cell`);
  for (let i = 0; i < n; i++) checkCounts(cells.counts, i * COUNTS_PER_CELL, `cell ${i}`);
  for (const [field, max] of [
    ['months', 12],
    ['daysOfWeek', 7],
  ] as const) {
    const table = a[field];
    if (typeof table !== 'object' || table === null) throw new ArtifactFormatError(`${field} is missing`);
    for (const [k, v] of Object.entries(table)) {
      if (!/^\d{1,2}$/.test(k) || Number(k) < 1 || Number(k) > max)
        throw new ArtifactFormatError(`${field} key '${k}' is out of range`);
      checkCountsVector(v, `${field}.${k}`);
    }
  }
  return a as RiskArtifact;
}
