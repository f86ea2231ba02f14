import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ExcelJS from 'exceljs';
import * as fontkit from 'fontkit';
import PDFDocument from 'pdfkit';
import { hasHiddenCharacter } from '../platform/hidden-characters.ts';
import { currencyExponent } from '../platform/money.ts';
import type { ReportFormat } from './model.ts';
import type { Executor } from '../platform/db.ts';
import {
  cellText,
  claimsBordereau,
  premiumBordereau,
  STATEMENT_COLUMNS,
  type Column,
  type Period,
  type Report,
  type Scope,
  type Statement,
} from './reports.ts';

/**
 * The reports as files: CSV (RFC 4180, UTF-8, comma, CRLF, header row; exact decimals), XLSX
 * (exceljs: numbers as numbers, instants and days as date cells, one sheet) and, for the partner
 * statement, PDF (pdfkit). docs/bordereaux.md specifies the columns.
 */

type Row = { currency: string };

/** A text cell that a spreadsheet would run as a formula gets a leading apostrophe (CSV injection). */
function csvField(text: string, kind: Column<unknown>['kind']): string {
  const safe = kind === 'text' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCsv<R extends Row>(columns: readonly Column<R>[], rows: readonly R[]): Buffer {
  const lines = [columns.map((c) => c.name).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvField(cellText(c, row, row.currency), c.kind)).join(','));
  return Buffer.from(lines.join('\r\n') + '\r\n', 'utf8');
}

export async function toXlsx<R extends Row>(report: Report<R>): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  book.creator = 'Parasol';
  const sheet = book.addWorksheet(report.title.slice(0, 31));
  sheet.columns = report.columns.map((c) => ({ header: c.name, key: c.name, width: c.kind === 'text' ? 24 : 16 }));
  sheet.getRow(1).font = { bold: true };
  for (const row of report.rows) {
    const values = report.columns.map((c) => {
      const v = c.value(row);
      // exact decimal text → number: below 2^53 minor units the double is the nearest to the decimal,
      // which Excel shows exactly at the currency's decimals
      if (c.kind === 'money') return v === null ? null : Number(cellText(c, row, row.currency));
      // a calendar day as a date cell: its UTC midnight is that day's serial number, whole (exceljs counts in UTC)
      if (c.kind === 'day') return v === null ? null : new Date(`${String(v)}T00:00:00Z`);
      return v;
    });
    const added = sheet.addRow(values);
    report.columns.forEach((c, i) => {
      const cell = added.getCell(i + 1);
      if (c.kind === 'money') {
        const exponent = currencyExponent(row.currency);
        cell.numFmt = exponent ? `0.${'0'.repeat(exponent)}` : '0';
      } else if (c.kind === 'date') cell.numFmt = 'yyyy-mm-dd hh:mm:ss';
      else if (c.kind === 'day') cell.numFmt = 'yyyy-mm-dd';
    });
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

export function statementCsv(statement: Statement): Buffer {
  return toCsv(STATEMENT_COLUMNS, statement.lines);
}

/**
 * The statement's font: DejaVu Sans 2.37 (npm `dejavu-fonts-ttf`, pinned; Bitstream Vera licence, free to
 * embed and redistribute), embedded and subset by pdfkit — only the glyphs a statement uses go in the file,
 * with a ToUnicode map, so its text is the exact Unicode text (copy, search, extraction). It covers Latin
 * with its extensions (Łódź, Dvořák, İstanbul, Ångström), Greek and Cyrillic; pdfkit's standard fonts
 * (Helvetica…) know WinAnsi only and garbled anything else. pdfkit reads the file for each statement;
 * its glyph coverage (fontkit, pdfkit's own font engine) is read once per process.
 */
const STATEMENT_FONT_FILE = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
let statementGlyphs: fontkit.Font | undefined;

/** Scripts written right to left: pdfkit lays text out left to right only (no bidi), so their letters would come out reversed. */
const RIGHT_TO_LEFT =
  /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}]/u;

/**
 * Whether the text holds an invisible character once its whitespace is a space: the partner name's
 * rule (platform/hidden-characters.ts, partners/partners.ts), which names from before the rule may
 * break — a direction override, a zero-width space or mark, a soft hyphen.
 */
function hiddenInText(text: string): boolean {
  return hasHiddenCharacter(text.normalize('NFC').replace(/\s+/gu, ' '));
}

