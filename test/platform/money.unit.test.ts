import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../src/platform/errors.ts';
import {
  amountOrError,
  currencyError,
  currencyExponent,
  formatMoney,
  isIsoCurrency,
  knownCurrencies,
  MAJOR_AMOUNT_MAX_LENGTH,
  MajorAmountRefused,
  parseMajorAmount,
  toDecimalString,
  toMinorUnits,
} from '../../src/platform/money.ts';

/**
 * A currency's minor unit is the frozen table in src/platform/money.ts (`MINOR_UNIT_DIGITS`, what Intl gave
 * on Node 20.20.2 / CLDR 48 when amounts were stored), never what the running Node's Intl says: an integer
 * of minor units must mean the same on every Node (docs/DECISIONS.md, "Minor units are a frozen table").
 */
describe('money: minor units', () => {
  /** Every known currency whose exponent is not 2 (the table's, as stored amounts were written). */
  const NOT_TWO: Record<number, string[]> = {
    0: 'AFN ALL BIF CLP COP DJF GNF HUF IDR IQD IRR ISK JPY KMF KPW KRW LAK LBP MGA MMK PKR PYG RWF SLL SOS SYP UGX VND VUV XAF XOF XPF YER'.split(
      ' ',
    ),
    3: 'BHD JOD KWD LYD OMR TND'.split(' '),
  };

  // First in the file: currencyExponent remembers what it read, so this must be the first to ask.
  it('an Intl with other digits (CLDR 47: HUF, COP, IDR, PKR 2; ISO: IQD 3) changes neither the exponent nor what formatting shows', () => {
    const RealNumberFormat = Intl.NumberFormat;
    const realSupported = Intl.supportedValuesOf;
    const otherDigits: Record<string, number> = { HUF: 2, COP: 2, IDR: 2, PKR: 2, IQD: 3, EUR: 3, KWD: 2 };
    const simulated = function (locales?: string | string[], options?: Intl.NumberFormatOptions) {
      const digits = options?.currency === undefined ? undefined : otherDigits[options.currency];
      const explicit = options?.minimumFractionDigits !== undefined || options?.maximumFractionDigits !== undefined;
      return new RealNumberFormat(
        locales,
        options?.style === 'currency' && digits !== undefined && !explicit
          ? { ...options, minimumFractionDigits: digits, maximumFractionDigits: digits }
          : options,
      );
    };
    Intl.NumberFormat = simulated as unknown as typeof Intl.NumberFormat;
    // a later Intl that no longer lists a withdrawn currency stored amounts may still be in
    Intl.supportedValuesOf = ((key: Parameters<typeof Intl.supportedValuesOf>[0]) =>
      realSupported(key).filter((c) => c !== 'ZWL')) as typeof Intl.supportedValuesOf;
    try {
      assert.equal(currencyExponent('HUF'), 0);
      assert.equal(currencyExponent('PKR'), 0);
      assert.equal(currencyExponent('IQD'), 0);
      assert.equal(currencyExponent('EUR'), 2);
      assert.equal(currencyExponent('KWD'), 3);
      assert.equal(toDecimalString(500000, 'HUF'), '500000');
      assert.equal(toMinorUnits('5000', 'IQD'), 5000);
      assert.throws(() => toMinorUnits('5000.5', 'HUF'), /whole amount/);
      assert.equal(formatMoney(500000, 'HUF', 'en'), 'HUF\u00a0500,000');
      assert.equal(formatMoney(5000, 'IQD', 'en'), 'IQD\u00a05,000');
      assert.equal(formatMoney(1050, 'EUR', 'en'), '€10.50');
      assert.equal(formatMoney(1050, 'EUR', 'fr'), '10,50\u00a0€');
      assert.equal(formatMoney(12345, 'KWD', 'en'), 'KWD\u00a012.345');
      assert.equal(isIsoCurrency('ZWL'), true);
    } finally {
      Intl.NumberFormat = RealNumberFormat;
      Intl.supportedValuesOf = realSupported;
    }
  });

  it('the table knows 163 currencies, each with the exponent stored amounts were written with; any other code has none', () => {
    const known = Object.values(NOT_TWO).flat();
    const changed: string[] = [];
    for (const currency of knownCurrencies()) {
      const expected = Number(Object.keys(NOT_TWO).find((e) => NOT_TWO[Number(e)]!.includes(currency)) ?? 2);
      if (currencyExponent(currency) !== expected)
        changed.push(`${currency}: ${currencyExponent(currency)} (was ${expected})`);
    }
    assert.deepEqual(changed, [], 'stored minor units of these currencies would change meaning');
    for (const currency of known) assert.ok(isIsoCurrency(currency), currency);
    assert.equal(knownCurrencies().length, 163);
    assert.equal(isIsoCurrency('ABC'), false);
    assert.equal(isIsoCurrency('eur'), false);
    assert.throws(() => currencyExponent('ABC'), RangeError);
    assert.throws(() => toDecimalString(100, 'ABC'), RangeError);
  });

  it('every code a partner may configure (currencyError accepts it) has minor units in the table', () => {
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const accepted: string[] = [];
    for (const a of letters)
      for (const b of letters)
        for (const c of letters) if (currencyError(a + b + c, '/currency') === undefined) accepted.push(a + b + c);
    assert.ok(accepted.includes('EUR') && accepted.includes('VED') && !accepted.includes('HRK'));
    assert.deepEqual(
      accepted.filter((code) => !isIsoCurrency(code)),
      [],
      'accepted but no minor unit: an amount in it would have no meaning',
    );
  });

  it("where ISO 4217 says otherwise, the table keeps CLDR 48's: IQD and HUF in whole units, as their amounts were stored", () => {
    // ISO 4217: IQD 3, HUF/IDR/COP/PKR… 2. Kept at 0: 5000 stored IQD are 5000 dinars, not 5.000
    assert.equal(toDecimalString(5000, 'IQD'), '5000');
    assert.equal(toMinorUnits('5000', 'IQD'), 5000);
    assert.throws(() => toMinorUnits('5000.500', 'IQD'), /whole amount/);
    assert.equal(toDecimalString(500000, 'HUF'), '500000');
  });
});

