import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CATALOG } from '../../src/web/catalog.ts';

/**
 * The portal's card of the API to manage policies (src/web/catalog.ts) says what the API does: every
 * kind of write a policy-administration system makes, in English and in French typeset as French
 * wants (a narrow no-break space before : ; ? !).
 */
describe("the portal's card of the API to manage policies", () => {
  const { summary } = CATALOG['policy-admin'];

  it('names the policyholder changes and the registration of a new car beside the other writes', () => {
    for (const word of ['record', 'search', 'in force', 'policyholder', 'plate', 'renew', 'cancel'])
      assert.ok(summary.en.includes(word), `the English summary names "${word}": ${summary.en}`);
    for (const word of ['enregistrez', 'cherchez', 'en vigueur', 'coordonnées', 'plaque', 'renouvelez', 'résiliez'])
      assert.ok(summary.fr.includes(word), `the French summary names "${word}": ${summary.fr}`);
  });

  it('puts a narrow no-break space, not a plain one, before : ; ? ! in French', () => {
    assert.doesNotMatch(summary.fr, /[ \u00a0][:;?!]/u, summary.fr);
  });
});
