-- A leg's claim voided by the claim desk (0052) no longer bars the leg from ever getting another one:
-- an operator who records the flight's true outcome (`parasol flights event`, the operator token's
-- POST /claims) opens a new claim on a leg whose claims are all voided (docs/OPERATOR.md, "The claim
-- desk"; docs/DECISIONS.md, "A new claim after a void"). Exactly-once now reads "at most one claim per
-- leg that is not voided": the unique key on leg_id becomes a partial unique index (the ON CONFLICT
-- target of claims' opening names its predicate), and a plain index on leg_id keeps every claim of a
-- leg, voided ones included, one index look-up away (completion, the monitoring's skip of voided legs).
-- `voided` is final (never reopened), so a voided claim never comes back into the unique index.
-- Not across a rolling update (docs/OPERATIONS.md): the previous version's `ON CONFLICT (leg_id)`
-- infers no partial index.
CREATE UNIQUE INDEX claims_live_leg_key ON claims (leg_id) WHERE status <> 'voided';
CREATE INDEX claims_leg_id_idx ON claims (leg_id);
ALTER TABLE claims DROP CONSTRAINT claims_leg_id_key;
