import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  keptReason,
  maskAccountNumberIn,
  maskKnownIbanIn,
  maskIban,
  maskIbansIn,
  maskNameIn,
  maskPersonalDataIn,
  maskTyped,
  maskUsAccountsIn,
  REASON_LENGTH,
  typedTooLong,
} from '../../src/platform/personal-text.ts';

describe('free text kept without the personal data it quotes', () => {
  it('masks an IBAN to its last four characters', () => {
    assert.equal(maskIban('FR76 3000 6000 0112 3456 7890 189'), '•••• 0189');
  });

  it('masks every IBAN a text quotes, grouped or not, in any case, and nothing else', () => {
    assert.equal(maskIbansIn('AC01 ACCOUNT DE89370400440532013000 CLOSED'), 'AC01 ACCOUNT •••• 3000 CLOSED');
    assert.equal(maskIbansIn('DE89 3704 0044 0532 0130 00 and nl91abna0417164300.'), '•••• 3000 and •••• 4300.');
    assert.equal(maskIbansIn('fr76-3000-6000-0112-3456-7890-189'), '•••• 0189');
    // reason codes, an IBAN whose check digits are wrong, and one inside a word stay as written
    for (const text of [
      'AC04 closed account number (simulated)',
      'MS03',
      'DE88370400440532013000',
      'CODE89370400440532013000',
    ])
      assert.equal(maskIbansIn(text), text);
  });

  it('masks an account quoted with a typo in its national check digits (the IBAN check digits still right)', () => {
    // FR: the RIB key 80 instead of 89, the IBAN's own check digits computed for it
    assert.equal(maskIbansIn('new account FR28 3000 6000 0112 3456 7890 180 please'), 'new account •••• 0180 please');
  });

  it('masks the email addresses and phone numbers of an operator note, and keeps the rest as written', () => {
    assert.equal(
      maskPersonalDataIn(
        'Customer jean.dupont@example.com called from +33 6 12 34 56 78 (also 06.12.34.56.78), new IBAN FR7630006000011234567890189',
      ),
      'Customer [email] called from [phone] (also [phone]), new IBAN •••• 0189',
    );
    assert.equal(maskPersonalDataIn('+1 (500) 555-0006 refused'), '[phone] refused');
    for (const text of [
      'Flight AF1234 on 2026-06-30 delayed 185 min, claim CL-7K3M-9QXT, 120.00 EUR',
      'fraud suspected: same booking reference ABC123 twice',
    ])
      assert.equal(maskPersonalDataIn(text), text);
  });

  it('masks a known name: each of its words, whole, in any case and order, with or without accents', () => {
    assert.equal(
      maskNameIn('AC04 compte clos DUPONT JEAN-PIERRE (Jean Pierre Dupont)', 'Jean-Pierre Dupont'),
      'AC04 compte clos [name] [name]-[name] ([name] [name] [name])',
    );
    assert.equal(maskNameIn('MD07 deceased: MULLER Zoë', 'Zoe Müller'), 'MD07 deceased: [name] [name]');
    // a word containing the name, and a one-letter initial, stay as written
    assert.equal(maskNameIn('Smithson J. Smith', 'J Smith'), 'Smithson J. [name]');
    assert.equal(maskNameIn('AC04 closed', ''), 'AC04 closed');
  });

  it("masks the IBAN, email and phone a reason quotes before the holder's name, so a name inside them hides nothing", () => {
    assert.equal(
      maskPersonalDataIn('AC04 GB47 ABBY 0901 2912 3456 78 ABBY SMITH', 'Abby Smith'),
      'AC04 •••• 5678 [name] [name]',
    );
    assert.equal(
      maskPersonalDataIn('write to abby.smith@gmail.com or +44 7700 900123, Abby', 'Abby Smith'),
      'write to [email] or [phone], [name]',
    );
  });

  it('masks the name as SEPA spells it in pain.001 (Ł → L, ß → ss, ø → o, æ → ae)', () => {
    assert.equal(maskNameIn('AC04 LUKASZ WALESA', 'Łukasz Wałęsa'), 'AC04 [name] [name]');
    assert.equal(maskNameIn('MD07 BJORN ODEGAARD', 'Bjørn Ødegaard'), 'MD07 [name] [name]');
    assert.equal(maskNameIn('AC04 STRAUSS HANS', 'Hans Strauß'), 'AC04 [name] [name]');
    assert.equal(maskNameIn('AC04 CAESAR', 'Cæsar'), 'AC04 [name]');
    // and as written, accents or not
    assert.equal(maskNameIn('AC04 Wałęsa Walesa', 'Łukasz Wałęsa'), 'AC04 [name] [name]');
  });

  it('masks a two-letter name word only next to another word of the name', () => {
    assert.equal(maskNameIn('Compte clos à la demande', 'Marie La Fontaine'), 'Compte clos à la demande');
    assert.equal(maskNameIn('AC04 LA FONTAINE MARIE', 'Marie La Fontaine'), 'AC04 [name] [name] [name]');
    assert.equal(
      maskNameIn('Clos de la part du titulaire DE LA FONTAINE, Jean', 'Jean de la Fontaine'),
      'Clos de la part du titulaire [name] [name] [name], [name]',
    );
    assert.equal(maskNameIn('no account, an error', 'An No'), 'no account, an error');
    assert.equal(maskNameIn('holder NO AN', 'An No'), 'holder [name] [name]');
  });

  it('masks a known IBAN whatever its spacing, check digits, or as its bare national number, any length', () => {
    const iban = 'FR7630006000011234567890189';
    for (const quoted of [
      'FR76 3000 6000 0112 3456 7890 189',
      'FR 76 3000 6000 0112 3456 7890 189',
      'FR76.3000.6000.0112.3456.7890.189',
      'fr76-3000-6000-0112-3456-7890-189',
      'FR77 3000 6000 0112 3456 7890 189',
      '30006000011234567890189',
      '3000 6000 0112 3456 7890 189',
    ])
      assert.equal(maskKnownIbanIn(`paid to ${quoted}.`, iban), 'paid to •••• 0189.', quoted);
    // a 34-character IBAN (its country's longest) too
    assert.equal(
      maskKnownIbanIn('LC55 HEMM 0001 0001 0012 0012 0002 3015 ok', 'LC55HEMM000100010012001200023015'),
      '•••• 3015 ok',
    );
    // not inside a longer run
    assert.equal(maskKnownIbanIn('ref 930006000011234567890189', iban), 'ref 930006000011234567890189');
  });

  it('masks a known US account number to its last four, written whole or grouped, and nothing else', () => {
    assert.equal(
      maskAccountNumberIn('R03 NO ACCOUNT 000123456789 / 0001-2345 6789', '000123456789'),
      'R03 NO ACCOUNT •••• 6789 / •••• 6789',
    );
    // inside a longer number, another number, or too short to tell from ordinary numbers: as written
    assert.equal(maskAccountNumberIn('ref 9000123456789 R03', '000123456789'), 'ref 9000123456789 R03');
    assert.equal(maskAccountNumberIn('R03 account 12', '12'), 'R03 account 12');
    // 4 characters or fewer: a year, a date, an amount, a claim number would be masked with it
    assert.equal(maskAccountNumberIn('flown 2026, paid 2026 EUR', '2026'), 'flown 2026, paid 2026 EUR');
    // a whole word only: not a piece of a claim number, nor of a longer hyphenated run
    assert.equal(maskAccountNumberIn('CLM-00012345 in 2026', '12345'), 'CLM-00012345 in 2026');
    assert.equal(maskAccountNumberIn('CLM-00012345 in 2026', '00012345'), 'CLM-00012345 in 2026');
    assert.equal(maskAccountNumberIn('year 20261 or 12345', '12345'), 'year 20261 or •••• 2345');
    assert.equal(
      maskPersonalDataIn('R02 closed 000123456789 Jordan SMITH', 'Jordan Smith', '000123456789'),
      'R02 closed •••• 6789 [name] [name]',
    );
  });

  it('masks the US account numbers next to a routing number or after a word naming an account', () => {
    assert.equal(maskUsAccountsIn('routing 021000021 account 123456789012'), 'routing 021000021 account •••• 9012');
    assert.equal(maskUsAccountsIn('4444555566 (021000021)'), '•••• 5566 (021000021)');
    for (const word of ['acct', 'compte', 'cuenta', 'Kontonummer', 'conto', 'conta', 'Account no.'])
      assert.equal(maskUsAccountsIn(`${word} 12345678`), `${word} •••• 5678`);
    // a 9-digit number that is no routing number, and numbers far from any account word, are left
    assert.equal(maskUsAccountsIn('claim 123456789 / 4444555566'), 'claim 123456789 / 4444555566');
    assert.equal(maskUsAccountsIn('flight 2031 delayed 180 minutes'), 'flight 2031 delayed 180 minutes');
    // masked already: masked again, nothing changes
    assert.equal(maskUsAccountsIn('old konto •••• 4444'), 'old konto •••• 4444');
  });
});

