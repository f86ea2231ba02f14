import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorSummary, fieldError } from '../../src/web/layout.ts';

/** One markup for a refused form's summary and for a field's error, in the consoles and on the claim page. */

describe('a refused form', () => {
  test('the summary: its title, each error a link to its field, focused; nothing without an error', () => {
    const summary = String(errorSummary('Check the fields', [{ field: 'f-iban', text: 'IBAN: <invalid>' }]));
    assert.equal(
      summary,
      '<div class="alert" role="alert" id="error-summary" tabindex="-1" autofocus><h2>Check the fields</h2>\n' +
        '<ul><li><a href="#f-iban">IBAN: &lt;invalid&gt;</a></li></ul></div>',
    );
    assert.equal(errorSummary('Check the fields', []), '');
  });

  test('a field is described by its message exactly when the message is there, an empty one included', () => {
    for (const error of ['Enter a date.', '']) {
      const { attributes, message } = fieldError('d-from', error, true);
      assert.equal(String(attributes), ' aria-invalid="true" aria-describedby="d-from-error" autofocus');
      assert.match(String(message), /^<p class="error" id="d-from-error">/);
    }
    assert.deepEqual(fieldError('d-from', undefined, true), { attributes: '', message: '' });
    assert.doesNotMatch(String(fieldError('d-to', 'Enter a date.').attributes), /autofocus/);
  });
});
