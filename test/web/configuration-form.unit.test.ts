import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Agreement } from '../../src/partners/model.ts';
import { checkTerms } from '../../src/partners/terms.ts';
import { AMOUNT_MAX_LENGTH, formErrors, parseForm, valuesFrom } from '../../src/web/configuration-form.ts';
import { t } from '../../src/i18n/index.ts';
import { formatMoney } from '../../src/web/layout.ts';

/** The configuration form puts the agreement's field errors back on its fields by their code, in the page's language. */

const agreement: Agreement = {
  partnerId: 'p',
  version: 1,
  status: 'signed',
  allowedFormulas: ['delay'],
  currency: 'EUR',
  taxRate: '0.09',
  commissionMin: '0',
  commissionMax: '0.3',
  compensationMin: 1000,
  compensationMax: 50000,
  signedAt: null,
  signedBy: null,
  effectiveAt: null,
  reason: null,
};

describe('configuration form errors, by code', () => {
  test('the terms check gives each field error a stable code', () => {
    const errors = checkTerms(agreement, {
      formula: 'delay_and_cancellation',
      delayTiers: [
        { minDelayMinutes: 120, amount: 5000 },
        { minDelayMinutes: 60, amount: 4000 },
        { minDelayMinutes: 90, amount: 999999 },
      ],
      cancellationAmount: 0,
      commissionRate: '0.5',
    });
    assert.deepEqual(
      errors.map((e) => [e.field, e.code]),
      [
        ['/formula', 'not_allowed'],
        ['/commissionRate', 'out_of_range'],
        ['/delayTiers/1/minDelayMinutes', 'not_increasing'],
        ['/delayTiers/1/amount', 'not_increasing'],
        ['/delayTiers/2/amount', 'out_of_range'],
        ['/cancellationAmount', 'out_of_range'],
      ],
    );
  });

  for (const lang of ['en', 'fr'] as const) {
    test(`a longer delay paying less is told as such in ${lang}, an amount out of range as the bounds`, () => {
      const values = valuesFrom({
        formula: 'delay',
        tier_minutes_0: '60',
        tier_amount_0: '50',
        tier_minutes_1: '120',
        tier_amount_1: '40',
        tier_minutes_2: '180',
        tier_amount_2: '900',
        commission: '10',
      });
      const parsed = parseForm(values, agreement, lang);
      assert.ok(parsed.input, JSON.stringify(parsed.errors));
      const errors = formErrors(checkTerms(agreement, parsed.input), values, agreement, lang);
      const w = t(lang);
      assert.equal(errors.tier_amount_1, w.errors.order);
      assert.notEqual(errors.tier_amount_2, w.errors.order);
      assert.match(errors.tier_amount_2!, /500/);
      assert.deepEqual(Object.keys(errors).sort(), ['tier_amount_1', 'tier_amount_2']);
    });
  }
});

describe('configuration form: a value that is no amount, rate or minutes the form reads', () => {
  for (const lang of ['en', 'fr'] as const) {
    test(`tells the bounds to enter, not "a number", in ${lang}`, () => {
      // "-1", "100" % or "120.5" minutes are numbers: "Enter a number." told the partner nothing to fix
      const values = valuesFrom({
        formula: 'delay',
        tier_minutes_0: '120.5',
        tier_amount_0: '-1',
        tier_minutes_1: '180',
        tier_amount_1: 'abc',
        cancellation: '1e2',
        commission: '100',
      });
      const parsed = parseForm(values, agreement, lang);
      assert.equal(parsed.input, undefined);
      const w = t(lang);
      const amount = w.errors.amount(formatMoney(1000, 'EUR', lang), formatMoney(50000, 'EUR', lang));
      assert.deepEqual(parsed.errors, {
        tier_minutes_0: w.errors.minutes,
        tier_amount_0: amount,
        tier_amount_1: amount,
        cancellation: amount,
        commission: w.errors.commission('0', '30'),
      });
    });
  }
});

