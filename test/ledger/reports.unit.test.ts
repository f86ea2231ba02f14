import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import ExcelJS from 'exceljs';
import { statementPdf, toCsv, toXlsx } from '../../src/ledger/render.ts';
import {
  CLAIM_COLUMNS,
  dayRange,
  EXPORT_RANGE_WORDS,
  evidenceSummary,
  MAX_EXPORT_DAYS,
  monthPeriod,
  PREMIUM_COLUMNS,
  STATEMENT_COLUMNS,
  type Column,
  type Statement,
} from '../../src/ledger/reports.ts';
import { DomainError } from '../../src/platform/errors.ts';
import { pdfText } from './pdf-text.ts';

describe('ledger reports: periods and CSV', () => {
  it('a month is a UTC month; a bad month names the field', () => {
    assert.deepEqual(monthPeriod('2026-12'), {
      from: new Date('2026-12-01T00:00:00Z'),
      to: new Date('2027-01-01T00:00:00Z'),
    });
    for (const bad of ['2026-13', '2026-1', 'november', '2026-00']) {
      assert.throws(
        () => monthPeriod(bad),
        (e: unknown) => e instanceof DomainError && e.extra.errors?.[0]?.field === '/month',
        bad,
      );
    }
  });

  it('a date range includes both days; a reversed one is refused', () => {
    assert.deepEqual(dayRange('2026-11-01', '2026-11-01'), {
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-02T00:00:00Z'),
    });
    assert.throws(() => dayRange('2026-11-02', '2026-11-01'), DomainError);
    assert.throws(() => dayRange('2026-11-xx', '2026-11-01'), DomainError);
    // a day no calendar has is refused, not read as one of the next month (31 February = 3 March)
    assert.throws(() => dayRange('2026-02-01', '2026-02-31'), DomainError);
    assert.throws(() => dayRange('2026-02-30', '2026-03-31'), DomainError);
    assert.deepEqual(dayRange('2028-02-29', '2028-02-29').to, new Date('2028-03-01T00:00:00Z'));
  });

  it('a date range is at most MAX_EXPORT_DAYS days, both included: a leap year fits, one day more is refused', () => {
    assert.equal(MAX_EXPORT_DAYS, 366);
    // 2028 is a leap year: its 366 days are the longest range accepted
    assert.deepEqual(dayRange('2028-01-01', '2028-12-31'), {
      from: new Date('2028-01-01T00:00:00Z'),
      to: new Date('2029-01-01T00:00:00Z'),
    });
    assert.throws(
      () => dayRange('2028-01-01', '2029-01-01'),
      (e: unknown) =>
        e instanceof DomainError &&
        e.code === 'validation_failed' &&
        e.extra.errors?.length === 1 &&
        e.extra.errors[0]!.field === '/to' &&
        e.extra.errors[0]!.code === 'out_of_range' &&
        e.extra.errors[0]!.message ===
          'must be at most 366 days after from, both included (export a longer range a year at a time)',
    );
    assert.throws(() => dayRange('2020-01-01', '2026-11-30'), DomainError);
  });

  it("a date range's refusals: the exports' words by default, another caller's (the dashboard's) when given", () => {
    const messages = (run: () => unknown) => {
      try {
        run();
      } catch (e) {
        if (e instanceof DomainError) return e.extra.errors?.map((f) => `${f.field} ${f.code} ${f.message}`);
      }
      return assert.fail('expected a DomainError');
    };
    assert.deepEqual(
      messages(() => dayRange('2026-11-02', '2026-11-01')),
      ['/to out_of_range must not be before from'],
    );
    const words = { beforeStart: 'not before the first day', longer: (max: number) => `at most ${max} days` };
    assert.deepEqual(
      messages(() => dayRange('2026-11-02', '2026-11-01', words)),
      ['/to out_of_range not before the first day'],
    );
    assert.deepEqual(
      messages(() => dayRange('2028-01-01', '2029-01-01', words)),
      ['/to out_of_range at most 366 days'],
    );
    assert.equal(EXPORT_RANGE_WORDS.beforeStart, 'must not be before from');
  });

  it('CSV: exact decimals in the row currency, signed; quoting; no formula injection in text', () => {
    type Row = { currency: string; name: string; amount: number; at: Date | null };
    const columns: Column<Row>[] = [
      { name: 'name', kind: 'text', value: (r) => r.name },
      { name: 'amount', kind: 'money', value: (r) => r.amount },
      { name: 'at', kind: 'date', value: (r) => r.at },
    ];
    const csv = toCsv(columns, [
      { currency: 'EUR', name: 'a, "b"', amount: -1250, at: new Date('2026-11-02T10:00:00Z') },
      { currency: 'JPY', name: '=HYPERLINK("x")', amount: 1250, at: null },
      { currency: 'KWD', name: '@SUM(A1)', amount: 5, at: null },
    ]).toString('utf8');
    assert.equal(
      csv,
      'name,amount,at\r\n"a, ""b""",-12.50,2026-11-02T10:00:00.000Z\r\n"\'=HYPERLINK(""x"")",1250,\r\n\'@SUM(A1),0.005,\r\n',
    );
  });

  it('the files’ columns are those docs/bordereaux.md lists, in its order', () => {
    const doc = readFileSync(new URL('../../docs/bordereaux.md', import.meta.url), 'utf8');
    /** The column names of the table under a heading: each row's first cell, its backquoted names. */
    const documented = (heading: string) => {
      const start = doc.indexOf(heading);
      assert.ok(start >= 0, `${heading} in the doc`);
      // up to the next heading (### or higher): a table further down is not this section's
      const rest = doc.slice(start + heading.length);
      const next = /\n#{1,3} /.exec(rest);
      const section = heading + (next ? rest.slice(0, next.index) : rest);
      const table = /\| column \| meaning \|\n\|---\|---\|\n((?:\|.*\n)+)/.exec(section);
      assert.ok(table, `a column table under ${heading}`);
      return table[1]!
        .trimEnd()
        .split('\n')
        .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
    };
    assert.deepEqual(
      documented('### Premium bordereau'),
      PREMIUM_COLUMNS.map((c) => c.name),
    );
    assert.deepEqual(
      documented('### Claims bordereau'),
      CLAIM_COLUMNS.map((c) => c.name),
    );
    assert.deepEqual(
      documented('### Partner statement'),
      STATEMENT_COLUMNS.map((c) => c.name),
    );
    // the XLSX's date cells: the instants and the calendar days the doc names are the columns of those kinds
    const named = (label: string) => {
      const list = new RegExp(`${label} \\(([^)]*)\\)`).exec(doc.replace(/\s+/g, ' '));
      assert.ok(list, `"${label} (…)" in the doc's file formats`);
      return [...list[1]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).sort();
    };
    const ofKind = (kind: string) => [
      ...new Set([...PREMIUM_COLUMNS, ...CLAIM_COLUMNS].filter((c) => c.kind === kind).map((c) => c.name)),
    ];
    assert.deepEqual(named('the instants'), ofKind('date').sort());
    assert.deepEqual(named('the calendar days'), ofKind('day').sort());
  });

  it('the evidence summary keeps the source, event, delay and observation time only', () => {
    assert.equal(
      evidenceSummary({
        event: 'delayed',
        evidence: {
          source: 'flightaware',
          arrivalDelayMinutes: 190,
          observedAt: '2026-11-02T10:00:00Z',
          raw: { x: 1 },
        },
      }),
      'flightaware: delayed, arrival delay 190 min, observed 2026-11-02T10:00:00Z',
    );
    assert.equal(evidenceSummary({ event: 'cancelled', evidence: {} }), 'unknown source: cancelled');
  });

  it('XLSX: a calendar day (departure_date) is a date cell of that day, an instant a date-time cell; CSV keeps the text', async () => {
    const row = {
      claim_number: 'CL-1',
      contract_number: 'PA-1',
      flight_number: 'AF1234',
      departure_date: '2026-11-30',
      reason: 'delay',
      event: 'delayed',
      delay_minutes: 190,
      evidence: {},
      compensation_amount: 5000,
      currency: 'EUR',
      status: 'paid',
      opened_at: new Date('2026-11-30T23:30:00Z'),
      paid_at: null,
      paid_in_period: 5000,
      failed_attempts_in_period: 0,
    };
    const period = monthPeriod('2026-11');
    const report = { title: 'Claims bordereau', scope: { partnerId: 'p', environment: 'production' as const }, period };
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(
      (await toXlsx({ ...report, columns: CLAIM_COLUMNS, rows: [row] })) as unknown as ExcelJS.Buffer,
    );
    const sheet = book.worksheets[0]!;
    const cell = (name: string) => sheet.getRow(2).getCell(CLAIM_COLUMNS.findIndex((c) => c.name === name) + 1);
    const departure = cell('departure_date');
    assert.ok(departure.value instanceof Date, `departure_date is a date cell, got ${typeof departure.value}`);
    assert.equal(departure.value.toISOString(), '2026-11-30T00:00:00.000Z', 'the day itself, at no hour');
    assert.equal(departure.numFmt, 'yyyy-mm-dd');
    assert.ok(cell('opened_at').value instanceof Date);
    assert.equal(cell('opened_at').numFmt, 'yyyy-mm-dd hh:mm:ss');
    // every day or instant column of both bordereaux is a date cell kind, never text
    for (const column of [...CLAIM_COLUMNS, ...PREMIUM_COLUMNS])
      if (/_(at|date)$/.test(column.name)) assert.ok(['date', 'day'].includes(column.kind), column.name);
    const csv = toCsv(CLAIM_COLUMNS, [row]).toString('utf8').split('\r\n');
    const header = csv[0]!.split(',');
    assert.equal(csv[1]!.split(',')[header.indexOf('departure_date')], '2026-11-30', 'the CSV unchanged');
  });

  describe('the statement PDF prints the partner’s name in any Latin, Greek or Cyrillic alphabet', () => {
    const statement: Statement = {
      scope: { partnerId: 'p', environment: 'production' },
      period: monthPeriod('2026-11'),
      lines: [
        {
          currency: 'EUR',
          premiumCollected: 1250,
          premiumNet: 1000,
          premiumTax: 250,
          commission: 100,
          refunds: 0,
          taxRefunded: 0,
          taxNetOfRefunds: 250,
          amountDue: 1150,
          compensationPaid: 0,
        },
      ],
    };

    for (const name of [
      'Biuro Podróży Łódź',
      'Cestovní kancelář Dvořák',
      'Ταξιδιωτικό Γραφείο Αθηνών',
      'Туристическое агентство «Москва»',
      'İstanbul Seyahat Şirketi',
      'Ångström & Søn — Reykjavík Þjónusta',
    ]) {
      it(name, async () => {
        const pdf = await statementPdf(statement, { name, slug: 'acme-travel' });
        const { lines, fonts } = pdfText(pdf);
        assert.ok(lines.includes(`Partner: ${name} (production)`), lines.join('\n'));
        assert.ok(lines.includes('amount due: 11.50 EUR'), lines.join('\n'));
        // one font, embedded (subset) and mapped to Unicode: no standard font, which knows WinAnsi only
        assert.deepEqual(
          fonts.map((f) => ({ ...f, baseFont: f.baseFont.replace(/^[A-Z]{6}\+/, '') })),
          [{ resource: 'F1', baseFont: 'DejaVuSans', subtype: 'Type0', toUnicode: true, embedded: true }],
        );
        // subset: the glyphs used, not the font's 750 kB
        assert.ok(pdf.length < 40_000, `${pdf.length} bytes`);
      });
    }

    it('a name the font cannot print (CJK) or lay out (Arabic, Hebrew: right to left) is replaced by the slug, said so', async () => {
      for (const name of ['東京トラベル', 'سفريات الخليج', 'נסיעות', 'Łódź 旅行']) {
        const { lines } = pdfText(await statementPdf(statement, { name, slug: 'acme-travel' }));
        const text = lines.join('\n');
        assert.ok(lines.includes('Partner: acme-travel (production)'), text);
        assert.match(text, /name is in a script this statement's font does not print/);
        assert.ok(!text.includes('\ufffd'), 'no glyph without its Unicode');
        // pdfkit sets a character its font has no glyph for as .notdef, which its ToUnicode map reads as U+0000
        assert.ok(!text.includes('\u0000'), 'no character without its glyph');
      }
    });

    it('a name from before the hidden-character rule (an override, a zero-width or direction mark, a soft hyphen) is replaced by the slug, though the font has a glyph for it', async () => {
      // DejaVu Sans has zero-width glyphs for these: printed, "Sky\u202Eylf" would read as another name
      for (const invisible of ['\u202e', '\u200b', '\u200e', '\u200f', '\u2060', '\ufe0f', '\u00ad', '\u034f']) {
        const name = `Sky${invisible}ylf`;
        const { lines } = pdfText(await statementPdf(statement, { name, slug: 'acme-travel' }));
        const text = lines.join('\n');
        assert.ok(lines.includes('Partner: acme-travel (production)'), JSON.stringify(lines));
        assert.match(text, /invisible character/);
        assert.ok(!text.includes(invisible), JSON.stringify(invisible));
      }
    });

    it('whitespace the font has no glyph for (ideographic space, tab, line breaks) is printed as one space', async () => {
      for (const name of ['a\u3000b', 'a\tb', 'a \r\n\u000b\u000c b', 'a\u00a0\u2028b']) {
        const { lines } = pdfText(await statementPdf(statement, { name, slug: 'acme-travel' }));
        const text = lines.join('\n');
        assert.ok(lines.includes('Partner: a b (production)'), JSON.stringify(lines));
        assert.ok(!text.includes('\u0000'), 'no character without its glyph');
        assert.ok(!text.includes('\ufffd'), 'no glyph without its Unicode');
      }
    });
  });
});
