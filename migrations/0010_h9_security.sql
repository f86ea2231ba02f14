-- Hardening (issue 9, security defects).

-- Sign-in: every attempt is counted (atomically, before its password is checked), not only failures.
ALTER TABLE login_throttle RENAME COLUMN failures TO attempts;

-- Personal data at rest. Names join email, phone, address, birth date and IBAN in AES-256-GCM
-- (platform/crypto.ts); idempotent replays are stored as the exact bytes first sent, encrypted. The
-- key is not in the database, so existing plaintext cannot be sealed here: the new `_enc` columns
-- start empty, the plaintext columns become nullable, and the application seals the existing rows
-- when it starts (platform/seal-personal-data.ts), emptying the plaintext. Readers take `_enc`, or the
-- plaintext of a row not sealed yet. A later migration drops the plaintext columns.
ALTER TABLE idempotency_keys ADD COLUMN response_enc text;

ALTER TABLE contracts ADD COLUMN customer_first_name_enc text, ADD COLUMN customer_last_name_enc text;
ALTER TABLE contracts ALTER COLUMN customer_first_name DROP NOT NULL, ALTER COLUMN customer_last_name DROP NOT NULL;
ALTER TABLE contracts ADD CONSTRAINT contracts_customer_name_present
  CHECK ((customer_first_name_enc IS NOT NULL OR customer_first_name IS NOT NULL) AND (customer_last_name_enc IS NOT NULL OR customer_last_name IS NOT NULL));

ALTER TABLE policies ADD COLUMN holder_first_name_enc text, ADD COLUMN holder_last_name_enc text;
ALTER TABLE policies ALTER COLUMN holder_first_name DROP NOT NULL, ALTER COLUMN holder_last_name DROP NOT NULL;
ALTER TABLE policies ADD CONSTRAINT policies_holder_name_present
  CHECK ((holder_first_name_enc IS NOT NULL OR holder_first_name IS NOT NULL) AND (holder_last_name_enc IS NOT NULL OR holder_last_name IS NOT NULL));

ALTER TABLE claim_bank_details ADD COLUMN account_holder_enc text;
ALTER TABLE claim_bank_details ALTER COLUMN account_holder DROP NOT NULL;
ALTER TABLE claim_bank_details ADD CONSTRAINT claim_bank_details_holder_present CHECK (account_holder_enc IS NOT NULL OR account_holder IS NOT NULL);

-- A SEPA batch's pain.001 XML names each creditor and gives the IBAN: kept encrypted too.
ALTER TABLE sepa_batches ADD COLUMN xml_enc text;
ALTER TABLE sepa_batches ALTER COLUMN xml DROP NOT NULL;
ALTER TABLE sepa_batches ADD CONSTRAINT sepa_batches_xml_present CHECK (xml_enc IS NOT NULL OR xml IS NOT NULL);
