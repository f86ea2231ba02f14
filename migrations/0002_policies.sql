-- Policies written by partners' policy-administration systems through the API to manage policies.
-- Like every operational row, a policy carries the environment of the key that wrote it; its audit
-- trail is in audit_log (entity 'policy', entity_id the policy number), written in the same transaction.

CREATE TABLE policies (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  policy_number         text NOT NULL UNIQUE,
  partner_id            uuid NOT NULL REFERENCES partners(id),
  environment           text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  -- the partner's own id of the policy: unique per partner and environment
  external_reference    text NOT NULL CHECK (length(external_reference) BETWEEN 1 AND 100),
  product               text NOT NULL CHECK (product IN ('home', 'flight_delay', 'travel', 'motor', 'other')),
  -- stored status; 'expired' is derived when read (expiry_date reached while pending or active)
  status                text NOT NULL CHECK (status IN ('pending', 'active', 'cancelled')),
  holder_first_name     text NOT NULL,
  holder_last_name      text NOT NULL,
  -- personal data, AES-256-GCM encrypted (platform/crypto.ts)
  holder_birth_date_enc text NOT NULL,
  holder_email_enc      text NOT NULL,
  holder_phone_enc      text NOT NULL,
  holder_address_enc    text NOT NULL,
  -- covered from effective_date (included) to expiry_date (excluded)
  effective_date        date NOT NULL,
  expiry_date           date NOT NULL CHECK (expiry_date > effective_date),
  premium_amount        bigint NOT NULL CHECK (premium_amount >= 0),
  currency              char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  premium_frequency     text NOT NULL CHECK (premium_frequency IN ('single', 'annual', 'semiannual', 'quarterly', 'monthly')),
  risk                  jsonb NOT NULL,
  -- the Demo API quote the policy was checked against, if any
  quote_reference       text,
  cancel_reason         text,
  cancellation_date     date,
  cancelled_at          timestamptz,
  -- millisecond precision: the search cursor carries it through a JavaScript Date
  created_at            timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  UNIQUE (partner_id, environment, external_reference),
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
  CHECK ((cancelled_at IS NULL) = (cancellation_date IS NULL AND cancel_reason IS NULL)),
  CHECK (cancellation_date IS NULL OR (cancellation_date >= effective_date AND cancellation_date < expiry_date))
);
CREATE INDEX policies_listing ON policies (partner_id, environment, created_at, id);
CREATE INDEX policies_effective ON policies (partner_id, environment, effective_date);
