import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  COVERAGE_LEVELS,
  coveragesOf,
  HOME_LIMITS,
  HOME_OPTIONS,
  priceHome,
  ZONES,
  zoneOf,
  type PricedHome,
} from '../../src/home/pricing.ts';
import { RATING_TABLE } from '../../src/home/rating-table.ts';

/** The worked example of docs/home-pricing.md. */
const PARIS_FLAT: PricedHome = {
  department: '75',
  housingType: 'apartment',
  occupancy: 'tenant',
  rooms: 3,
  livingArea: 62,
  floor: 2,
  constructionYear: 1930,
  contentsValue: 2_000_000,
  coverageLevel: 'comfort',
  options: ['glass_breakage', 'theft'],
};

/** One département per zone, for properties over zones. */
const DEPARTMENT_OF_ZONE = { A: '23', B: '2A', C: '13', D: '75', E: '974' } as const;

const homeArb: fc.Arbitrary<PricedHome> = fc
  .record({
    department: fc.constantFrom('23', '2A', '13', '75', '974', '01', '69'),
    housingType: fc.constantFrom('house' as const, 'apartment' as const),
    occupancy: fc.constantFrom('owner' as const, 'tenant' as const),
    rooms: fc.integer({ min: HOME_LIMITS.rooms.min, max: HOME_LIMITS.rooms.max }),
    // whole m² or to the hundredth (72.35), as the API takes them
    livingArea: fc.oneof(
      fc.integer({ min: HOME_LIMITS.livingArea.min, max: HOME_LIMITS.livingArea.max }),
      fc.integer({ min: HOME_LIMITS.livingArea.min * 100, max: HOME_LIMITS.livingArea.max * 100 }).map((n) => n / 100),
    ),
    floor: fc.option(fc.integer({ min: HOME_LIMITS.floor.min, max: HOME_LIMITS.floor.max })),
    constructionYear: fc.option(fc.integer({ min: 1600, max: 2028 })),
    contentsValue: fc.integer({ min: HOME_LIMITS.contentsValue.min, max: HOME_LIMITS.contentsValue.max }),
    coverageLevel: fc.constantFrom(...COVERAGE_LEVELS),
    options: fc.subarray([...HOME_OPTIONS]),
  })
  .map((h) => ({ ...h, floor: h.housingType === 'apartment' ? h.floor : null }));

