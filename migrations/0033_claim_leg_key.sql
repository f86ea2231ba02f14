-- A cancelled flight's fan-out (issue 12 §4) inserts one claim per leg of the flight, thousands in one
-- statement. Each claim row ran three foreign-key checks — its partner, its contract, its leg — each a
-- lookup and a row lock run by a row-level trigger: a third of the statement's time. One key now checks
-- the three at once: the claim's (leg, contract, partner) is a leg's own (id, contract_id, partner_id),
-- and the leg's own keys (0001) ensure its contract and partner exist. It guarantees what the three did
-- (a claim's leg, contract and partner exist and cannot be deleted under it) and, in addition, that the
-- claim's contract and partner are its leg's.
ALTER TABLE contract_legs ADD CONSTRAINT contract_legs_id_contract_partner_key UNIQUE (id, contract_id, partner_id);
ALTER TABLE claims
  ADD CONSTRAINT claims_leg_contract_partner_fkey FOREIGN KEY (leg_id, contract_id, partner_id)
    REFERENCES contract_legs (id, contract_id, partner_id),
  DROP CONSTRAINT claims_leg_id_fkey,
  DROP CONSTRAINT claims_contract_id_fkey,
  DROP CONSTRAINT claims_partner_id_fkey;
