import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseReconciliationCsv } from '../../src/payouts/reconciliation.ts';

describe('reconciliation CSV', () => {
  it('reads paid and failed rows with their line numbers', () => {
    const csv = [
      'endToEndId,status,reason',
      'PSL5TCW6YBLAJWJL44L7NTNFMIZGB,paid,',
      'PSLQ2W7MRJ6SE5KZXH3RNAXH4J3UA,failed,AC04',
      '',
      'PSL-E2E-3,FAILED,"AC04 closed account, customer ""informed"""',
      '',
    ].join('\n');
    assert.deepEqual(parseReconciliationCsv(csv), {
      rows: [
        { line: 2, endToEndId: 'PSL5TCW6YBLAJWJL44L7NTNFMIZGB', status: 'paid', reason: null },
        { line: 3, endToEndId: 'PSLQ2W7MRJ6SE5KZXH3RNAXH4J3UA', status: 'failed', reason: 'AC04' },
        { line: 5, endToEndId: 'PSL-E2E-3', status: 'failed', reason: 'AC04 closed account, customer "informed"' },
      ],
      errors: [],
    });
  });

  it('takes a BOM, CRLF, quoted ids, columns in any order and no reason column', () => {
    const csv = '\uFEFFStatus,EndToEndId\r\n"paid","PSL-1"\r\nfailed,PSL-2\r\n';
    assert.deepEqual(parseReconciliationCsv(csv), {
      rows: [
        { line: 2, endToEndId: 'PSL-1', status: 'paid', reason: null },
        { line: 3, endToEndId: 'PSL-2', status: 'failed', reason: null },
      ],
      errors: [],
    });
  });

  it('a line break inside a quoted reason keeps the following line numbers right', () => {
    const csv = 'endToEndId,status,reason\nPSL-1,failed,"first line\nsecond line"\nPSL-2,paid,\nPSL-2,paid,\n';
    const result = parseReconciliationCsv(csv);
    assert.deepEqual(result.rows, [
      { line: 2, endToEndId: 'PSL-1', status: 'failed', reason: 'first line\nsecond line' },
      { line: 4, endToEndId: 'PSL-2', status: 'paid', reason: null },
    ]);
    assert.deepEqual(result.errors, [{ line: 5, message: 'endToEndId PSL-2 already appears on line 4' }]);
  });

  it('reports every bad line with its number and keeps the good rows', () => {
    const csv = [
      'endToEndId,status,reason',
      'PSL-1,paid,', // 2 ok
      'PSL-2,refunded,', // 3 bad status
      ',paid,', // 4 empty id
      'PSL 3,paid,', // 5 space in id
      `${'A'.repeat(36)},paid,`, // 6 too long
      'PSL-4,paid', // 7 missing field
      'PSL-5,paid,,extra', // 8 extra field
      'PSL-6,pa"id,', // 9 stray quote
      '"PSL-7"x,paid,', // 10 text after closing quote
      'PSL-8,failed,ok', // 11 ok
    ].join('\n');
    const result = parseReconciliationCsv(csv);
    assert.deepEqual(
      result.rows.map((r) => [r.line, r.endToEndId]),
      [
        [2, 'PSL-1'],
        [11, 'PSL-8'],
      ],
    );
    assert.deepEqual(result.errors, [
      { line: 3, message: 'status must be paid, failed or returned, found "refunded"' },
      { line: 4, message: 'endToEndId is empty' },
      { line: 5, message: 'endToEndId "PSL 3" is not a SEPA end-to-end id (1 to 35 characters)' },
      { line: 6, message: `endToEndId "${'A'.repeat(36)}" is not a SEPA end-to-end id (1 to 35 characters)` },
      { line: 7, message: 'expected 3 fields, found 2' },
      { line: 8, message: 'expected 3 fields, found 4' },
      { line: 9, message: 'quote inside an unquoted field (quote the whole field and double the quote)' },
      { line: 10, message: 'unexpected character after a closing quote' },
    ]);
  });

  it('an unclosed quote stops the reading at the line where it opened', () => {
    const result = parseReconciliationCsv(
      'endToEndId,status,reason\nPSL-1,paid,\nPSL-2,failed,"never closed\nPSL-3,paid,\n',
    );
    assert.deepEqual(
      result.rows.map((r) => r.line),
      [2],
    );
    assert.deepEqual(result.errors, [{ line: 3, message: 'quoted field is never closed' }]);
  });

  it('needs the header', () => {
    assert.deepEqual(parseReconciliationCsv(''), {
      rows: [],
      errors: [{ line: 1, message: 'empty file: expected the header endToEndId,status[,reason]' }],
    });
    assert.deepEqual(parseReconciliationCsv('PSL-1,paid\n').errors, [
      { line: 1, message: 'unknown column "PSL-1" (expected endToEndId, status, reason)' },
      { line: 1, message: 'unknown column "paid" (expected endToEndId, status, reason)' },
      { line: 1, message: 'missing column endToEndId' },
      { line: 1, message: 'missing column status' },
    ]);
    assert.deepEqual(parseReconciliationCsv('endToEndId,status,status\n').errors, [
      { line: 1, message: 'column "status" appears twice' },
    ]);
    assert.deepEqual(parseReconciliationCsv('endToEndId,status\n'), { rows: [], errors: [] });
  });
});
