import crypto from 'node:crypto';

/**
 * Human-friendly random references: `<PREFIX>-XXXX-XXXX` in Crockford base32 (no I, L, O, U:
 * nothing to misread over the phone), 40 random bits — they reveal nothing about volumes. Unique
 * in the database; the rare collision is retried by the caller.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newReferenceNumber(prefix: string): string {
  const bytes = crypto.randomBytes(8);
  let out = '';
  for (let i = 0; i < 8; i++) out += ALPHABET[bytes[i]! & 31];
  return `${prefix}-${out.slice(0, 4)}-${out.slice(4)}`;
}

/** The JSON Schema pattern of references with this prefix. */
export const referenceNumberPattern = (prefix: string): string =>
  `^${prefix}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$`;
