import {
  BOOKING_REFERENCE_LOOKUP,
  encrypt,
  lookupHash,
  lookupHashes,
  openField,
  type EncryptionKeys,
} from '../platform/crypto.ts';
import type { ContractRow } from './contracts-repo.ts';

/**
 * A contract's booking reference (the airline's PNR) is personal data: with the customer's name it
 * opens the booking at the airline. It is stored sealed (`booking_reference_enc`) with its keyed hash
 * (`booking_reference_hmac`), which a search matches (migration 0054; docs/DECISIONS.md, "Personal
 * data at rest"). Written as the partner sent it, trimmed and upper-cased: the form searches use too.
 */

/** The canonical form of a booking reference: what is sealed, hashed and searched. */
export function canonicalBookingReference(reference: string): string {
  return reference.trim().toUpperCase();
}

/** The contract columns of a (canonical) booking reference: sealed and hashed under the current key. */
export function sealBookingReference(
  keys: EncryptionKeys,
  reference: string,
): { booking_reference_enc: string; booking_reference_hmac: string } {
  return {
    booking_reference_enc: encrypt(keys, reference),
    booking_reference_hmac: lookupHash(keys, BOOKING_REFERENCE_LOOKUP, reference),
  };
}

/** The hashes a contract with this (canonical) reference may hold: one per known key (a rotation in progress). */
export function bookingReferenceHashes(keys: EncryptionKeys, reference: string): string[] {
  return lookupHashes(keys, BOOKING_REFERENCE_LOOKUP, reference);
}

/** A contract's booking reference, opened. */
export function openBookingReference(keys: EncryptionKeys, row: Pick<ContractRow, 'booking_reference_enc'>): string {
  return openField(keys, row.booking_reference_enc, null);
}
