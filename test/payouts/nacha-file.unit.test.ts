import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DomainError } from '../../src/platform/errors.ts';
import { achEndToEndIdForPayout } from '../../src/payouts/end-to-end-id.ts';
import {
  buildNachaFile,
  fitNachaFile,
  looksLikeNacha,
  MAX_NACHA_ENTRIES,
  MAX_NACHA_ENTRY_AMOUNT,
  MAX_NACHA_FILE_TOTAL,
  parseNachaReturns,
  type AchPayout,
  type NachaFileInput,
} from '../../src/payouts/nacha-file.ts';

/** NACHA ACH files of PPD credits and the bank's return files (src/payouts/nacha-file.ts). */

const ORIGINATOR = {
  immediateDestination: '021000021',
  immediateDestinationName: 'JPMorgan Chase',
  immediateOrigin: '1123456789',
  immediateOriginName: 'Parasol Assurances SA',
  companyName: 'Parasol',
  companyId: '1123456789',
  odfiRouting: '021000021',
};

function payout(overrides: Partial<AchPayout> = {}): AchPayout {
  return {
    endToEndId: 'PSL5TCW6YBLAJWJ',
    amount: 5000,
    currency: 'USD',
    holderName: 'Jordan Smith',
    routingNumber: '026009593',
    accountNumber: '000123456789',
    accountType: 'checking',
    ...overrides,
  };
}

function input(overrides: Partial<NachaFileInput> = {}): NachaFileInput {
  return {
    fileId: 'PSL-20261127-00a1b2c3d4e5f607',
    createdAt: new Date('2026-11-27T14:05:00Z'),
    effectiveEntryDate: '2026-11-30',
    originator: ORIGINATOR,
    payouts: [
      payout({ endToEndId: 'PSLAAAAAAAAAAA1', amount: 29, holderName: 'Hélène Müller-Łukasz & fils' }),
      payout({ endToEndId: 'PSLAAAAAAAAAAA2', amount: 115, routingNumber: '121000358', accountType: 'savings' }),
      payout({
        endToEndId: 'PSLAAAAAAAAAAA3',
        amount: 100000001,
        routingNumber: '322271627',
        accountNumber: '12AB-34',
      }),
    ],
    ...overrides,
  };
}

/** 1-based inclusive positions, as the record layouts give them. */
const field = (record: string, from: number, to: number) => record.slice(from - 1, to);

