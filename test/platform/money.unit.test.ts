import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { currencyExponent, toDecimalString, toMinorUnits } from '../../src/platform/money.ts';

/**
 * A currency's minor unit is Intl's (CLDR's `digits`), not ISO 4217's where the two differ — and that must
 * never change under stored amounts: an integer of minor units means what this exponent says
 * (src/platform/money.ts, `currencyExponent`; docs/DECISIONS.md, "Minor units are CLDR's").
 */
describe('money: minor units', () => {
  /** Every Intl currency whose exponent is not 2, as Node 20's ICU (CLDR 48) gives them. */
  const NOT_TWO: Record<number, string[]> = {
    0: 'AFN ALL BIF CLP COP DJF GNF HUF IDR IQD IRR ISK JPY KMF KPW KRW LAK LBP MGA MMK PKR PYG RWF SLL SOS SYP UGX VND VUV XAF XOF XPF YER'.split(
      ' ',
    ),
    3: 'BHD JOD KWD LYD OMR TND'.split(' '),
  };

  it('every currency keeps the exponent stored amounts were written with (a Node or ICU upgrade that changes one fails here)', () => {
    const changed: string[] = [];
    for (const currency of Intl.supportedValuesOf('currency')) {
      const expected = Number(Object.keys(NOT_TWO).find((e) => NOT_TWO[Number(e)]!.includes(currency)) ?? 2);
      if (currencyExponent(currency) !== expected)
        changed.push(`${currency}: ${currencyExponent(currency)} (was ${expected})`);
    }
    assert.deepEqual(changed, [], 'stored minor units of these currencies would change meaning');
    for (const list of Object.values(NOT_TWO))
      for (const currency of list) assert.ok(Intl.supportedValuesOf('currency').includes(currency), currency);
  });

  it('where ISO 4217 says otherwise, CLDR is kept: IQD and HUF in whole units, as their amounts were stored', () => {
    // ISO 4217: IQD 3, HUF/IDR/COP/PKR… 2. Kept at 0: 5000 stored IQD are 5000 dinars, not 5.000
    assert.equal(toDecimalString(5000, 'IQD'), '5000');
    assert.equal(toMinorUnits('5000', 'IQD'), 5000);
    assert.throws(() => toMinorUnits('5000.500', 'IQD'), /whole amount/);
    assert.equal(toDecimalString(500000, 'HUF'), '500000');
  });
});
