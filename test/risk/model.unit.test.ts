import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import type { LegFacts, RiskModel } from '../../src/flight/risk-model.ts';
import {
  ArtifactFormatError,
  defaultRiskArtifact,
  fitArtifact,
  fitV2,
  parseArtifact,
  readHistory,
  riskModelFromArtifact,
  serializeArtifact,
  UnpriceableLegError,
  type FlightObservation,
  type RiskArtifact,
} from '../../src/risk/index.ts';
import { COUNT_DELAY0, COUNTS_PER_CELL, COUNTS_PER_PERIOD } from '../../src/risk/artifact.ts';
import { buhlmannK } from '../../src/risk/risk-model-v2.ts';

/** Risk model v2: artifact, credibility, refit, and the invariants the pricing relies on. */

const SAMPLE = path.join(fileURLToPath(new URL('../fixtures/risk/', import.meta.url)), 'bts-2008q1-sample.csv.gz');

let rows: FlightObservation[];
let artifact: RiskArtifact;
let model: RiskModel;

before(async () => {
  rows = [];
  for await (const o of readHistory([SAMPLE])) rows.push(o);
  artifact = await fitArtifact(rows, { version: 'v2-test' });
  model = riskModelFromArtifact(artifact);
});

const leg = (over: Partial<LegFacts> = {}): LegFacts => ({
  departureAirport: 'SAT',
  arrivalAirport: 'LAX',
  airline: 'OO',
  departureLocal: '2027-01-15T19:05',
  ...over,
});
const product = (x: { base: number; factors: readonly { factor: number }[] }): number =>
  x.factors.reduce((p, f) => p * f.factor, x.base);

describe('artifact', () => {
  it('holds counts, its version and data cut-off, and survives serialisation', () => {
    assert.equal(artifact.format, 'parasol-risk');
    assert.equal(artifact.version, 'v2-test');
    assert.equal(artifact.dataFrom, '2008-01-01');
    assert.equal(artifact.dataCutoff, '2008-03-31');
    assert.equal(artifact.legs, rows.length);
    assert.deepEqual(parseArtifact(serializeArtifact(artifact)), artifact);
  });

  it('is deterministic: the same observations in another order give the same bytes', async () => {
    const again = await fitArtifact([...rows].reverse(), { version: 'v2-test' });
    assert.ok(serializeArtifact(again).equals(serializeArtifact(artifact)));
  });

  it('refuses what is not a valid artifact', () => {
    assert.throws(() => parseArtifact(Buffer.from('not json')), ArtifactFormatError);
    assert.throws(
      () => parseArtifact(Buffer.from(JSON.stringify({ ...artifact, formatVersion: 99 }))),
      /formatVersion/,
    );
    const broken = structuredClone(artifact);
    broken.cells.counts[1] = broken.cells.counts[0]! + 1; // more cancellations than legs
    assert.throws(() => parseArtifact(Buffer.from(JSON.stringify(broken))), /inconsistent/);
    assert.throws(() => parseArtifact(Buffer.from(JSON.stringify({ ...artifact, airports: ['lax'] }))), /airports/);
    // A later cell, second period: a delay count above the one before it, and a count that is not an integer.
    const rising = structuredClone(artifact);
    const at = 2 * COUNTS_PER_CELL + COUNTS_PER_PERIOD + COUNT_DELAY0 + 3; // cell 2, period 1, threshold 3 (45 min)
    rising.cells.counts[at] = rising.cells.counts[at - 1]! + 1;
    assert.throws(() => parseArtifact(Buffer.from(JSON.stringify(rising))), /cell 2 has inconsistent counts/);
    const fractional = structuredClone(artifact);
    fractional.cells.counts[3 * COUNTS_PER_CELL + 5] = 0.5;
    assert.throws(
      () => parseArtifact(Buffer.from(JSON.stringify(fractional))),
      new RegExp(`cell 3 must hold ${COUNTS_PER_CELL} counts`),
    );
  });

  it('refuses an empty history and a malformed version name', async () => {
    await assert.rejects(fitArtifact([], { version: 'v2' }), /no observations/);
    await assert.rejects(fitArtifact(rows, { version: '../evil' }), /version/);
  });

  it('ships a default model fitted on the three shared months', () => {
    const shipped = defaultRiskArtifact();
    assert.equal(shipped.version, 'v2-2008q1');
    assert.equal(shipped.legs, 1_791_091);
    assert.equal(shipped.dataCutoff, '2008-03-31');
    assert.equal(riskModelFromArtifact(shipped).version, 'v2-2008q1');
    // Built once per artifact: every app of a process shares the shipped model.
    assert.equal(riskModelFromArtifact(shipped), riskModelFromArtifact(defaultRiskArtifact()));
  });
});

