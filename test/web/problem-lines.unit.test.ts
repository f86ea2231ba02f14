import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dayRange } from '../../src/ledger/reports.ts';
import { DomainError, ERROR_CODES, type ErrorCode } from '../../src/platform/errors.ts';
import { parseDeparture } from '../../src/reference/validate.ts';
import { problemLines } from '../../src/web/web-kit.ts';

/** Pages show domain errors in their language: field errors by their code, errors by theirs. */

const thrown = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  assert.fail('expected a DomainError');
};

describe('domain errors on pages', () => {
  test('field errors carry a code, which a French page translates; an English page keeps the message', () => {
    const error = thrown(() => dayRange('2026-13-45', 'tomorrow'));
    assert.deepEqual(
      error.extra.errors?.map((e) => e.code),
      ['invalid_format', 'invalid_format'],
    );
    assert.deepEqual(problemLines(error, 'fr'), [
      'from\u202f: n’a pas le format attendu',
      'to\u202f: n’a pas le format attendu',
    ]);
    assert.deepEqual(problemLines(error, 'en'), [
      'from: must be a date as YYYY-MM-DD',
      'to: must be a date as YYYY-MM-DD',
    ]);

    const reversed = thrown(() => dayRange('2026-11-02', '2026-11-01'));
    assert.deepEqual(problemLines(reversed, 'fr'), ['to\u202f: est hors des limites permises']);
  });

  test('a departure time keeps the code of what is wrong with it', () => {
    const error = thrown(() => parseDeparture('next tuesday', 'CDG', '/returnDepartureDateTime'));
    assert.equal(error.code, 'invalid_departure_time');
    assert.deepEqual(
      error.extra.errors?.map((e) => [e.field, e.code]),
      [['/returnDepartureDateTime', 'invalid_format']],
    );
  });

  test('a French page shows every error code in French, never the English detail', () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const detail = `English detail of ${code}`;
      const [line] = problemLines(new DomainError(code, detail), 'fr');
      assert.ok(line && line !== detail, code);
    }
  });
});
