import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import countries from 'i18n-iso-countries';
import { isCountryCode } from '../../src/platform/latin-text.ts';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** Every pair of capitals, AA to ZZ: what `isCountryCode` takes of them is its whole list. */
const PAIRS = [...LETTERS].flatMap((a) => [...LETTERS].map((b) => a + b));

/**
 * Codes i18n-iso-countries lists that ISO 3166-1 has not officially assigned: XK (Kosovo) is a
 * user-assigned code (the X range), used by the European Commission and others, not ISO's.
 */
const NOT_ISO = new Set(['XK']);

describe('isCountryCode: the officially assigned ISO 3166-1 alpha-2 codes (platform/latin-text.ts)', () => {
  it("takes exactly i18n-iso-countries' alpha-2 codes, less those ISO has not assigned", () => {
    const taken = PAIRS.filter(isCountryCode);
    const expected = Object.keys(countries.getAlpha2Codes())
      .filter((code) => !NOT_ISO.has(code))
      .sort();
    assert.deepEqual(taken, expected);
    assert.equal(taken.length, 249, 'ISO 3166-1 has 249 officially assigned codes');
  });

  it('the package still lists each code the test leaves out (an exception no longer needed is removed)', () => {
    for (const code of NOT_ISO) assert.ok(countries.isValid(code), code);
  });

  it('refuses withdrawn, reserved and user-assigned codes, and lower case', () => {
    for (const code of ['UK', 'DD', 'SU', 'YU', 'CS', 'AN', 'FX', 'EU', 'EZ', 'UN', 'AC', 'TA', 'XA', 'XK', 'ZZ', 'fr'])
      assert.equal(isCountryCode(code), false, code);
  });
});
