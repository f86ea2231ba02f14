import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dayRange } from '../../src/ledger/reports.ts';
import { DomainError, ERROR_CODES, type ErrorCode } from '../../src/platform/errors.ts';
import { keptTooLong, REASON_LENGTH, typedTooLong } from '../../src/platform/personal-text.ts';
import { parseDeparture } from '../../src/reference/validate.ts';
import { checkAgreement } from '../../src/partners/partners.ts';
import { agreementProblemLines, type AgreementFormValues } from '../../src/web/agreement-form.ts';
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
    // a range longer than an export's maximum names the maximum, in French too
    const long = thrown(() => dayRange('2026-01-01', '2027-01-02'));
    assert.deepEqual(problemLines(long, 'fr'), [
      'to\u202f: est hors des limites permises\u202f: au plus 366\u00a0jours, les deux inclus',
    ]);
    assert.match(problemLines(long, 'en')[0]!, /^to: must be at most 366 days after from/);
    // only the ledger's own message (the exports' and the dashboard's range): the claims list's rule
    // (367 days both included) keeps the plain words, not a "both included" count that is not its own
    const others = new DomainError('validation_failed', 'The date range is longer than 366 days.', {
      errors: [{ field: '/toDate', code: 'out_of_range', message: 'at most 366 days after fromDate' }],
    });
    assert.deepEqual(problemLines(others, 'fr'), ['toDate\u202f: est hors des limites permises']);
  });

  test("a French page names the ceiling an amount is above, as the agreement's check and the desk's correction say it", () => {
    const errors = checkAgreement({
      allowedFormulas: ['delay'],
      currency: 'USD',
      taxRate: '0.09',
      commissionMin: '0.1',
      commissionMax: '0.2',
      compensationMin: 100,
      compensationMax: 2_000_000_000,
    }).filter((e) => e.field === '/compensationMax');
    const agreement = new DomainError('validation_failed', 'The agreement is not valid.', { errors });
    const fr = problemLines(agreement, 'fr');
    assert.deepEqual(fr, ['compensationMax\u202f: est hors des limites permises\u202f: au plus 11111111,11\u00a0USD']);
    assert.deepEqual(
      agreementProblemLines(agreement, { currency: 'USD' } as AgreementFormValues, 'fr').map((l) =>
        l.split('\u202f: ').slice(1).join('\u202f: '),
      ),
      ['est hors des limites permises\u202f: au plus 11111111,11\u00a0USD'],
    );
    const desk = new DomainError('validation_failed', 'The correction is not valid.', {
      errors: [
        {
          field: '/amount',
          code: 'out_of_range',
          message: 'at most 999999999.99 EUR: a SEPA transfer carries at most 999999999.99 EUR',
        },
      ],
    });
    assert.deepEqual(problemLines(desk, 'fr'), [
      'amount\u202f: est hors des limites permises\u202f: au plus 999999999,99\u00a0EUR',
    ]);
    // an out_of_range naming no ceiling keeps the code's words
    const plain = new DomainError('validation_failed', 'x', {
      errors: [{ field: '/amount', code: 'out_of_range', message: 'must be more than zero' }],
    });
    assert.deepEqual(problemLines(plain, 'fr'), ['amount\u202f: est hors des limites permises']);
  });

  test('a French page names the most characters a text too long may have, as the English message does', () => {
    const desk = new DomainError('validation_failed', 'The action is not valid.', {
      errors: [
        typedTooLong('a'.repeat(2001), { field: '/reason', ...REASON_LENGTH })!,
        keptTooLong('a'.repeat(501), { field: '/reason', ...REASON_LENGTH })!,
        { field: '/phone', code: 'too_long', message: 'must be at most 40 characters as typed (a number…); 60 given' },
        { field: '/description', code: 'too_long', message: 'must NOT have more than 200 characters' },
      ],
    });
    assert.deepEqual(problemLines(desk, 'fr', { reason: 'Motif' }), [
      'Motif\u202f: est trop long\u202f: au plus 500\u00a0caractères',
      'Motif\u202f: est trop long\u202f: au plus 500\u00a0caractères',
      'phone\u202f: est trop long\u202f: au plus 40\u00a0caractères',
      'description\u202f: est trop long\u202f: au plus 200\u00a0caractères',
    ]);
    assert.equal(problemLines(desk, 'en')[0], 'reason: must be at most 500 characters');
    // a too_long naming no bound keeps the code's words
    const plain = new DomainError('validation_failed', 'x', {
      errors: [{ field: '/amount', code: 'too_long', message: 'is too long' }],
    });
    assert.deepEqual(problemLines(plain, 'fr'), ['amount\u202f: est trop long']);
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

describe('a form names each field by its label, never the API’s name', () => {
  const error = new DomainError('validation_failed', 'Invalid.', {
    errors: [
      { field: '/toDate', code: 'out_of_range', message: 'must be on or after fromDate' },
      { field: '/email', code: 'invalid_format', message: 'must be an email address' },
      { field: '/other', code: 'invalid', message: 'is wrong' },
    ],
  });
  const labels = { fromDate: 'Opened from', toDate: 'Opened until', email: 'Email' };

  test('in English: the label, and a camelCase name in the message told by its label; a plain word left alone', () => {
    assert.deepEqual(problemLines(error, 'en', labels), [
      'Opened until: must be on or after “Opened from”',
      'Email: must be an email address',
      'other: is wrong',
    ]);
  });

  test('in French: the label, the code’s words', () => {
    assert.deepEqual(problemLines(error, 'fr', { ...labels, toDate: 'Ouverts jusqu’au', email: 'E-mail' }), [
      'Ouverts jusqu’au\u202f: est hors des limites permises',
      'E-mail\u202f: n’a pas le format attendu',
      'other\u202f: n’est pas valide',
    ]);
  });

  test('without labels, as before: the API’s names', () => {
    assert.equal(problemLines(error, 'en')[0], 'toDate: must be on or after fromDate');
  });

  test('a label is put in as written: no `$&` or `$1` patterns expanded', () => {
    assert.equal(
      problemLines(error, 'en', { ...labels, fromDate: 'From $& ($1, $$)' })[0],
      'Opened until: must be on or after “From $& ($1, $$)”',
    );
  });
});
