-- A contract's booking reference (the airline's PNR) is personal data: with the customer's name it
-- opens the booking at the airline. It was stored in clear and searched by exact match. From now on it
-- is sealed with the master key (`booking_reference_enc`) and found by its keyed hash
-- (`booking_reference_hmac`, crypto.lookupHash: HMAC-SHA256 under a key derived from the master key),
-- both written together by the subscription (docs/DECISIONS.md, "Personal data at rest").
--
-- The key is not in the database, so this migration cannot seal the existing values: it moves them
-- to contracts_booking_references_unsealed and drops the clear column; every API process seals them
-- at start, before it serves (platform/seal-personal-data.ts), deleting each moved row as it seals it.
-- Until then those contracts have neither column set. On PostgreSQL the old values stay in dead row
-- versions: VACUUM FULL contracts, contracts_booking_references_unsealed after the upgrade
-- (docs/OPERATIONS.md, "Upgrading: personal data in old rows").
ALTER TABLE contracts ADD COLUMN booking_reference_enc text, ADD COLUMN booking_reference_hmac text;
ALTER TABLE contracts ADD CONSTRAINT contracts_booking_reference_sealed
  CHECK ((booking_reference_enc IS NULL) = (booking_reference_hmac IS NULL));

CREATE TABLE contracts_booking_references_unsealed (
  contract_id        uuid PRIMARY KEY REFERENCES contracts(id) ON DELETE CASCADE,
  booking_reference  text NOT NULL
);
INSERT INTO contracts_booking_references_unsealed (contract_id, booking_reference)
  SELECT id, booking_reference FROM contracts;

DROP INDEX contracts_booking_reference;
ALTER TABLE contracts DROP COLUMN booking_reference;
-- GET /contracts?bookingReference= finds a partner's contracts by the reference's keyed hash
CREATE INDEX contracts_booking_reference_hmac ON contracts (partner_id, environment, booking_reference_hmac);
