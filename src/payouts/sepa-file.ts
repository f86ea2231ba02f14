import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Document } from 'sepa';
import { DomainError, type FieldError, type FieldErrorCode } from '../platform/errors.ts';
import { currencyError, largestTransfer, toDecimalString } from '../platform/money.ts';
import { sumMinor } from './amount.ts';
import { checkSepaAccount, ibanNeedsBic } from './bank-account.ts';
import { isSepaAddressLine, isCountryCode } from '../platform/latin-text.ts';
import { isSepaIdentifier, toSepaText } from './sepa-text.ts';

/**
 * Credit transfer batch files, ISO 20022 pain.001.001.09: one group header, one payment information
 * block (the insurer's account), one transaction per payout, all in one currency.
 *
 * - EUR: a SEPA credit transfer under the EPC SCT rulebook (2023): service level `SEPA`, charge
 *   bearer `SLEV`, amounts in cents up to 999 999 999.99.
 * - Any other currency (docs/DECISIONS.md, "Payouts in other currencies"): the same message as a
 *   cross-border customer credit transfer, the way a French insurer's bank takes it — no service
 *   level (not SEPA), charge bearer `SHAR` (each side pays its own bank), amounts in the currency's
 *   own minor units (JPY 5000 → "5000", KWD 1234 → "1.234"), the creditor agent's BIC when the
 *   customer gave one. The debtor is the one the caller passes (the insurer's account for that currency).
 *
 * The XML is produced by the `sepa` package, which holds amounts as JavaScript numbers and prints
 * them with `toFixed(2)`. Amounts stay exact because:
 *   - each payout's integer minor units become a decimal string on BigInt (`toDecimalString`), and
 *     the number handed to the package is checked to print back as exactly that string (true for
 *     every amount the rulebook allows, up to 999 999 999.99 — far below 2^53 / 100);
 *   - the control sums, which the package adds up in floating point, are replaced by the BigInt sum;
 *   - the finished XML is read back and every InstdAmt, CtrlSum, NbOfTxs and EndToEndId is compared
 *     to what was asked for; any difference throws instead of producing a file.
 */

export interface SepaDebtor {
  /** The insurer's account holder name (transliterated to the SEPA Latin set, at most 70 characters). */
  readonly name: string;
  readonly iban: string;
  /** The insurer's bank (BICFI). Required: the debtor agent is always named. */
  readonly bic: string;
  /**
   * The insurer's postal address (Dbtr/PstlAdr: `Ctry` and one or two `AdrLine`, transliterated, at
   * most 70 characters each). Written when given. Required in a file paying a bank outside the EEA
   * (EPC rulebook AT-P005; the EU Transfer of Funds Regulation 2023/1113 art. 4): without it such a
   * payout is refused (`/payouts/N/debtorAddress` `required`), the others' file still made.
   */
  readonly address?: { readonly country: string; readonly lines: readonly string[] } | undefined;
}

export interface SepaPayout {
  /** From `endToEndIdForPayout`; unique within the file. */
  readonly endToEndId: string;
  /** Integer minor units of `currency`: 5000 = €50.00. EUR: 1 to 99 999 999 999 (rulebook maximum 999 999 999.99). */
  readonly amount: number;
  /** The file's currency (every payout of a file has the same). */
  readonly currency: string;
  /** Transliterated to the SEPA Latin set; cut to 70 characters. */
  readonly creditorName: string;
  readonly creditorIban: string;
  /** Required when the IBAN's country is outside the EEA (`ibanNeedsBic`); the creditor agent when given. */
  readonly creditorBic?: string | null;
  /** Unstructured remittance (what the customer sees on the statement): 1 to 140 characters after transliteration. */
  readonly remittanceInformation: string;
}

