-- A webhook event's payload is kept so that every attempt sends the same bytes (0007). Some events
-- carry personal data: contract.created carries the booking reference (the airline's PNR, sealed on
-- the contract since 0054). Their payload is now sealed with the master key (`payload_enc`: the exact
-- text sent, opened at each attempt; docs/DECISIONS.md, "Webhook payloads carrying personal data are
-- sealed"); the others stay in `payload` (json), where `parasol db scrub` can mask them. A row holds
-- one or the other.
--
-- The key is not in the database: the rows written before keep their clear payload until every API
-- process seals them at start, before it serves (platform/seal-personal-data.ts), each by one UPDATE
-- guarded by "payload still there". On PostgreSQL the old text stays in dead row versions:
-- VACUUM FULL webhook_events after the upgrade (docs/OPERATIONS.md).
ALTER TABLE webhook_events ADD COLUMN payload_enc text;
ALTER TABLE webhook_events ALTER COLUMN payload DROP NOT NULL;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_payload_one
  CHECK ((payload IS NULL) <> (payload_enc IS NULL));
