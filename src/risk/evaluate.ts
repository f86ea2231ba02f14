import { Decimal } from 'decimal.js';
import { coverageFor, type Coverage } from '../partners/index.ts';
import { priceLeg, type LegProbabilities, type PricingTerms } from '../flight/index.ts';
import { calendarOf } from './artifact.ts';
import type { FlightObservation } from './history.ts';
import { predictLeg, survivalAt, UnpriceableLegError, type FittedV2, type LegKey } from './risk-model-v2.ts';

/**
 * Scoring a model on history it was not fitted on: actual ÷ expected (overall, by decile of predicted
 * probability, by airline), AUC, log loss against the global-average baseline, and the loss ratio the
 * demo configuration would have run per airline, priced with the real premium formula (pricing.ts).
 */

/** The events scored, as in `parasol risk predict`. */
export const SCORED_EVENTS = ['cancelled', 'diverted', 'delay_60', 'delay_120', 'delay_180'] as const;
export type ScoredEvent = (typeof SCORED_EVENTS)[number];

/** The demo partner's configuration (src/partners/seed.ts): the loss ratio is that of this product. */
export const EVALUATION_TERMS: PricingTerms = {
  coverage: coverageFor(
    'delay_and_cancellation',
    [
      { minDelayMinutes: 120, amount: 5_000 },
      { minDelayMinutes: 180, amount: 10_000 },
      { minDelayMinutes: 300, amount: 20_000 },
    ],
    25_000,
  ),
  commissionRate: '0.2',
  taxRate: '0.09',
};

/** The observation in the model's terms. */
export function legKeyOfObservation(o: FlightObservation): LegKey {
  const { month, dayOfWeek } = calendarOf(o.flightDate);
  return {
    airline: o.airline,
    flightNumber: Number(o.flightNumber) || null,
    origin: o.origin,
    dest: o.dest,
    hour: Number(o.crsDepTime.slice(0, 2)) % 24,
    month,
    dayOfWeek,
  };
}

/** The five predicted probabilities of an observation, or null when the model cannot price it. */
export function predictObservation(fit: FittedV2, o: FlightObservation): Record<ScoredEvent, number> | null {
  let p;
  try {
    p = predictLeg(fit, legKeyOfObservation(o));
  } catch (error) {
    if (error instanceof UnpriceableLegError) return null;
    throw error;
  }
  return {
    cancelled: p.cancellation,
    diverted: p.diversion,
    delay_60: survivalAt(p.survival, 60),
    delay_120: survivalAt(p.survival, 120),
    delay_180: survivalAt(p.survival, 180),
  };
}

function outcome(o: FlightObservation, event: ScoredEvent): number | null {
  switch (event) {
    case 'cancelled':
      return o.cancelled ? 1 : 0;
    case 'diverted':
      return o.diverted ? 1 : 0;
    default: {
      if (o.cancelled || o.diverted) return 0;
      if (o.arrDelay === null) return null; // operated, delay unknown: not scored
      return o.arrDelay >= Number(event.slice(6)) ? 1 : 0;
    }
  }
}

/** What the demo configuration pays a passenger for this observation, in minor units. */
export function payoutOf(o: FlightObservation, coverage: Coverage): number {
  if (o.cancelled || o.diverted) return coverage.cancellationAmount;
  if (o.arrDelay === null) return 0;
  let paid = 0;
  for (const tier of coverage.delayTiers) if (o.arrDelay >= tier.minDelayMinutes) paid = tier.amount;
  return paid;
}

export interface AeRow {
  label: string;
  legs: number;
  actual: number;
  expected: number;
  /** actual ÷ expected; null when nothing was expected. */
  ae: number | null;
}

export interface EventScore {
  event: ScoredEvent;
  legs: number;
  actual: number;
  expected: number;
  ae: number | null;
  auc: number | null;
  logLoss: number;
  baselineLogLoss: number;
  /** 1 − logLoss / baselineLogLoss: share of the baseline's log loss the model removes. */
  logLossGain: number;
  deciles: AeRow[];
  airlines: AeRow[];
  /** Standard deviation of A/E across the airlines with at least 1 expected event. */
  airlineAeStd: number | null;
}

export interface LossRatioRow {
  airline: string;
  legs: number;
  /** Net premium (incl. commission) and payouts, per passenger, major units. */
  premium: number;
  paid: number;
  lossRatio: number | null;
}

export interface Evaluation {
  model: string;
  legs: number;
  unpriced: number;
  events: EventScore[];
  lossRatio: { total: LossRatioRow; airlines: LossRatioRow[] };
}

