-- Production payouts in every currency a partner can configure (docs/payouts.md, "Currencies"): a
-- batch is one pain.001 file of one currency — EUR a SEPA credit transfer, any other a cross-border
-- customer credit transfer (no SEPA service level, charges shared). The rows before were all EUR.
ALTER TABLE sepa_batches
  ADD COLUMN currency text NOT NULL DEFAULT 'EUR' CHECK (currency ~ '^[A-Z]{3}$');
