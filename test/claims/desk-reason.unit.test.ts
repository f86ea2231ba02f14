import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkDeskAction, type DeskAction } from '../../src/claims/desk.ts';
import { DomainError } from '../../src/platform/errors.ts';

/** A desk action's reason, checked before anything is read (`checkDeskAction`). */
describe("a desk action's reason", () => {
  const action = (reason: string): DeskAction => ({
    claimNumber: 'clm-00000001',
    actor: 'operator:test',
    reason,
    actionToken: 'a'.repeat(22),
  });
  const reasonError = (reason: string) => {
    try {
      checkDeskAction(action(reason));
    } catch (error) {
      if (error instanceof DomainError) return error.extra.errors?.find((e) => e.field === '/reason');
      throw error;
    }
    return undefined;
  };

  it('is bounded by its length as typed, before its spaces are collapsed', () => {
    // 2,002 characters typed, "a b" once collapsed: refused by the length typed, never collapsed first
    assert.deepEqual(reasonError(`a${' '.repeat(2000)}b`), {
      field: '/reason',
      code: 'too_long',
      message: 'must be at most 500 characters',
    });
    // within the bound as typed: collapsed, then counted as kept
    assert.equal(reasonError(`a${' '.repeat(1998)}b`), undefined);
    assert.equal(checkDeskAction(action(`  hold   it\n now `)).reason, 'hold it now');
    // too long once kept: the same code and words as too long as typed (stop-sale and amendment reasons too)
    assert.deepEqual(reasonError('x'.repeat(501)), {
      field: '/reason',
      code: 'too_long',
      message: 'must be at most 500 characters',
    });
    assert.equal(reasonError('ab')?.code, 'required');
  });
});
