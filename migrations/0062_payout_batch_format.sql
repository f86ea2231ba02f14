-- A payout batch's file format (payouts/sepa-batch.ts: createSepaBatch, createAchBatch): `pain.001` (every batch before this
-- one: SEPA or cross-border credit transfers) or `nacha` (an ACH file of PPD credits to US accounts,
-- payouts/nacha-file.ts), whose text `xml_enc` then holds, sealed as the pain.001's XML (it gives the
-- customers' account numbers) and written to PARASOL_PAYOUTS_DIR as `<message_id>.ach`. Additive: the
-- previous version writes only pain.001 batches, which the default names.
ALTER TABLE sepa_batches
  ADD COLUMN format text NOT NULL DEFAULT 'pain.001' CHECK (format IN ('pain.001', 'nacha'));

-- A NACHA file's File ID Modifier (A-Z then 0-9): a bank takes a second file with the same immediate
-- origin, file creation date (UTC, as the file header gives it) and modifier as a duplicate. Each
-- file of a day takes the next one (sepa-batch.ts, createAchBatch); the unique index refuses a
-- second file with the same three, whatever runs at once. Null for a pain.001.
ALTER TABLE sepa_batches
  ADD COLUMN nacha_origin text,
  ADD COLUMN nacha_file_date date,
  ADD COLUMN nacha_file_id_modifier text CHECK (nacha_file_id_modifier ~ '^[A-Z0-9]$');
CREATE UNIQUE INDEX sepa_batches_nacha_file_id ON sepa_batches (nacha_origin, nacha_file_date, nacha_file_id_modifier)
  WHERE format = 'nacha';
