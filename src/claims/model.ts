/** The vocabulary of claims: the database schema, the CLI's choices and the pages derive from it. */

export const CLAIM_STATUSES = [
  'opened',
  'awaiting_bank_details',
  'payment_pending',
  'paid',
  'expired',
  'failed',
] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/** What happened to the insured flight. */
export const CLAIM_EVENTS = ['delayed', 'cancelled', 'diverted'] as const;
export type ClaimEventKind = (typeof CLAIM_EVENTS)[number];

/** What the claim pays for (a diversion pays as a cancellation when cancellation is covered, else as a delay). */
export const CLAIM_REASONS = ['delay', 'cancellation'] as const;
export type ClaimReason = (typeof CLAIM_REASONS)[number];
