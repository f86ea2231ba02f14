import ExcelJS from 'exceljs';
import PDFDocument from 'pdfkit';
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
 * (exceljs: numbers as numbers, dates as dates, one sheet) and, for the partner statement, PDF
 * (pdfkit). docs/bordereaux.md specifies the columns.
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
      return v;
    });
    const added = sheet.addRow(values);
    report.columns.forEach((c, i) => {
      const cell = added.getCell(i + 1);
      if (c.kind === 'money') {
        const exponent = currencyExponent(row.currency);
        cell.numFmt = exponent ? `0.${'0'.repeat(exponent)}` : '0';
      } else if (c.kind === 'date') cell.numFmt = 'yyyy-mm-dd hh:mm:ss';
    });
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

export function statementCsv(statement: Statement): Buffer {
  return toCsv(STATEMENT_COLUMNS, statement.lines);
}

/** The statement as a one-page PDF: partner, period, then one block per currency. */
export async function statementPdf(statement: Statement, partnerName: string): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: 'Partner statement', Author: 'Parasol' } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  const last = new Date(statement.period.to.getTime() - 86_400_000);
  doc.fontSize(18).text('Partner statement');
  doc.moveDown(0.5).fontSize(11);
  doc.text(`Partner: ${partnerName} (${statement.scope.environment})`);
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
