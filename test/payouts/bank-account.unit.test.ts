import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sumMinor } from '../../src/payouts/amount.ts';
import { toDecimalString } from '../../src/platform/money.ts';
import { composeIBAN } from 'ibantools';
import { checkSepaAccount, ibanLengthOf, ibanNeedsBic, italianCin } from '../../src/payouts/bank-account.ts';
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

  it('needs a BIC for a payout in another currency than EUR, whatever the IBAN (a cross-border transfer)', () => {
    assert.deepEqual(checkSepaAccount({ iban: 'DE89370400440532013000', currency: 'GBP' }), {
      ok: false,
      issues: [
        {
          field: 'bic',
          code: 'bic_required_for_currency',
          message: 'a BIC is required for a payout in GBP (a cross-border transfer)',
        },
      ],
    });
    for (const currency of ['CHF', 'SEK', 'PLN'])
      assert.equal(checkSepaAccount({ iban: 'DE89370400440532013000', currency }).ok, false, currency);
    assert.equal(checkSepaAccount({ iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', currency: 'GBP' }).ok, true);
    assert.equal(checkSepaAccount({ iban: 'DE89370400440532013000', currency: 'EUR' }).ok, true, 'EUR: as before');
    const mismatch = checkSepaAccount({ iban: 'DE89370400440532013000', bic: 'NWBKGB2L', currency: 'GBP' });
    assert.deepEqual(mismatch.ok ? [] : mismatch.issues.map((i) => i.code), ['bic_country_mismatch']);
    // outside the EEA the country's own rule speaks first
    const swiss = checkSepaAccount({ iban: 'CH9300762011623852957', currency: 'CHF' });
    assert.deepEqual(swiss.ok ? [] : swiss.issues.map((i) => i.code), ['bic_required']);
  });

  it('gives coded issues the bank-details page can word in French or English', () => {
    const codes = (iban: string, bic?: string) => {
      const check = checkSepaAccount({ iban, bic });
      return check.ok ? [] : check.issues.map((i) => `${i.field}:${i.code}`);
    };
    assert.deepEqual(codes(''), ['iban:iban_required']);
    assert.deepEqual(codes('FR7630006000011234567890188'), ['iban:iban_mistyped']);
    assert.deepEqual(codes('not an iban'), ['iban:iban_invalid']);
    assert.deepEqual(codes('FR76300060000112345678901AB'), ['iban:iban_invalid'], 'letters where FR has digits');
    assert.deepEqual(codes('XX7630006000011234567890188'), ['iban:iban_unknown_country']);
    assert.deepEqual(codes('FR763000600001123456789018'), ['iban:iban_length']);
    assert.deepEqual(codes('BR1800360305000010009795493C1'), ['iban:iban_not_sepa']);
    // outside SEPA is said as soon as the country is known, whatever the length
    assert.deepEqual(codes('BR180036030500001000979549'), ['iban:iban_not_sepa']);
    assert.deepEqual(codes('US12 3456 7890'), ['iban:iban_unknown_country']);
    // a QR-IBAN (Swiss, bank id 30000-31999) only receives QR-bill payments: not "malformed"
    assert.deepEqual(codes('CH4431999123000889012'), ['iban:iban_qr']);
    assert.deepEqual(codes('CH9300762011623852957', 'UBSWCHZH80A'), [], 'an ordinary Swiss IBAN');
    assert.deepEqual(codes('FR7630006000011234567890189', 'NOPE'), ['bic:bic_length']);
    assert.deepEqual(codes('FR7630006000011234567890189', '12345678'), ['bic:bic_invalid']);
    assert.deepEqual(codes('FR7630006000011234567890189', 'COBADEFFXXX'), ['bic:bic_country_mismatch']);
    assert.deepEqual(codes('FR7630006000011234567890189', 'BNPAGPGP'), [], 'a Guadeloupe bank on a French IBAN');
  });

  it('says what is expected: the IBAN length of its country and the length entered, a BIC of 8 or 11 characters', () => {
    const issue = (iban: string, bic?: string) => {
      const check = checkSepaAccount({ iban, bic });
      return check.ok ? undefined : check.issues[0];
    };
    assert.deepEqual(issue('FR76 3000 6000 0112 3456 7890 18'), {
      field: 'iban',
      code: 'iban_length',
      message: 'has 26 characters, an IBAN of FR has 27',
      facts: { country: 'FR', expected: 27, entered: 26 },
    });
    // one character too many: the length, not the checksum, is what the customer is told
    assert.deepEqual(issue('DE893704004405320130000')?.facts, { country: 'DE', expected: 22, entered: 23 });
    assert.equal(ibanLengthOf('NL'), 18);
    assert.equal(ibanLengthOf('US'), undefined);
    assert.deepEqual(issue('DE89370400440532013001'), {
      field: 'iban',
      code: 'iban_mistyped',
      message: 'looks mistyped: its check digits do not match',
    });
    assert.deepEqual(issue('FR7630006000011234567890189', 'AGRIFRPPX'), {
      field: 'bic',
      code: 'bic_length',
      message: 'has 9 characters, a BIC has 8 or 11',
      facts: { entered: 9 },
    });
  });

  // Real account numbers from the SWIFT IBAN registry and the banks' published examples; each is then
  // mutated in its national check digits only, and given fresh IBAN check digits (composeIBAN), as
  // an IBAN rebuilt from a mistyped account number would be.
  const NATIONAL = [
    { iban: 'FR7630006000011234567890189', mutate: (b: string) => b.slice(0, -2) + '88', what: 'FR RIB key' },
    {
      iban: 'FR1420041010050500013M02606',
      mutate: (b: string) => b.slice(0, -2) + '07',
      what: 'FR RIB key, letter in the account',
    },
    { iban: 'MC5811222000010123456789030', mutate: (b: string) => b.slice(0, -2) + '31', what: 'MC RIB key' },
    { iban: 'BE68539007547034', mutate: (b: string) => b.slice(0, -2) + '35', what: 'BE mod 97' },
    {
      iban: 'ES9121000418450200051332',
      mutate: (b: string) => b.slice(0, 8) + '55' + b.slice(10),
      what: 'ES dígitos de control',
    },
    {
      iban: 'ES9121000418450200051332',
      mutate: (b: string) => b.slice(0, 9) + '6' + b.slice(10),
      what: 'ES account control digit',
    },
    { iban: 'IT60X0542811101000000123456', mutate: (b: string) => 'Y' + b.slice(1), what: 'IT CIN' },
    { iban: 'SM86U0322509800000000270100', mutate: (b: string) => 'V' + b.slice(1), what: 'SM CIN' },
    { iban: 'PT50000201231234567890154', mutate: (b: string) => b.slice(0, -2) + '55', what: 'PT NIB' },
  ];

  it('checks the national check digits: real accounts pass, a mistyped account number with a valid IBAN checksum does not', () => {
    for (const { iban, mutate, what } of NATIONAL) {
      const check = checkSepaAccount({
        iban,
        bic: iban.startsWith('MC') ? 'SOGEMCM1' : iban.startsWith('SM') ? 'ICRASMSMXXX' : undefined,
      });
      assert.equal(check.ok, true, `${iban} is valid (${what})`);
      const country = iban.slice(0, 2);
      const mutated = composeIBAN({ countryCode: country, bban: mutate(iban.slice(4)) });
      assert.ok(mutated && mutated !== iban, `${what}: a different IBAN`);
      const wrong = checkSepaAccount({ iban: mutated });
      assert.deepEqual(
        wrong.ok ? [] : wrong.issues.map((i) => `${i.field}:${i.code}`),
        ['iban:iban_check_digits'],
        `${mutated} (${what})`,
      );
    }
  });

  it('computes the Italian CIN: exactly one letter fits an account, the published one', () => {
    assert.equal(italianCin('0542811101000000123456'), 'X');
    assert.equal(italianCin('0322509800000000270100'), 'U');
    assert.equal(italianCin('054281110A'), undefined, 'malformed');
    for (const abiCabAccount of ['0542811101000000123456', '0306909606100000063428', '02008112030000100129XY']) {
      const fitting = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'].filter((cin) => {
        const iban = composeIBAN({ countryCode: 'IT', bban: cin + abiCabAccount });
        return iban !== null && checkSepaAccount({ iban }).ok;
      });
      assert.deepEqual(fitting, [italianCin(abiCabAccount)], abiCabAccount);
    }
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
