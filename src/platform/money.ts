/**
 * Money in integer minor units, the only form money takes in Parasol. Conversions to and from
 * decimal text are done on strings and BigInt — never with floating point.
 */

import type { FieldError } from './errors.ts';
import { LOCALES, type CustomerLang } from './language.ts';

/**
 * Every currency Parasol knows with its number of minor-unit digits: what one integer of minor units
 * means (EUR 2, JPY 0, KWD 3). Frozen, not read from Intl at run time: Intl's digits are CLDR's, and
 * CLDR changes them between Node/ICU versions (CLDR 47 gives HUF, COP, IDR and PKR 2 decimals, CLDR 48
 * 0, and CLDR-19663 gives PKR 2 again in a later one), so a stored amount would mean another sum under another Node.
 * These are the digits (and the list) of `Intl.NumberFormat('en', { style: 'currency' })` and
 * `Intl.supportedValuesOf('currency')` on Node 20.20.2 (ICU 78.2, CLDR 48.0), what every amount stored
 * so far was written with; generated once from that Intl, never again — plus VED (2, as VES), which
 * that ICU does not list, added when `currencyError` came to accept it (no amount could be in it
 * before, so no stored amount changed meaning). Changing a currency's digits here
 * changes what its stored amounts mean: it needs a data migration of them (docs/DECISIONS.md, "Minor
 * units are a frozen table").
 */
// prettier-ignore
const MINOR_UNIT_DIGITS: Readonly<Record<string, 0 | 2 | 3>> = {
  AED: 2, AFN: 0, ALL: 0, AMD: 2, ANG: 2, AOA: 2, ARS: 2, AUD: 2, AWG: 2, AZN: 2, BAM: 2, BBD: 2,
  BDT: 2, BGN: 2, BHD: 3, BIF: 0, BMD: 2, BND: 2, BOB: 2, BRL: 2, BSD: 2, BTN: 2, BWP: 2, BYN: 2,
  BZD: 2, CAD: 2, CDF: 2, CHF: 2, CLP: 0, CNY: 2, COP: 0, CRC: 2, CUC: 2, CUP: 2, CVE: 2, CZK: 2,
  DJF: 0, DKK: 2, DOP: 2, DZD: 2, EGP: 2, ERN: 2, ETB: 2, EUR: 2, FJD: 2, FKP: 2, GBP: 2, GEL: 2,
  GHS: 2, GIP: 2, GMD: 2, GNF: 0, GTQ: 2, GYD: 2, HKD: 2, HNL: 2, HRK: 2, HTG: 2, HUF: 0, IDR: 0,
  ILS: 2, INR: 2, IQD: 0, IRR: 0, ISK: 0, JMD: 2, JOD: 3, JPY: 0, KES: 2, KGS: 2, KHR: 2, KMF: 0,
  KPW: 0, KRW: 0, KWD: 3, KYD: 2, KZT: 2, LAK: 0, LBP: 0, LKR: 2, LRD: 2, LSL: 2, LYD: 3, MAD: 2,
  MDL: 2, MGA: 0, MKD: 2, MMK: 0, MNT: 2, MOP: 2, MRU: 2, MUR: 2, MVR: 2, MWK: 2, MXN: 2, MYR: 2,
  MZN: 2, NAD: 2, NGN: 2, NIO: 2, NOK: 2, NPR: 2, NZD: 2, OMR: 3, PAB: 2, PEN: 2, PGK: 2, PHP: 2,
  PKR: 0, PLN: 2, PYG: 0, QAR: 2, RON: 2, RSD: 2, RUB: 2, RWF: 0, SAR: 2, SBD: 2, SCR: 2, SDG: 2,
  SEK: 2, SGD: 2, SHP: 2, SLE: 2, SLL: 0, SOS: 0, SRD: 2, SSP: 2, STN: 2, SVC: 2, SYP: 0, SZL: 2,
  THB: 2, TJS: 2, TMT: 2, TND: 3, TOP: 2, TRY: 2, TTD: 2, TWD: 2, TZS: 2, UAH: 2, UGX: 0, USD: 2,
  UYU: 2, UZS: 2, VED: 2, VES: 2, VND: 0, VUV: 0, WST: 2, XAF: 0, XCD: 2, XCG: 2, XDR: 2, XOF: 0, XPF: 0,
  XSU: 2, YER: 0, ZAR: 2, ZMW: 2, ZWG: 2, ZWL: 2,
};

/**
 * Whether a three-letter code is an ISO 4217 currency Parasol knows (`MINOR_UNIT_DIGITS`): an amount in
 * minor units of any other code has no meaning, its minor unit being unknown.
 */
