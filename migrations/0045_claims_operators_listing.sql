-- The operators' claims list (console /admin/claims, `parasol claims list`) pages newest first on
-- (opened_at, id) across partners, by a keyset cursor instead of an OFFSET (rows repeated or skipped
-- while claims were opened). claims_listing leads with the partner: it serves a partner's list, not
-- this one. One index for every claim (read backwards), one for the console's status filter.
CREATE INDEX claims_operators ON claims (opened_at, id);
CREATE INDEX claims_operators_status ON claims (status, opened_at, id);
