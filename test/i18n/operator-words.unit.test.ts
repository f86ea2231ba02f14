import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { en } from '../../src/i18n/en.ts';
import { fr } from '../../src/i18n/fr.ts';

/** The operator pages' words (en, fr): a refusal names no one bank file format when either may hold the payout. */
describe("the operator pages' words", () => {
  it('an instructed payout is in a transfer file, pain.001 or NACHA: no language says SEPA alone', () => {
    for (const words of [en, fr] as { problems?: Record<string, unknown> }[])
      for (const code of ['payout_instructed', 'claim_not_voidable']) {
        const text = words.problems?.[code];
        if (typeof text === 'string') assert.doesNotMatch(text, /SEPA/, `${code}: ${text}`);
      }
    assert.match(String((fr.problems as Record<string, unknown>).payout_instructed), /pain\.001 ou NACHA/);
  });
});
