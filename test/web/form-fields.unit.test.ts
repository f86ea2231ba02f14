import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkAgreement } from '../../src/partners/partners.ts';
import { agreementValuesFrom, parseAgreementForm } from '../../src/web/agreement-form.ts';
import { field, WHOLE } from '../../src/web/web-kit.ts';

/**
 * A value its use case bounds is read whole, so the use case refuses it past its bound: cut to the bound,
 * a value it would have refused became another one it accepts, saved without a word.
 */

describe('form values read whole', () => {
  test('field cuts to max; WHOLE reads the value as typed, trimmed', () => {
    const slug = `a${'b'.repeat(63)}`;
    assert.equal(field({ slug }, 'slug', 63), slug.slice(0, 63));
    assert.equal(field({ slug: ` ${slug} ` }, 'slug', WHOLE), slug);
  });

  test('the agreement form: an amount with leading zeros is the amount typed, a rate or currency too long is refused', () => {
    const body = {
      allowedFormulas: 'delay',
      currency: 'EURO',
      taxRate: '0.0900000001',
      commissionMin: '0',
      commissionMax: '0.3000000001',
      compensationMin: '0000000000000000001500',
      compensationMax: '5000',
      reason: 'r'.repeat(501),
    };
    const currencyRefused = parseAgreementForm(agreementValuesFrom(body));
    assert.deepEqual(
      currencyRefused.errors.map((e) => e.field),
      ['/currency'],
      'EURO was read as EUR',
    );
    const { terms, errors } = parseAgreementForm(agreementValuesFrom({ ...body, currency: 'EUR' }));
    assert.deepEqual(errors, []);
    assert.equal(terms.compensationMin, 150_000, 'read cut to 20 characters: €15.00');
    assert.deepEqual(
      checkAgreement(terms)
        .map((e) => e.field)
        .sort(),
      ['/commissionMax', '/taxRate'],
      'cut to 10 characters, 0.0900000001 and 0.3000000001 were read 0.09 and 0.3',
    );
    assert.equal(agreementValuesFrom(body).reason.length, 501, 'the reason whole: the amendment refuses it past 500');
  });
});
