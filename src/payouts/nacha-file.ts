import { DateTime } from 'luxon';
import { DomainError, type FieldError, type FieldErrorCode } from '../platform/errors.ts';
import { transliterateLatin } from '../platform/latin-text.ts';
import { largestTransfer, toDecimalString } from '../platform/money.ts';
import { sumMinor } from './amount.ts';
import { isFedBusinessDay } from './fed-calendar.ts';
import { MAX_REASON, type ReconciliationError, type ReconciliationRow } from './reconciliation.ts';
import { abaChecksumValid, checkUsBankAccount, type AccountType } from './us-bank-account.ts';

/**
 * ACH files in the NACHA format (the Nacha Operating Rules' file specification), the way a US bank
 * takes credit transfers to US accounts: fixed records of 94 ASCII characters, one per line —
 *
 *   1 file header       the insurer's bank (immediate destination), the insurer (immediate origin)
 *   5 batch header      service class 220 (credits only), SEC code PPD (to a consumer's account),
 *                       the company (name, id), the effective entry date, the ODFI's 8 digits
 *   6 entry detail      one per payout: transaction code 22 (checking credit) or 32 (savings
 *                       credit), the RDFI's routing number, the account number, the amount in cents,
 *                       the individual id (the payout's end-to-end id, 15 characters: `achEndToEndId`),
 *                       the name, the trace number (ODFI's 8 digits + a 7-digit sequence)
 *   8 batch control     entry/addenda count, entry hash (sum of the RDFIs' 8-digit ids mod 10^10),
 *                       total debits (0) and credits
 *   9 file control      batch count, block count, entry/addenda count, entry hash, totals
 *   9999…               padding: the file is a whole number of blocks of 10 records
 *
 * Amounts stay integers of cents (BigInt sums); every text is upper-case ASCII, names transliterated
 * as SEPA names are (platform/latin-text.ts). The Nacha Operating Rules themselves are a paid
 * publication: the layout here follows their published record formats (also in every bank's ACH
 * origination guide); a bank may ask for other header values (the immediate destination/origin,
 * names, reference code), all of them configured (PARASOL_ACH_*, docs/OPERATOR.md).
 *
 * `parseNachaReturns` reads a return file the bank sends back: each returned entry (6) and its
 * return addenda (7, type 99: the return reason R01…R85, the original trace number) → a `returned`
 * row keyed by the original entry's individual id, i.e. the payout's end-to-end id.
 */

export interface AchOriginator {
  /** Immediate destination: the routing number of the bank (or ACH operator) receiving the file, 9 digits. */
  readonly immediateDestination: string;
  /** Its name, ≤ 23 characters. */
  readonly immediateDestinationName: string;
  /** Immediate origin: 10 characters the bank assigns (often the company id, or a routing number). */
  readonly immediateOrigin: string;
  /** Its name (the insurer), ≤ 23 characters. */
  readonly immediateOriginName: string;
  /** Company name in the batch header, ≤ 16 characters: what the customer's statement shows. */
  readonly companyName: string;
  /** Company identification, 10 characters (usually "1" + the 9-digit EIN). */
  readonly companyId: string;
  /** The originating depository financial institution's routing number, 9 digits (its first 8 go in the file). */
  readonly odfiRouting: string;
}

export interface AchPayout {
  /** The payout's end-to-end id, written as the entry's individual id: 1 to 15 characters. */
  readonly endToEndId: string;
  /** Integer cents: 1 to 9 999 999 999 ($99,999,999.99, the field's 10 digits). */
  readonly amount: number;
  /** Must be USD. */
  readonly currency: string;
  readonly holderName: string;
  readonly routingNumber: string;
  readonly accountNumber: string;
  readonly accountType: AccountType;
}

export interface NachaFileInput {
  /** The file's id: its name is `<fileId>.ach` (SEPA identifier characters, ≤ 35). */
  readonly fileId: string;
  readonly createdAt: Date;
  /** A-Z or 0-9 (`FILE_ID_MODIFIERS`): tells apart files made the same day for the same origin. Default A. */
  readonly fileIdModifier?: string;
  /** YYYY-MM-DD, a Federal Reserve business day (fed-calendar.ts `achEffectiveEntryDate`). */
  readonly effectiveEntryDate: string;
  /** Company entry description, ≤ 10 characters (the customer's statement). Default "CLAIM PAY". */
  readonly entryDescription?: string;
  readonly originator: AchOriginator;
  readonly payouts: readonly AchPayout[];
}

