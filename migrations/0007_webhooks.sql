-- Partner webhooks (Standard Webhooks): endpoints per partner and environment, the events emitted,
-- one delivery per event × endpoint, and the log of every attempt. See docs/webhooks.md.

CREATE TABLE webhook_endpoints (
  id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  partner_id             uuid NOT NULL REFERENCES partners(id),
  environment            text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  url                    text NOT NULL CHECK (length(url) BETWEEN 8 AND 2048),
  description            text CHECK (length(description) <= 200),
  -- whsec_… sealed with the platform's encryption key (AES-256-GCM), never stored in clear
  secret_enc             text NOT NULL,
  -- during a rotation the previous secret also signs, until previous_secret_expires_at
  previous_secret_enc    text,
  previous_secret_expires_at timestamptz(3),
  -- the event types wanted; NULL = every type, including types added later
  event_types            text[] CHECK (event_types IS NULL OR cardinality(event_types) > 0),
  enabled                boolean NOT NULL DEFAULT true,
  created_at             timestamptz(3) NOT NULL DEFAULT now(),
  updated_at             timestamptz(3) NOT NULL DEFAULT now(),
  removed_at             timestamptz(3)
);
-- emission looks up the live endpoints of a partner and environment: one small index scan
CREATE INDEX webhook_endpoints_live ON webhook_endpoints (partner_id, environment) WHERE removed_at IS NULL;

-- One row per event; its id (msg_…) is the `webhook-id` header, the same on every attempt.
-- The payload is `json` (not jsonb) on purpose: it keeps the text as written, so every attempt sends
-- the same bytes in the documented key order ({"type","timestamp","data"}).
CREATE TABLE webhook_events (
  id           text PRIMARY KEY CHECK (id ~ '^msg_[A-Za-z0-9_-]{16,64}$'),
  partner_id   uuid NOT NULL REFERENCES partners(id),
  environment  text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  type         text NOT NULL CHECK (type ~ '^[a-z_]+\.[a-z_]+$'),
  payload      json NOT NULL,
  created_at   timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_partner ON webhook_events (partner_id, environment, created_at);

-- One delivery per event and endpoint (never two, whatever the retries).
CREATE TABLE webhook_deliveries (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_id          text NOT NULL REFERENCES webhook_events(id),
  endpoint_id       uuid NOT NULL REFERENCES webhook_endpoints(id),
  partner_id        uuid NOT NULL REFERENCES partners(id),
  environment       text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts          integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at   timestamptz(3),
  -- a worker sending an attempt holds the delivery until then (no two workers send at once)
  locked_until      timestamptz(3),
  last_attempt_at   timestamptz(3),
  last_status_code  integer,
  last_error        text,
  created_at        timestamptz(3) NOT NULL DEFAULT now(),
  completed_at      timestamptz(3),
  UNIQUE (event_id, endpoint_id)
);
-- the delivery log: newest first per partner and environment (keyset pagination)
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (partner_id, environment, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id) WHERE status = 'pending';

CREATE TABLE webhook_delivery_attempts (
  delivery_id  uuid NOT NULL REFERENCES webhook_deliveries(id),
  attempt      integer NOT NULL CHECK (attempt > 0),
  at           timestamptz(3) NOT NULL,
  status_code  integer,
  duration_ms  integer NOT NULL CHECK (duration_ms >= 0),
  error        text CHECK (length(error) <= 500),
  PRIMARY KEY (delivery_id, attempt)
);
