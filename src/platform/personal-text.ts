import { countrySpecs, electronicFormatIBAN, validateIBAN, ValidationErrorsIBAN } from 'ibantools';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { FieldError } from './errors.ts';
import { transliterateLatin } from './latin-text.ts';

/**
 * Free text that people write and the platform keeps — an operator's reason on the claim desk, a
 * stop-sale's or an agreement's reason, a bank's reason for refusing a transfer — may quote a
 * customer's bank account, email address or phone number. None of them is kept in clear
 * (docs/DECISIONS.md, "Personal data at rest"): such a text is stored as `maskPersonalDataIn` leaves
 * it. Here in the shared kernel so that every domain that takes free text masks it the same way
 * (payouts for the bank's reasons, claims for the desk's, limits, partners…).
 */

/** "FR76 3000 6000 0112 3456 7890 189" → "•••• 0189": the only form an IBAN is shown in after entry. */
export function maskIban(iban: string): string {
  const electronic = electronicFormatIBAN(iban) ?? '';
  return `•••• ${electronic.slice(-4)}`;
}

/**
 * Where an IBAN may begin: two letters and two digits, at the start of a word — or right after an
 * escaped line break or tab (`\n`, `\r`, `\t` as JSON writes them: a log line quoting a multi-line
 * text), where no word begins for `\b` since the escape ends with a letter.
 */
const IBAN_START = /(?:\b|(?<=\\[nrt]))[A-Za-z]{2}[0-9]{2}/;

/**
 * Whether `maskIbansIn` could find an IBAN in the text (it has a place where one may begin): one
 * regular expression test, for a caller that masks many texts of which few quote one (log lines).
 */
export function mayQuoteIban(text: string): boolean {
  return IBAN_START.test(text);
}

/**
 * The text with every IBAN in it masked as `maskIban` does — grouped or not, any case: a bank's
 * free-text reason for refusing a transfer may quote the account, and after entry a customer's IBAN
 * is only ever kept and shown by its last four. At each place two letters and two digits begin, the
 * run of letters and digits (single spaces or dashes between them) of the country's IBAN length is
 * masked when it is an IBAN (a known country, its format, the IBAN's check digits); anything else is left as
 * written. A country's own check digits inside the account number are not required: an account
 * quoted with a typo in them is still somebody's account.
 */
export function maskIbansIn(text: string): string {
  const start = new RegExp(IBAN_START, 'g');
  let masked = '';
  let from = 0;
  for (let found = start.exec(text); found; found = start.exec(text)) {
    const iban = ibanAt(text, found.index);
    if (!iban) continue;
    masked += `${text.slice(from, found.index)}${maskIban(iban.electronic)}`;
    from = iban.end;
    start.lastIndex = iban.end;
  }
  return masked + text.slice(from);
}

/** Country, length, format and the IBAN's own check digits; not the national ones, nor QR-IBAN rules. */
function looksLikeIban(electronic: string): boolean {
  const { errorCodes } = validateIBAN(electronic, { allowQRIBAN: true });
  return errorCodes.every((code) => code === ValidationErrorsIBAN.WrongAccountBankBranchChecksum);
}

/**
 * The IBAN written from `at` (electronic form, and where it ends in the text). An IBAN's length is
 * its country's: only that many characters are read and checked, and nothing when the two letters
 * name no IBAN country (most places where two letters and two digits begin, in a log line).
 */
function ibanAt(text: string, at: number): { electronic: string; end: number } | undefined {
  const length = countrySpecs[text.slice(at, at + 2).toUpperCase()]?.chars;
  if (!length) return undefined;
  let electronic = '';
  const ends: number[] = [];
  for (let i = at; i < text.length && electronic.length < length;) {
    const separated = electronic.length >= 4 && (text[i] === ' ' || text[i] === '-') ? 1 : 0;
    const c = text[i + separated];
    if (c === undefined || !/[A-Za-z0-9]/.test(c)) break;
    electronic += c.toUpperCase();
    i += separated + 1;
    ends.push(i);
  }
  return electronic.length === length && looksLikeIban(electronic) ? { electronic, end: ends[length - 1]! } : undefined;
}

export const MASKED_EMAIL = '[email]';
export const MASKED_PHONE = '[phone]';

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
/** An international number (`+33 6 12 34 56 78`, `+33612345678`, `+1 (500) 555-0006`), checked by libphonenumber. */
const INTERNATIONAL_PHONE = /\+[1-9](?:[ .()-]{0,2}[0-9]){6,14}/g;
/** A French national number (`06 12 34 56 78`, `0612345678`, `06.12.34.56.78`): the customers' own. */
const FRENCH_PHONE = /\b0[1-9](?:[ .-]?[0-9]{2}){4}\b/g;

