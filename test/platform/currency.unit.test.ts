import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CURRENCY_RULE, currencyError } from '../../src/platform/money.ts';

describe('a currency amounts can be in (platform/money.ts, currencyError)', () => {
  it('takes the active ISO 4217 currencies a bank transfer pays in', () => {
    for (const code of ['EUR', 'USD', 'GBP', 'CHF', 'JPY', 'KWD', 'XOF', 'XAF', 'XCG', 'ZWG'])
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
    for (const code of [...refused, ...funds, 'HRK', 'CUC', 'ZWL', 'ANG']) {
      // whether this Node's ICU lists the code (XDR, HRK) or not (XAU, BOV): not_allowed, saying why
      const error = currencyError(code, '/currency');
      assert.equal(error?.code, 'not_allowed', code);
      assert.ok(error.message.startsWith(`${CURRENCY_RULE} (${code}: `), error.message);
    }
    assert.deepEqual(currencyError('HRK', '/currency'), {
      field: '/currency',
      code: 'not_allowed',
      message: `${CURRENCY_RULE} (HRK: the kuna was withdrawn: Croatia pays in EUR since 1 January 2023)`,
    });
  });
});
