/**
 * Text for SEPA files. The EPC rulebook guarantees only the Latin character set
 *   a-z A-Z 0-9 / - ? : ( ) . , ' + space
 * across all banks (the XSD itself does not restrict characters). Names and remittance information
 * are transliterated into it ("Hélène Müller-Łukasz & fils" → "Helene Muller-Lukasz + fils");
 * identifiers are refused instead, since changing an id silently would break reconciliation.
 */

// the Latin set's text (the letters, the punctuation, SEPA's own) is the shared kernel's: the
// configuration checks the insurer's address with the same rule the file writes it by
export { toSepaText } from '../platform/latin-text.ts';

const SEPA_ID = /^[A-Za-z0-9/\-?:().,'+]+$/;

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
