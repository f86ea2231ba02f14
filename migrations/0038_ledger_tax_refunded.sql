-- The tax part of a refund (docs/bordereaux.md): a memorandum entry `tax_refunded`, written with the
-- `refund` it belongs to (same event key) and never added to cash totals. The insurer reads from the
-- ledger alone the insurance premium tax net of refunds for a period (tax − tax_refunded), which it
-- declares. Existing rows stay valid: the constraint only admits one kind more.
ALTER TABLE ledger_entries
  DROP CONSTRAINT ledger_entries_kind_check,
  ADD CONSTRAINT ledger_entries_kind_check
    CHECK (kind IN ('premium_written', 'tax', 'commission', 'refund', 'tax_refunded', 'compensation_paid', 'payout_failed'));
