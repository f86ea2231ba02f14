import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CURRENCY_RULE, currencyError } from '../../src/platform/money.ts';

// Intl's list of currencies hidden for the whole file: which codes are accepted must not depend on the
// ICU this Node is built with (Node 20.11's lacks XCG and ZWG; none lists VED), so every row below holds
// whatever it lists
Intl.supportedValuesOf = () => [];

describe('a currency amounts can be in (platform/money.ts, currencyError)', () => {
  it('takes the active ISO 4217 currencies a bank transfer pays in', () => {
    for (const code of ['EUR', 'USD', 'GBP', 'CHF', 'JPY', 'KWD', 'XOF', 'XAF', 'XCG', 'ZWG', 'VED', 'VES', 'SLE'])
      assert.equal(currencyError(code, '/currency'), undefined, code);
  });

  it('refuses what is no ISO 4217 code: invalid_format, one wording', () => {
    for (const code of ['', 'EURO', 'eur', 'ERU', 'ABC', 'E R', 'EU'])
      assert.deepEqual(
        currencyError(code, '/currency'),
        { field: '/currency', code: 'invalid_format', message: 'must be an ISO 4217 currency code such as EUR' },
        code,
      );
  });

  it('refuses codes no amount can be in — units of account, funds, metals, test codes, withdrawn currencies — saying why', () => {
    const refused = ['XDR', 'XSU', 'XUA', 'XBA', 'XBB', 'XBC', 'XBD', 'XAU', 'XAG', 'XPD', 'XPT', 'XTS', 'XXX'];
    const funds = ['BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW'];
    for (const code of [...refused, ...funds, 'HRK', 'CUC', 'ZWL', 'ANG', 'BGN', 'SLL']) {
      // whether this Node's ICU lists the code (XDR, HRK) or not (XAU, BOV): not_allowed, saying why
      const error = currencyError(code, '/currency');
      assert.equal(error?.code, 'not_allowed', code);
      assert.ok(error.message.startsWith(`${CURRENCY_RULE} (${code}: `), error.message);
    }
    assert.deepEqual(currencyError('HRK', '/currency'), {
      field: '/currency',
      code: 'not_allowed',
      message: `${CURRENCY_RULE} (HRK: the kuna was withdrawn: Croatia pays in EUR since 1 January 2023 (1 EUR = 7.53450 HRK))`,
    });
    assert.match(currencyError('BGN', '/currency')?.message ?? '', /Bulgaria pays in EUR since 1 January 2026/);
    assert.match(currencyError('SLL', '/currency')?.message ?? '', /replaced by the new leone \(SLE/);
  });

  it('lets a refused code pass where existing business is in it (inUse), never a code that is no currency', () => {
    const inUse = new Set(['BGN', 'ERU']);
    assert.equal(currencyError('BGN', '/currency', { inUse }), undefined);
    assert.equal(currencyError('HRK', '/currency', { inUse })?.code, 'not_allowed');
    assert.equal(currencyError('ERU', '/currency', { inUse })?.code, 'invalid_format');
  });
});