/**
 * The text with the personal data people quote in free text masked: IBANs (their last four kept, as
 * everywhere), email addresses and phone numbers (international, or French national form), each
 * replaced by `[email]` or `[phone]`; then, when the text may quote a known person (`name`: a bank's
 * reason for refusing a transfer to that person's account), their name (`maskNameIn`). The name goes
 * last: masked first, its words inside an IBAN or an address ("GB47 ABBY 0901…", "abby.smith@…")
 * would hide the account or the address from the masks that follow. What the text says otherwise is
 * kept as written. `accountNumber`: the person's US account number, known too (a bank's reason for
 * returning an ACH entry to it), masked as `maskAccountNumberIn` does, before the name.
 */
export function maskPersonalDataIn(text: string, name?: string, accountNumber?: string): string {
  const masked = maskIbansIn(accountNumber ? maskAccountNumberIn(text, accountNumber) : text)
    .replace(EMAIL, MASKED_EMAIL)
    .replace(INTERNATIONAL_PHONE, (found) => (parsePhoneNumberFromString(found)?.isPossible() ? MASKED_PHONE : found))
    .replace(FRENCH_PHONE, MASKED_PHONE);
  return name ? maskNameIn(masked, name) : masked;
}

/**
 * The bound of a free text a person types, read by its length alone before any pattern: the masks'
 * patterns, like an email's, are slow on a long text, and a form's body may be 16 KiB. `typed`: the
 * longest text read at all, as typed; `kept`: the longest kept, which the refusal names (the typed
 * bound may be above it: a masked account quoted spaced is shorter than typed) — `typed` when absent.
 * `field`: the JSON Pointer the refusal names.
 */
export interface TypedBound {
  readonly field: string;
  readonly typed: number;
  readonly kept?: number | undefined;
}

/** An operator's reason (claim desk, stop-sale, amendment): 500 characters kept, 2,000 read as typed. */
export const REASON_LENGTH = { kept: 500, typed: 2000 } as const;

/**
 * The refusal of a text longer as typed than `bound.typed`: `too_long`, "must be at most <kept>
 * characters"; undefined within it. Its length only: call it before any pattern or mask reads the
 * text (`maskTyped` does both in that order).
 */
export function typedTooLong(text: string, bound: TypedBound): FieldError | undefined {
  if (text.length <= bound.typed) return undefined;
  return tooLongError(bound);
}

/**
 * The refusal of a text longer as it is kept (once masked) than `bound.kept`: the same code and words as
 * `typedTooLong`'s ("must be at most 500 characters"), so a reason too long as typed or once masked is told
 * one way (the claim desk's, stop-sale's and amendment's reason, `REASON_LENGTH`); undefined within it.
 */
export function keptTooLong(text: string, bound: TypedBound): FieldError | undefined {
  return text.length > (bound.kept ?? bound.typed) ? tooLongError(bound) : undefined;
}

function tooLongError(bound: TypedBound): FieldError {
  return { field: bound.field, code: 'too_long', message: `must be at most ${bound.kept ?? bound.typed} characters` };
}

/**
 * Free text as it is kept: its length as typed checked first (`typedTooLong`: the refusal, and `mask`
 * never called on it), then masked — `maskPersonalDataIn` unless another `mask` is given (the desk's,
 * with the claim's own account). The masked text may still be longer than `kept`: its caller checks
 * that with its own words.
 */
export function maskTyped(
  text: string,
  bound: TypedBound,
  mask: (typed: string) => string = (typed) => maskPersonalDataIn(typed),
): { masked: string; error?: undefined } | { masked?: undefined; error: FieldError } {
  const error = typedTooLong(text, bound);
  return error ? { error } : { masked: mask(text) };
}

/**
 * An operator's required reason as it is kept (a stop-sale's, an amendment's): trimmed, then `maskTyped`;
 * too long as typed or once masked, one refusal (`too_long`, `keptTooLong`'s words, like the claim desk's);
 * empty, `required` with the caller's `requiredMessage`. `kept` is the masked text ('' when too long as typed).
 */
export function keptReason(
  typed: string,
  bound: TypedBound,
  requiredMessage: string,
): { kept: string; error?: FieldError | undefined } {
  const { masked, error } = maskTyped(typed.trim(), bound);
  if (error) return { kept: '', error };
  if (masked.length === 0)
    return { kept: masked, error: { field: bound.field, code: 'required', message: requiredMessage } };
  return { kept: masked, error: keptTooLong(masked, bound) };
}

