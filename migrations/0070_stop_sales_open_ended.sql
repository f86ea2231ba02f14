-- An open-ended stop-sale (docs/limits.md#stop-sales): no end to the departures it covers, in force
-- until the operator resumes sales. `ends_at` NULL: every departure from `starts_at` on. The CHECK
-- (ends_at > starts_at) holds for NULL.
ALTER TABLE stop_sales ALTER COLUMN ends_at DROP NOT NULL;
-- No new index: the reads of the stop-sales in force (`resumed_at IS NULL AND (ends_at IS NULL OR
-- ends_at > now)`) are served by stop_sales_live (0012: ends_at WHERE resumed_at IS NULL) — a btree
-- keeps its NULLs, and PostgreSQL ORs the two index conditions (BitmapOr), checked with EXPLAIN.
