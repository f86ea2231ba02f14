import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseEnvironment } from '../../src/partners/api-keys.ts';
import { DomainError } from '../../src/platform/errors.ts';

describe('the key forms’ environment (portal and operator console)', () => {
  test('one of the environments; none chosen is required, another not allowed', () => {
    assert.equal(parseEnvironment('production'), 'production');
    for (const [value, code] of [
      ['', 'required'],
      ['nowhere', 'not_allowed'],
      ['Sandbox', 'not_allowed'],
    ] as const) {
      assert.throws(
        () => parseEnvironment(value),
        (error: unknown) =>
          error instanceof DomainError &&
          error.code === 'validation_failed' &&
          error.extra.errors?.length === 1 &&
          error.extra.errors[0]!.field === '/environment' &&
          error.extra.errors[0]!.code === code,
      );
    }
  });
});