export interface NachaEntry {
  readonly endToEndId: string;
  readonly traceNumber: string;
}

export interface NachaFile {
  readonly text: string;
  /** `<fileId>.ach`. */
  readonly fileName: string;
  readonly fileId: string;
  readonly entryCount: number;
  /** Total credits in cents. */
  readonly totalCreditMinor: bigint;
  /** "123.45": the total in dollars, exact. */
  readonly totalCredit: string;
  /** 10 digits. */
  readonly entryHash: string;
  readonly blockCount: number;
  readonly entries: readonly NachaEntry[];
}

export const NACHA_RECORD_LENGTH = 94;
const BLOCKING_FACTOR = 10;
/** An entry's amount field: 10 digits of cents ($99,999,999.99): `largestTransfer('USD')`, which the amounts that make payouts are held to. */
export const MAX_NACHA_ENTRY_AMOUNT = largestTransfer('USD').amount;
/** The batch and file controls' Total Credit field: 12 digits of cents ($9,999,999,999.99). */
export const MAX_NACHA_FILE_TOTAL = 999_999_999_999n;
/** Entries in a file: the batch control's 6-digit count and the 7-digit trace sequence, with room. */
export const MAX_NACHA_ENTRIES = 99_999;
const MAX_ENTRY_AMOUNT = MAX_NACHA_ENTRY_AMOUNT;
const MAX_FILE_TOTAL = MAX_NACHA_FILE_TOTAL;
const MAX_INDIVIDUAL_ID = 15;
const MAX_ENTRIES = MAX_NACHA_ENTRIES;
const TRANSACTION_CODE: Record<AccountType, string> = { checking: '22', savings: '32' };
const FILE_ID = /^[A-Za-z0-9-]{1,35}$/;
/**
 * The File ID Modifiers, in the order a day's files take them: at most 36 files a day for one
 * immediate origin. A file's trace numbers start at its modifier's place × 100,000 + 1, so no two
 * entries of one day share one.
 */
export const FILE_ID_MODIFIERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * The payouts one file can hold, in their order: the longest run from the first whose valid amounts
 * (1 to MAX_NACHA_ENTRY_AMOUNT cents) total at most MAX_NACHA_FILE_TOTAL — the batch and file
 * controls' 12 digits — in at most MAX_NACHA_ENTRIES entries; the rest wait for the next file. A
 * payout whose amount no entry can hold (over 10 digits) is kept in `file`, counting for nothing: the
 * builder refuses it by field (`/payouts/N/amount`), so the batch leaves it out, reported.
 */
export function fitNachaFile<P extends { readonly amount: number }>(payouts: readonly P[]): { file: P[]; rest: P[] } {
  let total = 0n;
  for (const [index, payout] of payouts.entries()) {
    const valid = Number.isSafeInteger(payout.amount) && payout.amount >= 1 && payout.amount <= MAX_ENTRY_AMOUNT;
    if (index >= MAX_ENTRIES || (valid && total + BigInt(payout.amount) > MAX_FILE_TOTAL))
      return { file: payouts.slice(0, index), rest: payouts.slice(index) };
    if (valid) total += BigInt(payout.amount);
  }
  return { file: [...payouts], rest: [] };
}

