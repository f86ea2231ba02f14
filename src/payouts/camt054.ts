import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { isValidEndToEndId } from './end-to-end-id.ts';
import { MAX_REASON, type ReconciliationError, type ReconciliationRow, type ReportedAmount } from './reconciliation.ts';

/**
 * The bank's debit/credit notification, ISO 20022 camt.054 (BankToCustomerDebitCreditNotification),
 * read into the same rows as the reconciliation CSV: one per transaction (`TxDtls`) that names an
 * end-to-end id, with the line of the file where it starts.
 *
 * - a booked (`Sts` BOOK) debit (`CdtDbtInd` DBIT) → `paid`;
 * - a booked credit carrying return information (`RtrInf`, reason `Rsn/Cd` or `Rsn/Prtry` and
 *   `AddtlInf`) → `returned`, keyed by `OrgnlEndToEndId` when the bank gives one, else
 *   `Refs/EndToEndId` (the returned transfer's id);
 * - entries not booked (PDNG, INFO…), credits without return information, debits with it,
 *   transactions without a usable end-to-end id and entries without transaction details (a batch
 *   booked as one amount) are `skipped`, each with why, for the operator to see.
 *
 * Each row carries the transaction's amount and currency as the bank reports it (`amountOf`), for
 * the import to compare with the payout's: the instructed amount (`AmtDtls/InstdAmt/Amt`), else the
 * transaction's (`TxDtls/Amt` from .08, `AmtDtls/TxAmt/Amt` before), else the entry's `Amt` when the
 * entry holds that one transaction; none when a batch-booked entry gives no amount per transaction.
 *
 * A batch-booked entry (one `Ntry` with several `TxDtls`) gives one row per transaction. Versions
 * `camt.054.001.02` and later are read (the status is `<Sts>BOOK</Sts>` up to .07, `<Sts><Cd>BOOK</Cd></Sts>`
 * from .08); optional elements may be absent, namespace prefixes are accepted. There is no XSD of
 * camt.054 in the repository: the reader follows the message's published structure and checks only
 * what it uses.
 *
 * Refused whole (`errors`): text that is not well-formed XML, a DOCTYPE (a camt.054 has none; no
 * entity is ever declared, so none is expanded: fast-xml-parser reads no external resource, and only
 * the five predefined entities and character references remain), another message than camt.054.
 */

export interface SkippedEntry {
  readonly line: number;
  readonly reason: string;
}

export interface Camt054Parse {
  /** `camt.054.001.08`… ; null when the file is not one. */
  readonly message: string | null;
  /** GrpHdr/MsgId, the bank's id of the notification. */
  readonly messageId: string | null;
  /** Booked payments first, then returns: a file reporting a transfer paid and returned applies both in that order. */
  readonly rows: ReconciliationRow[];
  readonly skipped: SkippedEntry[];
  readonly errors: ReconciliationError[];
}

const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:(camt\.054\.001\.(\d{2}))$/;
const OTHER_ISO = /^urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3}\.\d{3}\.\d{2})$/;

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // values stay text: an end-to-end id "0123" is not a number
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  captureMetaData: true,
  // predefined entities and character references only: a DOCTYPE is refused before parsing
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});
// typed `Symbol` (the wrapper) by the package: the value is a symbol
const META = XMLParser.getMetaDataSymbol() as unknown as symbol;

/** Whether a report looks like XML (a camt.054) rather than the CSV: its first non-blank character is `<`. */
export function looksLikeXml(text: string): boolean {
  return /^\uFEFF?\s*</.test(text);
}