describe('configuration form: a delay tier half filled', () => {
  for (const lang of ['en', 'fr'] as const) {
    test(`is an error on its empty field, never a row dropped, in ${lang}`, () => {
      // minutes without an amount (row 2), an amount without minutes (row 3): the partner meant a tier
      const values = valuesFrom({
        formula: 'delay',
        tier_minutes_0: '120',
        tier_amount_0: '50',
        tier_minutes_1: '180',
        tier_amount_2: '80',
        commission: '10',
      });
      const parsed = parseForm(values, agreement, lang);
      assert.equal(parsed.input, undefined, 'not saved with the one full tier');
      const w = t(lang);
      assert.deepEqual(parsed.errors, {
        tier_amount_1: w.errors.tierAmountMissing,
        tier_minutes_2: w.errors.tierMinutesMissing,
      });
      assert.notEqual(w.errors.tierAmountMissing, w.errors.tierMinutesMissing);
    });
  }
});

describe('configuration form: a value within the bounds with too many decimals', () => {
  for (const lang of ['en', 'fr'] as const) {
    test(`is told the decimals allowed, not only the bounds it is within, in ${lang}`, () => {
      // "50.505" EUR is between 10 and 500 EUR: "Enter an amount between …" left the partner puzzled
      const values = valuesFrom({
        formula: 'delay',
        tier_minutes_0: '120',
        tier_amount_0: '50.505',
        tier_minutes_1: '180',
        tier_amount_1: '80,1234',
        cancellation: '100.001',
        commission: '10.1234',
      });
      const parsed = parseForm(values, agreement, lang);
      assert.equal(parsed.input, undefined);
      const w = t(lang);
      const amount = w.errors.amountDecimals(formatMoney(1000, 'EUR', lang), formatMoney(50000, 'EUR', lang), 2);
      assert.deepEqual(parsed.errors, {
        tier_amount_0: amount,
        tier_amount_1: amount,
        cancellation: amount,
        commission: w.errors.commissionDecimals('0', '30', 3),
      });
      assert.match(amount, lang === 'en' ? /at most 2 decimals/ : /au plus 2 décimales/);
    });
  }

  test('a currency without minor unit asks for a whole amount', () => {
    const yen = { ...agreement, currency: 'JPY', compensationMin: 1000, compensationMax: 50000 };
    const values = valuesFrom({ formula: 'delay', tier_minutes_0: '120', tier_amount_0: '5000.5', commission: '10' });
    const parsed = parseForm(values, yen, 'en');
    assert.deepEqual(parsed.errors, {
      tier_amount_0: `Enter a whole amount between ${formatMoney(1000, 'JPY', 'en')} and ${formatMoney(50000, 'JPY', 'en')}, with no decimals.`,
    });
  });
});

describe('configuration form: amounts as long as the agreement allows', () => {
  test('15,000,000 VND (no minor unit) and 12,000,000.50 UZS within the bounds are read, not refused as out of bounds', () => {
    // the form read at most 7 digits before the separator: an ordinary compensation in dong or som,
    // within the agreement's bounds, was refused with a message giving bounds it was within
    const vnd = { ...agreement, currency: 'VND', compensationMin: 100_000, compensationMax: 20_000_000 };
    const dong = parseForm(
      valuesFrom({ formula: 'delay', tier_minutes_0: '120', tier_amount_0: '15000000', commission: '10' }),
      vnd,
      'en',
    );
    assert.deepEqual(dong.errors, {});
    assert.equal(dong.input?.delayTiers[0]?.amount, 15_000_000);
    const uzs = { ...agreement, currency: 'UZS', compensationMin: 10_000_000, compensationMax: 2_000_000_000 };
    const som = parseForm(
      valuesFrom({ formula: 'delay', tier_minutes_0: '120', tier_amount_0: '12000000,50', commission: '10' }),
      uzs,
      'en',
    );
    assert.deepEqual(som.errors, {});
    assert.equal(som.input?.delayTiers[0]?.amount, 1_200_000_050);
  });

  test('an amount beyond what minor units can count exactly is refused with the bounds, never rounded', () => {
    const parsed = parseForm(
      valuesFrom({ formula: 'delay', tier_minutes_0: '120', tier_amount_0: '99999999999999999', commission: '10' }),
      agreement,
      'en',
    );
    assert.equal(parsed.input, undefined);
    assert.deepEqual(Object.keys(parsed.errors), ['tier_amount_0']);
  });
});