/** ABA routing number check: 3, 7, 1 weights over its 9 digits, a multiple of 10 (and not all zeros). */
function isAbaRoutingNumber(digits: string): boolean {
  if (!/^\d{9}$/.test(digits) || /^0+$/.test(digits)) return false;
  const d = [...digits].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}

/** A word naming an account, in every language of the app (en, fr, es, de, it, pt; nl's rekening too). */
const ACCOUNT_WORD = /(?:account|acct|a\/c|compte|cuenta|konto|conto|conta|rekening)[\p{L}.#°º]*[^\d\n]{0,30}$/iu;
/** Non-digits, at most this many, between a routing number and the account number next to it. */
const NEXT_TO = /^[^\d\n]{0,30}$/;

/**
 * The text with the US account numbers it may quote masked to their last four (`•••• 6789`): a bare
 * account number has no check digits, so a run of 4 to 17 digits is taken for one by its place — next
 * to an ABA-valid 9-digit routing number (the routing number, public, is left), or after a word naming
 * an account ("account", "acct", "compte", "cuenta", "Konto", "conto", "conta"…, within 30 characters).
 */
export function maskUsAccountsIn(text: string): string {
  // not the last four of an account masked already ("•••• 6789"): masking again changes nothing
  const runs = [...text.matchAll(/(?<!\d|•••• )\d{4,17}(?!\d)/g)].map((m) => ({ at: m.index, digits: m[0] }));
  const masked = new Set<number>();
  runs.forEach((run, i) => {
    const before = text.slice(i > 0 ? runs[i - 1]!.at + runs[i - 1]!.digits.length : 0, run.at);
    if (ACCOUNT_WORD.test(before)) masked.add(i);
    if (!isAbaRoutingNumber(run.digits) || masked.has(i)) return;
    // the routing number's neighbours (not another routing number taken for one)
    const previous = runs[i - 1];
    if (previous && !masked.has(i - 1) && !isAbaRoutingNumber(previous.digits) && NEXT_TO.test(before))
      masked.add(i - 1);
    const next = runs[i + 1];
    if (next && NEXT_TO.test(text.slice(run.at + run.digits.length, next.at))) masked.add(i + 1);
  });
  let out = '';
  let from = 0;
  runs.forEach((run, i) => {
    if (!masked.has(i)) return;
    out += `${text.slice(from, run.at)}•••• ${run.digits.slice(-4)}`;
    from = run.at + run.digits.length;
  });
  return out + text.slice(from);
}

/**
 * The shortest known account number masked wherever a text quotes it: one of 4 characters or fewer
 * would mask years ("2026"), flight numbers, amounts and parts of claim numbers, so such an account is
 * left to the patterns that find it by its place (`maskUsAccountsIn`: next to a routing number or after
 * a word naming an account).
 */
export const KNOWN_ACCOUNT_MIN = 5;

/** What may stand between two characters of an account number as a person writes it. */
const ACCOUNT_SEPARATOR = '[ .-]?';

/**
 * The pattern of a known account, matched only as a whole word: not inside a longer run of letters
 * and digits, nor joined to one by a hyphen ("CLM-00012345" does not quote the account 00012345).
 */
function knownAccountPattern(body: string): RegExp {
  return new RegExp(`(?<![A-Za-z0-9]-?)${body}(?!-?[A-Za-z0-9])`, 'gi');
}

/**
 * The text with a known US account number masked to its last four (`•••• 6789`), written whole or
 * with spaces, dots or hyphens between its characters, any case, as a whole word (not inside a longer
 * run of letters and digits). A bare account number cannot be told from other numbers by its form (it
 * has no check digits), so only the one known — the claim's own account — is masked; one shorter than
 * `KNOWN_ACCOUNT_MIN` (5) characters is left (it would mask ordinary numbers).
 */
export function maskAccountNumberIn(text: string, accountNumber: string): string {
  const account = accountNumber.replace(/[\s.-]+/g, '').toUpperCase();
  if (!/^[0-9A-Z]+$/.test(account) || account.length < KNOWN_ACCOUNT_MIN || account.length > 17) return text;
  return text.replace(knownAccountPattern([...account].join(ACCOUNT_SEPARATOR)), `•••• ${account.slice(-4)}`);
}

/**
 * The text with a known IBAN masked to its last four (`•••• 0189`) wherever it is quoted: whole (any
 * length up to an IBAN's 34 characters), with its country and any two check digits (a typo in them
 * still quotes the account), or as its bare national account number (the BBAN: the IBAN without its
 * first 4 characters); spaces, dots or hyphens between characters, any case, as a whole word. What
 * `maskIbansIn` cannot see: "FR 76 3000 …", "FR76.3000.…", the BBAN alone, a wrong check digit.
 */
export function maskKnownIbanIn(text: string, iban: string): string {
  const electronic = iban.replace(/[\s.-]+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[0-9A-Z]+$/.test(electronic) || electronic.length - 4 < KNOWN_ACCOUNT_MIN) return text;
  const country = `${electronic[0]}${ACCOUNT_SEPARATOR}${electronic[1]}`;
  const bban = [...electronic.slice(4)].join(ACCOUNT_SEPARATOR);
  const body = `(?:${country}${ACCOUNT_SEPARATOR}\\d${ACCOUNT_SEPARATOR}\\d${ACCOUNT_SEPARATOR})?${bban}`;
  return text.replace(knownAccountPattern(body), `•••• ${electronic.slice(-4)}`);
}

/**
 * A free-text reason about one claim as kept (the claim desk's, on the claim and in its audit trail):
 * the claim's own account masked first, wherever and however typed — its IBAN (`maskKnownIbanIn`), its
 * US account number (`maskAccountNumberIn`) — then the US account numbers found by their place
 * (`maskUsAccountsIn`), IBANs, email addresses and phone numbers (`maskPersonalDataIn`). Masking a
 * reason masked already changes nothing.
 */
export function maskClaimReasonIn(
  text: string,
  own: { iban?: string | undefined; usAccount?: string | undefined },
): string {
  let masked = text;
  if (own.iban) masked = maskKnownIbanIn(masked, own.iban);
  if (own.usAccount) masked = maskAccountNumberIn(masked, own.usAccount);
  return maskPersonalDataIn(maskUsAccountsIn(masked));
}

export const MASKED_NAME = '[name]';

/** What may stand between two words of one name as a text writes it: "DUPONT JEAN", "Dupont, Jean", "Le-Goff". */
const BETWEEN_NAME_WORDS = /^[\s,.'’-]+$/u;

/**
 * The text with a known person's name masked: each word of `name` (two letters or more) replaced by
 * `[name]` wherever it stands as a whole word, in any case, with or without its accents, and as
 * SEPA spells it (`transliterateLatin`: "Łukasz Wałęsa" → LUKASZ WALESA, "Strauß" → STRAUSS, the
 * name Parasol sent the bank in pain.001) — a bank writes "DUPONT JEAN" or "Muller" for the account
 * holder "Jean Dupont" or "Müller". A two-letter word ("de", "la", "Le", "An") is masked only next to
 * another word of the name ("DE LA FONTAINE"), else it is an ordinary word ("clos à la demande").
 * For free text that may quote someone whose name is known when it arrives (a bank's reason for
 * refusing or returning the transfer to that person's account). Masks too much rather than too
 * little: a longer name word that is also a common word masks that word.
 */
export function maskNameIn(text: string, name: string): string {
  const words = [
    ...new Set(
      name
        .split(/[^\p{L}\p{N}]+/u)
        .flatMap((word) => [fold(word), transliterateLatin(word)])
        .map((word) => word.toLowerCase()),
    ),
  ].filter((w) => w.length >= 2);
  if (words.length === 0) return text;
  const escaped = words.sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  // matched on the text without its accents, each character folded in place (same length), replaced in the text itself
  const folded = fold(text);
  const found = [...folded.matchAll(pattern)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  const onlyShort = words.every((w) => w.length === 2);
  // runs of name words next to each other; a run is masked when it holds a longer word (or, for a
  // name of two-letter words only, two words or more)
  const masked = new Set<number>();
  for (let i = 0; i < found.length;) {
    let j = i;
    while (j + 1 < found.length && BETWEEN_NAME_WORDS.test(text.slice(found[j]!.end, found[j + 1]!.start))) j++;
    const run = found.slice(i, j + 1);
    if (run.some((m) => m.end - m.start > 2) || (onlyShort && run.length >= 2))
      for (let k = i; k <= j; k++) masked.add(k);
    else for (let k = i; k <= j; k++) if (found[k]!.end - found[k]!.start > 2) masked.add(k);
    i = j + 1;
  }
  let out = '';
  let from = 0;
  found.forEach((m, k) => {
    if (!masked.has(k)) return;
    out += `${text.slice(from, m.start)}${MASKED_NAME}`;
    from = m.end;
  });
  return out + text.slice(from);
}

/** Each character without its accents where that keeps its length (é → e, ü → u), else as written. */
function fold(text: string): string {
  let folded = '';
  for (const c of text) {
    const bare = c.normalize('NFD').replace(/\p{M}+/gu, '');
    folded += bare.length === c.length ? bare : c;
  }
  return folded;
}
