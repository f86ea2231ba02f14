-- Claim notifications: the bank-details link token of each claim (stored hashed) and the SMS outbox
-- of sandbox and preproduction (what a customer would have received, readable by the partner).

CREATE TABLE claim_tokens (
  claim_id    uuid PRIMARY KEY REFERENCES claims(id),
  token_hash  text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);

-- bank details must arrive before this instant, else the claim expires
ALTER TABLE claims ADD COLUMN bank_details_due_at timestamptz;

CREATE TABLE sms_outbox (
  id               text PRIMARY KEY,
  idempotency_key  text NOT NULL UNIQUE,
  partner_id       uuid NOT NULL REFERENCES partners(id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'preproduction')),
  contract_id      uuid NOT NULL REFERENCES contracts(id),
  claim_id         uuid REFERENCES claims(id),
  to_enc           text NOT NULL,
  body             text NOT NULL,
  link             text,
  sent_at          timestamptz NOT NULL
);
CREATE INDEX sms_outbox_contract ON sms_outbox (contract_id, sent_at);