export function isIsoCurrency(code: string): boolean {
  return Object.hasOwn(MINOR_UNIT_DIGITS, code);
}

/** Every currency Parasol knows (`MINOR_UNIT_DIGITS`), in alphabetical order. */
export function knownCurrencies(): readonly string[] {
  return Object.keys(MINOR_UNIT_DIGITS);
}

/**
 * The ISO 4217 currency codes in force (List One, as of 2026), written out: what Parasol accepts must
 * not change with the ICU Node is built with (package.json allows Node >= 20.11, whose ICU lacks codes
 * added since — XCG 2025, ZWG 2024 — and ICU lists none of VED, the fund codes, the metals, XTS, XXX,
 * while it still lists withdrawn ones: HRK, BGN, SLL). The codes below that no amount can be in are
 * then refused by name (`UNTRANSFERABLE_CURRENCIES`). VED (the digital bolívar, Venezuela's 2021
 * redenomination, List One beside VES) is accepted: it is current and has two decimals, like VES.
 */
const ISO_4217_CODES: ReadonlySet<string> = new Set([
  'AED',
  'AFN',
  'ALL',
  'AMD',
  'AOA',
  'ARS',
  'AUD',
  'AWG',
  'AZN',
  'BAM',
  'BBD',
  'BDT',
  'BHD',
  'BIF',
  'BMD',
  'BND',
  'BOB',
  'BOV',
  'BRL',
  'BSD',
  'BTN',
  'BWP',
  'BYN',
  'BZD',
  'CAD',
  'CDF',
  'CHE',
  'CHF',
  'CHW',
  'CLF',
  'CLP',
  'CNY',
  'COP',
  'COU',
  'CRC',
  'CUP',
  'CVE',
  'CZK',
  'DJF',
  'DKK',
  'DOP',
  'DZD',
  'EGP',
  'ERN',
  'ETB',
  'EUR',
  'FJD',
  'FKP',
  'GBP',
  'GEL',
  'GHS',
  'GIP',
  'GMD',
  'GNF',
  'GTQ',
  'GYD',
  'HKD',
  'HNL',
  'HTG',
  'HUF',
  'IDR',
  'ILS',
  'INR',
  'IQD',
  'IRR',
  'ISK',
  'JMD',
  'JOD',
  'JPY',
  'KES',
  'KGS',
  'KHR',
  'KMF',
  'KPW',
  'KRW',
  'KWD',
  'KYD',
  'KZT',
  'LAK',
  'LBP',
  'LKR',
  'LRD',
  'LSL',
  'LYD',
  'MAD',
  'MDL',
  'MGA',
  'MKD',
  'MMK',
  'MNT',
  'MOP',
  'MRU',
  'MUR',
  'MVR',
  'MWK',
  'MXN',
  'MXV',
  'MYR',
  'MZN',
  'NAD',
  'NGN',
  'NIO',
  'NOK',
  'NPR',
  'NZD',
  'OMR',
  'PAB',
  'PEN',
  'PGK',
  'PHP',
  'PKR',
  'PLN',
  'PYG',
  'QAR',
  'RON',
  'RSD',
  'RUB',
  'RWF',
  'SAR',
  'SBD',
  'SCR',
  'SDG',
  'SEK',
  'SGD',
  'SHP',
  'SLE',
  'SOS',
  'SRD',
  'SSP',
  'STN',
  'SVC',
  'SYP',
  'SZL',
  'THB',
  'TJS',
  'TMT',
  'TND',
  'TOP',
  'TRY',
  'TTD',
  'TWD',
  'TZS',
  'UAH',
  'UGX',
  'USD',
  'USN',
  'UYI',
  'UYU',
  'UYW',
  'UZS',
  'VED',
  'VES',
  'VND',
  'VUV',
  'WST',
  'XAF',
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XCD',
  'XCG',
  'XDR',
  'XOF',
  'XPD',
  'XPF',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'XXX',
  'YER',
  'ZAR',
  'ZMW',
  'ZWG',
]);

/**
 * Codes no amount of insurance can be in — no new premium, compensation, agreement or insurer account:
 * no bank transfer carries them, and a payout already in one is refused by the production batch
 * (docs/payouts.md, "Currencies"). Units of account, fund codes, precious metals, the testing and
 * "no currency" codes, and withdrawn currencies (not in `ISO_4217_CODES`: refused, not unknown, so the
 * answer says why). A cap may still be set on one that existing agreements are in (limits/exposure.ts).
 */
