-- The scheduled SEPA batch job (docs/payouts.md, "Automatic batches") writes the file of any batch
-- committed without one (a crash between the commit and the write): it looks for those every run.
CREATE INDEX sepa_batches_without_file ON sepa_batches (created_at) WHERE file_path IS NULL;
