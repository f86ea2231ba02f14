import {
  countrySpecs,
  electronicFormatIBAN,
  isQRIBAN,
  isSEPACountry,
  setCountryBBANValidation,
  validateBIC,
  validateIBAN,
  ValidationErrorsIBAN,
} from 'ibantools';
import { bicMatchesCountry } from '../platform/bic.ts';

/**
 * The customer's account, checked the way the SEPA credit transfer file needs it: an IBAN of a SEPA
 * country (ibantools: format, length, checksums), and a BIC when the IBAN's country is outside the
 * EEA (EPC rulebook: BIC optional within the EEA, required to or from AD, CH, GB, GI, MC, SM, VA),
 * or when the payout is in another currency than EUR (a cross-border transfer names the creditor's
 * bank by its BIC, whatever the IBAN's country). Issues carry a code so the bank-details page can word them in the customer's language,
 * and say what is expected: an IBAN is 2 letters, 2 digits, then letters and digits (`iban_invalid`,
 * also for characters out of their country's places), of a country that has IBANs
 * (`iban_unknown_country`, with the country: "accounts in the United States have no IBAN"), of the SEPA
 * area (`iban_not_sepa`, checked as soon as the country is known), of its country's length (`iban_length`, with `facts`: the country, the
 * length expected and the length entered), whose own check digits match (`iban_mistyped`: a typo);
 * not a QR-IBAN (`iban_qr`: a Swiss or Liechtenstein IBAN that only receives QR-bill payments);
 * a BIC is 8 or 11 characters (`bic_length`, with the length entered) in the BIC format (`bic_invalid`).
 *
 * National check digits: beyond the IBAN's own mod-97 check, a typo in the account number can be
 * caught by the country's check digits, which an IBAN rebuilt from a wrong account number carries
 * wrongly. ibantools 4.5.4 checks them for FR and MC (RIB key, mod 97 with letters converted), BE
 * (mod 97), ES (the two "dígitos de control", weights 1 2 4 8 5 10 9 7 3 6), PT (NIB, mod 97) and
 * others (CZ, EE, HR, HU, NO, PL, SI, SK, …); it has none for IT and SM, whose CIN letter is added
 * below through ibantools' own hook, so every ibantools call in the process (the debtor IBAN in the
 * configuration too) checks it. An IBAN failing them is `iban_check_digits`, worded apart on the
 * bank-details page ("check the account number").
 */

/** Italian CIN (also San Marino): a letter from the 22 characters ABI + CAB + account, odd positions mapped through this table. */
const CIN_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];

/** The CIN letter a BBAN's ABI, CAB and account (its characters 2 to 23) call for; undefined when they are malformed. */
export function italianCin(abiCabAccount: string): string | undefined {
  if (!/^[0-9]{10}[0-9A-Z]{12}$/.test(abiCabAccount)) return undefined;
  let sum = 0;
  for (let i = 0; i < abiCabAccount.length; i++) {
    const c = abiCabAccount.charCodeAt(i);
    const value = c <= 57 ? c - 48 : c - 65; // digits 0-9 and letters A-Z count 0-9 and 0-25 alike
    sum += i % 2 === 0 ? CIN_ODD[value]! : value; // positions 1, 3, 5… (1-based) are the "odd" ones
  }
  return String.fromCharCode(65 + (sum % 26));
}

function checkItalianBban(bban: string): boolean {
  return italianCin(bban.slice(1)) === bban[0];
}
setCountryBBANValidation('IT', checkItalianBban);
setCountryBBANValidation('SM', checkItalianBban);

/** EU + Iceland, Liechtenstein, Norway. */
const EEA = new Set([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
  'IS',
  'LI',
  'NO',
]);

export type BankAccountIssueCode =
  | 'iban_required'
  | 'iban_unknown_country'
  | 'iban_length'
  | 'iban_invalid'
  | 'iban_mistyped'
  | 'iban_check_digits'
  | 'iban_not_sepa'
  | 'iban_qr'
  | 'bic_length'
  | 'bic_invalid'
  | 'bic_required'
  | 'bic_required_for_currency'
  | 'bic_country_mismatch';

export interface BankAccountIssue {
  readonly field: 'iban' | 'bic';
  readonly code: BankAccountIssueCode;
  readonly message: string;
  /** What the page words the issue with: the IBAN's country (`iban_length`), the length expected and the length entered (`iban_length`, `bic_length`). */
  readonly facts?: BankAccountIssueFacts;
}

export interface BankAccountIssueFacts {
  readonly country?: string;
  readonly expected?: number;
  readonly entered: number;
}

/** The length of an IBAN of this country (27 for FR), undefined for a country without IBANs. */
export function ibanLengthOf(country: string): number | undefined {
  return countrySpecs[country]?.chars;
}

export interface SepaAccount {
  /** Electronic format: upper case, no spaces. */
  readonly iban: string;
  /** Upper case, 8 or 11 characters; null when not given (allowed within the EEA). */
  readonly bic: string | null;
  /** ISO 3166 country of the IBAN. */
  readonly country: string;
}

export type SepaAccountCheck = { ok: true; account: SepaAccount } | { ok: false; issues: BankAccountIssue[] };

/**
 * `currency`: the currency the account is paid in, when known (the claim's). A payout in another
 * currency than EUR is a cross-border transfer (sepa-file.ts), which names the creditor's bank by its
 * BIC whatever the IBAN's country: `bic_required_for_currency` without one.
 */