const UNTRANSFERABLE_CURRENCIES: Readonly<Record<string, string>> = {
  XDR: 'the special drawing right is a unit of account of the IMF, not money a bank transfers',
  XSU: 'the sucre is a unit of account between central banks, not money a bank transfers',
  XUA: 'the ADB unit of account is not money a bank transfers',
  ...Object.fromEntries(
    ['XBA', 'XBB', 'XBC', 'XBD'].map((c) => [c, 'a European bond-market unit is not money a bank transfers']),
  ),
  ...Object.fromEntries(['XAU', 'XAG', 'XPD', 'XPT'].map((c) => [c, 'a precious metal is not money a bank transfers'])),
  ...Object.fromEntries(
    ['BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW'].map((c) => [
      c,
      'a fund code (an indexed or same-day unit beside the currency) is not money a bank transfers',
    ]),
  ),
  XTS: 'the code is reserved for testing',
  XXX: 'the code means "no currency"',
  HRK: 'the kuna was withdrawn: Croatia pays in EUR since 1 January 2023 (1 EUR = 7.53450 HRK)',
  BGN: 'the lev was withdrawn: Bulgaria pays in EUR since 1 January 2026 (1 EUR = 1.95583 BGN), the lev is no legal tender since 1 February 2026',
  SLL: 'the old leone was replaced by the new leone (SLE, 1 SLE = 1000 SLL) between 2022 and 2024',
  CUC: 'the Cuban convertible peso was withdrawn in 2021',
  ZWL: 'the Zimbabwe dollar was replaced by the ZWG in 2024',
  ANG: 'the Netherlands Antillean guilder was replaced by the Caribbean guilder (XCG) in 2025',
};

/** Why no amount can be in this code (no bank transfer pays in it); undefined when one can. */
export function untransferableCurrency(code: string): string | undefined {
  return Object.hasOwn(UNTRANSFERABLE_CURRENCIES, code) ? UNTRANSFERABLE_CURRENCIES[code] : undefined;
}

/** The stable wording of a refused currency: the start of every message of `currencyError`. */
export const CURRENCY_RULE = 'must be an ISO 4217 currency code such as EUR';

/**
 * The one check of a currency code typed or configured for amounts — an agreement's currency, a cap's,
 * an insurer account's (PARASOL_SEPA_DEBTOR_ACCOUNTS), a policy's premium and trip cost, a payment
 * file's: three capitals of the ISO 4217 codes in force (`ISO_4217_CODES`, not Intl's list:
 * `invalid_format` for "EURO", "ERU", "eur" — callers upper-case what people type), and none that no
 * amount can be in (`not_allowed`, with why: XDR, XAU, a fund code, XTS, XXX, a withdrawn currency
 * like HRK or BGN). An amount in minor units of any other code has no meaning, its minor unit being
 * unknown, or could never be paid. `inUse`: the codes existing business is in (a cap limits the
 * exposure of agreements already in BGN): a refused code among them passes — no new business in it,
 * but what exists can still be limited.
 */
export function currencyError(
  code: string,
  field: string,
  options: { inUse?: ReadonlySet<string> | undefined } = {},
): FieldError | undefined {
  const why = untransferableCurrency(code);
  if (why)
    return options.inUse?.has(code)
      ? undefined
      : { field, code: 'not_allowed', message: `${CURRENCY_RULE} (${code}: ${why})` };
  if (!ISO_4217_CODES.has(code)) return { field, code: 'invalid_format', message: CURRENCY_RULE };
  return undefined;
}

/**
 * The most one bank transfer in this currency carries, in minor units, and the rule that says so: USD
 * 9 999 999 999 (a NACHA entry's 10-digit amount field, $99,999,999.99: a USD claim may be paid by ACH),
 * EUR 99 999 999 999 (the EPC SEPA rulebook's 999 999 999.99 for a pain.001 InstdAmt), any other
 * currency Number.MAX_SAFE_INTEGER (what a cross-border pain.001 takes: a safe integer of minor units).
 * The file builders (nacha-file.ts, sepa-file.ts) refuse a payout above it; the amounts that make
 * payouts (agreement bounds, the desk's correction) are refused above it first, so no payout is left
 * out of every file.
 */
export function largestTransfer(currency: string): { amount: number; rule: string } {
  return (
    LARGEST_TRANSFERS[currency] ?? {
      amount: Number.MAX_SAFE_INTEGER,
      rule: `a cross-border transfer carries at most ${Number.MAX_SAFE_INTEGER} ${currency} minor units`,
    }
  );
}