/** Upper-case printable ASCII: accents dropped, letters transliterated (ß → SS, Ł → L), anything else a space. */
export function toNachaText(text: string): string {
  return transliterateLatin(text ?? '')
    .replace(/[^\x20-\x7E]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toUpperCase();
}

/** Left-justified, space-filled, cut to `width`. */
const alpha = (text: string, width: number) => text.slice(0, width).padEnd(width, ' ');
/** Right-justified, zero-filled; throws if it does not fit (a builder bug, the checks come first). */
function numeric(value: number | bigint | string, width: number): string {
  const text = String(value);
  if (!/^[0-9]+$/.test(text) || text.length > width) throw new RangeError(`${text} does not fit ${width} digits`);
  return text.padStart(width, '0');
}

export function buildNachaFile(input: NachaFileInput): NachaFile {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string, code: FieldErrorCode = 'invalid_format') =>
    errors.push({ field, code, message });
  const o = input.originator;

  if (!FILE_ID.test(input.fileId)) fail('/fileId', 'must be 1 to 35 of A-Z a-z 0-9 -');
  const modifier = input.fileIdModifier ?? 'A';
  if (!/^[A-Z0-9]$/.test(modifier)) fail('/fileIdModifier', 'must be one of A-Z 0-9');
  if (!(input.createdAt instanceof Date) || Number.isNaN(input.createdAt.getTime()))
    fail('/createdAt', 'must be a valid date');
  const effective = DateTime.fromISO(input.effectiveEntryDate ?? '', { zone: 'utc' });
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.effectiveEntryDate ?? '') || !effective.isValid)
    fail('/effectiveEntryDate', 'must be a calendar date YYYY-MM-DD');
  else if (!isFedBusinessDay(input.effectiveEntryDate))
    fail('/effectiveEntryDate', 'must be a Federal Reserve business day', 'not_allowed');
  const description = toNachaText(input.entryDescription ?? 'CLAIM PAY');
  if (description === '' || description.length > 10) fail('/entryDescription', 'must be 1 to 10 characters');

  for (const [field, value] of [
    ['immediateDestination', o.immediateDestination],
    ['odfiRouting', o.odfiRouting],
  ] as const)
    if (!/^[0-9]{9}$/.test(value) || !abaChecksumValid(value))
      fail(`/originator/${field}`, 'must be a 9-digit ABA routing number');
  if (!/^[0-9A-Za-z ]{10}$/.test(o.immediateOrigin))
    fail('/originator/immediateOrigin', 'must be 10 characters (digits, letters, spaces)');
  if (!/^[0-9A-Za-z ]{10}$/.test(o.companyId))
    fail('/originator/companyId', 'must be 10 characters (usually 1 and the 9-digit EIN)');
  const names = {
    immediateDestinationName: [toNachaText(o.immediateDestinationName), 23],
    immediateOriginName: [toNachaText(o.immediateOriginName), 23],
    companyName: [toNachaText(o.companyName), 16],
  } as const;
  for (const [field, [text, width]] of Object.entries(names))
    if (text === '' || text.length > width)
      fail(`/originator/${field}`, `must be 1 to ${width} characters`, text === '' ? 'required' : 'too_long');

  if (input.payouts.length === 0) fail('/payouts', 'must hold at least one payout', 'too_few');
  if (input.payouts.length > MAX_ENTRIES) fail('/payouts', `at most ${MAX_ENTRIES} payouts in a file`, 'too_many');
  const seen = new Set<string>();
  const entries = input.payouts.map((payout, index) => {
    const at = (field: string) => `/payouts/${index}/${field}`;
    if (!/^[A-Za-z0-9]{1,15}$/.test(payout.endToEndId))
      fail(at('endToEndId'), `must be 1 to ${MAX_INDIVIDUAL_ID} letters or digits (the entry's individual id)`);
    else if (seen.has(payout.endToEndId))
      fail(at('endToEndId'), `duplicates ${payout.endToEndId} earlier in the file`, 'invalid');
    seen.add(payout.endToEndId);
    if (payout.currency !== 'USD') fail(at('currency'), 'must be USD: ACH pays dollars', 'not_allowed');
    if (!Number.isSafeInteger(payout.amount) || payout.amount < 1 || payout.amount > MAX_ENTRY_AMOUNT)
      fail(at('amount'), `must be a whole number of cents from 1 to ${MAX_ENTRY_AMOUNT}`, 'out_of_range');
    const name = toNachaText(payout.holderName).slice(0, 22).trim();
    if (name === '') fail(at('holderName'), 'is required (in Latin letters)', 'required');
    const account = checkUsBankAccount(payout);
    if (!account.ok)
      for (const issue of account.issues)
        fail(at(issue.field), issue.message, issue.code.endsWith('_required') ? 'required' : 'invalid');
    return { payout, name, account: account.ok ? account.account : null };
  });

  // the batch and file controls give the total credits in 12 digits
  const fileTotal = input.payouts.reduce(
    (sum, p) => (Number.isSafeInteger(p.amount) && p.amount > 0 ? sum + BigInt(p.amount) : sum),
    0n,
  );
  if (fileTotal > MAX_FILE_TOTAL)
    fail('/payouts', `must total at most ${MAX_FILE_TOTAL} cents (12 digits): fewer payouts per file`, 'out_of_range');

  if (errors.length > 0)
    throw new DomainError(
      'validation_failed',
      `ACH file refused: ${errors.length} problem${errors.length === 1 ? '' : 's'}`,
      { errors },
    );

  const odfi = o.odfiRouting.slice(0, 8);
  const batchNumber = numeric(1, 7);
  const created = DateTime.fromJSDate(input.createdAt, { zone: 'utc' });
  const effectiveYymmdd = effective.toFormat('yyMMdd');
  const records: string[] = [];

  records.push(
    '1' +
      '01' +
      ` ${o.immediateDestination}` +
      o.immediateOrigin +
      created.toFormat('yyMMdd') +
      created.toFormat('HHmm') +
      modifier +
      '094' +
      numeric(BLOCKING_FACTOR, 2) +
      '1' +
      alpha(names.immediateDestinationName[0], 23) +
      alpha(names.immediateOriginName[0], 23) +
      alpha('', 8),
  );
  records.push(
    '5' +
      '220' +
      alpha(names.companyName[0], 16) +
      alpha('', 20) +
      o.companyId +
      'PPD' +
      alpha(description, 10) +
      alpha('', 6) +
      effectiveYymmdd +
      alpha('', 3) + // settlement date: the ACH operator fills it
      '1' +
      odfi +
      batchNumber,
  );
  const written: NachaEntry[] = [];
  let hash = 0n;
  entries.forEach(({ payout, name, account }, index) => {
    const routing = account!.routingNumber;
    hash += BigInt(routing.slice(0, 8));
    // unique across the day's files: the file's place in the day (its modifier) × 100,000 + its entry
    const traceNumber = odfi + numeric(FILE_ID_MODIFIERS.indexOf(modifier) * 100_000 + index + 1, 7);
    written.push({ endToEndId: payout.endToEndId, traceNumber });
    records.push(
      '6' +
        TRANSACTION_CODE[account!.accountType] +
        routing.slice(0, 8) +
        routing[8] +
        alpha(account!.accountNumber, 17) +
        numeric(payout.amount, 10) +
        alpha(payout.endToEndId, 15) +
        alpha(name, 22) +
        alpha('', 2) +
        '0' +
        traceNumber,
    );
  });
  const entryHash = numeric(hash % 10_000_000_000n, 10);
  const total = sumMinor(input.payouts.map((p) => p.amount));
  records.push(
    '8' +
      '220' +
      numeric(entries.length, 6) +
      entryHash +
      numeric(0, 12) +
      numeric(total, 12) +
      o.companyId +
      alpha('', 19) +
      alpha('', 6) +
      odfi +
      batchNumber,
  );
  const blockCount = Math.ceil((records.length + 1) / BLOCKING_FACTOR);
  records.push(
    '9' +
      numeric(1, 6) +
      numeric(blockCount, 6) +
      numeric(entries.length, 8) +
      entryHash +
      numeric(0, 12) +
      numeric(total, 12) +
      alpha('', 39),
  );
  while (records.length % BLOCKING_FACTOR !== 0) records.push('9'.repeat(NACHA_RECORD_LENGTH));
  for (const record of records)
    if (record.length !== NACHA_RECORD_LENGTH || !/^[\x20-\x7E]+$/.test(record))
      throw new Error(`NACHA record of ${record.length} characters: ${record.slice(0, 1)}`);

  return {
    text: records.map((r) => `${r}\n`).join(''),
    fileName: `${input.fileId}.ach`,
    fileId: input.fileId,
    entryCount: entries.length,
    totalCreditMinor: total,
    totalCredit: toDecimalString(total, 'USD'),
    entryHash,
    blockCount,
    entries: written,
  };
}

