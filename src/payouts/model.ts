/** The vocabulary of payouts: the database schema, the CLI's choices and the pages derive from it. */

/**
 * `returned`: reported paid, then sent back by the customer's bank (migration 0048); retried like `failed`.
 * `cancelled`: its claim was voided while the payout was still pending (migration 0052); never paid.
 */
export const PAYOUT_STATUSES = ['pending', 'instructed', 'paid', 'failed', 'returned', 'cancelled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** How a payout is paid: the simulated bank (sandbox, preproduction) or a SEPA credit transfer batch (production). */
export const RAILS = ['simulated_bank', 'sepa'] as const;
export type Rail = (typeof RAILS)[number];
