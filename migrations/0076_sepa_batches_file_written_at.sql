-- When a batch's file was first written to the payouts directory (set with file_path, payouts-repo.ts):
-- an ACH payout's return window counts from the later of its file's effective entry date and the
-- Federal Reserve business day after the write, so a NACHA file exported late (its batch committed,
-- its file written days later) is not settled paid at once (settle-ach.ts). Files recorded before
-- this migration take their batch's creation time (written right after its commit, as then).
-- Additive: a previous version ignores the column (nullable, no default needed).
ALTER TABLE sepa_batches ADD COLUMN file_written_at timestamptz;
UPDATE sepa_batches SET file_written_at = created_at WHERE file_path IS NOT NULL;