/** Area under the ROC curve (midranks for ties); null without both outcomes. */
export function auc(p: Float64Array, y: Uint8Array): number | null {
  const n = p.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => p[a]! - p[b]!);
  let positives = 0;
  let rankSum = 0;
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && p[order[j + 1]!] === p[order[i]!]) j++;
    const midrank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) {
      if (y[order[k]!]) {
        positives++;
        rankSum += midrank;
      }
    }
    i = j + 1;
  }
  const negatives = n - positives;
  if (positives === 0 || negatives === 0) return null;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

function logLoss(p: number, y: number): number {
  const q = Math.min(1 - 1e-12, Math.max(1e-12, p));
  return -(y ? Math.log(q) : Math.log(1 - q));
}

const ratio = (a: number, e: number): number | null => (e > 0 ? a / e : null);

function scoreEvent(
  event: ScoredEvent,
  p: Float64Array,
  y: Uint8Array,
  airline: string[],
  baseline: number,
): EventScore {
  const n = p.length;
  let actual = 0;
  let expected = 0;
  let ll = 0;
  let llBase = 0;
  for (let i = 0; i < n; i++) {
    actual += y[i]!;
    expected += p[i]!;
    ll += logLoss(p[i]!, y[i]!);
    llBase += logLoss(baseline, y[i]!);
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => p[a]! - p[b]!);
  const deciles: AeRow[] = [];
  for (let d = 0; d < 10; d++) {
    const from = Math.floor((d * n) / 10);
    const to = Math.floor(((d + 1) * n) / 10);
    let a = 0;
    let e = 0;
    for (let k = from; k < to; k++) {
      a += y[order[k]!]!;
      e += p[order[k]!]!;
    }
    deciles.push({ label: String(d + 1), legs: to - from, actual: a, expected: e, ae: ratio(a, e) });
  }
  const byAirline = new Map<string, { legs: number; a: number; e: number }>();
  for (let i = 0; i < n; i++) {
    let row = byAirline.get(airline[i]!);
    if (!row) byAirline.set(airline[i]!, (row = { legs: 0, a: 0, e: 0 }));
    row.legs++;
    row.a += y[i]!;
    row.e += p[i]!;
  }
  const airlines = [...byAirline.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([label, r]) => ({ label, legs: r.legs, actual: r.a, expected: r.e, ae: ratio(r.a, r.e) }));
  const aes = airlines.filter((r) => r.expected >= 1).map((r) => r.ae!);
  const mean = aes.reduce((s, x) => s + x, 0) / aes.length;
  const airlineAeStd = aes.length >= 2 ? Math.sqrt(aes.reduce((s, x) => s + (x - mean) ** 2, 0) / aes.length) : null;
  return {
    event,
    legs: n,
    actual,
    expected,
    ae: ratio(actual, expected),
    auc: auc(p, y),
    logLoss: ll / n,
    baselineLogLoss: llBase / n,
    logLossGain: 1 - ll / llBase,
    deciles,
    airlines,
    airlineAeStd,
  };
}

/** Growable typed arrays for one event's predictions and outcomes. */
class Column {
  p = new Float64Array(1 << 16);
  y = new Uint8Array(1 << 16);
  airline: string[] = [];
  length = 0;
  push(p: number, y: number, airline: string): void {
    if (this.length === this.p.length) {
      const p2 = new Float64Array(this.p.length * 2);
      p2.set(this.p);
      this.p = p2;
      const y2 = new Uint8Array(this.y.length * 2);
      y2.set(this.y);
      this.y = y2;
    }
    this.p[this.length] = p;
    this.y[this.length] = y;
    this.airline.push(airline);
    this.length++;
  }
}

