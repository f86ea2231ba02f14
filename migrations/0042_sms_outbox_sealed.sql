-- The sandbox and preproduction SMS outbox kept each message's body and link in clear: they carry the
-- customer's bank-details link, a bearer secret that claim_tokens keeps only as its SHA-256 (and that
-- the customers' privacy notice says is stored only as a fingerprint). Sealed with the master key from
-- now on, like production's sms_messages.body_enc. The key is not in the database, so existing rows are
-- sealed by the application when it starts (platform/seal-personal-data.ts), emptying the plaintext;
-- readers take `_enc`, or the plaintext of a row not sealed yet.
ALTER TABLE sms_outbox ADD COLUMN body_enc text, ADD COLUMN link_enc text;
ALTER TABLE sms_outbox ALTER COLUMN body DROP NOT NULL;
ALTER TABLE sms_outbox ADD CONSTRAINT sms_outbox_body_present CHECK (body_enc IS NOT NULL OR body IS NOT NULL);
