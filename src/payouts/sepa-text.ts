/**
 * Text for SEPA files. The EPC rulebook guarantees only the Latin character set
 *   a-z A-Z 0-9 / - ? : ( ) . , ' + space
 * across all banks (the XSD itself does not restrict characters). Names and remittance information
 * are transliterated into it ("Hélène Müller-Łukasz & fils" → "Helene Muller-Lukasz + fils");
 * identifiers are refused instead, since changing an id silently would break reconciliation.
 */

import { LATIN_PUNCTUATION, LATIN_TRANSLITERATION } from '../platform/latin-text.ts';

const SEPA_CHAR = /[A-Za-z0-9/\-?:().,'+ ]/;
const SEPA_ID = /^[A-Za-z0-9/\-?:().,'+]+$/;

/**
 * The letters (LATIN_TRANSLITERATION, shared with the name masking), the punctuation both payment
 * files spell otherwise (LATIN_PUNCTUATION, shared with NACHA) and SEPA's own (& → +, _ → -).
 */
const SPECIAL: Record<string, string> = {
  ...LATIN_TRANSLITERATION,
  ...LATIN_PUNCTUATION,
  '&': '+',
  _: '-',
};

export function toSepaText(text: string): string {
  let out = '';
  for (const c of text.normalize('NFD').replace(/\p{M}/gu, '')) {
    const mapped = SPECIAL[c] ?? c;
    out += [...mapped].every((m) => SEPA_CHAR.test(m)) ? mapped : ' ';
  }
  return out.replace(/\s+/g, ' ').trim();
}

/**
 * An identifier (MsgId, PmtInfId, EndToEndId): 1 to 35 characters of the SEPA set without spaces,
 * not starting or ending with "/", no "//" (EPC rule for references).
 */
export function isSepaIdentifier(id: string): boolean {
  return (
    id.length >= 1 &&
    id.length <= 35 &&
    SEPA_ID.test(id) &&
    !id.startsWith('/') &&
    !id.endsWith('/') &&
    !id.includes('//')
  );
}