export function checkSepaAccount(input: {
  iban: string;
  bic?: string | null | undefined;
  currency?: string | undefined;
}): SepaAccountCheck {
  const issues: BankAccountIssue[] = [];
  const iban = electronicFormatIBAN(input.iban ?? '') ?? '';
  const bicText = (input.bic ?? '').replace(/\s+/g, '').toUpperCase();
  const bic = bicText === '' ? null : bicText;
  const country = iban.slice(0, 2);

  const ibanErrors = iban === '' ? [] : validateIBAN(iban, { allowQRIBAN: false }).errorCodes;
  const has = (code: ValidationErrorsIBAN) => ibanErrors.includes(code);
  const expected = ibanLengthOf(country);
  if (iban === '') {
    issues.push({ field: 'iban', code: 'iban_required', message: 'IBAN is required' });
  } else if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]*$/.test(iban)) {
    issues.push({
      field: 'iban',
      code: 'iban_invalid',
      message: 'is not an IBAN (2 letters for the country, 2 check digits, then letters and digits)',
    });
  } else if (has(ValidationErrorsIBAN.NoIBANCountry) || expected === undefined) {
    issues.push({
      field: 'iban',
      code: 'iban_unknown_country',
      message: `does not start with the code of a country that has IBANs (${country})`,
      facts: { country, entered: iban.length },
    });
  } else if (!isSEPACountry(country)) {
    issues.push({
      field: 'iban',
      code: 'iban_not_sepa',
      message: `IBANs of ${country} cannot receive SEPA credit transfers`,
      facts: { country, entered: iban.length },
    });
  } else if (has(ValidationErrorsIBAN.WrongBBANLength) || iban.length !== expected) {
    issues.push({
      field: 'iban',
      code: 'iban_length',
      message: `has ${iban.length} characters, an IBAN of ${country} has ${expected}`,
      facts: { country, expected, entered: iban.length },
    });
  } else if (has(ValidationErrorsIBAN.WrongBBANFormat)) {
    issues.push({
      field: 'iban',
      code: 'iban_invalid',
      message: `does not follow the format of IBANs of ${country} (letters and digits in their places)`,
    });
  } else if (has(ValidationErrorsIBAN.ChecksumNotNumber) || has(ValidationErrorsIBAN.WrongIBANChecksum)) {
    // the right length and format, but the IBAN's own check digits (mod 97) do not match: a typo
    issues.push({ field: 'iban', code: 'iban_mistyped', message: 'looks mistyped: its check digits do not match' });
  } else if (ibanErrors.length === 1 && ibanErrors[0] === ValidationErrorsIBAN.WrongAccountBankBranchChecksum) {
    // the IBAN's own check digits are right, the country's are not: a typo in the account number
    issues.push({
      field: 'iban',
      code: 'iban_check_digits',
      message: `the national check digits of this ${country} account number do not match`,
    });
  } else if (has(ValidationErrorsIBAN.QRIBANNotAllowed) || isQRIBAN(iban)) {
    // a valid Swiss or Liechtenstein IBAN whose bank id (30000-31999) marks a QR-IBAN: it only receives QR-bill payments
    issues.push({
      field: 'iban',
      code: 'iban_qr',
      message: 'is a QR-IBAN, which only receives QR-bill payments: the account’s ordinary IBAN is needed',
    });
  } else if (ibanErrors.length > 0) {
    issues.push({ field: 'iban', code: 'iban_invalid', message: 'is not a valid IBAN' });
  }

  if (bic !== null) {
    if (!(bic.length === 8 || bic.length === 11)) {
      issues.push({
        field: 'bic',
        code: 'bic_length',
        message: `has ${bic.length} characters, a BIC has 8 or 11`,
        facts: { entered: bic.length },
      });
    } else if (!validateBIC(bic).valid) {
      issues.push({
        field: 'bic',
        code: 'bic_invalid',
        message: 'is not a valid BIC (4 letters for the bank, 2 for its country, then 2 or 5 letters or digits)',
      });
    } else if (issues.length === 0 && !bicMatchesCountry(bic, country)) {
      issues.push({
        field: 'bic',
        code: 'bic_country_mismatch',
        message: `BIC country ${bic.slice(4, 6)} does not match the IBAN country ${country}`,
      });
    }
  } else if (issues.length === 0 && ibanNeedsBic(iban)) {
    issues.push({ field: 'bic', code: 'bic_required', message: `a BIC is required for IBANs of ${country}` });
  } else if (issues.length === 0 && bicNeededForCurrency(input.currency)) {
    issues.push({
      field: 'bic',
      code: 'bic_required_for_currency',
      message: `a BIC is required for a payout in ${input.currency} (a cross-border transfer)`,
    });
  }

  return issues.length > 0 ? { ok: false, issues } : { ok: true, account: { iban, bic, country } };
}

/** True when a payout in this currency must name the beneficiary's BIC: any currency but EUR (a cross-border transfer). */
export function bicNeededForCurrency(currency: string | undefined): boolean {
  return currency !== undefined && currency !== 'EUR';
}

/** True when a transfer to this (valid, SEPA) IBAN must name the beneficiary's BIC. */
export function ibanNeedsBic(iban: string): boolean {
  const country = (electronicFormatIBAN(iban) ?? '').slice(0, 2);
  return isSEPACountry(country) && !EEA.has(country);
}