/**
 * The text as the statement prints it (NFC, each run of whitespace one U+0020 space, trimmed), or
 * undefined when it cannot be printed faithfully: a character the font has no glyph for (CJK, Thai,
 * Devanagari…: DejaVu Sans has none) or a right-to-left script (Arabic, Hebrew). Never a box or a `?` in
 * place of a letter: the caller prints something exact instead. Whitespace is made a space first because
 * DejaVu Sans has no glyph for some of it (U+3000, tab, CR, LF, VT, FF: pdfkit would set .notdef) and a
 * line break would split the line; every character left, the space included, must have its glyph. Nor
 * an invisible character (`hiddenInText`): the font has zero-width glyphs for some (U+202E, U+200B,
 * U+00AD…), which would print "Sky\u202Eylf" as another name.
 */
export function printableText(text: string): string | undefined {
  const normalized = text.normalize('NFC').replace(/\s+/gu, ' ').trim();
  if (RIGHT_TO_LEFT.test(normalized) || hiddenInText(text)) return undefined;
  const glyphs = (statementGlyphs ??= fontkit.create(readFileSync(STATEMENT_FONT_FILE)));
  for (const char of normalized) {
    if (!glyphs.hasGlyphForCodePoint(char.codePointAt(0)!)) return undefined;
  }
  return normalized;
}

/**
 * The statement as a PDF (one page while the currencies fit): partner, period, then one block per
 * currency. The partner is named by its name when the font prints it faithfully (`printableText`), else by
 * its slug (ASCII, its identifier everywhere) with a line saying why — docs/bordereaux.md, "Partner statement".
 */
export async function statementPdf(statement: Statement, partner: { name: string; slug: string }): Promise<Buffer> {
  const name = printableText(partner.name);
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    font: STATEMENT_FONT_FILE,
    info: { Title: 'Partner statement', Author: 'Parasol' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  const last = new Date(statement.period.to.getTime() - 86_400_000);
  doc.fontSize(18).text('Partner statement');
  doc.moveDown(0.5).fontSize(11);
  doc.text(`Partner: ${name ?? partner.slug} (${statement.scope.environment})`);
  if (name === undefined) {
    doc.text(
      hiddenInText(partner.name)
        ? `(The partner's name holds an invisible character (a direction mark, a zero-width space): named by its identifier.)`
        : `(The partner's name is in a script this statement's font does not print: named by its identifier.)`,
    );
  }
  doc.text(`Period: ${statement.period.from.toISOString().slice(0, 10)} to ${last.toISOString().slice(0, 10)} (UTC)`);
  doc.moveDown();
  if (!statement.lines.length) doc.text('No money movement in this period.');
  for (const line of statement.lines) {
    doc.fontSize(13).text(line.currency).fontSize(11);
    for (const column of STATEMENT_COLUMNS.slice(1)) {
      doc.text(`${column.name.replace(/_/g, ' ')}: ${cellText(column, line, line.currency)} ${line.currency}`);
    }
    doc.moveDown();
  }
  doc
    .fontSize(9)
    .text(
      'Amount due = premium collected (net + tax) - commission - refunds. Compensation paid is shown for information. ' +
        'Tax refunded is the tax part of the refunds (already in them); tax net of refunds = premium tax - tax refunded. ' +
        'Totals equal those of the premium and claims bordereaux of the same month.',
    );
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

/** A bordereau as a file of the given format. */
export async function renderReport<R extends Row>(report: Report<R>, format: ReportFormat): Promise<Buffer> {
  return format === 'csv' ? toCsv(report.columns, report.rows) : toXlsx(report);
}

export const BORDEREAU_KINDS = ['premium', 'claims'] as const;
export type BordereauKind = (typeof BORDEREAU_KINDS)[number];

/** A month's (or any period's) bordereau of a partner and environment, as a file: the CLI's and the consoles' download. */
export async function bordereauFile(
  db: Executor,
  kind: BordereauKind,
  scope: Scope,
  period: Period,
  format: ReportFormat,
): Promise<{ title: string; rows: number; bytes: Buffer }> {
  if (kind === 'premium') {
    const report = await premiumBordereau(db, scope, period);
    return { title: report.title, rows: report.rows.length, bytes: await renderReport(report, format) };
  }
  const report = await claimsBordereau(db, scope, period);
  return { title: report.title, rows: report.rows.length, bytes: await renderReport(report, format) };
}