describe('home pricing', () => {
  it('prices the worked example of docs/home-pricing.md', () => {
    const premium = priceHome(PARIS_FLAT);
    assert.equal(premium.zone, 'D');
    assert.deepEqual(premium.factors, { zone: '1.40', coverageLevel: '1.00', constructionYear: '1.15', floor: '1.00' });
    assert.deepEqual(premium.parts, {
      building: '6860.0000',
      contents: '8000.0000',
      core: '23924.6000',
      options: '4700.0000',
    });
    assert.equal(premium.net, 28_625);
    assert.equal(premium.tax, 2_576);
    assert.equal(premium.annual, 31_201);
    assert.equal(premium.monthly, 2_600);
  });

  it('applies the minimum net premium (the second example of the doc)', () => {
    const premium = priceHome({
      department: '23',
      housingType: 'apartment',
      occupancy: 'tenant',
      rooms: 1,
      livingArea: 9,
      floor: null,
      constructionYear: null,
      contentsValue: 100_000,
      coverageLevel: 'essential',
      options: [],
    });
    assert.equal(premium.parts.core, '3536.5500');
    assert.deepEqual([premium.net, premium.tax, premium.annual, premium.monthly], [6_000, 540, 6_540, 545]);
  });

  it('finds the zone from the département', () => {
    assert.equal(zoneOf('75'), 'D');
    assert.equal(zoneOf('93'), 'D');
    assert.equal(zoneOf('13'), 'C');
    assert.equal(zoneOf('974'), 'E');
    assert.equal(zoneOf('23'), 'A');
    assert.equal(zoneOf('2A'), 'B', 'an unlisted département is in the default zone');
  });

  it("refuses an overseas collectivity's département rather than price it in the metropolitan default zone", () => {
    for (const department of ['975', '977', '978', '984', '986', '987', '988'])
      assert.throws(() => zoneOf(department), /outside the tariff/, department);
    for (const department of ['971', '972', '973', '974', '976']) assert.equal(zoneOf(department), 'E', department);
  });

  it('lists each département in one zone at most', () => {
    const listed = ZONES.flatMap((zone) => RATING_TABLE.zones[zone].departments);
    assert.equal(new Set(listed).size, listed.length);
  });

  it('lists the coverages with their limits: building or tenant liability, contents, options', () => {
    const codes = coveragesOf(PARIS_FLAT).map((c) => c.code);
    assert.deepEqual(codes, [
      'tenant_liability',
      'contents',
      'natural_disasters',
      'civil_liability',
      'theft',
      'glass_breakage',
    ]);
    const byCode = Object.fromEntries(coveragesOf(PARIS_FLAT).map((c) => [c.code, c]));
    assert.equal(byCode.contents!.limit, 2_000_000);
    assert.equal(byCode.theft!.limit, 1_500_000, '75 % of the contents at the comfort level');
    assert.equal(byCode.natural_disasters!.deductible, 38_000);
    const owner = coveragesOf({ ...PARIS_FLAT, occupancy: 'owner', options: [] });
    assert.deepEqual(owner[0], {
      code: 'building',
      label: owner[0]!.label,
      limit: null,
      deductible: 15_000,
      option: false,
    });
  });

  it('forms integer amounts with annual = net + tax and twelve instalments within 6 cents of the annual premium', () => {
    fc.assert(
      fc.property(homeArb, (home) => {
        const p = priceHome(home);
        for (const amount of [p.net, p.tax, p.annual, p.monthly]) assert.ok(Number.isSafeInteger(amount) && amount > 0);
        assert.equal(p.annual, p.net + p.tax);
        assert.ok(p.net >= RATING_TABLE.minimumNetPremium);
        assert.ok(Math.abs(12 * p.monthly - p.annual) <= 6);
      }),
    );
  });

  it('never charges less for more: area, rooms, contents, options, a higher level or a riskier zone', () => {
    fc.assert(
      fc.property(homeArb, (home) => {
        const annual = (h: PricedHome) => priceHome(h).annual;
        const base = annual(home);
        // one m² more, kept to the hundredth (72.35 + 1 is 73.35000000000001 in floating point)
        if (home.livingArea + 1 <= HOME_LIMITS.livingArea.max)
          assert.ok(annual({ ...home, livingArea: Math.round((home.livingArea + 1) * 100) / 100 }) >= base);
        if (home.rooms < HOME_LIMITS.rooms.max) assert.ok(annual({ ...home, rooms: home.rooms + 1 }) >= base);
        assert.ok(
          annual({ ...home, contentsValue: Math.min(home.contentsValue + 100_000, HOME_LIMITS.contentsValue.max) }) >=
            base,
        );
        const missing = HOME_OPTIONS.find((o) => !home.options.includes(o));
        if (missing) assert.ok(annual({ ...home, options: [...home.options, missing] }) >= base);
        const levels = COVERAGE_LEVELS.map((coverageLevel) => annual({ ...home, coverageLevel }));
        assert.deepEqual(
          levels,
          [...levels].sort((a, b) => a - b),
        );
        const zones = ZONES.map((zone) => annual({ ...home, department: DEPARTMENT_OF_ZONE[zone] }));
        assert.deepEqual(
          zones,
          [...zones].sort((a, b) => a - b),
        );
      }),
    );
  });

  it('refuses what the tariff does not price with a RangeError', () => {
    assert.throws(() => priceHome({ ...PARIS_FLAT, rooms: 0 }), RangeError);
    assert.throws(() => priceHome({ ...PARIS_FLAT, rooms: 2.5 }), RangeError);
    assert.throws(() => priceHome({ ...PARIS_FLAT, livingArea: 1001 }), RangeError);
    assert.throws(() => priceHome({ ...PARIS_FLAT, contentsValue: 99_999 }), RangeError);
    assert.throws(() => priceHome({ ...PARIS_FLAT, options: ['theft', 'theft'] }), RangeError);
    assert.throws(() => priceHome({ ...PARIS_FLAT, coverageLevel: 'gold' as never }), RangeError);
  });
});
