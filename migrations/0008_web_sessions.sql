-- The portal and consoles (issue 5): the insurer's operators, browser sessions and sign-in throttling.

-- Operators of the insurer (the operator console, /admin). Seeded from PARASOL_ADMIN_EMAIL/PASSWORD.
CREATE TABLE operators (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email          text NOT NULL UNIQUE CHECK (email = lower(email)),
  password_hash  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);

-- One row per signed-in browser. The cookie holds a 256-bit token; only its SHA-256 is stored, so a
-- copy of the table opens no session. csrf_token is the synchronizer token of the session's forms.
CREATE TABLE web_sessions (
  token_hash    text PRIMARY KEY,
  kind          text NOT NULL CHECK (kind IN ('partner', 'operator')),
  user_id       uuid REFERENCES users(id) ON DELETE CASCADE,
  operator_id   uuid REFERENCES operators(id) ON DELETE CASCADE,
  partner_id    uuid REFERENCES partners(id),
  csrf_token    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  CHECK ((kind = 'partner') = (user_id IS NOT NULL AND partner_id IS NOT NULL AND operator_id IS NULL)),
  CHECK ((kind = 'operator') = (operator_id IS NOT NULL AND user_id IS NULL AND partner_id IS NULL))
);
CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);

-- Failed sign-ins per account (kind + email) and per client address: a counter in a window, and a
-- lock once it passes the threshold. A successful sign-in clears the account's row.
CREATE TABLE login_throttle (
  key           text PRIMARY KEY,
  failures      integer NOT NULL DEFAULT 0,
  window_start  timestamptz NOT NULL DEFAULT now(),
  locked_until  timestamptz
);