describe('NACHA file', () => {
  it('a name with control or invisible characters (kept before the bank-details page refused them): printable ASCII only, in upper case', () => {
    const file = buildNachaFile(
      input({
        payouts: [payout({ endToEndId: 'PSLAAAAAAAAAAA1', holderName: 'Jean\u0007\u202e Dupont\u0000\tÉlo\u00efse' })],
      }),
    );
    const records = file.text.split('\n').slice(0, -1);
    assert.ok(records.every((r) => r.length === 94 && /^[\x20-\x7E]+$/.test(r)));
    const entry = records.find((r) => r.startsWith('6'))!;
    assert.equal(field(entry, 55, 76), 'JEAN DUPONT ELOISE    ');
  });

  it("writes the apostrophe and dashes as ASCII (’ ‘ ʼ → ', – — → -), and keeps &", () => {
    const file = buildNachaFile(
      input({ payouts: [payout({ endToEndId: 'PSLAAAAAAAAAAA1', holderName: 'Seán O’Brien–Ka‘ & Co' })] }),
    );
    const entry = file.text.split('\n').find((r) => r.startsWith('6'))!;
    assert.equal(field(entry, 55, 76), "SEAN O'BRIEN-KA' & CO ");
  });

  it('writes 94-character records in blocks of ten, with the header, batch, entries, controls and padding', () => {
    const file = buildNachaFile(input());
    const records = file.text.split('\n');
    assert.equal(records.pop(), '', 'every record ends with a line break');
    assert.ok(records.every((r) => r.length === 94));
    assert.equal(records.length % 10, 0);
    assert.deepEqual(
      records.map((r) => r[0]),
      ['1', '5', '6', '6', '6', '8', '9', '9', '9', '9'],
    );
    assert.deepEqual(records.slice(7), ['9'.repeat(94), '9'.repeat(94), '9'.repeat(94)]);
    assert.equal(file.fileName, 'PSL-20261127-00a1b2c3d4e5f607.ach');
    assert.ok(looksLikeNacha(file.text));

    const [header, batch, e1, e2, e3, batchControl, fileControl] = records as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    assert.equal(field(header, 1, 3), '101');
    assert.equal(field(header, 4, 13), ' 021000021');
    assert.equal(field(header, 14, 23), '1123456789');
    assert.equal(field(header, 24, 33), '2611271405');
    assert.equal(field(header, 34, 40), 'A094101');
    assert.equal(field(header, 41, 63), 'JPMORGAN CHASE         ');
    assert.equal(field(header, 64, 86), 'PARASOL ASSURANCES SA  ');

    assert.equal(field(batch, 1, 4), '5220');
    assert.equal(field(batch, 5, 20), 'PARASOL         ');
    assert.equal(field(batch, 41, 50), '1123456789');
    assert.equal(field(batch, 51, 53), 'PPD');
    assert.equal(field(batch, 54, 63), 'CLAIM PAY ');
    assert.equal(field(batch, 70, 75), '261130');
    assert.equal(field(batch, 79, 94), '1021000020000001');

    assert.equal(field(e1, 1, 3), '622');
    assert.equal(field(e1, 4, 12), '026009593');
    assert.equal(field(e1, 13, 29), '000123456789     ');
    assert.equal(field(e1, 30, 39), '0000000029');
    assert.equal(field(e1, 40, 54), 'PSLAAAAAAAAAAA1');
    assert.equal(field(e1, 55, 76), 'HELENE MULLER-LUKASZ &', 'transliterated, upper case, cut to 22');
    assert.equal(field(e1, 79, 79), '0');
    assert.equal(field(e1, 80, 94), '021000020000001');
    assert.equal(field(e2, 1, 3), '632', 'savings credit');
    assert.equal(field(e2, 80, 94), '021000020000002');
    assert.equal(field(e3, 13, 29), '12AB34           ');
    assert.equal(field(e3, 30, 39), '0100000001');

    // entry hash: 02600959 + 12100035 + 32227162 = 46928156
    assert.equal(file.entryHash, '0046928156');
    assert.equal(field(batchControl, 1, 4), '8220');
    assert.equal(field(batchControl, 5, 10), '000003');
    assert.equal(field(batchControl, 11, 20), '0046928156');
    assert.equal(field(batchControl, 21, 32), '000000000000');
    assert.equal(field(batchControl, 33, 44), '000100000145');
    assert.equal(field(batchControl, 45, 54), '1123456789');
    assert.equal(field(batchControl, 80, 94), '021000020000001');

    assert.equal(field(fileControl, 1, 7), '9000001');
    assert.equal(field(fileControl, 8, 13), '000001', 'one block of ten records');
    assert.equal(field(fileControl, 14, 21), '00000003');
    assert.equal(field(fileControl, 22, 31), '0046928156');
    assert.equal(field(fileControl, 44, 55), '000100000145');
    assert.equal(file.totalCredit, '1000001.45');
    assert.equal(file.totalCreditMinor, 100000145n);
    assert.deepEqual(
      file.entries.map((e) => e.traceNumber),
      ['021000020000001', '021000020000002', '021000020000003'],
    );
  });

  it('keeps the entry hash to ten digits, the sum of the routing numbers modulo 10^10', () => {
    // 300 entries at 32227162 each: 9668148600, then 400: 12890864800 → 2890864800
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        payout({ endToEndId: `PSL${String(i).padStart(12, '0')}`, routingNumber: '322271627' }),
      );
    assert.equal(buildNachaFile(input({ payouts: many(300) })).entryHash, '9668148600');
    const file = buildNachaFile(input({ payouts: many(400) }));
    assert.equal(file.entryHash, '2890864800');
    const lines = file.text.trimEnd().split('\n');
    assert.equal(lines.length, 410, '404 records padded to 41 blocks');
    assert.equal(file.blockCount, 41);
  });

  it('adds up any batch exactly, in cents, and counts blocks right (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 9_999_999_999 }), { minLength: 1, maxLength: 40 }), (amounts) => {
        const file = buildNachaFile(
          input({
            payouts: amounts.map((amount, i) => payout({ endToEndId: `PSLX${String(i).padStart(11, '0')}`, amount })),
          }),
        );
        const records = file.text.trimEnd().split('\n');
        const entries = records.filter((r) => r[0] === '6');
        const total = entries.reduce((sum, r) => sum + BigInt(field(r, 30, 39)), 0n);
        const oracle = amounts.reduce((sum, a) => sum + BigInt(a), 0n);
        const fileControl = records.find((r) => r.startsWith('9') && r !== '9'.repeat(94))!;
        assert.equal(total, oracle);
        assert.equal(BigInt(field(fileControl, 44, 55)), oracle);
        assert.equal(records.length % 10, 0);
        assert.equal(Number(field(fileControl, 8, 13)), records.length / 10);
        assert.equal(Number(field(fileControl, 14, 21)), amounts.length);
      }),
      { numRuns: 200 },
    );
  });

  it('writes a record count of exactly ten without padding', () => {
    // 1 + 1 + 6 entries + 8 + 9 = 10 records
    const six = Array.from({ length: 6 }, (_, i) => payout({ endToEndId: `PSLSIX${i}` }));
    const records = buildNachaFile(input({ payouts: six }))
      .text.trimEnd()
      .split('\n');
    assert.equal(records.length, 10);
    assert.equal(records.at(-1)![0], '9');
    assert.notEqual(records.at(-1), '9'.repeat(94));
  });

  it('refuses with every problem by field: ids, amounts, currency, accounts, names, dates, originator', () => {
    const refused = (overrides: Partial<NachaFileInput>) => {
      try {
        buildNachaFile(input(overrides));
      } catch (error) {
        assert.ok(error instanceof DomainError);
        assert.equal(error.code, 'validation_failed');
        return (error.extra.errors ?? []).map((e) => `${e.field} ${e.code}`);
      }
      assert.fail('built a file');
    };
    assert.deepEqual(
      refused({
        payouts: [
          payout({ endToEndId: 'PSL5TCW6YBLAJWJL44L7NTNFMIZGB' }),
          payout({ amount: 0, currency: 'EUR' }),
          payout({ amount: 10_000_000_000, routingNumber: '026009594', accountNumber: '', holderName: '??' }),
          payout({ accountType: 'brokerage' as never }),
        ],
      }),
      [
        '/payouts/0/endToEndId invalid_format',
        '/payouts/1/currency not_allowed',
        '/payouts/1/amount out_of_range',
        '/payouts/2/endToEndId invalid',
        '/payouts/2/amount out_of_range',
        '/payouts/2/routingNumber invalid',
        '/payouts/2/accountNumber required',
        '/payouts/3/endToEndId invalid',
        '/payouts/3/accountType invalid',
      ],
    );
    assert.deepEqual(refused({ effectiveEntryDate: '2026-11-26' }), ['/effectiveEntryDate not_allowed']); // Thanksgiving
    assert.deepEqual(refused({ effectiveEntryDate: '2026-02-30' }), ['/effectiveEntryDate invalid_format']);
    assert.deepEqual(refused({ payouts: [] }), ['/payouts too_few']);
    // each entry fits its 10 digits, their total not the file's 12: a field error, not a RangeError
    assert.deepEqual(
      refused({
        payouts: Array.from({ length: 101 }, (_, i) => payout({ endToEndId: `PSLBIG${i}`, amount: 9_999_999_999 })),
      }),
      ['/payouts out_of_range'],
    );
    assert.deepEqual(
      refused({
        fileId: 'a b',
        fileIdModifier: 'a',
        originator: {
          ...ORIGINATOR,
          immediateDestination: '02100002',
          companyId: '123',
          companyName: 'Parasol Assurances SA',
        },
      }),
      [
        '/fileId invalid_format',
        '/fileIdModifier invalid_format',
        '/originator/immediateDestination invalid_format',
        '/originator/companyId invalid_format',
        '/originator/companyName too_long',
      ],
    );
  });

  it('writes the largest amounts its fields hold: 10 digits an entry, 12 the batch and file totals', () => {
    const full = [
      ...Array.from({ length: 100 }, (_, i) => payout({ endToEndId: `PSLMAX${i}`, amount: MAX_NACHA_ENTRY_AMOUNT })),
      payout({ endToEndId: 'PSLMAXLAST', amount: 99 }),
    ];
    const file = buildNachaFile(input({ payouts: full }));
    assert.equal(file.totalCreditMinor, MAX_NACHA_FILE_TOTAL);
    assert.equal(file.totalCredit, '9999999999.99');
    const records = file.text.trimEnd().split('\n');
    assert.equal(field(records[2]!, 30, 39), '9999999999', 'the entry amount, 10 digits');
    const batchControl = records.find((r) => r.startsWith('8'))!;
    const fileControl = records.find((r) => r.startsWith('9'))!;
    assert.equal(field(batchControl, 33, 44), '999999999999', 'batch control: total credits');
    assert.equal(field(fileControl, 44, 55), '999999999999', 'file control: total credits');
    assert.ok(records.every((r) => r.length === 94));
    // a cent more: refused by field, never a malformed control record
    const refused = () =>
      buildNachaFile(input({ payouts: [...full.slice(0, -1), payout({ endToEndId: 'PSLMAXLAST', amount: 100 })] }));
    assert.throws(refused, (error: DomainError) => {
      assert.deepEqual(
        error.extra.errors?.map((e) => `${e.field} ${e.code}`),
        ['/payouts out_of_range'],
      );
      return true;
    });
  });

  it('holds 99,999 entries: the 6- and 8-digit counts, the block count, the last trace of the day', () => {
    const many = Array.from({ length: MAX_NACHA_ENTRIES }, (_, i) => payout({ endToEndId: `PSLN${i}`, amount: 1 }));
    const file = buildNachaFile(input({ payouts: many, fileIdModifier: '9' }));
    const records = file.text.trimEnd().split('\n');
    // 1 header, 5 batch header, the entries, 8 batch control, 9 file control, then padding
    const batchControl = records[MAX_NACHA_ENTRIES + 2]!;
    assert.equal(batchControl[0], '8');
    assert.equal(field(batchControl, 5, 10), '099999', 'batch control: entry/addenda count');
    const fileControl = records[MAX_NACHA_ENTRIES + 3]!;
    assert.equal(field(fileControl, 8, 13), '010001', 'file control: block count');
    assert.equal(field(fileControl, 14, 21), '00099999', 'file control: entry/addenda count');
    assert.equal(file.blockCount, 10_001);
    assert.equal(records.length, 100_010);
    // the day's 36th file (modifier 9): its last trace sequence 35 × 100,000 + 99,999 fits 7 digits
    assert.equal(field(records[MAX_NACHA_ENTRIES + 1]!, 80, 94), '021000023599999');
    assert.throws(
      () => buildNachaFile(input({ payouts: [...many, payout({ endToEndId: 'PSLONEMORE', amount: 1 })] })),
      (error: DomainError) => error.extra.errors?.some((e) => e.field === '/payouts' && e.code === 'too_many') === true,
    );
  });

  it('fits payouts into files: oldest first, each file within the 12-digit total and the entry count', () => {
    const max = MAX_NACHA_ENTRY_AMOUNT;
    const amounts = (ps: { amount: number }[]) => ps.map((p) => p.amount);
    const hundred = Array.from({ length: 100 }, () => ({ amount: max }));
    const { file, rest } = fitNachaFile([...hundred, { amount: 100 }, { amount: 1 }]);
    assert.deepEqual([file.length, amounts(rest)], [100, [100, 1]], 'the 101st would pass 12 digits: the next file');
    assert.deepEqual(amounts(fitNachaFile([...hundred, { amount: 99 }]).rest), [], 'exactly 999,999,999,999 fits');
    // an amount no entry holds counts for nothing: the file leaves it out by field (/payouts/N/amount)
    const over = fitNachaFile([{ amount: 10_000_000_000 }, ...hundred]);
    assert.deepEqual([over.file.length, over.rest.length], [101, 0]);
    const count = fitNachaFile(Array.from({ length: MAX_NACHA_ENTRIES + 2 }, () => ({ amount: 1 })));
    assert.deepEqual([count.file.length, count.rest.length], [MAX_NACHA_ENTRIES, 2]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max }), { maxLength: 300 }), (list) => {
        const payouts = list.map((amount) => ({ amount }));
        const { file, rest } = fitNachaFile(payouts);
        assert.deepEqual([...file, ...rest], payouts, 'in order, none lost, none twice');
        assert.ok(file.reduce((sum, p) => sum + BigInt(p.amount), 0n) <= MAX_NACHA_FILE_TOTAL);
        if (payouts.length > 0) assert.ok(file.length > 0, 'a file always takes the first');
        if (rest.length > 0)
          assert.ok([...file, rest[0]!].reduce((sum, p) => sum + BigInt(p.amount), 0n) > MAX_NACHA_FILE_TOTAL);
      }),
      { numRuns: 100 },
    );
  });

  it('writes an ACH payout end-to-end id whole in the individual id', () => {
    const id = achEndToEndIdForPayout({ payoutId: '6f1c3e1a-0000-4000-8000-000000000001', attempt: 2 });
    assert.match(id, /^PSL[A-Z2-7]{12}$/);
    const file = buildNachaFile(input({ payouts: [payout({ endToEndId: id })] }));
    assert.equal(field(file.text.split('\n')[2]!, 40, 54), id);
  });
});

