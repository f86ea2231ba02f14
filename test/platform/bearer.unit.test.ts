import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readBearer } from '../../src/platform/auth.ts';

describe('readBearer', () => {
  it('reads no credential from no header, another scheme, or the scheme without a token (RFC 6750 §3.1)', () => {
    for (const header of [
      undefined,
      '',
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer   ',
      'bearer',
      'Bearerxyz0123456789abcdef',
    ])
      assert.deepEqual(readBearer(header), { kind: 'absent' }, String(header));
  });
  it('reads a token whatever the case of the scheme, trailing spaces aside', () => {
    for (const header of [
      'Bearer psl_sbx_0123456789abcdef',
      'bearer psl_sbx_0123456789abcdef  ',
      'BEARER  psl_sbx_0123456789abcdef',
    ])
      assert.deepEqual(readBearer(header), { kind: 'token', token: 'psl_sbx_0123456789abcdef' }, header);
  });
  it('reads as malformed what cannot be a key or operator token', () => {
    for (const header of [
      'Bearer short',
      'Bearer two words_0123456789',
      'Bearer ' + 'a'.repeat(201),
      'Bearer é0123456789abcdefgh',
    ])
      assert.deepEqual(readBearer(header), { kind: 'malformed' }, header);
  });
});
