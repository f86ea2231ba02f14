import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAccountHolder } from '../../src/payouts/account-holder.ts';

const code = (text: string) => {
  const check = checkAccountHolder(text);
  return check.ok ? 'ok' : check.code;
};

describe('the account holder’s name on the bank-details page', () => {
  it('takes names in any Latin spelling: accents, hyphens, apostrophes, full stops, commas; spaces made one', () => {
    for (const name of [
      'Jean Dupont',
      'Hélène Müller-Łukasz',
      'Seán O’Brien',
      "D'Arcy",
      'J. R. Smith',
      'Dupont, Jean',
      'Strauß',
    ])
      assert.equal(code(name), 'ok', name);
    assert.deepEqual(checkAccountHolder('  Jean \u00a0  Dupont '), { ok: true, name: 'Jean Dupont' });
    // a decomposed accent (e + U+0301) is a letter and its mark
    assert.equal(code('Rene\u0301 Lefe\u0300vre'), 'ok');
  });

  it('refuses markup, control and invisible characters, digits and other signs', () => {
    for (const name of [
      '<script>alert(1)</script>',
      '<b>Jean</b> Dupont',
      'Jean &amp; Marie', // ; is no sign of a name
      'Jean <Dupont>',
      'Jean Dupont?',
      'Jean: Dupont',
      'Jean Dupont!',
      'Jean "Johnny" Dupont',
      'Jean\tDupont',
      'Jean\nDupont',
      'Jean\u0007Dupont',
      'Jean\u007fDupont',
      'Jean\u202eDupont', // right-to-left override
      'Jean\u200bDupont', // zero-width space
      'Jean Dupont 2',
      'Jean@Dupont',
      'Jean Dupont 😀',
      'Jean\u034fDupont', // combining grapheme joiner: a mark that shows nothing
      'Jean Dupont\ufe0f', // a variation selector
      'Jean \u3164 Dupont', // the Hangul filler, a "letter" that shows nothing
      '\u3164\u3164',
      '\u0301Jean Dupont', // a mark on no letter
      'Jean \u0301 Dupont',
    ])
      assert.equal(code(name), 'holder_characters', JSON.stringify(name));
  });

  it("takes the signs names use: & / ( ) and the apostrophe as keyboards type it, kept as '", () => {
    for (const name of ['Jean & Marie Dupont', 'M. & Mme Dupont', 'Anne-Marie (Dupont)', 'Dupont/Martin'])
      assert.deepEqual(checkAccountHolder(name), { ok: true, name });
    for (const [typed, kept] of [
      ['‘t Hooft', "'t Hooft"],
      ['Seán O’Brien', "Seán O'Brien"],
      ['D´Arcy', "D'Arcy"],
      ['D`Arcy', "D'Arcy"],
      ['Kaʼiulani', "Ka'iulani"],
    ] as [string, string][])
      assert.deepEqual(checkAccountHolder(typed), { ok: true, name: kept }, typed);
  });

  it('counts and keeps the name in NFC', () => {
    // 35 letters each with a decomposed accent: 70 code units in NFD, 35 in NFC
    const decomposed = 'e\u0301'.repeat(35);
    assert.deepEqual(checkAccountHolder(decomposed), { ok: true, name: 'é'.repeat(35) });
    assert.deepEqual(checkAccountHolder('Rene\u0301 Lefe\u0300vre'), { ok: true, name: 'René Lefèvre' });
    assert.equal(code('e\u0301'.repeat(71)), 'holder_required'); // 71 letters once composed
  });

  it('a name of digits or signs only: it needs letters (not "Latin letters")', () => {
    // whatever else it holds: a tab, a line break, an invisible character (the letters are asked for first)
    for (const name of ['12345678', '0612345678', '-- --', '<>', '12 34', '1\t2', '12\n', '\u200b\u200b', '1\u202e2'])
      assert.equal(code(name), 'holder_needs_letters', name);
  });

  it('the length first, then the alphabet', () => {
    assert.equal(code(''), 'holder_required');
    assert.equal(code(' J '), 'holder_required');
    assert.equal(code('J'.repeat(71)), 'holder_required');
    assert.equal(code('J'.repeat(70)), 'ok');
    assert.equal(code('Иван Петров'), 'holder_not_latin');
    assert.equal(code('王小明'), 'holder_not_latin');
  });
});
