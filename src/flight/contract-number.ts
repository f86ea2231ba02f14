import crypto from 'node:crypto';

/**
 * Human-friendly contract numbers: `FD-XXXX-XXXX` in Crockford base32 (no I, L, O, U: nothing to
 * misread over the phone), 40 random bits — numbers reveal nothing about volumes. Unique in the
 * database; the rare collision is retried by the caller.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newContractNumber(): string {
  const bytes = crypto.randomBytes(8);
  let out = '';
  for (let i = 0; i < 8; i++) out += ALPHABET[bytes[i]! & 31];
  return `FD-${out.slice(0, 4)}-${out.slice(4)}`;
}

export const CONTRACT_NUMBER_PATTERN = '^FD-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$';
