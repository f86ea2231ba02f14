import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { coverageFor, FORMULAS } from '../../src/partners/coverage.ts';
import {
  checkStopSales,
  defaultCap,
  maxPayoutPerPassenger,
  stopSaleMatches,
  stopSaleState,
  StopSaleIndex,
  type StopSaleScope,
} from '../../src/limits/limits.ts';
import { DomainError } from '../../src/platform/errors.ts';

/** The pure part of the limits: the most a leg pays, the default cap, stop-sale matching. */

describe('maxPayoutPerPassenger', () => {
  const tiers = [
    { minDelayMinutes: 120, amount: 5_000 },
    { minDelayMinutes: 180, amount: 20_000 },
  ];
  it('is the highest of what the formula covers', () => {
    assert.equal(maxPayoutPerPassenger(coverageFor('delay_and_cancellation', tiers, 15_000)), 20_000);
    assert.equal(maxPayoutPerPassenger(coverageFor('delay_and_cancellation', tiers, 25_000)), 25_000);
    assert.equal(maxPayoutPerPassenger(coverageFor('delay', tiers, 25_000)), 20_000, 'cancellation not covered');
    assert.equal(
      maxPayoutPerPassenger({ formula: 'cancellation', delayTiers: tiers, cancellationAmount: 15_000 }),
      15_000,
      'tiers ignored when delay is not covered',
    );
  });

  it('bounds every payout the claim rules can make (cancellation, diversion, any tier reached)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMULAS),
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { maxLength: 5 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (formula, amounts, cancellation) => {
          const sorted = [...amounts].sort((a, b) => a - b);
          const coverage = coverageFor(
            formula,
            sorted.map((amount, i) => ({ minDelayMinutes: 15 * (i + 1), amount })),
            cancellation,
          );
          const max = maxPayoutPerPassenger(coverage);
          const highestTier = coverage.delayTiers.reduce((m, t) => Math.max(m, t.amount), 0);
          const diversion = formula === 'delay' ? highestTier : coverage.cancellationAmount;
          for (const payout of [coverage.cancellationAmount, diversion, ...coverage.delayTiers.map((t) => t.amount)])
            assert.ok(payout <= max);
          assert.ok([0, coverage.cancellationAmount, highestTier].includes(max), 'and is one of them');
        },
      ),
    );
  });
});

describe('defaultCap', () => {
  it('is 100,000 in the major unit of the currency', () => {
    assert.equal(defaultCap('EUR'), 10_000_000);
    assert.equal(defaultCap('JPY'), 100_000);
    assert.equal(defaultCap('KWD'), 100_000_000);
  });
});

