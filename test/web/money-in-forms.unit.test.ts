import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseForm, valuesFrom } from '../../src/web/configuration-form.ts';
import { formatMoney } from '../../src/web/layout.ts';
import type { Agreement } from '../../src/partners/model.ts';

/** An agreement in `currency` (the form reads amounts in its decimals, and tells its bounds). */
const inCurrency = (currency: string): Agreement => ({
  partnerId: 'p',
  version: 1,
  status: 'signed',
  allowedFormulas: ['delay_and_cancellation'],
  currency,
  taxRate: '0.09',
  commissionMin: '0',
  commissionMax: '0.3',
  compensationMin: 1000,
  compensationMax: 50000,
  signedAt: null,
  signedBy: null,
  effectiveAt: null,
  reason: null,
});

/** The console reads and shows amounts in the agreement's currency, with that currency's decimals. */
describe('console money: the currency decides the decimals', () => {
  const form = (amount: string, cancellation: string) =>
    valuesFrom({
      formula: 'delay_and_cancellation',
      tier_minutes_0: '120',
      tier_amount_0: amount,
      cancellation,
      commission: '20',
    });

  it('EUR: 50,50 is 5050 cents; three decimals are refused', () => {
    const parsed = parseForm(form('50,50', '150'), inCurrency('EUR'), 'en');
    assert.deepEqual(parsed.errors, {});
    assert.equal(parsed.input!.delayTiers[0]!.amount, 5050);
    assert.equal(parsed.input!.cancellationAmount, 15000);
    assert.ok(Object.keys(parseForm(form('50.505', '150'), inCurrency('EUR'), 'en').errors).length > 0);
  });

  it('JPY: 5000 is 5000 yen (no minor unit); decimals are refused', () => {
    const parsed = parseForm(form('5000', '15000'), inCurrency('JPY'), 'en');
    assert.equal(parsed.input!.delayTiers[0]!.amount, 5000);
    assert.equal(parsed.input!.cancellationAmount, 15000);
    assert.ok(Object.keys(parseForm(form('50.5', '150'), inCurrency('JPY'), 'en').errors).length > 0);
  });

  it('formats from the exact decimal text', () => {
    assert.equal(formatMoney(5000, 'JPY', 'en'), 'JP¥5,000');
    assert.equal(formatMoney(5050, 'EUR', 'en'), '€50.50');
    assert.equal(formatMoney(1234, 'KWD', 'en').replace(/\s/g, ' '), 'KWD 1.234', 'three decimals');
  });
});
