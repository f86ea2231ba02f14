-- Returns of a transfer already paid (docs/payouts.md, "Returns"): days after reporting a SEPA credit
-- transfer booked, the bank may report it returned by the customer's bank (an R-transaction: account
-- closed AC04, blocked AG01, name mismatch…). The payout becomes `returned` (it keeps its `settled_at`,
-- when it was reported paid, and gets `returned_at`; the masked reason goes to `failure_reason`); its
-- claim goes back to waiting for new bank details, and new details pay a new attempt, as after a failure.
ALTER TABLE payouts
  DROP CONSTRAINT payouts_status_check,
  ADD CONSTRAINT payouts_status_check CHECK (status IN ('pending', 'instructed', 'paid', 'failed', 'returned')),
  ADD COLUMN returned_at timestamptz;
