-- A policy's insured risk is personal data too: a motor policy names the vehicle's registration plate,
-- a policy of product `other` carries whatever the partner sends. It is sealed with the master key
-- like the policyholder's fields (`risk_enc`, the JSON text; docs/DECISIONS.md, "Personal data at
-- rest"); nothing queries inside it. `risk` keeps the rows written before until the start seals them
-- (platform/seal-personal-data.ts), then holds NULL.
ALTER TABLE policies ADD COLUMN risk_enc text;
ALTER TABLE policies ALTER COLUMN risk DROP NOT NULL;
