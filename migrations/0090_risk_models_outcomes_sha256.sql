-- A refit's fingerprint of the platform's own outcomes it added (src/risk/model-versions.ts): the
-- SHA-256 of its observations, sorted. "Nothing new since the last refit" compares it, not the number
-- of observations: a flight decided again (a delay corrected, a decision overturned) or one that no
-- longer counts, with another decided since, changes the data but not the count. NULL for a history
-- version and for refits made before this migration (those compare by count, as before). Additive:
-- the previous version ignores the column.
ALTER TABLE risk_models ADD COLUMN outcomes_sha256 text
  CHECK (outcomes_sha256 IS NULL OR outcomes_sha256 ~ '^[0-9a-f]{64}$');
