-- The audit rows of a contract's contact change (`contact_changed`, PATCH /contracts/{n}/customer)
-- were written under the contract's internal id, while every other row of a contract's life
-- (created, cancelled, passenger_cancelled, leg_cancelled, flight_changed, completed, reopened) is
-- under its contract number, the subject an operator searches a contract's trail by. The code now
-- writes the number; this rewrites the rows written before.
-- Rolling-update safe: it changes no schema, and the previous version never reads these rows back.
-- A process of the previous version still running after this migration may write a few more rows
-- under the id: the claim desk's trail (claims/desk.ts, claimTrail) keeps reading a contract's rows
-- under its id as well as its number, so those are still shown.
UPDATE audit_log a
SET entity_id = c.contract_number
FROM contracts c
WHERE a.entity = 'contract'
  AND a.action = 'contact_changed'
  AND a.entity_id = c.id::text;
