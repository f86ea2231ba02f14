import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../src/platform/errors.ts';
import { findCities } from '../../src/home/find-cities.ts';
import {
  resolveHomeRisk,
  storedHomeRiskErrors,
  storedHomeRiskFindings,
  toHundredth,
  type HomeRiskInput,
} from '../../src/home/home-risk.ts';
import { priceHome } from '../../src/home/pricing.ts';

/** The worked example of docs/home-pricing.md. */
const PARIS_FLAT: HomeRiskInput = {
  zipCode: '75007',
  city: 'PARIS',
  housingType: 'apartment',
  occupancy: 'tenant',
  rooms: 3,
  livingArea: 62,
  floor: 2,
  constructionYear: 1930,
  contentsValue: { amount: 2_000_000, currency: 'EUR' },
  coverageLevel: 'comfort',
  options: ['glass_breakage', 'theft'],
};

/** A quote's instant, fixed: the construction year's bound follows it. */
const QUOTED_AT = new Date('2026-03-10T09:00:00.000Z');

/** The DomainError resolveHomeRisk throws for `input`, as code, detail and field errors. */
function refusal(input: HomeRiskInput, now = QUOTED_AT) {
  try {
    resolveHomeRisk(input, '', now);
  } catch (error) {
    assert.ok(error instanceof DomainError, String(error));
    return { code: error.code, detail: error.detail, errors: error.extra.errors ?? [] };
  }
  assert.fail(`${JSON.stringify(input)} was accepted`);
}

