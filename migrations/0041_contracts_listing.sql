-- GET /contracts pages newest first on (created_at, id), created_at to the millisecond (the cursor
-- carries a JavaScript Date). It ordered by date_trunc('milliseconds', created_at), an expression no
-- index serves: every page sorted all of a partner's matching contracts. created_at is now stored to
-- the millisecond, like claims.opened_at and policies.created_at — truncated, never rounded, so no
-- contract moves to the next second or day (timestamptz(3) would round) — and one index serves the
-- order. The drivers already read it to the millisecond (a JavaScript Date): nothing read changes.
UPDATE contracts SET created_at = date_trunc('milliseconds', created_at)
WHERE created_at <> date_trunc('milliseconds', created_at);
ALTER TABLE contracts ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now());
-- (partner_id, environment, created_at) is its prefix: the new index serves what the old one did
CREATE INDEX contracts_listing ON contracts (partner_id, environment, created_at, id);
DROP INDEX contracts_partner;