export interface SepaCreditTransferInput {
  /** GrpHdr/MsgId: unique per file for the bank (≤ 35 SEPA identifier characters). Also the file name. */
  readonly messageId: string;
  /** PmtInf/PmtInfId, written as given (≤ 35). */
  readonly paymentInfoId: string;
  /** GrpHdr/CreDtTm, written in UTC ("2025-03-12T10:15:00Z"). */
  readonly createdAt: Date;
  /** PmtInf/ReqdExctnDt/Dt, YYYY-MM-DD. */
  readonly requestedExecutionDate: string;
  readonly debtor: SepaDebtor;
  /** The currency of every transfer in the file; default EUR (SEPA). Another: a cross-border transfer file. */
  readonly currency?: string;
  /** GrpHdr/InitgPty/Nm; default the debtor's name. */
  readonly initiatingPartyName?: string;
  /** true: one debit for the whole batch on the insurer's statement; default false (one per payout). */
  readonly batchBooking?: boolean;
  readonly payouts: readonly SepaPayout[];
}

export interface SepaCreditTransferFile {
  readonly xml: string;
  /** `<messageId>.xml`. */
  readonly fileName: string;
  readonly messageId: string;
  readonly paymentInfoId: string;
  readonly numberOfTransactions: number;
  /** Exact decimal text, as in the file: "1234567.89". */
  readonly controlSum: string;
  readonly currency: string;
  readonly controlSumMinor: bigint;
  readonly endToEndIds: readonly string[];
}

const PAIN_FORMAT = 'pain.001.001.09';
/** The SEPA rulebook's 999 999 999.99 EUR (`largestTransfer`, the ceiling the amounts that make payouts are held to). */
const MAX_AMOUNT_MINOR = largestTransfer('EUR').amount;
const MAX_NAME = 70;

/**
 * A payout's problem that is the insurer's, not the customer's: the debtor's address missing for a
 * bank outside the EEA (`/payouts/N/debtorAddress`). The batch leaves that payout out as
 * `no_debtor_address` (sepa-batch.ts).
 */
export const DEBTOR_ADDRESS_FIELD = 'debtorAddress';
const MAX_REMITTANCE = 140;