describe('Bühlmann–Straub K', () => {
  it('is infinite when groups differ no more than noise, finite when they do', () => {
    // Two groups, two periods each: identical rates → no credible difference.
    const same = buhlmannK(Float64Array.from([10, 10, 10, 10]), Float64Array.from([10, 10, 10, 10]), 2, 1);
    assert.equal(same, Number.POSITIVE_INFINITY);
    const apart = buhlmannK(Float64Array.from([5, 5, 40, 40]), Float64Array.from([20, 20, 20, 20]), 2, 1);
    assert.ok(Number.isFinite(apart) && apart > 0);
  });
});

describe('probabilities (properties)', () => {
  const airports = ['SAT', 'LAX', 'ORD', 'LGA', 'ATL', 'SLC', 'BOI', 'CDG', 'JFK', 'DEN'];
  const airlines = ['OO', 'AA', 'WN', 'UA', 'AF', 'DL'];
  const legArb = fc
    .record({
      departureAirport: fc.constantFrom(...airports),
      arrivalAirport: fc.constantFrom(...airports),
      airline: fc.constantFrom(...airlines),
      date: fc.date({
        min: new Date('2026-01-01T00:00:00Z'),
        max: new Date('2028-12-31T00:00:00Z'),
        noInvalidDate: true,
      }),
      hour: fc.integer({ min: 0, max: 23 }),
      minute: fc.integer({ min: 0, max: 59 }),
      flight: fc.option(fc.integer({ min: 1, max: 9999 })),
    })
    .filter((l) => l.departureAirport !== l.arrivalAirport)
    .map((l): LegFacts => ({
      departureAirport: l.departureAirport,
      arrivalAirport: l.arrivalAirport,
      airline: l.airline,
      departureLocal: `${l.date.toISOString().slice(0, 10)}T${String(l.hour).padStart(2, '0')}:${String(l.minute).padStart(2, '0')}`,
      ...(l.flight === null ? {} : { flightNumber: `${l.airline}${l.flight}` }),
    }));
  const minutesArb = fc.array(fc.integer({ min: 0, max: 1500 }), { minLength: 2, maxLength: 6 });

  it('are in [0, 1], the delay survival is non-increasing, and the events are disjoint', () => {
    fc.assert(
      fc.property(legArb, minutesArb, (l, minutes) => {
        const p = model.probabilities(l);
        const c = p.cancellation.toNumber();
        const d = p.diversion.toNumber();
        const sorted = [...minutes].sort((a, b) => a - b);
        const s = sorted.map((m) => p.delayAtLeast(m).toNumber());
        for (const x of [c, d, ...s, p.credibility]) assert.ok(x >= 0 && x <= 1, `${x} outside [0, 1]`);
        for (let i = 1; i < s.length; i++)
          assert.ok(s[i]! <= s[i - 1]!, `survival rises between ${sorted[i - 1]} and ${sorted[i]} min`);
        assert.ok(c + d + p.delayAtLeast(0).toNumber() <= 1 + 1e-12);
      }),
      { numRuns: 300 },
    );
  });

  it('each explanation multiplies out to its probability', () => {
    fc.assert(
      fc.property(legArb, fc.integer({ min: 0, max: 900 }), (l, m) => {
        const p = model.probabilities(l);
        for (const event of ['cancellation', 'diversion', { delayAtLeast: m }] as const) {
          const x = p.explain(event);
          const expected =
            event === 'cancellation'
              ? p.cancellation.toNumber()
              : event === 'diversion'
                ? p.diversion.toNumber()
                : p.delayAtLeast(m).toNumber();
          assert.ok(
            Math.abs(product(x) - x.probability) <= 1e-9 * Math.max(x.probability, 1e-12),
            `${product(x)} ≠ ${x.probability}`,
          );
          assert.ok(Math.abs(x.probability - expected) <= 1e-9 * Math.max(expected, 1e-12));
          for (const f of x.factors)
            assert.ok(f.factor > 0 && f.credibility >= 0 && f.credibility <= 1 && f.label.length > 0);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('credibility', () => {
  it('shapes the delay curve per leg, not one global curve scaled', () => {
    const a = model.probabilities(
      leg({ departureAirport: 'ORD', arrivalAirport: 'LGA', airline: 'AA', departureLocal: '2027-02-10T17:30' }),
    );
    const b = model.probabilities(
      leg({ departureAirport: 'SLC', arrivalAirport: 'BOI', airline: 'OO', departureLocal: '2027-02-10T07:30' }),
    );
    const ratio = (p: typeof a, m: number): number => p.delayAtLeast(m).toNumber() / p.delayAtLeast(15).toNumber();
    assert.notEqual(ratio(a, 180).toFixed(4), ratio(b, 180).toFixed(4));
  });

  it('an airline absent from the data prices from priors with low credibility; a leg flown often has more', () => {
    const unknown = model.probabilities(
      leg({ departureAirport: 'CDG', arrivalAirport: 'JFK', airline: 'AF', flightNumber: 'AF6' }),
    );
    const known = model.probabilities(leg());
    assert.ok(unknown.credibility < 0.1, `credibility ${unknown.credibility}`);
    assert.ok(known.credibility > unknown.credibility);
    const labels = unknown.explain('cancellation').factors.map((f) => f.label);
    assert.ok(labels.includes('long-haul (prior)'), labels.join(', '));
    assert.ok(labels.includes('month 1'));
    assert.ok(unknown.explain('cancellation').factors.find((f) => f.label === 'long-haul (prior)')!.credibility === 0);
  });

  it('a month without data uses the documented season prior, labelled as such', () => {
    const july = model.probabilities(leg({ departureLocal: '2027-07-15T19:05' })).explain('cancellation');
    assert.ok(july.factors.some((f) => f.label === 'month 7 (prior)' && f.credibility === 0));
  });

  it('more data on a route gives it more credibility (Z grows with volume)', async () => {
    const route = rows.filter((r) => r.origin === 'SAT' && r.dest === 'LAX' && r.airline === 'OO');
    assert.ok(route.length > 20);
    // The same route flown in three more years with the same outcomes.
    const more = [1, 2, 3].flatMap((y) =>
      route.map((r) => ({ ...r, flightDate: `${2008 + y}${r.flightDate.slice(4)}` })),
    );
    const bigger = riskModelFromArtifact(await fitArtifact(more, { version: 'v2-more', base: artifact }));
    const z = (m: RiskModel) =>
      m
        .probabilities(leg())
        .explain({ delayAtLeast: 15 })
        .factors.find((f) => f.label === 'from SAT')?.credibility ?? 0;
    assert.ok(z(model) > 0 && z(bigger) > z(model), `${z(bigger)} ≤ ${z(model)}`);
    assert.ok(bigger.probabilities(leg()).credibility > model.probabilities(leg()).credibility);
  });

  it('a refit with the platform’s own outcomes adds them to the counts and moves the estimate', async () => {
    const before = model.probabilities(leg()).cancellation.toNumber();
    const outcomes: FlightObservation[] = Array.from({ length: 60 }, (_, i) => ({
      flightDate: `2008-01-${String((i % 28) + 1).padStart(2, '0')}`,
      airline: 'OO',
      flightNumber: '6543',
      origin: 'SAT',
      dest: 'LAX',
      crsDepTime: '1905',
      cancelled: i % 3 === 0,
      diverted: false,
      arrDelay: i % 3 === 0 ? null : 20,
    }));
    const refit = await fitArtifact(outcomes, { version: 'v2-refit', base: artifact });
    assert.equal(refit.legs, artifact.legs + 60);
    assert.equal(refit.dataCutoff, artifact.dataCutoff);
    const after = riskModelFromArtifact(refit)
      .probabilities(leg({ flightNumber: 'OO6543' }))
      .cancellation.toNumber();
    assert.ok(after > before * 1.2, `${after} vs ${before}`);
  });

  it('cannot price an airport known neither to the data nor to the airport reference', () => {
    assert.throws(() => model.probabilities(leg({ arrivalAirport: 'QQQ' })), UnpriceableLegError);
    assert.throws(() => model.probabilities(leg({ departureLocal: '2027-1-5T10:00' })), RangeError);
  });

  it('estimates credibility weights from the data, per level and event', () => {
    const fit = fitV2(artifact);
    assert.ok(fit.levels.airline.k.some((k) => Number.isFinite(k) && k > 0));
    assert.equal(fit.levels.flight.k.length, fit.global.length);
  });

  it('fits diversions at the coarse levels only: below the airports their factor is 1 with credibility 0', () => {
    const fit = fitV2(artifact);
    const DIVERT = 1;
    for (const level of ['airline-origin', 'airline-dest', 'route', 'flight'] as const) {
      assert.equal(fit.levels[level].k[DIVERT], Number.POSITIVE_INFINITY, level);
      for (const [key, f] of fit.levels[level].factors) {
        assert.equal(f[DIVERT], 1, `${level} ${key}`);
        assert.equal(fit.levels[level].credibility.get(key)![DIVERT], 0);
      }
    }
    // Other events are still fitted below the airports, and the explanation still multiplies out.
    assert.ok(fit.levels.flight.k.some((k, e) => e !== DIVERT && Number.isFinite(k)));
    const x = model.probabilities(leg()).explain('diversion');
    assert.ok(Math.abs(product(x) - x.probability) < 1e-12);
    assert.ok(x.factors.every((f) => !/ on | into | at /.test(f.label) || f.factor === 1));
  });
});
