import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasHiddenCharacter, hiddenCharacterError } from '../../src/platform/hidden-characters.ts';

/** One of each kind the rule refuses: what a reader cannot see, or what breaks the line that prints it. */
const HIDDEN: readonly [string, string][] = [
  ['tab', '\t'],
  ['line feed', '\n'],
  ['bell', '\u0007'],
  ['delete', '\u007f'],
  ['soft hyphen', '\u00ad'],
  ['combining grapheme joiner', '\u034f'],
  ['Arabic letter mark', '\u061c'],
  ['Hangul choseong filler', '\u115f'],
  ['Mongolian free variation selector', '\u180b'],
  ['zero-width space', '\u200b'],
  ['left-to-right mark', '\u200e'],
  ['line separator', '\u2028'],
  ['paragraph separator', '\u2029'],
  ['right-to-left override', '\u202e'],
  ['word joiner', '\u2060'],
  ['right-to-left isolate', '\u2067'],
  ['Hangul filler', '\u3164'],
  ['variation selector 1', '\ufe00'],
  ['variation selector 16 (emoji)', '\ufe0f'],
  ['byte order mark', '\ufeff'],
  ['halfwidth Hangul filler', '\uffa0'],
  ['tag letter A', '\u{e0041}'],
  ['variation selector 17', '\u{e0100}'],
  ['variation selector 256', '\u{e01ef}'],
];

describe('text a person typed hides no character (platform/hidden-characters.ts)', () => {
  it('refuses every control, format and default-ignorable character, with or without the joiners option', () => {
    for (const [what, c] of HIDDEN) {
      assert.equal(hasHiddenCharacter(`Sky${c}Fly`), true, what);
      assert.equal(hasHiddenCharacter(`Sky${c}Fly`, { joiners: true }), true, `${what}, joiners allowed`);
    }
  });

  it('allows the zero-width non-joiner and joiner only with `joiners` (Persian and Indic names)', () => {
    // Persian (a ZWNJ after a letter, after a vowel sign), Devanagari (a ZWJ after a virama), Sinhala (Sri), Urdu
    for (const text of ['مهر\u200cآوا', 'مهرَ\u200cآوا', 'क्\u200dष', 'अर्\u200dध', 'ශ්\u200dරී', 'می\u200cخواهم']) {
      assert.equal(hasHiddenCharacter(text, { joiners: true }), false, text);
      assert.equal(hasHiddenCharacter(text), true, text);
    }
  });

  it('refuses a joiner that joins nothing: leading, trailing, beside a space or a joiner, or in a Latin, Greek, Cyrillic word', () => {
    for (const text of [
      '\u200cJohn',
      'Martin\u200d',
      'Jo\u200dhn',
      'Jo\u200chn',
      'Rene\u0301\u200dx',
      'Σ\u200cκ',
      'Ива\u200dн',
      '\u200cمهر',
      'مهر\u200c',
      'مهر \u200cآوا',
      'مهر\u200c\u200dآوا',
      'क्\u200d',
      '12\u200c34',
    ])
      assert.equal(hasHiddenCharacter(text, { joiners: true }), true, JSON.stringify(text));
  });

  it('takes visible text of any script, marks after letters, and an emoji without its variation selector', () => {
    for (const text of [
      'SkyFly',
      'Hélène Müller-Łukasz',
      'René',
      'Rene\u0301',
      '李小龍',
      'Σκάι',
      'SkyFly ✈',
      'Sky Fly 😀',
    ])
      assert.equal(hasHiddenCharacter(text), false, text);
    // the same emoji with VS16 (the colour form): refused in a brand name — the customer may not see it
    assert.equal(hasHiddenCharacter('SkyFly ✈\ufe0f'), true);
  });

  it('has one field error wherever it applies', () => {
    assert.deepEqual(hiddenCharacterError('/x'), {
      field: '/x',
      code: 'invalid_format',
      message: 'must not contain a control or invisible character (a line break, a tab, a direction mark)',
    });
  });
});