export function buildSepaCreditTransferFile(input: SepaCreditTransferInput): SepaCreditTransferFile {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string, code: FieldErrorCode = 'invalid_format') =>
    errors.push({ field, code, message });
  /** A bank account issue: a missing IBAN or BIC is `required`, a non-SEPA IBAN `not_allowed`, any other `invalid`. */
  const accountCode = (code: string): FieldErrorCode =>
    code.endsWith('_required') ? 'required' : code === 'iban_not_sepa' ? 'not_allowed' : 'invalid';

  if (!isSepaIdentifier(input.messageId))
    fail(
      '/messageId',
      'must be 1 to 35 characters of A-Z a-z 0-9 / - ? : ( ) . , \' +, without leading, trailing or double "/"',
    );
  const currency = input.currency ?? 'EUR';
  const sepa = currency === 'EUR';
  const refusedCurrency = currencyError(currency, '/currency');
  if (refusedCurrency) errors.push(refusedCurrency);
  const validCurrency = !errors.some((e) => e.field === '/currency');
  if (!isSepaIdentifier(input.paymentInfoId)) fail('/paymentInfoId', 'must be 1 to 35 SEPA identifier characters');
  if (!(input.createdAt instanceof Date) || Number.isNaN(input.createdAt.getTime()))
    fail('/createdAt', 'must be a valid date');
  const executionDate = parseIsoDate(input.requestedExecutionDate);
  if (!executionDate) fail('/requestedExecutionDate', 'must be a calendar date YYYY-MM-DD');

  const debtorName = toSepaText(input.debtor.name).slice(0, MAX_NAME).trim();
  if (debtorName === '') fail('/debtor/name', 'is required (in SEPA Latin characters)', 'required');
  const initiatingPartyName =
    input.initiatingPartyName === undefined
      ? debtorName
      : toSepaText(input.initiatingPartyName).slice(0, MAX_NAME).trim();
  if (input.initiatingPartyName !== undefined && initiatingPartyName === '')
    fail('/initiatingPartyName', 'must not be empty (in SEPA Latin characters)', 'required');
  if (!input.debtor.bic) fail('/debtor/bic', 'is required', 'required');
  const debtorAccount = checkSepaAccount({ iban: input.debtor.iban, bic: input.debtor.bic });
  if (!debtorAccount.ok)
    for (const issue of debtorAccount.issues) fail(`/debtor/${issue.field}`, issue.message, accountCode(issue.code));

  const address = input.debtor.address;
  const addressLines = address?.lines.map((line) => toSepaText(line));
  // the rules the configuration checks PARASOL_SEPA_DEBTOR_ADDRESS with at start: the address's country
  // an officially assigned ISO 3166-1 alpha-2 code, any country (isCountryCode), its lines isSepaAddressLine
  if (
    address &&
    (!isCountryCode(address.country) ||
      address.lines.length < 1 ||
      address.lines.length > 2 ||
      !address.lines.every(isSepaAddressLine))
  )
    fail(
      '/debtor/address',
      'must be an ISO 3166-1 alpha-2 country code and one or two lines of 1 to 70 SEPA Latin characters, without hidden characters',
    );

  if (input.payouts.length === 0) fail('/payouts', 'must hold at least one payout', 'too_few');
  const seen = new Set<string>();
  const transactions = input.payouts.map((payout, index) => {
    const at = (field: string) => `/payouts/${index}/${field}`;
    if (!isSepaIdentifier(payout.endToEndId)) fail(at('endToEndId'), 'must be 1 to 35 SEPA identifier characters');
    else if (seen.has(payout.endToEndId))
      fail(at('endToEndId'), `duplicates ${payout.endToEndId} earlier in the file`, 'invalid');
    seen.add(payout.endToEndId);
    if (payout.currency !== currency)
      fail(at('currency'), `must be ${currency}, the file's currency (one file per currency)`, 'not_allowed');
    if (sepa && (!Number.isSafeInteger(payout.amount) || payout.amount < 1 || payout.amount > MAX_AMOUNT_MINOR)) {
      fail(at('amount'), 'must be a whole number of cents from 1 to 99999999999', 'out_of_range');
    } else if (
      !sepa &&
      (!Number.isSafeInteger(payout.amount) || payout.amount < 1 || payout.amount > largestTransfer(currency).amount)
    ) {
      fail(at('amount'), `must be a positive whole number of ${currency} minor units`, 'out_of_range');
    }
    const creditorName = toSepaText(payout.creditorName).slice(0, MAX_NAME).trim();
    if (creditorName === '') fail(at('creditorName'), 'is required (in SEPA Latin characters)', 'required');
    const remittance = toSepaText(payout.remittanceInformation);
    if (remittance === '' || remittance.length > MAX_REMITTANCE)
      fail(at('remittanceInformation'), `must be 1 to ${MAX_REMITTANCE} SEPA Latin characters`);
    const account = checkSepaAccount({ iban: payout.creditorIban, bic: payout.creditorBic });
    if (!account.ok)
      for (const issue of account.issues)
        fail(at(issue.field === 'iban' ? 'creditorIban' : 'creditorBic'), issue.message, accountCode(issue.code));
    // outside SEPA the creditor's bank is found by its BIC, not by the IBAN (docs/DECISIONS.md,
    // "Cross-border transfers name the creditor's bank"): a payout without one is left out of the file
    else if (!sepa && account.account.bic === null)
      fail(at('creditorBic'), 'is required for a transfer outside SEPA (another currency than EUR)', 'required');
    // a transfer to a bank outside the EEA carries the payer's address (EPC AT-P005, EU 2023/1113 art. 4)
    // (the insurer's address missing, not the customer's IBAN at fault: its own field)
    if (account.ok && !address && ibanNeedsBic(account.account.iban))
      fail(
        at(DEBTOR_ADDRESS_FIELD),
        `is required for a bank outside the EEA (${account.account.iban.slice(0, 2)}): set PARASOL_SEPA_DEBTOR_ADDRESS, the insurer's postal address`,
        'required',
      );
    return { payout, creditorName, remittance, account: account.ok ? account.account : null };
  });

  if (errors.length > 0 || !debtorAccount.ok || !executionDate || !validCurrency) {
    throw new DomainError(
      'validation_failed',
      `${sepa ? 'SEPA' : currency} credit transfer file refused: ${errors.length} problem${errors.length === 1 ? '' : 's'}`,
      { errors },
    );
  }

  const amounts = transactions.map((t) => toDecimalString(t.payout.amount, currency));
  const controlSumMinor = sumMinor(transactions.map((t) => t.payout.amount));
  const controlSum = toDecimalString(controlSumMinor, currency);

  const doc = new Document(PAIN_FORMAT);
  doc.grpHdr.id = input.messageId;
  doc.grpHdr.created = input.createdAt;
  doc.grpHdr.initiatorName = initiatingPartyName;

  const info = doc.createPaymentInfo();
  // Noon local time: the package prints the local calendar date, and noon exists on every day in every zone.
  info.requestedExecutionDate = new Date(executionDate.year, executionDate.month - 1, executionDate.day, 12);
  info.debtorName = debtorName;
  info.debtorIBAN = debtorAccount.account.iban;
  info.debtorBIC = debtorAccount.account.bic ?? '';
  info.batchBooking = input.batchBooking ?? false;
  doc.addPaymentInfo(info);
  info.id = input.paymentInfoId; // the package prefixes it with the message id; we keep it as given

  transactions.forEach((t, index) => {
    const tx = info.createTransaction();
    tx.end2endId = t.payout.endToEndId;
    // EUR: the exact amount (checked to print back as itself); another currency: a placeholder the
    // package can print with its two decimals, replaced below by the amount in the currency's own
    tx.amount = sepa ? exactNumber(amounts[index] ?? '') : 1;
    tx.currency = currency;
    tx.creditorName = t.creditorName;
    tx.creditorIBAN = t.account?.iban ?? '';
    tx.creditorBIC = t.account?.bic ?? '';
    tx.remittanceInfo = t.remittance;
    info.addTransaction(tx);
    tx.id = t.payout.endToEndId; // InstrId: the package would prefix it beyond 35 characters
  });

  let xml = doc.toString();
  xml = replaceExactly(xml, /<CtrlSum>[^<]*<\/CtrlSum>/g, `<CtrlSum>${controlSum}</CtrlSum>`, 2);
  xml = replaceExactly(
    xml,
    /<CreDtTm>[^<]*<\/CreDtTm>/g,
    `<CreDtTm>${input.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z')}</CreDtTm>`,
    1,
  );
  if (address && addressLines)
    xml = replaceExactly(
      xml,
      /<Dbtr><Nm>[^<]*<\/Nm>/g,
      (nm) =>
        `${nm}<PstlAdr><Ctry>${address.country}</Ctry>${addressLines.map((line) => `<AdrLine>${escapeXml(line)}</AdrLine>`).join('')}</PstlAdr>`,
      1,
    );
  if (!sepa) {
    // not a SEPA transfer: no SEPA service level, each side pays its own bank's charges
    xml = replaceExactly(xml, /<PmtTpInf><SvcLvl><Cd>SEPA<\/Cd><\/SvcLvl><\/PmtTpInf>/g, '', 1);
    xml = replaceExactly(xml, /<ChrgBr>SLEV<\/ChrgBr>/g, '<ChrgBr>SHAR</ChrgBr>', 1);
    let next = 0;
    xml = replaceExactly(
      xml,
      new RegExp(`<InstdAmt Ccy="${currency}">[^<]*</InstdAmt>`, 'g'),
      () => `<InstdAmt Ccy="${currency}">${amounts[next++] ?? ''}</InstdAmt>`,
      amounts.length,
    );
  }
  verify(xml, {
    currency,
    sepa,
    amounts,
    controlSum,
    endToEndIds: transactions.map((t) => t.payout.endToEndId),
    messageId: input.messageId,
    paymentInfoId: input.paymentInfoId,
  });

  return {
    xml,
    fileName: `${input.messageId}.xml`,
    messageId: input.messageId,
    paymentInfoId: input.paymentInfoId,
    numberOfTransactions: transactions.length,
    controlSum,
    currency,
    controlSumMinor,
    endToEndIds: transactions.map((t) => t.payout.endToEndId),
  };
}

