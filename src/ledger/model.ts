/**
 * The ledger's vocabulary (issue 14 §1). Amounts are integer minor units of the entry's currency,
 * signed: a commission given back when a contract is cancelled is a negative `commission` entry.
 *
 * - `premium_written`: the premium net of tax, when a contract is sold;
 * - `tax`: the insurance premium tax on it;
 * - `commission`: the partner's commission (included in the net premium; negative when given back);
 * - `refund`: the premium (net + tax) returned to the customer on cancellation;
 * - `tax_refunded`: the tax part of a `refund` (same event key) — a memorandum entry: it is inside the
 *   refund, so no cash total adds it; `tax − tax_refunded` is the premium tax net of refunds, what the
 *   insurer declares (migration 0038; refunds recorded before it get theirs from the backfill);
 * - `compensation_paid`: a claim's compensation, when the bank reports the payout paid; negative
 *   (the same amount, `corrects` the payment's entry) when the bank reports that transfer returned;
 * - `payout_failed`: a payout attempt the bank rejected — a memorandum entry, no money moved
 *   (the amount is the attempted one; reports never add it to what was paid).
 */
export const LEDGER_KINDS = [
  'premium_written',
  'tax',
  'commission',
  'refund',
  'tax_refunded',
  'compensation_paid',
  'payout_failed',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** What `recordMovements` takes: one money movement. */
export interface Movement {
  partnerId: string;
  environment: 'sandbox' | 'preproduction' | 'production';
  kind: LedgerKind;
  /** Signed integer minor units. */
  amount: number;
  currency: string;
  contractId: string;
  claimId?: string | null;
  payoutId?: string | null;
  /**
   * The business event behind the movement, stable across retries: one entry per (eventKey, kind)
   * ever, so recording the same event twice writes nothing the second time.
   */
  eventKey: string;
  occurredAt: Date;
  /** The entry this one corrects (corrections are new entries, never updates). */
  corrects?: number | null;
  /** Who caused it: an actor id, 'system', 'backfill'. */
  recordedBy: string;
}

export const REPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export const STATEMENT_FORMATS = ['csv', 'pdf'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];
