-- An open-ended stop-sale (docs/limits.md#stop-sales): no end to the departures it covers, in force
-- until the operator resumes sales. `ends_at` NULL: every departure from `starts_at` on. The CHECK
-- (ends_at > starts_at) holds for NULL.
ALTER TABLE stop_sales ALTER COLUMN ends_at DROP NOT NULL;