export function parseCamt054(input: string): Camt054Parse {
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const breaks = lineBreaks(text);
  const lineAt = (index: number) => lineIn(breaks, index);
  const fail = (line: number, message: string): Camt054Parse => ({
    message: null,
    messageId: null,
    rows: [],
    skipped: [],
    errors: [{ line, message }],
  });
  const doctype = /<!(DOCTYPE|ENTITY)/i.exec(text);
  if (doctype)
    return fail(
      lineAt(doctype.index),
      'a DOCTYPE or entity declaration is refused: a camt.054 has none (no entity is expanded)',
    );
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    return fail(
      valid.err.line ?? 1,
      `not well-formed XML: ${valid.err.msg}${valid.err.col ? ` (column ${valid.err.col})` : ''}`,
    );

  const tree = parser.parse(text) as XmlNode;
  const rootKey = Object.keys(tree).find((k) => !k.startsWith('?') && !k.startsWith('#'));
  const root = rootKey ? asNode(tree[rootKey]) : undefined;
  if (!rootKey || !root || localName(rootKey) !== 'Document')
    return fail(1, `not a camt.054: the root element is ${rootKey ?? 'missing'}, expected Document`);
  const prefix = rootKey.includes(':') ? rootKey.slice(0, rootKey.indexOf(':')) : null;
  const namespace = String(root[prefix ? `@_xmlns:${prefix}` : '@_xmlns'] ?? '');
  const matched = NAMESPACE.exec(namespace);
  if (!matched || Number(matched[2]) < 2) {
    const other = OTHER_ISO.exec(namespace);
    return fail(
      lineAt(metaOf(root)?.startIndex ?? 0),
      other
        ? `not a camt.054: this is ${other[1]} (expected a BankToCustomerDebitCreditNotification, camt.054.001.02 or later)`
        : `not a camt.054: the Document's namespace is "${namespace}", expected urn:iso:std:iso:20022:tech:xsd:camt.054.001.NN`,
    );
  }
  const notification = children(root, 'BkToCstmrDbtCdtNtfctn')[0];
  if (!notification)
    return fail(lineAt(metaOf(root)?.startIndex ?? 0), 'not a camt.054: no BkToCstmrDbtCdtNtfctn element');
  const notifications = children(notification, 'Ntfctn');
  if (notifications.length === 0)
    return fail(lineAt(metaOf(notification)?.startIndex ?? 0), 'the camt.054 has no Ntfctn element');

  const rows: ReconciliationRow[] = [];
  const skipped: SkippedEntry[] = [];
  const lineOf = (node: XmlNode) => lineAt(metaOf(node)?.startIndex ?? 0);
  for (const ntfctn of notifications) {
    for (const entry of children(ntfctn, 'Ntry')) {
      const status = statusOf(entry);
      const indicator = textOf(children(entry, 'CdtDbtInd')[0])?.toUpperCase();
      // a credit that reverses an earlier debit of ours (the bank's own correction): the money came back
      const reversal = textOf(children(entry, 'RvslInd')[0])?.toLowerCase() === 'true';
      if (status !== 'BOOK') {
        skipped.push({ line: lineOf(entry), reason: `entry not booked (status ${status ?? 'missing'}): ignored` });
        continue;
      }
      const transactions = children(entry, 'NtryDtls').flatMap((d) => children(d, 'TxDtls'));
      if (transactions.length === 0) {
        skipped.push({
          line: lineOf(entry),
          reason:
            'booked entry without transaction details (TxDtls): no end-to-end id to match (a batch booked as one amount: ask the bank for its details)',
        });
        continue;
      }
      for (const tx of transactions) {
        const direction = textOf(children(tx, 'CdtDbtInd')[0])?.toUpperCase() ?? indicator;
        const returnInfo = children(tx, 'RtrInf')[0];
        if (returnInfo && direction !== 'CRDT') {
          skipped.push({
            line: lineOf(tx),
            reason: `return information on a ${direction ?? 'missing'} entry: ignored`,
          });
          continue;
        }
        if (reversal && direction === 'DBIT') {
          skipped.push({
            line: lineOf(tx),
            reason: 'a debit reversing an earlier credit (RvslInd): not a payment of ours — check it with the bank',
          });
          continue;
        }
        const reversed = !returnInfo && reversal && direction === 'CRDT';
        if (!returnInfo && !reversed && direction !== 'DBIT') {
          skipped.push({
            line: lineOf(tx),
            reason: `${direction === 'CRDT' ? 'credit' : `${direction ?? 'missing'} indicator`} without return information: not a transfer of ours`,
          });
          continue;
        }
        const refsId = textOf(children(children(tx, 'Refs')[0], 'EndToEndId')[0]);
        const originalId = returnInfo ? textOf(descendant(tx, 'OrgnlEndToEndId')) : undefined;
        const endToEndId = usable(originalId) ?? usable(refsId);
        if (!endToEndId) {
          const given = originalId ?? refsId;
          skipped.push({
            line: lineOf(tx),
            reason:
              given && given.toUpperCase() !== 'NOTPROVIDED'
                ? `end-to-end id "${given.slice(0, 40)}" is not a SEPA end-to-end id`
                : 'no end-to-end id',
          });
          continue;
        }
        rows.push({
          line: lineOf(tx),
          endToEndId,
          status: returnInfo || reversed ? 'returned' : 'paid',
          reason: returnInfo ? reasonOf(returnInfo) : reversed ? 'reversed by the bank (RvslInd)' : null,
          amount: amountOf(tx, transactions.length === 1 ? entry : undefined),
        });
      }
    }
  }
  const order = (r: ReconciliationRow) => (r.status === 'paid' ? 0 : 1);
  return {
    message: matched[1]!,
    messageId: textOf(children(children(notification, 'GrpHdr')[0], 'MsgId')[0]) ?? null,
    rows: rows.sort((a, b) => order(a) - order(b)),
    skipped,
    errors: [],
  };
}