describe('home risk', () => {
  it('prices a living area to the hundredth as given, and refuses a third decimal', () => {
    const priced = (livingArea: number) =>
      priceHome(resolveHomeRisk({ ...PARIS_FLAT, livingArea }, '', QUOTED_AT).priced);
    const { risk } = resolveHomeRisk({ ...PARIS_FLAT, livingArea: 72.35 }, '', QUOTED_AT);
    assert.equal(risk.livingArea, 72.35);
    // building part: 3 500 + 30 × 72.35 + 500 × 3 = 7 170.5, not rounded to 72 m² (7 160) nor 73 (7 190)
    assert.equal(priced(72.35).parts.building, '7170.5000');
    assert.ok(priced(72).annual < priced(72.35).annual && priced(72.35).annual < priced(73).annual);
    const third = refusal({ ...PARIS_FLAT, livingArea: 72.355 });
    assert.equal(third.code, 'validation_failed');
    assert.deepEqual(third.errors, [
      {
        field: '/livingArea',
        code: 'invalid',
        message: 'must have at most 2 decimals (m² to the hundredth), got 72.355',
      },
    ]);
    assert.throws(
      () => priceHome({ ...resolveHomeRisk(PARIS_FLAT, '', QUOTED_AT).priced, livingArea: 72.355 }),
      RangeError,
    );
  });

  it('reads a living area within 1e-9 of a hundredth as that hundredth (float noise), priced and stored so', () => {
    const noisy = 36.2 + 0.1; // 36.300000000000004, as a partner's code computes it
    assert.notEqual(noisy, 36.3);
    const { risk, priced } = resolveHomeRisk({ ...PARIS_FLAT, livingArea: noisy }, '', QUOTED_AT);
    assert.equal(risk.livingArea, 36.3);
    assert.equal(priced.livingArea, 36.3);
    assert.equal(priceHome(priced).parts.building, priceHome({ ...priced, livingArea: 36.3 }).parts.building);
    assert.equal(toHundredth(72.35), 72.35);
    assert.equal(toHundredth(72.35 + 2e-9), undefined, 'beyond the noise: a real decimal');
    assert.equal(toHundredth(72.355), undefined);
  });

  it('refuses a living area no home of that many rooms has, naming livingArea with the bounds', () => {
    const crammed = refusal({ ...PARIS_FLAT, rooms: 12, livingArea: 15 });
    assert.equal(crammed.code, 'validation_failed');
    assert.deepEqual(crammed.errors, [
      {
        field: '/livingArea',
        code: 'out_of_range',
        message: 'must be between 7 and 300 m² per main room: 84 to 1000 m² for 12 rooms',
      },
    ]);
    const hall = refusal({ ...PARIS_FLAT, rooms: 1, livingArea: 900 });
    assert.equal(hall.errors[0]!.message, 'must be between 7 and 300 m² per main room: 9 to 300 m² for 1 room');
    // the bounds themselves are homes
    for (const [rooms, livingArea] of [
      [12, 84],
      [1, 300], // a loft
      [1, 9],
      [2, 14],
    ] as const)
      assert.equal(resolveHomeRisk({ ...PARIS_FLAT, rooms, livingArea }, '', QUOTED_AT).risk.livingArea, livingArea);
    assert.equal(refusal({ ...PARIS_FLAT, rooms: 2, livingArea: 13.99 }).errors[0]!.field, '/livingArea');
    assert.equal(refusal({ ...PARIS_FLAT, rooms: 1, livingArea: 300.01 }).errors[0]!.field, '/livingArea');
  });

  it('takes a construction year up to two years after the quote, a home being built', () => {
    assert.equal(resolveHomeRisk({ ...PARIS_FLAT, constructionYear: 2028 }, '', QUOTED_AT).risk.constructionYear, 2028);
    assert.deepEqual(refusal({ ...PARIS_FLAT, constructionYear: 2029 }).errors, [
      {
        field: '/constructionYear',
        code: 'out_of_range',
        message: 'must be 2028 or earlier (at most 2 years after 2026, for a home being built)',
      },
    ]);
    // the bound moves with the clock, not with the day the test runs
    const later = new Date('2031-01-01T00:00:00.000Z');
    assert.equal(resolveHomeRisk({ ...PARIS_FLAT, constructionYear: 2033 }, '', later).risk.constructionYear, 2033);
  });

  it('refuses a CEDEX code: one the data leaves out, and 83998 whose only city is CANJUERS CEDEX', () => {
    const leftOut = refusal({ ...PARIS_FLAT, zipCode: '75700' });
    assert.equal(leftOut.code, 'unknown_zip_code');
    assert.match(leftOut.detail, /^75700 is not the postal code of a French commune.*a CEDEX code/);
    assert.deepEqual(
      leftOut.errors.map((e) => e.field),
      ['/zipCode'],
    );
    const camp = refusal({ ...PARIS_FLAT, zipCode: '83998', city: 'CANJUERS CEDEX' });
    assert.equal(camp.code, 'unknown_zip_code');
    assert.match(camp.detail, /^83998 is a CEDEX code \(CANJUERS CEDEX\).*no home stands there/);

    assert.throws(
      () => findCities({ zipCode: '83998' }),
      (e: unknown) => e instanceof DomainError && e.code === 'zip_code_not_found' && /CEDEX code/.test(e.detail),
    );
    assert.throws(
      () => findCities({ postalCode: '75700' }),
      (e: unknown) => e instanceof DomainError && e.code === 'zip_code_not_found' && /CEDEX/.test(e.detail),
    );
    assert.deepEqual(findCities({ zipCode: '75007' }).cities, ['PARIS']);
  });

  it('prices the overseas départements and refuses the overseas collectivities by name', () => {
    for (const [zipCode, city, department] of [
      ['97400', 'ST DENIS', '974'],
      ['97600', 'MAMOUDZOU', '976'],
    ] as const) {
      const { priced } = resolveHomeRisk({ ...PARIS_FLAT, zipCode, city }, '', QUOTED_AT);
      assert.equal(priced.department, department);
      assert.equal(priceHome(priced).zone, 'E');
    }
    const miquelon = refusal({ ...PARIS_FLAT, zipCode: '97500', city: 'ST PIERRE' });
    assert.equal(miquelon.code, 'zip_code_not_covered');
    assert.match(miquelon.detail, /Saint Pierre and Miquelon/);
  });

  it('blocks a renewal only for what the tariff cannot cover or rate, the rest a finding', () => {
    const stored = resolveHomeRisk(PARIS_FLAT, '/risk', QUOTED_AT).risk;
    assert.deepEqual(storedHomeRiskErrors(stored, '/risk'), []);
    assert.deepEqual(storedHomeRiskFindings(stored, '/risk', QUOTED_AT), []);
    assert.deepEqual(
      storedHomeRiskErrors({ ...stored, zipCode: '97500', city: 'ST PIERRE' }, '/risk').map((e) => e.field),
      ['/risk/zipCode'],
    );
    // a risk written under older rules: renewed, each rule it breaks a finding
    for (const [risk, field] of [
      [{ ...stored, city: 'LYON' }, '/risk/city'],
      [{ ...stored, zipCode: '75700' }, '/risk/zipCode'],
      [{ ...stored, rooms: 12, livingArea: 15 }, '/risk/livingArea'],
      [{ ...stored, livingArea: 72.355 }, '/risk/livingArea'],
      [{ ...stored, constructionYear: 2029 }, '/risk/constructionYear'],
    ] as const) {
      assert.deepEqual(storedHomeRiskErrors(risk, '/risk'), [], field);
      assert.deepEqual(
        storedHomeRiskFindings(risk, '/risk', QUOTED_AT).map((e) => e.field),
        [field],
      );
    }
    // a département the current table has no zone for: the tariff cannot rate it
    assert.deepEqual(storedHomeRiskErrors({ ...stored, zipCode: '98000', city: 'MONACO' }, '/risk'), [
      {
        field: '/risk/zipCode',
        code: 'not_allowed',
        message: 'is in the département 980, in no zone of the rating table home-1: outside the home tariff',
      },
    ]);
    const [unpriced, ...more] = storedHomeRiskFindings(
      { ...stored, contentsValue: { amount: 50, currency: 'EUR' } },
      '/risk',
      QUOTED_AT,
    );
    assert.deepEqual(more, []);
    assert.equal(unpriced!.field, '/risk');
    assert.match(unpriced!.message, /^is not priced by the rating table home-1 \(contentsValue must be/);
  });
});