const LARGEST_TRANSFERS: Readonly<Record<string, { amount: number; rule: string }>> = {
  USD: { amount: 9_999_999_999, rule: 'an ACH entry (NACHA) carries at most 99999999.99 USD' },
  EUR: { amount: 99_999_999_999, rule: 'a SEPA transfer carries at most 999999999.99 EUR' },
};

/**
 * Number of minor-unit digits of a currency Parasol knows (EUR 2, JPY 0, KWD 3): `MINOR_UNIT_DIGITS`,
 * the one place that says it. A RangeError for any other code (callers refuse it first: `isIsoCurrency`).
 *
 * The digits are CLDR 48's, which differ from ISO 4217's for 17 currencies: IQD 0 (ISO 3) and AFN, ALL,
 * COP, HUF, IDR, IRR, KPW, LAK, LBP, MGA, MMK, PKR, SLL, SOS, SYP, YER 0 (ISO 2). Kept on purpose: this
 * exponent is what every stored amount means (agreements, contracts, claims, payouts, the ledger: integer
 * minor units), what the API's `{ amount, currency }` means to partners and what the payment files write
 * (`toDecimalString`), and an agreement may be in any of these currencies — aligning on ISO would make
 * 5000 stored IQD read 5.000 dinars. A bank report's ISO decimals ("500000.00" HUF) are matched exactly
 * all the same (`sameDecimal`). docs/DECISIONS.md, "Minor units are a frozen table".
 */
export function currencyExponent(currency: string): number {
  if (!isIsoCurrency(currency)) throw new RangeError(`${currency} is not a currency Parasol knows (ISO 4217)`);
  return MINOR_UNIT_DIGITS[currency]!;
}

/** "10.5" EUR → 1050. Refuses signs, exponents and more decimals than the currency has. */
export function toMinorUnits(text: string, currency: string): number {
  const exponent = currencyExponent(currency);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match)
    throw new RangeError(`must be an amount in ${currency} such as ${exponent ? `50.${'0'.repeat(exponent)}` : '50'}`);
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? '';
  if (fraction.length > exponent) {
    throw new RangeError(
      exponent === 0
        ? `${currency} has no minor unit: give a whole amount`
        : `${currency} amounts have at most ${exponent} decimal${exponent === 1 ? '' : 's'}`,
    );
  }
  const minor = BigInt(whole) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, '0') || '0');
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new AmountTooLarge('is too large');
  return Number(minor);
}

/** An amount in major units more than the minor units' safe range holds. */
class AmountTooLarge extends RangeError {}

/**
 * The longest amount in major units a person may type, in characters (the console's and the operator's forms):
 * room for a safe integer of minor units, its separator and leading zeros. Longer is refused with this
 * bound, never cut: cut to a shorter length, "0000000000000000001500" was read as "00000000000000000015",
 * €15.00 saved for €1,500.
 */
export const MAJOR_AMOUNT_MAX_LENGTH = 30;

/**
 * Why `parseMajorAmount` refused a text before reading it: `too_long` (past MAJOR_AMOUNT_MAX_LENGTH) or
 * `ambiguous` (a comma and exactly three digits in a currency of three decimals). Pages map the reason
 * to their own message.
 */
export class MajorAmountRefused extends RangeError {
  constructor(
    readonly reason: 'too_long' | 'ambiguous',
    message: string,
  ) {
    super(message);
  }
}

/**
 * An amount typed by a person in major units of `currency` → minor units: `toMinorUnits`, and one decimal
 * comma read as the point ("10,50" as a French operator types it is 10.50). Refuses signs, separators
 * of thousands ("1,000.50", "1,000,00") and more decimals than the currency has; a text longer than
 * MAJOR_AMOUNT_MAX_LENGTH; and, in a currency of three decimals (KWD, BHD, OMR, JOD, TND, LYD, IQD), a
 * comma followed by exactly three digits ("1,500"), which is 1.5 read as a decimal comma and 1,500 read as
 * a thousands separator: ambiguous. What every console form and CLI option reads an amount with.
 */
export function parseMajorAmount(text: string, currency: string): number {
  const trimmed = text.trim();
  if (trimmed.length > MAJOR_AMOUNT_MAX_LENGTH)
    throw new MajorAmountRefused('too_long', `must be at most ${MAJOR_AMOUNT_MAX_LENGTH} characters`);
  if (currencyExponent(currency) === 3 && /^\d+,\d{3}$/.test(trimmed))
    throw new MajorAmountRefused(
      'ambiguous',
      `is ambiguous in ${currency} (three decimals): write the decimal point, such as ${trimmed.replace(',', '.')}`,
    );
  return toMinorUnits(/^\d+,\d+$/.test(trimmed) ? trimmed.replace(',', '.') : trimmed, currency);
}

