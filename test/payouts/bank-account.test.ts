import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sumMinor } from '../../src/payouts/amount.ts';
import { toDecimalString } from '../../src/platform/money.ts';
import { checkSepaAccount, ibanNeedsBic, maskIban } from '../../src/payouts/bank-account.ts';
import { isSepaIdentifier, toSepaText } from '../../src/payouts/sepa-text.ts';

describe('bank account checks (ibantools, SEPA countries)', () => {
  it('accepts SEPA IBANs in any spacing and case, BIC optional inside the EEA', () => {
    assert.deepEqual(checkSepaAccount({ iban: 'fr76 3000 6000 0112 3456 7890 189' }), {
      ok: true,
      account: { iban: 'FR7630006000011234567890189', bic: null, country: 'FR' },
    });
    assert.deepEqual(checkSepaAccount({ iban: 'DE89370400440532013000', bic: 'cobadeff xxx' }), {
      ok: true,
      account: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', country: 'DE' },
    });
  });

  it('needs a BIC outside the EEA (CH, GB, MC, SM, VA, AD, GI)', () => {
    assert.equal(ibanNeedsBic('CH9300762011623852957'), true);
    assert.equal(ibanNeedsBic('GB29NWBK60161331926819'), true);
    assert.equal(ibanNeedsBic('MC5811222000010123456789030'), true);
    assert.equal(ibanNeedsBic('FR7630006000011234567890189'), false);
    assert.equal(ibanNeedsBic('NO9386011117947'), false);
    assert.deepEqual(checkSepaAccount({ iban: 'CH9300762011623852957' }), {
      ok: false,
      issues: [{ field: 'bic', code: 'bic_required', message: 'a BIC is required for IBANs of CH' }],
    });
    assert.equal(checkSepaAccount({ iban: 'CH9300762011623852957', bic: 'UBSWCHZH80A' }).ok, true);
  });

  it('gives coded issues the bank-details page can word in French or English', () => {
    const codes = (iban: string, bic?: string) => {
      const check = checkSepaAccount({ iban, bic });
      return check.ok ? [] : check.issues.map((i) => `${i.field}:${i.code}`);
    };
    assert.deepEqual(codes(''), ['iban:iban_required']);
    assert.deepEqual(codes('FR7630006000011234567890188'), ['iban:iban_invalid']);
    assert.deepEqual(codes('BR1800360305000010009795493C1'), ['iban:iban_not_sepa']);
    assert.deepEqual(codes('FR7630006000011234567890189', 'NOPE'), ['bic:bic_invalid']);
    assert.deepEqual(codes('FR7630006000011234567890189', 'COBADEFFXXX'), ['bic:bic_country_mismatch']);
    assert.deepEqual(codes('FR7630006000011234567890189', 'BNPAGPGP'), [], 'a Guadeloupe bank on a French IBAN');
  });

  it('masks an IBAN to its last four characters', () => {
    assert.equal(maskIban('FR76 3000 6000 0112 3456 7890 189'), '•••• 0189');
  });
});

describe('SEPA text and amounts', () => {
  it('transliterates names to the SEPA Latin set', () => {
    assert.equal(toSepaText('Hélène Müller-Łukasz & fils'), 'Helene Muller-Lukasz + fils');
    assert.equal(toSepaText('  Çağrı   Øster  "Sørensen" '), 'Cagri Oster Sorensen');
    assert.equal(toSepaText('Straße 5, D’Artagnan'), "Strasse 5, D'Artagnan");
    assert.equal(toSepaText('李小龙'), '');
  });

  it('identifiers follow the SEPA reference rules', () => {
    assert.ok(isSepaIdentifier('PSL-20250312-0001'));
    assert.ok(!isSepaIdentifier('PSL 1'));
    assert.ok(!isSepaIdentifier('PSL/'));
  });

  it('minor units to decimal text, exactly', () => {
    assert.equal(toDecimalString(29, 'EUR'), '0.29');
    assert.equal(toDecimalString(115, 'EUR'), '1.15');
    assert.equal(toDecimalString(100000001, 'EUR'), '1000000.01');
    assert.equal(toDecimalString(0, 'EUR'), '0.00');
    assert.equal(toDecimalString(-5, 'EUR'), '-0.05');
    assert.equal(toDecimalString(5000, 'JPY'), '5000');
    assert.equal(toDecimalString(1234, 'KWD'), '1.234');
    assert.equal(toDecimalString(2n ** 64n, 'EUR'), '184467440737095516.16');
    assert.throws(() => toDecimalString(1.5, 'EUR'), RangeError);
    assert.equal(sumMinor([Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]), 18014398509481982n);
  });
});
