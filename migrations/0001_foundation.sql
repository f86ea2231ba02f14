-- Parasol foundation: partners, agreements, subscriptions, configuration versions, API keys, users,
-- contracts and their legs, claims, idempotency keys and the audit trail.
-- Environments: every operational row carries the environment of the key that wrote it.

CREATE TABLE partners (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug        text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- The agreement between the insurer and the partner: what may be sold and within which bounds.
CREATE TABLE agreements (
  partner_id            uuid PRIMARY KEY REFERENCES partners(id),
  status                text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'signed')),
  allowed_formulas      text[] NOT NULL CHECK (cardinality(allowed_formulas) > 0),
  currency              char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  tax_rate              numeric(6, 5) NOT NULL CHECK (tax_rate >= 0 AND tax_rate < 1),
  commission_min        numeric(6, 5) NOT NULL CHECK (commission_min >= 0),
  commission_max        numeric(6, 5) NOT NULL CHECK (commission_max <= 0.9 AND commission_max >= commission_min),
  compensation_min      bigint NOT NULL CHECK (compensation_min > 0),
  compensation_max      bigint NOT NULL CHECK (compensation_max >= compensation_min),
  signed_at             timestamptz,
  signed_by             text,
  updated_at            timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'signed') = (signed_at IS NOT NULL))
);

CREATE TABLE api_subscriptions (
  partner_id  uuid NOT NULL REFERENCES partners(id),
  api         text NOT NULL CHECK (api IN ('flight-delay', 'demo', 'policy-admin')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (partner_id, api)
);

-- Configuration versions are immutable: a new version is a new row; quotes and contracts keep the
-- id of the version they were priced with.
CREATE TABLE partner_configurations (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  partner_id           uuid NOT NULL REFERENCES partners(id),
  version              integer NOT NULL CHECK (version > 0),
  formula              text NOT NULL CHECK (formula IN ('delay', 'cancellation', 'delay_and_cancellation')),
  delay_tiers          jsonb NOT NULL,
  cancellation_amount  bigint NOT NULL CHECK (cancellation_amount >= 0),
  commission_rate      numeric(6, 5) NOT NULL CHECK (commission_rate >= 0 AND commission_rate <= 0.9),
  currency             char(3) NOT NULL,
  created_by           text NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (partner_id, version)
);

CREATE TABLE api_keys (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  partner_id    uuid NOT NULL REFERENCES partners(id),
  environment   text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  key_hash      text NOT NULL UNIQUE,
  display       text NOT NULL,
  label         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX api_keys_partner ON api_keys (partner_id, environment);

-- Portal users of a partner (the portal arrives later; the seed stores the demo user now).
CREATE TABLE users (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  partner_id     uuid NOT NULL REFERENCES partners(id),
  email          text NOT NULL UNIQUE CHECK (email = lower(email)),
  password_hash  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE contracts (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  contract_number       text NOT NULL UNIQUE,
  partner_id            uuid NOT NULL REFERENCES partners(id),
  environment           text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  -- the quote's own id: a quote subscribes once
  quote_id              text NOT NULL UNIQUE,
  configuration_id      uuid NOT NULL REFERENCES partner_configurations(id),
  configuration_version integer NOT NULL,
  status                text NOT NULL CHECK (status IN ('active', 'cancelled', 'completed')),
  formula               text NOT NULL,
  coverage              jsonb NOT NULL,
  passengers            smallint NOT NULL CHECK (passengers BETWEEN 1 AND 10),
  currency              char(3) NOT NULL,
  premium_net           bigint NOT NULL CHECK (premium_net >= 0),
  premium_tax           bigint NOT NULL CHECK (premium_tax >= 0),
  premium_commission    bigint NOT NULL CHECK (premium_commission >= 0),
  premium_total         bigint NOT NULL CHECK (premium_total = premium_net + premium_tax),
  customer_first_name   text NOT NULL,
  customer_last_name    text NOT NULL,
  customer_email_enc    text NOT NULL,
  customer_phone_enc    text NOT NULL,
  customer_language     text NOT NULL CHECK (customer_language IN ('fr', 'en')),
  booking_reference     text NOT NULL,
  first_departure_at    timestamptz NOT NULL,
  quoted_at             timestamptz NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  cancelled_at          timestamptz,
  cancel_reason         text,
  refund_amount         bigint
);
CREATE INDEX contracts_partner ON contracts (partner_id, environment, created_at);

CREATE TABLE contract_legs (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  contract_id        uuid NOT NULL REFERENCES contracts(id),
  leg_index          smallint NOT NULL CHECK (leg_index >= 0),
  partner_id         uuid NOT NULL REFERENCES partners(id),
  environment        text NOT NULL,
  flight_number      text NOT NULL,
  airline            char(2) NOT NULL,
  departure_airport  char(3) NOT NULL,
  arrival_airport    char(3) NOT NULL,
  -- wall-clock time at the departure airport, as the partner sent it, and the instant it denotes
  departure_local    text NOT NULL,
  departure_date     date NOT NULL,
  departure_at       timestamptz NOT NULL,
  UNIQUE (contract_id, leg_index)
);
-- monitoring and flight events find legs by flight
CREATE INDEX contract_legs_flight ON contract_legs (flight_number, departure_date, environment);

CREATE SEQUENCE claim_number_seq;

CREATE TABLE claims (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  claim_number         text NOT NULL UNIQUE,
  partner_id           uuid NOT NULL REFERENCES partners(id),
  environment          text NOT NULL,
  contract_id          uuid NOT NULL REFERENCES contracts(id),
  -- one claim per insured leg, whatever the duplicates or the number of workers
  leg_id               uuid NOT NULL UNIQUE REFERENCES contract_legs(id),
  reason               text NOT NULL CHECK (reason IN ('delay', 'cancellation')),
  event                text NOT NULL CHECK (event IN ('delayed', 'cancelled', 'diverted')),
  status               text NOT NULL CHECK (status IN ('opened', 'awaiting_bank_details', 'payment_pending', 'paid', 'expired', 'failed')),
  delay_minutes        integer,
  compensation_amount  bigint NOT NULL CHECK (compensation_amount > 0),
  currency             char(3) NOT NULL,
  evidence             jsonb NOT NULL,
  -- millisecond precision: the listing cursor carries it through a JavaScript Date
  opened_at            timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  paid_at              timestamptz,
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX claims_listing ON claims (partner_id, environment, opened_at, id);
CREATE INDEX claims_contract ON claims (contract_id);

CREATE TABLE idempotency_keys (
  partner_id       uuid NOT NULL REFERENCES partners(id),
  environment      text NOT NULL,
  key              text NOT NULL,
  operation        text NOT NULL,
  request_hash     text NOT NULL,
  status           text NOT NULL CHECK (status IN ('in_flight', 'completed')),
  locked_until     timestamptz NOT NULL,
  response_status  smallint,
  response_body    jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (partner_id, environment, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

CREATE TABLE audit_log (
  id           bigserial PRIMARY KEY,
  at           timestamptz NOT NULL DEFAULT now(),
  actor        text NOT NULL,
  partner_id   uuid,
  environment  text,
  entity       text NOT NULL,
  entity_id    text NOT NULL,
  action       text NOT NULL,
  data         jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_entity ON audit_log (entity, entity_id);
