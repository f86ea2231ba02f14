/** The vocabulary of payouts: the database schema, the CLI's choices and the pages derive from it. */

/**
 * `returned`: reported paid, then sent back by the customer's bank (migration 0048); retried like `failed`.
 * `cancelled`: its claim was voided while the payout was still pending (migration 0052); never paid.
 */
export const PAYOUT_STATUSES = ['pending', 'instructed', 'paid', 'failed', 'returned', 'cancelled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * How a payout is paid: the simulated bank (sandbox, preproduction), a credit transfer batch (production:
 * pain.001, SEPA or cross-border, to an IBAN), or an ACH batch (production: a NACHA file, to a US
 * account; migration 0061).
 */
export const RAILS = ['simulated_bank', 'sepa', 'ach'] as const;
export type Rail = (typeof RAILS)[number];

/** The bank file a payout of this rail goes in, as messages name it: "a NACHA (ACH) file", "a credit transfer file (pain.001)". */
export function bankFileOf(rail: Rail): string {
  return rail === 'ach' ? 'a NACHA (ACH) file' : 'a credit transfer file (pain.001)';
}