/** Whether a text is a NACHA file: its first record a file header (`101`) of 94 characters. */
export function looksLikeNacha(text: string): boolean {
  const first = nachaRecords(text.replace(/^\uFEFF/, '').replace(/^\s*\n/, ''))[0] ?? '';
  return /^101[ 0-9]{20}/.test(first) && first.length === NACHA_RECORD_LENGTH;
}

/**
 * A NACHA file's records: its lines, or — a file of unbroken records, as some banks send them — its
 * 94-character slices when it has no line break.
 */
function nachaRecords(text: string): string[] {
  if (/[\r\n]/.test(text) || text.length <= NACHA_RECORD_LENGTH) return text.split(/\r?\n/);
  const records: string[] = [];
  for (let at = 0; at < text.length; at += NACHA_RECORD_LENGTH) records.push(text.slice(at, at + NACHA_RECORD_LENGTH));
  return records;
}

/** The return reasons most met; any R01–R85 is read, these are also named. */
const RETURN_REASONS: Readonly<Record<string, string>> = Object.freeze({
  R01: 'insufficient funds',
  R02: 'account closed',
  R03: 'no account / unable to locate account',
  R04: 'invalid account number structure',
  R06: 'returned per ODFI request',
  R07: 'authorization revoked by customer',
  R08: 'payment stopped',
  R10: 'customer advises not authorized',
  R16: 'account frozen',
  R17: 'file record edit criteria',
  R20: 'non-transaction account',
  R23: 'credit entry refused by receiver',
  R24: 'duplicate entry',
  R29: 'corporate customer advises not authorized',
});