/** Scores `fit` on observations; `baseline` gives the global-average probability of each event. */
export async function evaluateModel(
  fit: FittedV2,
  observations: AsyncIterable<FlightObservation> | Iterable<FlightObservation>,
  baseline: Record<ScoredEvent, number>,
): Promise<Evaluation> {
  const columns = Object.fromEntries(SCORED_EVENTS.map((e) => [e, new Column()])) as Record<ScoredEvent, Column>;
  const premiums = new Map<string, number>();
  const loss = new Map<string, { legs: number; premium: number; paid: number }>();
  let legs = 0;
  let unpriced = 0;
  for await (const o of observations) {
    legs++;
    const key = legKeyOfObservation(o);
    let predicted;
    try {
      predicted = predictLeg(fit, key);
    } catch (error) {
      if (error instanceof UnpriceableLegError) {
        unpriced++;
        continue;
      }
      throw error;
    }
    const probabilities: Record<ScoredEvent, number> = {
      cancelled: predicted.cancellation,
      diverted: predicted.diversion,
      delay_60: survivalAt(predicted.survival, 60),
      delay_120: survivalAt(predicted.survival, 120),
      delay_180: survivalAt(predicted.survival, 180),
    };
    for (const event of SCORED_EVENTS) {
      const y = outcome(o, event);
      if (y !== null) columns[event].push(probabilities[event], y, o.airline);
    }
    // The premium the demo configuration would have charged, with the real pricing functions.
    const priceKey = `${key.airline}|${key.flightNumber}|${key.origin}|${key.dest}|${key.hour}|${key.month}|${key.dayOfWeek}`;
    let net = premiums.get(priceKey);
    if (net === undefined) {
      const legProbabilities: LegProbabilities = {
        cancellation: new Decimal(predicted.cancellation),
        diversion: new Decimal(predicted.diversion),
        delayAtLeast: (m) => new Decimal(survivalAt(predicted.survival, m)),
        credibility: predicted.credibility,
        explain: () => {
          throw new Error('not needed to price');
        },
      };
      net = priceLeg(legProbabilities, EVALUATION_TERMS).net;
      premiums.set(priceKey, net);
    }
    let row = loss.get(o.airline);
    if (!row) loss.set(o.airline, (row = { legs: 0, premium: 0, paid: 0 }));
    row.legs++;
    row.premium += net;
    row.paid += payoutOf(o, EVALUATION_TERMS.coverage);
  }
  const events = SCORED_EVENTS.map((event) => {
    const c = columns[event];
    return scoreEvent(event, c.p.subarray(0, c.length), c.y.subarray(0, c.length), c.airline, baseline[event]);
  });
  const lossRow = (airline: string, r: { legs: number; premium: number; paid: number }): LossRatioRow => ({
    airline,
    legs: r.legs,
    premium: r.premium / 100,
    paid: r.paid / 100,
    lossRatio: r.premium > 0 ? r.paid / r.premium : null,
  });
  const total = [...loss.values()].reduce(
    (s, r) => ({ legs: s.legs + r.legs, premium: s.premium + r.premium, paid: s.paid + r.paid }),
    { legs: 0, premium: 0, paid: 0 },
  );
  return {
    model: fit.version,
    legs,
    unpriced,
    events,
    lossRatio: {
      total: lossRow('all', total),
      airlines: [...loss.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([a, r]) => lossRow(a, r)),
    },
  };
}

const pct = (x: number | null, digits = 1): string => (x === null ? '-' : `${(x * 100).toFixed(digits)} %`);
const num = (x: number | null, digits = 2): string => (x === null ? '-' : x.toFixed(digits));

/** The evaluation as text tables (markdown-compatible), as `parasol risk evaluate` prints it. */
export function evaluationLines(ev: Evaluation): string[] {
  const lines: string[] = [];
  lines.push(`Model ${ev.model}: ${ev.legs} legs scored, ${ev.unpriced} not priceable (unknown airport).`, '');
  lines.push('| event | legs | actual | expected | A/E | AUC | log loss | baseline | gain | A/E std across airlines |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const e of ev.events) {
    lines.push(
      `| ${e.event} | ${e.legs} | ${e.actual} | ${e.expected.toFixed(1)} | ${num(e.ae)} | ${num(e.auc, 3)} | ${e.logLoss.toFixed(5)} | ${e.baselineLogLoss.toFixed(5)} | ${pct(e.logLossGain)} | ${num(e.airlineAeStd, 3)} |`,
    );
  }
  lines.push('', 'A/E by decile of predicted probability (1 = lowest):', '');
  lines.push(`| event | ${ev.events[0]!.deciles.map((d) => d.label).join(' | ')} |`);
  lines.push(`|---|${ev.events[0]!.deciles.map(() => '---:').join('|')}|`);
  for (const e of ev.events) lines.push(`| ${e.event} | ${e.deciles.map((d) => num(d.ae)).join(' | ')} |`);
  lines.push('', 'A/E by airline:', '');
  const airlines = ev.events[0]!.airlines.map((a) => a.label);
  lines.push(`| airline | legs | ${ev.events.map((e) => e.event).join(' | ')} |`);
  lines.push(`|---|---:|${ev.events.map(() => '---:').join('|')}|`);
  for (const a of airlines) {
    const legs = ev.events[0]!.airlines.find((r) => r.label === a)!.legs;
    lines.push(
      `| ${a} | ${legs} | ${ev.events.map((e) => num(e.airlines.find((r) => r.label === a)?.ae ?? null)).join(' | ')} |`,
    );
  }
  lines.push('', 'Loss ratio of the demo configuration (payouts ÷ net premium incl. commission, per passenger):', '');
  lines.push('| airline | legs | premium | paid | loss ratio |', '|---|---:|---:|---:|---:|');
  for (const r of [...ev.lossRatio.airlines, ev.lossRatio.total]) {
    lines.push(`| ${r.airline} | ${r.legs} | ${r.premium.toFixed(2)} | ${r.paid.toFixed(2)} | ${pct(r.lossRatio)} |`);
  }
  return lines;
}