describe('stop-sales', () => {
  const leg = {
    airline: 'AF',
    departureAirport: 'CDG',
    arrivalAirport: 'JFK',
    departureLocal: '2026-12-03T10:30',
    departureAt: new Date('2026-12-03T09:30:00Z'),
  };
  const stop = (scope: Partial<StopSaleScope>): StopSaleScope => ({
    id: 'x',
    environment: null,
    airline: null,
    airport: null,
    departureAirport: null,
    arrivalAirport: null,
    startsAt: new Date('2026-12-03T00:00:00Z'),
    endsAt: new Date('2026-12-04T00:00:00Z'),
    reason: 'strike',
    createdAt: new Date('2026-11-01T00:00:00Z'),
    ...scope,
  });

  it('covers a leg that matches every scope given and departs within [startsAt, endsAt)', () => {
    assert.ok(stopSaleMatches(stop({ airline: 'AF' }), 'production', leg));
    assert.ok(stopSaleMatches(stop({ airport: 'JFK' }), 'production', leg), 'an airport at either end');
    assert.ok(
      stopSaleMatches(stop({ departureAirport: 'CDG', arrivalAirport: 'JFK', airline: 'AF' }), 'production', leg),
    );
    assert.ok(
      !stopSaleMatches(stop({ departureAirport: 'JFK', arrivalAirport: 'CDG' }), 'production', leg),
      'a route has a direction',
    );
    assert.ok(!stopSaleMatches(stop({ airline: 'AF', airport: 'ORY' }), 'production', leg), 'every scope must match');
    assert.ok(!stopSaleMatches(stop({ airline: 'AF', environment: 'sandbox' }), 'production', leg));
    assert.ok(stopSaleMatches(stop({ airline: 'AF', startsAt: leg.departureAt }), 'production', leg), 'start included');
    assert.ok(!stopSaleMatches(stop({ airline: 'AF', endsAt: leg.departureAt }), 'production', leg), 'end excluded');
  });

  it('without an end covers every departure from its start on, says so in the 409, and is past once resumed', () => {
    const open = stop({ airline: 'AF', endsAt: null });
    const years = { ...leg, departureAt: new Date('2031-06-01T10:00:00Z') };
    assert.ok(stopSaleMatches(open, 'production', years));
    assert.ok(!stopSaleMatches(open, 'production', { ...leg, departureAt: new Date('2026-12-02T23:59:00Z') }));
    assert.throws(
      () => checkStopSales(new StopSaleIndex([open]), 'production', [years]),
      (e: unknown) =>
        e instanceof DomainError && /departures from 2026-12-03T00:00:00\.000Z until sales resume/.test(e.detail),
    );
    const before = new Date('2026-12-01T00:00:00Z');
    const during = new Date('2027-01-01T00:00:00Z');
    assert.equal(stopSaleState({ ...open, resumedAt: null }, before), 'future');
    assert.equal(stopSaleState({ ...open, resumedAt: null }, during), 'current');
    assert.equal(stopSaleState({ ...open, resumedAt: during }, during), 'past');
    assert.equal(stopSaleState({ ...stop({}), resumedAt: null }, during), 'past', 'a period that has passed');
  });

  it('answers sales_suspended naming the leg and the reason, with the field of the leg', () => {
    const back = {
      ...leg,
      departureAirport: 'JFK',
      arrivalAirport: 'CDG',
      departureAt: new Date('2026-12-03T20:00:00Z'),
    };
    assert.doesNotThrow(() => checkStopSales(new StopSaleIndex([stop({ airport: 'ORY' })]), 'production', [leg, back]));
    assert.throws(
      () =>
        checkStopSales(new StopSaleIndex([stop({ departureAirport: 'JFK', arrivalAirport: 'CDG' })]), 'production', [
          leg,
          back,
        ]),
      (error: unknown) =>
        error instanceof DomainError &&
        error.code === 'sales_suspended' &&
        error.status === 409 &&
        /AF JFK→CDG/.test(error.detail) &&
        /strike/.test(error.detail) &&
        error.extra.errors?.[0]?.field === '/returnDepartureDateTime',
    );
  });

  it('of stop-sales starting together, answers with the one created first, then by id, as the SQL orders them', () => {
    const first = stop({ id: 'b', airline: 'AF', reason: 'strike', createdAt: new Date('2026-11-01T00:00:00Z') });
    const second = stop({ id: 'a', airline: 'AF', reason: 'embargo', createdAt: new Date('2026-11-02T00:00:00Z') });
    const other = stop({ id: 'c', airport: 'CDG', reason: 'snow', createdAt: new Date('2026-10-01T00:00:00Z') });
    assert.equal(new StopSaleIndex([second, first]).find('production', leg)?.id, 'b', 'the same bucket');
    assert.equal(new StopSaleIndex([second, other]).find('production', leg)?.id, 'c', 'another bucket');
    const twin = stop({ id: 'a', airline: 'AF' });
    assert.equal(new StopSaleIndex([first, twin]).find('production', leg)?.id, 'a', 'created together: by id');
  });

  it('the index finds, for any leg, the stop-sale a scan of every one would (the earliest starting, then created)', () => {
    const code = (codes: string[]) => fc.option(fc.constantFrom(...codes), { nil: null });
    const env = fc.option(fc.constantFrom('sandbox' as const, 'production' as const), { nil: null });
    const hour = fc.integer({ min: 0, max: 48 });
    const at = (h: number) => new Date(Date.UTC(2026, 11, 3, 0) + h * 3_600_000);
    const aStop = fc
      .record({
        environment: env,
        airline: code(['AF', 'DL']),
        airport: code(['CDG', 'JFK', 'ORY']),
        route: fc.option(fc.constantFrom(['CDG', 'JFK'], ['JFK', 'CDG'], ['ORY', 'JFK']), { nil: null }),
        start: hour,
        hours: fc.integer({ min: 1, max: 24 }),
        created: fc.integer({ min: 0, max: 2 }),
      })
      .filter((s) => Boolean(s.airline ?? s.airport ?? s.route))
      .map((s) =>
        stop({
          id: `${s.start}-${s.hours}-${s.created}`,
          createdAt: new Date(Date.UTC(2026, 10, 1) + s.created * 60_000),
          environment: s.environment,
          airline: s.airline,
          airport: s.airport,
          departureAirport: s.route?.[0] ?? null,
          arrivalAirport: s.route?.[1] ?? null,
          startsAt: at(s.start),
          endsAt: at(s.start + s.hours),
        }),
      );
    const aLeg = fc.record({
      airline: fc.constantFrom('AF', 'DL'),
      route: fc.constantFrom(['CDG', 'JFK'], ['JFK', 'CDG'], ['ORY', 'JFK'], ['ORY', 'NCE']),
      hour,
    });
    fc.assert(
      fc.property(
        // distinct ids, as in the table
        fc.uniqueArray(aStop, { maxLength: 12, selector: (s) => s.id }),
        aLeg,
        fc.constantFrom('sandbox' as const, 'production' as const),
        (stops, l, environment) => {
          const candidate = {
            ...leg,
            airline: l.airline,
            departureAirport: l.route[0]!,
            arrivalAirport: l.route[1]!,
            departureAt: at(l.hour),
          };
          // ORDER BY starts_at, created_at, id
          const scanned = stops
            .filter((s) => stopSaleMatches(s, environment, candidate))
            .sort(
              (a, b) =>
                a.startsAt.getTime() - b.startsAt.getTime() ||
                a.createdAt.getTime() - b.createdAt.getTime() ||
                (a.id < b.id ? -1 : 1),
            )[0];
          const found = new StopSaleIndex(stops).find(environment, candidate);
          assert.equal(found?.id, scanned?.id, 'the same stop-sale, or none');
          assert.ok(found === undefined || stopSaleMatches(found, environment, candidate), 'one that covers the leg');
        },
      ),
    );
  });
});