describe('money: an amount as a person types it (parseMajorAmount), the rules every form and CLI option share', () => {
  it('refuses a text longer than MAJOR_AMOUNT_MAX_LENGTH, never cuts it to a smaller amount', () => {
    const longest = '1500'.padStart(MAJOR_AMOUNT_MAX_LENGTH, '0');
    assert.equal(parseMajorAmount(longest, 'EUR'), 150000);
    assert.equal(parseMajorAmount('0000000000000000001500000', 'EUR'), 150000000, 'read whole, not cut to 20');
    assert.throws(
      () => parseMajorAmount(`0${longest}`, 'EUR'),
      (e: unknown) => e instanceof MajorAmountRefused && e.reason === 'too_long',
    );
  });

  it('refuses a comma and three digits in a currency of three decimals ("1,500" KWD: 1.5 or 1500?)', () => {
    for (const currency of ['KWD', 'BHD', 'OMR', 'JOD', 'TND', 'LYD'])
      assert.throws(
        () => parseMajorAmount('1,500', currency),
        (e: unknown) => e instanceof MajorAmountRefused && e.reason === 'ambiguous',
        currency,
      );
    assert.equal(parseMajorAmount('1.500', 'KWD'), 1500, 'the point says it');
    assert.equal(parseMajorAmount('1,50', 'KWD'), 1500, 'two digits after the comma are decimals');
    assert.equal(parseMajorAmount('1,50', 'EUR'), 150);
  });

  it('amountOrError gives each refusal its field code', () => {
    const errors: FieldError[] = [];
    amountOrError('1'.repeat(MAJOR_AMOUNT_MAX_LENGTH + 1), 'EUR', '/a', errors);
    amountOrError('1,500', 'KWD', '/b', errors);
    assert.deepEqual(
      errors.map((e) => [e.field, e.code]),
      [
        ['/a', 'too_long'],
        ['/b', 'invalid_format'],
      ],
    );
    assert.match(errors[1]!.message, /ambiguous in KWD.*1\.500/);
  });
});