/**
 * Why `parseMajorAmount` refuses `text` before reading it (`too_long`, `ambiguous`), or undefined when it
 * reads it or refuses it as no amount of the currency: pages say the reason in their own language.
 */
export function majorAmountRefusal(text: string, currency: string): MajorAmountRefused['reason'] | undefined {
  try {
    parseMajorAmount(text, currency);
  } catch (error) {
    if (error instanceof MajorAmountRefused) return error.reason;
  }
  return undefined;
}

/**
 * `parseMajorAmount`, its refusal pushed to `errors` (0 returned): `too_long` past
 * MAJOR_AMOUNT_MAX_LENGTH, `invalid_format` for what is not an amount of the currency (its decimals, a
 * three-decimal "1,500"), `out_of_range` for one too large — every error collected.
 */
export function amountOrError(text: string, currency: string, field: string, errors: FieldError[]): number {
  try {
    return parseMajorAmount(text, currency);
  } catch (error) {
    const code =
      error instanceof AmountTooLarge
        ? 'out_of_range'
        : error instanceof MajorAmountRefused && error.reason === 'too_long'
          ? 'too_long'
          : 'invalid_format';
    errors.push({ field, code, message: (error as Error).message });
    return 0;
  }
}

/**
 * Whether two unsigned decimal texts ("500000.00", "500000"; "150.000", "150") are the same number,
 * exactly: on BigInt, trailing zeros of the fraction and leading zeros of the whole part dropped. XML
 * decimals (a bank report's amounts) may carry any number of trailing zeros, whatever the currency's
 * minor unit. False when either is not such a decimal (a sign, an exponent, a comma…).
 */
export function sameDecimal(a: string, b: string): boolean {
  const parse = (text: string) => {
    const match = /^(\d+)(?:\.(\d*))?$/.exec(text.trim());
    if (!match) return undefined;
    const fraction = (match[2] ?? '').replace(/0+$/, '');
    return { units: BigInt(match[1]! + fraction), scale: fraction.length };
  };
  const x = parse(a);
  const y = parse(b);
  return x !== undefined && y !== undefined && x.scale === y.scale && x.units === y.units;
}

/**
 * Integer minor units → exact decimal text, on BigInt and strings only: 5000 EUR → "50.00",
 * 29 → "0.29", 100000001 → "1000000.01". The inverse of `toMinorUnits`.
 */
export function toDecimalString(minor: number | bigint, currency: string): string {
  if (typeof minor === 'number' && !Number.isSafeInteger(minor))
    throw new RangeError(`amount must be a safe integer of minor units, got ${minor}`);
  const value = BigInt(minor);
  const exponent = currencyExponent(currency);
  const digits = (value < 0n ? -value : value).toString().padStart(exponent + 1, '0');
  const text = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return value < 0n ? `-${text}` : text;
}

/** An amount in integer minor units of its currency (1250 EUR = €12.50), as the APIs show it. */
export interface Money {
  amount: number;
  currency: string;
}

export const money = (amount: number, currency: string): Money => ({ amount, currency });

/**
 * The one money formatter. Without a language, for operators and documents: 5000 EUR → "50.00 EUR".
 * In a language, for people: "€50.00" (en) / "50,00 €" (fr), in the currency's digits of
 * `currencyExponent` (EUR 2, JPY 0, HUF 0), given to Intl explicitly so that what is shown is what is
 * stored whatever the running ICU's CLDR says; Intl.NumberFormat formats the exact decimal string
 * (ECMA-402 NumberFormat v3, Node ≥ 20): no float is ever made of the amount. `display: 'code'`
 * names the currency by its ISO code instead of its symbol ("INR 50.00" / "50,00 INR"): an SMS whose
 * symbol is not GSM-7 (₹, ₺, zł…) uses it.
 */
export function formatMoney(
  minor: number,
  currency: string,
  lang?: CustomerLang,
  display: 'symbol' | 'code' = 'symbol',
): string {
  const decimal = toDecimalString(minor, currency);
  if (lang === undefined) return `${decimal} ${currency}`;
  const digits = currencyExponent(currency);
  return new Intl.NumberFormat(LOCALES[lang], {
    style: 'currency',
    currency,
    currencyDisplay: display,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(decimal as unknown as number);
}
