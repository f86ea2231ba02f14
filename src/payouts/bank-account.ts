import { electronicFormatIBAN, extractBIC, isSEPACountry, validateBIC, validateIBAN } from 'ibantools';

/**
 * The customer's account, checked the way the SEPA credit transfer file needs it: an IBAN of a SEPA
 * country (ibantools: format, length, checksums), and a BIC when the IBAN's country is outside the
 * EEA (EPC rulebook: BIC optional within the EEA, required to or from AD, CH, GB, GI, MC, SM, VA).
 * Issues carry a code so the bank-details page can word them in French or English.
 */

/** EU + Iceland, Liechtenstein, Norway. */
const EEA = new Set([
  'AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL',
  'PL', 'PT', 'RO', 'SE', 'SI', 'SK', 'IS', 'LI', 'NO',
]);

/** Territories whose banks have their own BIC country code but use the IBAN of another country. */
const BIC_TERRITORIES: Record<string, readonly string[]> = {
  FR: ['GF', 'GP', 'MQ', 'RE', 'PF', 'TF', 'YT', 'NC', 'BL', 'MF', 'PM', 'WF'],
  GB: ['IM', 'JE', 'GG'],
  FI: ['AX'],
};

export type BankAccountIssueCode = 'iban_required' | 'iban_invalid' | 'iban_not_sepa' | 'bic_invalid' | 'bic_required' | 'bic_country_mismatch';

export interface BankAccountIssue {
  readonly field: 'iban' | 'bic';
  readonly code: BankAccountIssueCode;
  readonly message: string;
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

export function checkSepaAccount(input: { iban: string; bic?: string | null | undefined }): SepaAccountCheck {
  const issues: BankAccountIssue[] = [];
  const iban = electronicFormatIBAN(input.iban ?? '') ?? '';
  const bicText = (input.bic ?? '').replace(/\s+/g, '').toUpperCase();
  const bic = bicText === '' ? null : bicText;
  const country = iban.slice(0, 2);

  if (iban === '') {
    issues.push({ field: 'iban', code: 'iban_required', message: 'IBAN is required' });
  } else if (!validateIBAN(iban, { allowQRIBAN: false }).valid) {
    issues.push({ field: 'iban', code: 'iban_invalid', message: 'is not a valid IBAN' });
  } else if (!isSEPACountry(country)) {
    issues.push({ field: 'iban', code: 'iban_not_sepa', message: `IBANs of ${country} cannot receive SEPA credit transfers` });
  }

  if (bic !== null) {
    if (!validateBIC(bic).valid || !(bic.length === 8 || bic.length === 11)) {
      issues.push({ field: 'bic', code: 'bic_invalid', message: 'is not a valid BIC' });
    } else if (issues.length === 0 && !bicMatchesCountry(bic, country)) {
      issues.push({ field: 'bic', code: 'bic_country_mismatch', message: `BIC country ${bic.slice(4, 6)} does not match the IBAN country ${country}` });
    }
  } else if (issues.length === 0 && ibanNeedsBic(iban)) {
    issues.push({ field: 'bic', code: 'bic_required', message: `a BIC is required for IBANs of ${country}` });
  }

  return issues.length > 0 ? { ok: false, issues } : { ok: true, account: { iban, bic, country } };
}

/** True when a transfer to this (valid, SEPA) IBAN must name the beneficiary's BIC. */
export function ibanNeedsBic(iban: string): boolean {
  const country = (electronicFormatIBAN(iban) ?? '').slice(0, 2);
  return isSEPACountry(country) && !EEA.has(country);
}

function bicMatchesCountry(bic: string, ibanCountry: string): boolean {
  const bicCountry = extractBIC(bic).countryCode ?? bic.slice(4, 6);
  return bicCountry === ibanCountry || (BIC_TERRITORIES[ibanCountry]?.includes(bicCountry) ?? false);
}

/** "FR76 3000 6000 0112 3456 7890 189" → "•••• 0189": the only form an IBAN is shown in after entry. */
export function maskIban(iban: string): string {
  const electronic = electronicFormatIBAN(iban) ?? '';
  return `•••• ${electronic.slice(-4)}`;
}