export interface NachaReturnEntry {
  readonly line: number;
  /** The returned entry's individual id: the payout's end-to-end id. */
  readonly endToEndId: string;
  readonly reasonCode: string;
  readonly originalTraceNumber: string;
  readonly amountMinor: number;
}

export interface NachaReturnParse {
  readonly rows: ReconciliationRow[];
  readonly returns: NachaReturnEntry[];
  readonly skipped: { line: number; reason: string }[];
  readonly errors: ReconciliationError[];
}

/**
 * Reads a NACHA return file: every entry detail (6) followed by a return addenda (7, addenda type 99)
 * is a `returned` row — end-to-end id = the entry's individual id (positions 40–54, the original's,
 * which the RDFI sends back unchanged), reason = the return reason code and its name and the addenda
 * information, amount = the entry's, in USD. Notifications of change (addenda 98), entries without a
 * return addenda and other records are skipped with why. Refused (`errors`): a record that is not 94
 * characters, a record type outside 1 5 6 7 8 9, a return reason that is not R01–R85, a file
 * without file header.
 */
export function parseNachaReturns(text: string): NachaReturnParse {
  const rows: ReconciliationRow[] = [];
  const returns: NachaReturnEntry[] = [];
  const skipped: { line: number; reason: string }[] = [];
  const errors: ReconciliationError[] = [];
  const lines = nachaRecords(text.replace(/^\uFEFF/, ''));
  let sawHeader = false;
  let pending: { line: number; record: string } | null = null;
  const leaveEntry = () => {
    if (pending)
      skipped.push({ line: pending.line, reason: 'an entry without return addenda (type 99): not a return' });
    pending = null;
  };
  lines.forEach((record, index) => {
    const line = index + 1;
    if (record.trim() === '') return;
    if (record.length !== NACHA_RECORD_LENGTH) {
      errors.push({ line, message: `a NACHA record is ${NACHA_RECORD_LENGTH} characters, this one ${record.length}` });
      return;
    }
    const type = record[0];
    if (type === '1') {
      sawHeader = true;
    } else if (type === '5' || type === '8') {
      leaveEntry();
    } else if (type === '9') {
      leaveEntry();
    } else if (type === '6') {
      leaveEntry();
      pending = { line, record };
    } else if (type === '7') {
      const addendaType = record.slice(1, 3);
      const entry: { line: number; record: string } | null = pending;
      pending = null;
      if (!entry) {
        errors.push({ line, message: 'an addenda record without its entry detail' });
      } else if (addendaType === '98') {
        skipped.push({
          line: entry.line,
          reason: `notification of change ${record.slice(3, 6)}: update the account, nothing returned`,
        });
      } else if (addendaType !== '99') {
        skipped.push({ line: entry.line, reason: `addenda type ${addendaType}: not a return` });
      } else {
        const code = record.slice(3, 6);
        const number = Number(code.slice(1));
        if (!/^R[0-9]{2}$/.test(code) || number < 1 || number > 85) {
          errors.push({ line, message: `the return reason ${JSON.stringify(code)} is not R01 to R85` });
          return;
        }
        const endToEndId = entry.record.slice(39, 54).trim();
        const amountText = entry.record.slice(29, 39);
        if (!/^[0-9]{10}$/.test(amountText)) {
          errors.push({ line: entry.line, message: 'the amount is not 10 digits' });
          return;
        }
        if (endToEndId === '') {
          skipped.push({ line: entry.line, reason: 'a return without individual id: not a payout of ours' });
          return;
        }
        const amountMinor = Number(amountText);
        const originalTraceNumber = record.slice(6, 21);
        const info = record.slice(35, 79).trim();
        const reason = [code, RETURN_REASONS[code], info || null].filter(Boolean).join(' ').slice(0, MAX_REASON);
        returns.push({ line: entry.line, endToEndId, reasonCode: code, originalTraceNumber, amountMinor });
        rows.push({
          line: entry.line,
          endToEndId,
          status: 'returned',
          reason,
          amount: { value: toDecimalString(amountMinor, 'USD'), currency: 'USD', instructed: true },
        });
      }
    } else {
      errors.push({ line, message: `unknown record type ${JSON.stringify(type)}` });
    }
  });
  leaveEntry();
  if (!sawHeader) errors.unshift({ line: 1, message: 'no file header record (1): not a NACHA file' });
  return { rows, returns, skipped, errors };
}
