import { isValidEndToEndId } from './end-to-end-id.ts';

/**
 * Reconciliation import: what the bank says happened to each credit transfer, keyed by the
 * end-to-end id we put in the pain.001 file. The CSV form (RFC 4180) is
 *
 *   endToEndId,status,reason
 *   PSL5TCW6YBLAJWJL44L7NTNFMIZGB,paid,
 *   PSLQ2W7MRJ6SE5KZXH3RNAXH4J3UA,failed,"AC04 closed account, customer informed"
 *   PSL7YB2WQKXGRM4D5ZC3HVN6TJ2EA,returned,"AG01 transaction forbidden on this account"
 *
 * Header row required (names case-insensitive, any order, `reason` optional); status `paid`,
 * `failed` (rejected) or `returned` (paid, then sent back by the customer's bank); fields may be
 * quoted ("" for a quote, commas and line breaks allowed inside quotes); UTF-8 with or without BOM,
 * LF or CRLF; blank lines ignored. Parsing never stops at the first
 * problem: every error comes back with its line number, and the rows that were readable.
 */

export type ReconciliationStatus = 'paid' | 'failed' | 'returned';

export interface ReconciliationRow {
  /** Line of the file where the record starts (1 = header). */
  readonly line: number;
  readonly endToEndId: string;
  readonly status: ReconciliationStatus;
  /** The bank's reason (ISO 20022 code and/or text), null when empty. */
  readonly reason: string | null;
  /**
   * The amount the bank reports for the transfer, as written (camt.054; the CSV has none): compared
   * with the payout's before anything changes (`amount_mismatch`).
   */
  readonly amount?: ReportedAmount | null;
}

/**
 * An amount as a bank report writes it: decimal text and its currency ("30.00", "EUR"); `instructed`
 * when it is the instructed amount (camt.054 `AmtDtls/InstdAmt`, the payout's own currency and amount
 * as the pain.001 gave them) rather than the transaction's or entry's (the account's currency).
 */
export interface ReportedAmount {
  readonly value: string;
  readonly currency: string;
  readonly instructed?: boolean;
}

export interface ReconciliationError {
  readonly line: number;
  readonly message: string;
}

export interface ReconciliationParse {
  readonly rows: ReconciliationRow[];
  readonly errors: ReconciliationError[];
}

const COLUMNS = ['endtoendid', 'status', 'reason'] as const;
type Column = (typeof COLUMNS)[number];
/** The longest reason kept (the CSV refuses longer ones; camt.054's are cut to it). */
export const MAX_REASON = 500;

export function parseReconciliationCsv(text: string): ReconciliationParse {
  const { records, errors } = readCsv(text.startsWith('\uFEFF') ? text.slice(1) : text);
  const rows: ReconciliationRow[] = [];
  const header = records.shift();
  if (!header) {
    if (errors.length === 0)
      errors.push({ line: 1, message: 'empty file: expected the header endToEndId,status[,reason]' });
    return { rows, errors };
  }

  const positions = new Map<Column, number>();
  header.fields.forEach((name, index) => {
    const column = name.trim().toLowerCase() as Column;
    if (!COLUMNS.includes(column))
      errors.push({
        line: header.line,
        message: `unknown column "${name.trim()}" (expected endToEndId, status, reason)`,
      });
    else if (positions.has(column))
      errors.push({ line: header.line, message: `column "${name.trim()}" appears twice` });
    else positions.set(column, index);
  });
  for (const required of ['endtoendid', 'status'] as const) {
    if (!positions.has(required))
      errors.push({
        line: header.line,
        message: `missing column ${required === 'endtoendid' ? 'endToEndId' : 'status'}`,
      });
  }
  if (!positions.has('endtoendid') || !positions.has('status')) return { rows, errors: sortByLine(errors) };

  const firstLine = new Map<string, number>();
  for (const record of records) {
    const { line, fields } = record;
    if (fields.length !== header.fields.length) {
      errors.push({ line, message: `expected ${header.fields.length} fields, found ${fields.length}` });
      continue;
    }
    const get = (column: Column) => {
      const index = positions.get(column);
      return index === undefined ? '' : (fields[index] ?? '').trim();
    };
    const endToEndId = get('endtoendid');
    const status = get('status').toLowerCase();
    const reason = get('reason');
    const problems: string[] = [];
    if (endToEndId === '') problems.push('endToEndId is empty');
    else if (!isValidEndToEndId(endToEndId))
      problems.push(`endToEndId "${endToEndId}" is not a SEPA end-to-end id (1 to 35 characters)`);
    else if (firstLine.has(endToEndId))
      problems.push(`endToEndId ${endToEndId} already appears on line ${firstLine.get(endToEndId)}`);
    if (status !== 'paid' && status !== 'failed' && status !== 'returned')
      problems.push(`status must be paid, failed or returned, found "${get('status')}"`);
    if (reason.length > MAX_REASON) problems.push(`reason is longer than ${MAX_REASON} characters`);
    if (problems.length > 0) {
      for (const message of problems) errors.push({ line, message });
      continue;
    }
    firstLine.set(endToEndId, line);
    rows.push({ line, endToEndId, status: status as ReconciliationStatus, reason: reason === '' ? null : reason });
  }
  return { rows, errors: sortByLine(errors) };
}

interface CsvRecord {
  line: number;
  fields: string[];
}

/** RFC 4180 reader keeping the line each record starts on; blank lines produce no record. */
function readCsv(text: string): { records: CsvRecord[]; errors: ReconciliationError[] } {
  const records: CsvRecord[] = [];
  const errors: ReconciliationError[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const start = line;
    const fields: string[] = [];
    let broken: string | null = null;
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        const quoteLine = line;
        i += 1;
        let closed = false;
        while (i < text.length) {
          const c = text[i];
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i += 1;
            closed = true;
            break;
          }
          if (c === '\n') line += 1;
          field += c;
          i += 1;
        }
        if (!closed) {
          errors.push({ line: quoteLine, message: 'quoted field is never closed' });
          return { records, errors };
        }
        if (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          broken ??= 'unexpected character after a closing quote';
          while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') i += 1;
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '"') broken ??= 'quote inside an unquoted field (quote the whole field and double the quote)';
          field += text[i];
          i += 1;
        }
      }
      fields.push(field);
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      break;
    }
    // end of record: CRLF, LF, lone CR, or end of text
    if (text[i] === '\r') i += text[i + 1] === '\n' ? 2 : 1;
    else if (text[i] === '\n') i += 1;
    line += 1;

    if (broken !== null) errors.push({ line: start, message: broken });
    else if (!(fields.length === 1 && fields[0] === '')) records.push({ line: start, fields });
  }
  return { records, errors };
}

function sortByLine(errors: ReconciliationError[]): ReconciliationError[] {
  return errors.sort((a, b) => a.line - b.line);
}