describe('NACHA return file', () => {
  it('finds no return in a file of credits: its entries are skipped, nothing refused', () => {
    const parsed = parseNachaReturns(buildNachaFile(input()).text);
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(parsed.rows, []);
    assert.deepEqual(
      parsed.skipped.map((s) => s.line),
      [3, 4, 5],
    );
  });

  it('reads each returned entry with its reason and original trace, keyed by the individual id', () => {
    const original = buildNachaFile(input()).text.split('\n');
    // the RDFI's return file: its own header, the returned entries (code 21: return of a 22 credit;
    // 31 of a 32), each with a return addenda 99, then a notification of change (98) which is no return
    const entry1 = `621${field(original[2]!, 4, 78)}1${'091000010000001'}`;
    const addenda1 = `799R03${field(original[2]!, 80, 94)}      02600959${'NO ACCOUNT/UNABLE TO LOCATE'.padEnd(44)}091000010000001`;
    const entry2 = `631${field(original[3]!, 4, 78)}1${'091000010000002'}`;
    const addenda2 = `799R01${field(original[3]!, 80, 94)}      12100035${''.padEnd(44)}091000010000002`;
    const entry3 = `621${field(original[4]!, 4, 78)}1${'091000010000003'}`;
    const change = `798C01${field(original[4]!, 80, 94)}      32227162${'1234567'.padEnd(29)}${''.padEnd(15)}091000010000003`;
    const text = [
      `101 021000021 091000019${'2612011200A094101'}${'PARASOL'.padEnd(23)}${'FED RETURNS'.padEnd(23)}${''.padEnd(8)}`,
      `5220${'PARASOL'.padEnd(16)}${''.padEnd(20)}1123456789PPD${'CLAIM PAY'.padEnd(10)}${''.padEnd(6)}261130${''.padEnd(3)}1091000010000001`,
      entry1,
      addenda1,
      entry2,
      addenda2,
      entry3,
      change,
      `8220000006${'0000000000'}${''.padStart(12, '0')}${''.padStart(12, '0')}1123456789${''.padEnd(25)}091000010000001`,
      `9000001000001000000060000000000${''.padStart(24, '0')}${''.padEnd(39)}`,
    ].join('\r\n');
    for (const [i, line] of text.split('\r\n').entries()) assert.equal(line.length, 94, `line ${i + 1}`);
    assert.ok(looksLikeNacha(text));

    const parsed = parseNachaReturns(text);
    // the same records unbroken (no line breaks), as some banks send them: read alike
    const unbroken = text.split('\r\n').join('');
    assert.ok(looksLikeNacha(unbroken));
    assert.deepEqual(parseNachaReturns(unbroken), parsed);
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(parsed.rows, [
      {
        line: 3,
        endToEndId: 'PSLAAAAAAAAAAA1',
        status: 'returned',
        reason: 'R03 no account / unable to locate account NO ACCOUNT/UNABLE TO LOCATE',
        amount: { value: '0.29', currency: 'USD', instructed: true },
      },
      {
        line: 5,
        endToEndId: 'PSLAAAAAAAAAAA2',
        status: 'returned',
        reason: 'R01 insufficient funds',
        amount: { value: '1.15', currency: 'USD', instructed: true },
      },
    ]);
    assert.deepEqual(
      parsed.returns.map((r) => [r.reasonCode, r.originalTraceNumber, r.amountMinor]),
      [
        ['R03', '021000020000001', 29],
        ['R01', '021000020000002', 115],
      ],
    );
    assert.deepEqual(parsed.skipped, [
      { line: 7, reason: 'notification of change C01: update the account, nothing returned' },
    ]);
  });

  it('refuses records of the wrong length, unknown types, reasons outside R01–R85, a missing header', () => {
    const entry = `621026009593000123456789     0000000029PSLAAAAAAAAAAA1JORDAN SMITH            1091000010000001`;
    assert.equal(entry.length, 94);
    const parsed = parseNachaReturns(
      [entry, `799R86021000020000001      02600959${''.padEnd(44)}091000010000001`, 'X'.repeat(94), '12345'].join('\n'),
    );
    assert.deepEqual(
      parsed.errors.map((e) => [e.line, e.message]),
      [
        [1, 'no file header record (1): not a NACHA file'],
        [2, 'the return reason "R86" is not R01 to R85'],
        [3, 'unknown record type "X"'],
        [4, 'a NACHA record is 94 characters, this one 5'],
      ],
    );
    assert.equal(looksLikeNacha('endToEndId,status\n'), false);
    assert.equal(looksLikeNacha('<?xml version="1.0"?>'), false);
  });
});