/** The transaction's amount as reported (see the module's comment); null when the file gives none for it. */
function amountOf(tx: XmlNode, soleEntry: XmlNode | undefined): ReportedAmount | null {
  const details = children(tx, 'AmtDtls')[0];
  const candidates = [
    children(children(details, 'InstdAmt')[0], 'Amt')[0],
    children(tx, 'Amt')[0],
    children(children(details, 'TxAmt')[0], 'Amt')[0],
    soleEntry ? children(soleEntry, 'Amt')[0] : undefined,
  ];
  for (const [i, node] of candidates.entries()) {
    const value = textOf(node);
    if (node && value !== undefined && value !== '')
      return { value, currency: String(node['@_Ccy'] ?? '').trim(), ...(i === 0 ? { instructed: true } : {}) };
  }
  return null;
}

/** BOOK, PDNG…: `<Sts>BOOK</Sts>` (up to .07) or `<Sts><Cd>BOOK</Cd></Sts>` (from .08). */
function statusOf(entry: XmlNode): string | undefined {
  const sts = children(entry, 'Sts')[0];
  const direct = textOf(sts);
  if (direct !== undefined && direct !== '') return direct.toUpperCase();
  const node = asNode(sts);
  if (!node) return undefined;
  return (textOf(children(node, 'Cd')[0]) ?? textOf(children(node, 'Prtry')[0]))?.toUpperCase();
}

/** `AC04 account closed`: the reason code (ISO or proprietary) and the bank's additional information. */
function reasonOf(returnInfo: XmlNode | string): string | null {
  const node = asNode(returnInfo);
  if (!node) return null;
  const rsn = children(node, 'Rsn')[0];
  const code = textOf(children(rsn, 'Cd')[0]) ?? textOf(children(rsn, 'Prtry')[0]);
  const info = children(node, 'AddtlInf')
    .map((i) => textOf(i))
    .filter((i): i is string => !!i);
  const reason = [code, ...info].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
  return reason === '' ? null : reason.slice(0, MAX_REASON);
}

function usable(id: string | undefined): string | undefined {
  return id !== undefined && id.toUpperCase() !== 'NOTPROVIDED' && isValidEndToEndId(id) ? id : undefined;
}

function localName(key: string): string {
  return key.slice(key.indexOf(':') + 1);
}

function asNode(value: unknown): XmlNode | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as XmlNode) : undefined;
}

/** The child elements of that local name (any prefix), as a list whether the file has one or several. */
function children(node: unknown, name: string): XmlNode[] {
  const parent = asNode(node);
  if (!parent) return [];
  const out: XmlNode[] = [];
  for (const [key, value] of Object.entries(parent)) {
    if (key.startsWith('@_') || key === '#text' || localName(key) !== name) continue;
    for (const item of Array.isArray(value) ? value : [value])
      out.push(typeof item === 'object' && item !== null ? (item as XmlNode) : { '#text': item });
  }
  return out;
}

/** The first element of that local name anywhere below `node`. */
function descendant(node: unknown, name: string): XmlNode | undefined {
  const parent = asNode(node);
  if (!parent) return undefined;
  const own = children(parent, name)[0];
  if (own) return own;
  for (const [key, value] of Object.entries(parent)) {
    if (key.startsWith('@_') || key === '#text') continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      const found = descendant(item, name);
      if (found) return found;
    }
  }
  return undefined;
}

function textOf(node: unknown): string | undefined {
  if (typeof node === 'string') return node.trim();
  const value = asNode(node)?.['#text'];
  return value === undefined || value === null ? undefined : String(value).trim();
}

function metaOf(node: XmlNode): { startIndex?: number } | undefined {
  return (node as Record<symbol, { startIndex?: number } | undefined>)[META];
}

/** The indexes of the text's line breaks, for lineIn. */
function lineBreaks(text: string): number[] {
  const breaks: number[] = [];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) breaks.push(i);
  return breaks;
}

/** The line (1-based) of a character index: binary search over the line breaks. */
function lineIn(breaks: number[], index: number): number {
  let low = 0;
  let high = breaks.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (breaks[mid]! < index) low = mid + 1;
    else high = mid;
  }
  return low + 1;
}
