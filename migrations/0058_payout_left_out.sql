-- A pending production payout its currency's credit transfer file cannot hold (a cross-border payout
-- without the creditor's BIC, a BIC or name the file refuses…) is left out of the file and stays
-- pending (payouts/sepa-batch.ts). Since when and why, so that the operator sees it in `parasol payouts
-- list` and the console, each run reports how long it has waited, and the worker logs it at `error`
-- once when it is first left out rather than every run (docs/OPERATOR.md, "Cross-border payouts and
-- the BIC"). `left_out_code`: `no_bic` (fixed with `parasol payouts set-bic`) or `invalid`.
-- Cleared when the payout goes into a file, when an operator sets its BIC, on a new attempt, when it
-- is cancelled (the claim voided) or settled by a bank report; shown only while the payout is pending.
ALTER TABLE payouts
  ADD COLUMN left_out_at timestamptz,
  ADD COLUMN left_out_code text CHECK (left_out_code IN ('no_bic', 'invalid')),
  ADD COLUMN left_out_reason text;