/**
 * Writes the file into `directory` as `<messageId>.xml`, mode 0600 (it holds customers' IBANs),
 * atomically (temporary file, fsync, then a hard link that fails if the name exists): a crash leaves
 * either no file or the whole file, and a message id is never written twice.
 */
export async function writeSepaFile(
  directory: string,
  file: Pick<SepaCreditTransferFile, 'xml' | 'fileName'>,
): Promise<string> {
  await fs.mkdir(directory, { recursive: true, mode: 0o700 });
  const target = path.join(directory, file.fileName);
  const temporary = path.join(directory, `.${file.fileName}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  const handle = await fs.open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(file.xml, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.link(temporary, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new DomainError('conflict', `${file.fileName} already exists in the payout directory`);
    throw error;
  } finally {
    await fs.unlink(temporary);
  }
  return target;
}

function parseIsoDate(text: string): { year: number; month: number; day: number } | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
    ? { year, month, day }
    : null;
}

/** The number the package will print with toFixed(2) as exactly `decimal` — checked, not assumed. */
function exactNumber(decimal: string): number {
  const value = Number(decimal);
  if (value.toFixed(2) !== decimal) throw new Error(`amount ${decimal} cannot be passed exactly to the sepa package`);
  return value;
}

function replaceExactly(
  xml: string,
  pattern: RegExp,
  replacement: string | ((match: string) => string),
  expected: number,
): string {
  let count = 0;
  const out = xml.replace(pattern, (match) => {
    count += 1;
    return typeof replacement === 'string' ? replacement : replacement(match);
  });
  if (count !== expected) throw new Error(`sepa output has ${count} ${pattern.source} elements, expected ${expected}`);
  return out;
}

function verify(
  xml: string,
  expected: {
    currency: string;
    sepa: boolean;
    amounts: string[];
    controlSum: string;
    endToEndIds: string[];
    messageId: string;
    paymentInfoId: string;
  },
): void {
  const all = (re: RegExp) => [...xml.matchAll(re)].map((m) => m[1]);
  const problems: string[] = [];
  const same = (what: string, actual: (string | undefined)[], wanted: string[]) => {
    if (actual.length !== wanted.length || actual.some((value, i) => value !== wanted[i])) problems.push(what);
  };
  same('InstdAmt', all(new RegExp(`<InstdAmt Ccy="${expected.currency}">([^<]*)</InstdAmt>`, 'g')), expected.amounts);
  same(
    'InstdAmt Ccy',
    all(/<InstdAmt Ccy="([^"]*)">/g),
    expected.amounts.map(() => expected.currency),
  );
  same('ChrgBr', all(/<ChrgBr>([^<]*)<\/ChrgBr>/g), [expected.sepa ? 'SLEV' : 'SHAR']);
  same('SvcLvl', all(/<SvcLvl><Cd>([^<]*)<\/Cd><\/SvcLvl>/g), expected.sepa ? ['SEPA'] : []);
  same('CtrlSum', all(/<CtrlSum>([^<]*)<\/CtrlSum>/g), [expected.controlSum, expected.controlSum]);
  same('NbOfTxs', all(/<NbOfTxs>([^<]*)<\/NbOfTxs>/g), [
    String(expected.amounts.length),
    String(expected.amounts.length),
  ]);
  same('EndToEndId', all(/<EndToEndId>([^<]*)<\/EndToEndId>/g), expected.endToEndIds.map(escapeXml));
  same('MsgId', all(/<MsgId>([^<]*)<\/MsgId>/g), [escapeXml(expected.messageId)]);
  same('PmtInfId', all(/<PmtInfId>([^<]*)<\/PmtInfId>/g), [escapeXml(expected.paymentInfoId)]);
  if (problems.length > 0) throw new Error(`sepa output does not carry the requested ${problems.join(', ')}`);
}

/** The package's own escaping of text content, to compare identifiers as they appear in the file. */
function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
