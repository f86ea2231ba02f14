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
      'Jean &amp; Marie',
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
    ])
      assert.equal(code(name), 'holder_characters', JSON.stringify(name));
  });

  it('a name of digits or signs only: it needs letters (not "Latin letters")', () => {
    for (const name of ['12345678', '0612345678', '-- --', '<>', '12 34'])
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
