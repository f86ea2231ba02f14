import crypto from 'node:crypto';
import { isSepaIdentifier } from './sepa-text.ts';

/**
 * The end-to-end id of a payout: what the bank carries unchanged to the beneficiary and back in its
 * reports (pain.002, camt.054, our reconciliation CSV), hence the key reconciliation matches on.
 *
 * `PSL` + 26 base32 characters (130 bits) of SHA-256 over the payout id and the attempt number:
 * deterministic (a job recomputing it after a crash writes the same id into the file), 29 characters
 * within the SEPA identifier set, and distinct for a new attempt of the same payout (a payout that
 * failed and is retried with new bank details must not reuse an end-to-end id the bank has seen).
 * Store it with the payout (unique index): it is not reversible.
 */
export function endToEndIdForPayout(payout: { payoutId: string; attempt?: number }): string {
  const attempt = payout.attempt ?? 1;
  if (payout.payoutId === '') throw new RangeError('payoutId is required');
  if (!Number.isSafeInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  const digest = crypto.hash('sha256', `parasol/end-to-end-id/v1\n${payout.payoutId}\n${attempt}`, 'buffer');
  return `PSL${base32(digest).slice(0, 26)}`;
}

/**
 * The end-to-end id of a payout to a US account (an ACH entry): the same id cut to 15 characters —
 * `PSL` + 12 base32 characters (60 bits) — since a NACHA entry carries it in its 15-character
 * individual identification number, which the customer's bank sends back unchanged with a return.
 * Deterministic and distinct per attempt as the full id; unique among payouts through the same index.
 */
export function achEndToEndIdForPayout(payout: { payoutId: string; attempt?: number }): string {
  return endToEndIdForPayout(payout).slice(0, ACH_END_TO_END_ID_LENGTH);
}

/** The length of an ACH payout's end-to-end id (a NACHA individual id's). */
export const ACH_END_TO_END_ID_LENGTH = 15;

/** A syntactically acceptable end-to-end id (ours or one a bank report mentions). */
export function isValidEndToEndId(id: string): boolean {
  return isSepaIdentifier(id);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'; // RFC 4648 base32, no padding

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}