describe('configuration form: an amount is never cut short', () => {
  test('leading zeros are read whole: "0000000000000000001500" is €1,500.00, not €15.00', () => {
    // read cut to 20 characters, it was "00000000000000000015": a different amount, saved without a word
    const parsed = parseForm(
      valuesFrom({
        formula: 'delay',
        tier_minutes_0: '120',
        tier_amount_0: '0000000000000000001500',
        cancellation: '00000000000000000000250',
        commission: '10',
      }),
      agreement,
      'en',
    );
    assert.deepEqual(parsed.errors, {});
    assert.equal(parsed.input?.delayTiers[0]?.amount, 150_000);
    assert.equal(parsed.input?.cancellationAmount, 25_000);
  });

  for (const lang of ['en', 'fr'] as const) {
    test(`an amount longer than the form reads is refused with the length, in ${lang}`, () => {
      const long = `${'0'.repeat(AMOUNT_MAX_LENGTH)}15`;
      const parsed = parseForm(
        valuesFrom({
          formula: 'delay',
          tier_minutes_0: '120',
          tier_amount_0: long,
          cancellation: long,
          commission: '10',
        }),
        agreement,
        lang,
      );
      assert.equal(parsed.input, undefined);
      const message = t(lang).errors.amountTooLong(AMOUNT_MAX_LENGTH);
      assert.deepEqual(parsed.errors, { tier_amount_0: message, cancellation: message });
      assert.match(message, /30/);
    });
  }
});

describe('configuration form: "1,500" in a currency of three decimals', () => {
  const dinar = { ...agreement, currency: 'KWD', compensationMin: 1_000, compensationMax: 2_000_000 };
  for (const lang of ['en', 'fr'] as const) {
    test(`is refused as ambiguous (1.5 or 1,500), in ${lang}`, () => {
      const parsed = parseForm(
        valuesFrom({ formula: 'delay', tier_minutes_0: '120', tier_amount_0: '1,500', commission: '10' }),
        dinar,
        lang,
      );
      assert.equal(parsed.input, undefined);
      assert.deepEqual(parsed.errors, { tier_amount_0: t(lang).errors.amountAmbiguous('KWD') });
      assert.match(parsed.errors.tier_amount_0!, lang === 'en' ? /use a point for decimals/ : /utilisez un point/);
    });
  }

  test('a point, or a comma with other than three digits, is read', () => {
    for (const [text, minor] of [
      ['1.500', 1_500],
      ['1,5', 1_500],
      ['1,50', 1_500],
      ['1500', 1_500_000],
    ] as const) {
      const parsed = parseForm(
        valuesFrom({ formula: 'delay', tier_minutes_0: '120', tier_amount_0: text, commission: '10' }),
        dinar,
        'en',
      );
      assert.deepEqual(parsed.errors, {}, text);
      assert.equal(parsed.input?.delayTiers[0]?.amount, minor, text);
    }
  });

  test('in a currency of two decimals, "1,500" is still a decimal comma read as refused decimals', () => {
    const parsed = parseForm(
      valuesFrom({ formula: 'delay', tier_minutes_0: '120', tier_amount_0: '1,500', commission: '10' }),
      agreement,
      'en',
    );
    assert.deepEqual(Object.keys(parsed.errors), ['tier_amount_0']);
    assert.notEqual(parsed.errors.tier_amount_0, t('en').errors.amountAmbiguous('EUR'));
  });
});
