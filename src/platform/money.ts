/**
 * Money in integer minor units, the only form money takes in Parasol. Conversions to and from
 * decimal text are done on strings and BigInt — never with floating point.
 */

import type { FieldError } from './errors.ts';
import { LOCALES, type CustomerLang } from './language.ts';

const exponents = new Map<string, number>();

let isoCurrencies: ReadonlySet<string> | undefined;

/**
 * Whether a three-letter code is in Intl's list of ISO 4217 currencies: what formatting and
 * `currencyExponent` know. Not a validation of a typed code — that is `currencyError`.
 */
export function isIsoCurrency(code: string): boolean {
  isoCurrencies ??= new Set(Intl.supportedValuesOf('currency'));
  return isoCurrencies.has(code);
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
 * Number of minor-unit digits of an ISO 4217 currency (EUR 2, JPY 0, KWD 3). Remembered per currency:
 * building an Intl.NumberFormat costs tens of microseconds, and the quote path asks on every request.
 */
export function currencyExponent(currency: string): number {
  let exponent = exponents.get(currency);
  if (exponent === undefined) {
    exponent =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    exponents.set(currency, exponent);
  }
  return exponent;
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
 * An amount typed by a person in major units of `currency` → minor units: `toMinorUnits`, and one decimal
 * comma read as the point ("10,50" as a French operator types it is 10.50). Refuses signs, separators
 * of thousands ("1,000.50", "1,000,00") and more decimals than the currency has. What every console
 * form and CLI option reads an amount with.
 */
export function parseMajorAmount(text: string, currency: string): number {
  const trimmed = text.trim();
  return toMinorUnits(/^\d+,\d+$/.test(trimmed) ? trimmed.replace(',', '.') : trimmed, currency);
}

/**
 * `parseMajorAmount`, its refusal pushed to `errors` (0 returned): `invalid_format` for what is not an
 * amount of the currency (its decimals), `out_of_range` for one too large — every error collected.
 */
export function amountOrError(text: string, currency: string, field: string, errors: FieldError[]): number {
  try {
    return parseMajorAmount(text, currency);
  } catch (error) {
    const code = error instanceof AmountTooLarge ? 'out_of_range' : 'invalid_format';
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
 * In a language, for people: "€50.00" (en) / "50,00 €" (fr), in the currency's own decimals (EUR 2,
 * JPY 0); Intl.NumberFormat formats the exact decimal string (ECMA-402 NumberFormat v3, Node ≥ 20):
 * no float is ever made of the amount.
 */
export function formatMoney(minor: number, currency: string, lang?: CustomerLang): string {
  const decimal = toDecimalString(minor, currency);
  if (lang === undefined) return `${decimal} ${currency}`;
  return new Intl.NumberFormat(LOCALES[lang], { style: 'currency', currency }).format(decimal as unknown as number);
}
