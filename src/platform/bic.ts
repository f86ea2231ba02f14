import { extractBIC } from 'ibantools';

/**
 * Whether a (valid) BIC's bank is in the IBAN's country: the BIC's country code (its 5th and 6th
 * characters) is the IBAN's, or one of the territories whose banks have their own BIC country code
 * but use the IBAN of another country. Shared by the customer's account check
 * (payouts/bank-account.ts) and the insurer's accounts at boot (config.ts).
 */
export function bicMatchesCountry(bic: string, ibanCountry: string): boolean {
  const bicCountry = extractBIC(bic).countryCode ?? bic.slice(4, 6);
  return bicCountry === ibanCountry || (BIC_TERRITORIES[ibanCountry]?.includes(bicCountry) ?? false);
}

/** Territories whose banks have their own BIC country code but use the IBAN of another country. */
const BIC_TERRITORIES: Record<string, readonly string[]> = {
  FR: ['GF', 'GP', 'MQ', 'RE', 'PF', 'TF', 'YT', 'NC', 'BL', 'MF', 'PM', 'WF'],
  GB: ['IM', 'JE', 'GG'],
  FI: ['AX'],
};
