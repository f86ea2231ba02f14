-- Voiding a claim (the claim desk; docs/OPERATOR.md, "The claim desk"): a claim opened on wrong flight
-- data, or on a fraud or sanctions finding, is withdrawn by the insurer before any money left. The
-- claim becomes `voided` (settled: never paid, never reminded, never expired; its link closed); its
-- payout, when the customer had given bank details and it was still `pending` (in no SEPA file), becomes
-- `cancelled` — kept, with its attempts, for the claim page and the audit trail; no batch and no
-- simulated bank pays it (docs/DECISIONS.md, "Voiding a claim"). Who voided it and why: the audit log.
ALTER TABLE claims
  DROP CONSTRAINT claims_status_check,
  ADD CONSTRAINT claims_status_check
    CHECK (status IN ('opened', 'awaiting_bank_details', 'payment_pending', 'paid', 'expired', 'failed', 'voided'));

ALTER TABLE payouts
  DROP CONSTRAINT payouts_status_check,
  ADD CONSTRAINT payouts_status_check CHECK (status IN ('pending', 'instructed', 'paid', 'failed', 'returned', 'cancelled'));
