import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { personNameError, personNameIssue } from '../../src/platform/person-name.ts';

describe('a person’s name as typed (platform/person-name.ts)', () => {
  it('takes names of any script, the joiners Persian and Indic names write, trimmed', () => {
    for (const name of ['Camille', "O'Brien 李", 'Jean-Luc', 'مهر\u200cآوا', 'क्\u200dष', 'Jean\n', ' Σοφία '])
      assert.equal(personNameIssue(name), undefined, JSON.stringify(name));
  });

  it('refuses a blank name, a hidden character, a name without a letter — in that order', () => {
    for (const [name, issue] of [
      ['', 'blank'],
      [' \t\n', 'blank'],
      ['Mar\u202etin', 'hidden'],
      ['Mar\ntin', 'hidden'],
      ['\u3164', 'hidden'],
      ['Martin\ufe0f', 'hidden'],
      ['Mar\u{e0100}tin', 'hidden'],
      ['-', 'no_letter'],
      ['.', 'no_letter'],
      // a joiner between no two letters of a script that writes it shows nothing (hidden-characters.ts)
      ['\u200d', 'hidden'],
      ['Martin\u200d', 'hidden'],
      ['\u200cJohn', 'hidden'],
      ['Jo\u200dhn', 'hidden'],
      ['12', 'no_letter'],
    ] as const)
      assert.equal(personNameIssue(name), issue, JSON.stringify(name));
  });

  it('gives one field error a name: required, invalid_format, invalid', () => {
    assert.deepEqual(personNameError(' ', '/customer/firstName'), {
      field: '/customer/firstName',
      code: 'required',
      message: 'must not be blank',
    });
    assert.equal(personNameError('Ca\u200bmille', '/f')?.code, 'invalid_format');
    assert.deepEqual(personNameError('-', '/f'), { field: '/f', code: 'invalid', message: 'must contain a letter' });
    assert.equal(personNameError('Camille', '/f'), undefined);
  });
});
