-- A payout batch's file format (payouts/sepa-batch.ts, ach-batch.ts): `pain.001` (every batch before this
-- one: SEPA or cross-border credit transfers) or `nacha` (an ACH file of PPD credits to US accounts,
-- payouts/nacha-file.ts), whose text `xml_enc` then holds, sealed as the pain.001's XML (it gives the
-- customers' account numbers) and written to PARASOL_PAYOUTS_DIR as `<message_id>.ach`. Additive: the
-- previous version writes only pain.001 batches, which the default names.
ALTER TABLE sepa_batches
  ADD COLUMN format text NOT NULL DEFAULT 'pain.001' CHECK (format IN ('pain.001', 'nacha'));