describe('free text checked by its length as typed before any pattern', () => {
  const bound = { field: '/reason', ...REASON_LENGTH };

  it('takes a text of exactly the typed maximum, refuses one more: too_long naming the maximum kept', () => {
    assert.equal(typedTooLong('a'.repeat(2000), bound), undefined);
    assert.deepEqual(typedTooLong('a'.repeat(2001), bound), {
      field: '/reason',
      code: 'too_long',
      message: 'must be at most 500 characters',
    });
    // without a kept maximum, the typed one is named
    assert.equal(typedTooLong('a'.repeat(200), { field: '/description', typed: 200 }), undefined);
    assert.equal(
      typedTooLong('a'.repeat(201), { field: '/description', typed: 200 })?.message,
      'must be at most 200 characters',
    );
  });

  it('masks a text within the bound, and never runs the masks on one past it', () => {
    const masked: string[] = [];
    const mask = (typed: string) => {
      masked.push(typed);
      return maskPersonalDataIn(typed);
    };
    const within = `write to jean.dupont@example.com ${'a'.repeat(2000 - 33)}`;
    assert.equal(within.length, 2000);
    assert.equal(maskTyped(within, bound, mask).masked, within.replace('jean.dupont@example.com', '[email]'));
    assert.deepEqual(masked, [within]);
    // a form's 16 KiB of an address-like text, the email pattern's slow case: refused by its length alone
    const huge = `${'a.'.repeat(8_000)}@`;
    const refused = maskTyped(huge, bound, mask);
    assert.equal(refused.error?.code, 'too_long');
    assert.equal(refused.masked, undefined);
    assert.deepEqual(masked, [within], 'the mask is not called on a text past the bound');
    // the default mask is maskPersonalDataIn
    assert.equal(maskTyped('call +33 6 12 34 56 78', bound).masked, 'call [phone]');
  });
});

describe("an operator's required reason (keptReason: stop-sale, amendment)", () => {
  const bound = { field: '/reason', ...REASON_LENGTH };
  it('masked when kept; empty required; too long as typed or once masked one refusal', () => {
    assert.deepEqual(keptReason('  call +33 6 12 34 56 78 ', bound, 'why'), { kept: 'call [phone]', error: undefined });
    assert.deepEqual(keptReason('   ', bound, 'why'), {
      kept: '',
      error: { field: '/reason', code: 'required', message: 'why' },
    });
    const tooLong = { field: '/reason', code: 'too_long', message: 'must be at most 500 characters' };
    assert.deepEqual(keptReason('x'.repeat(2001), bound, 'why').error, tooLong, 'too long as typed');
    assert.deepEqual(keptReason('x'.repeat(501), bound, 'why').error, tooLong, 'too long once masked');
  });
});
