-- Payouts: one per claim (the database says so), paid by the simulated bank in sandbox and
-- preproduction, or by SEPA credit transfer batches in production; the batches themselves (their
-- pain.001 XML kept, so a file can be written again); production SMS sent through Twilio.

CREATE TABLE sepa_batches (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- GrpHdr/MsgId and the file name
  message_id       text NOT NULL UNIQUE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  created_by       text NOT NULL,
  execution_date   date NOT NULL,
  payouts_count    integer NOT NULL CHECK (payouts_count > 0),
  control_sum      bigint NOT NULL CHECK (control_sum > 0),
  xml              text NOT NULL,
  file_path        text
);

CREATE TABLE payouts (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- one payout per claim, ever: a failed payment retried with new bank details is the same payout,
  -- its attempt number raised and a new end-to-end id given
  claim_id        uuid NOT NULL UNIQUE REFERENCES claims(id),
  partner_id      uuid NOT NULL REFERENCES partners(id),
  environment     text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  rail            text NOT NULL CHECK (rail IN ('simulated_bank', 'sepa')),
  status          text NOT NULL CHECK (status IN ('pending', 'instructed', 'paid', 'failed')),
  attempt         integer NOT NULL DEFAULT 1 CHECK (attempt >= 1),
  end_to_end_id   text NOT NULL UNIQUE,
  amount          bigint NOT NULL CHECK (amount > 0),
  currency        char(3) NOT NULL,
  batch_id        uuid REFERENCES sepa_batches(id),
  created_at      timestamptz NOT NULL DEFAULT now(),
  instructed_at   timestamptz,
  settled_at      timestamptz,
  failure_reason  text,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payouts_pending ON payouts (rail, status, created_at);
CREATE INDEX payouts_partner ON payouts (partner_id, environment, created_at);

-- Every end-to-end id a payout has had: a bank report about an earlier attempt is still recognised.
CREATE TABLE payout_attempts (
  end_to_end_id  text PRIMARY KEY,
  payout_id      uuid NOT NULL REFERENCES payouts(id),
  attempt        integer NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (payout_id, attempt)
);

-- Production SMS: written in the claim's transaction, sent by a job after commit through the
-- configured provider (Twilio). Sandbox and preproduction keep using sms_outbox.
CREATE TABLE sms_messages (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  idempotency_key      text NOT NULL UNIQUE,
  partner_id           uuid NOT NULL REFERENCES partners(id),
  environment          text NOT NULL,
  claim_id             uuid REFERENCES claims(id),
  to_enc               text NOT NULL,
  -- the body carries the customer's bank-details link: encrypted like the phone number
  body_enc             text NOT NULL,
  status               text NOT NULL CHECK (status IN ('queued', 'sent', 'rejected')),
  provider             text,
  provider_message_id  text,
  attempts             integer NOT NULL DEFAULT 0,
  -- a send in progress holds the message until then: two jobs never send it at once
  locked_until         timestamptz,
  last_error           text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  sent_at              timestamptz
);
CREATE INDEX sms_messages_queued ON sms_messages (created_at) WHERE status = 'queued';

-- claims waiting for bank details (or new ones after a failed payment) are found by their due date
CREATE INDEX claims_due ON claims (bank_details_due_at) WHERE status IN ('awaiting_bank_details', 'failed');
ALTER TABLE claims ADD COLUMN failure_reason text;

-- API credentials of the insurer's operators (POST /flight-delay/v1/claims in every environment):
-- shown once, stored as SHA-256, revocable.
CREATE TABLE operator_tokens (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name          text NOT NULL,
  token_hash    text NOT NULL UNIQUE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  created_by    text NOT NULL,
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
