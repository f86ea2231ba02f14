import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findUnsafeText, hasUnsafeText } from '../../src/platform/text-guard.ts';

/** `leaf` inside `levels` nested objects (`{ a: { a: ... leaf } }`): the innermost at depth levels - 1. */
function nested(levels: number, leaf: unknown): unknown {
  let node = leaf;
  for (let i = 0; i < levels; i++) node = { a: node };
  return node;
}

function withoutPrototype(entries: Record<string, unknown>): object {
  return Object.assign(Object.create(null) as object, entries);
}

/** Each case: its name, the value, and whether the rule refuses it. */
const CASES: readonly [string, unknown, boolean][] = [
  ['a clean top-level string', 'Zoë — ½', false],
  ['a top-level string with U+0000', 'a\u0000b', true],
  ['a top-level lone high surrogate', 'a\ud800', true],
  ['a top-level lone low surrogate', '\udc00b', true],
  ['a paired surrogate', '\ud83d\ude00', false],
  ['null', null, false],
  ['a number', 42, false],
  ['an empty object', {}, false],
  ['63 levels, clean', nested(63, 'clean'), false],
  ['64 levels, clean', nested(64, 'clean'), false],
  ['65 levels, clean', nested(65, 'clean'), true],
  ['64 levels, U+0000 at the bottom', nested(64, 'a\u0000'), true],
  ['63 levels and an empty object', nested(63, {}), false],
  ['64 levels and an empty object', nested(64, {}), true],
  ['64 levels and an empty array', nested(64, []), true],
  ['a clean deep object', nested(60, { list: [1, 'two', { three: [null, true] }], text: 'fine' }), false],
  ['an unsafe key', { 'name\u0000': 'x' }, true],
  ['an unsafe key deep down', nested(40, { ['\udfff']: 1 }), true],
  ['an unsafe key with a clean value among clean keys', { a: 1, b: { '\ud800': 'ok' }, c: 'x' }, true],
  ['an array of clean strings', ['a', 'b', ['c', ['d']]], false],
  ['an array with an unsafe string', ['a', 'b', ['c', ['d\u0000']]], true],
  ['arrays 65 levels deep', JSON.parse('['.repeat(65) + ']'.repeat(65)) as unknown, true],
  ['arrays 64 levels deep', JSON.parse('['.repeat(64) + ']'.repeat(64)) as unknown, false],
  ['a null-prototype object, clean', withoutPrototype({ a: 'x', b: withoutPrototype({ c: 'y' }) }), false],
  ['a null-prototype object, unsafe value', withoutPrototype({ a: withoutPrototype({ c: '\u0000' }) }), true],
  ['a null-prototype object, unsafe key', withoutPrototype({ ['k\ud800']: 1 }), true],
  ['an unsafe key inherited, not own', Object.create({ ['\u0000']: '\u0000' }) as object, false],
  ['an own key named hasOwnProperty', { hasOwnProperty: 'x', b: '\u0000' }, true],
];

describe('hasUnsafeText', () => {
  for (const [name, value, refused] of CASES) {
    it(`answers as findUnsafeText reports: ${name}`, () => {
      assert.equal(findUnsafeText(value).length > 0, refused, 'findUnsafeText');
      assert.equal(hasUnsafeText(value), findUnsafeText(value).length > 0);
    });
  }
});
