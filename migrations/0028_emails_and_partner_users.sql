-- Email and partner users (issue 14 §2): the email channel, roles, invitations and password reset.

-- Every email the platform sends, written in the transaction of the change that causes it and sent
-- by the `email_send` job after commit (docs/OPERATOR.md, "Email"). dedupe_key is unique: a message
-- is written once whatever retries happen. Recipient, subject and bodies are personal data (the
-- bodies carry single-use links): sealed with the master key like the SMS rows. A message sent by
-- the outbox provider (no SMTP configured, or a sandbox/preproduction message) stays here, status
-- 'sent' and provider 'outbox': the outbox an operator reads.
CREATE TABLE emails (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind                 text NOT NULL,
  dedupe_key           text NOT NULL UNIQUE,
  partner_id           uuid REFERENCES partners(id),
  environment          text CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  to_enc               text NOT NULL,
  subject_enc          text NOT NULL,
  text_enc             text NOT NULL,
  html_enc             text,
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
CREATE INDEX emails_queued ON emails (created_at) WHERE status = 'queued';
CREATE INDEX emails_created ON emails (created_at DESC, id);

-- Roles of partner users: existing users become admins; the code names the role of every new user.
ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'developer', 'viewer'));
ALTER TABLE users ALTER COLUMN role DROP DEFAULT;
-- An invited user has no password until it follows its invitation link (activated_at is then set).
ALTER TABLE users ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE users ADD COLUMN activated_at timestamptz;
UPDATE users SET activated_at = created_at;
ALTER TABLE users ADD CONSTRAINT users_active_has_password CHECK (activated_at IS NULL OR password_hash IS NOT NULL);
ALTER TABLE users ADD COLUMN last_sign_in_at timestamptz;
-- The language of the user's emails (the UI language it chose, or its inviter's); null: English.
ALTER TABLE users ADD COLUMN language text CHECK (language IN ('en', 'fr'));
CREATE INDEX users_partner ON users (partner_id);

-- Single-use links of invitations and password resets: only the SHA-256 of the token is stored.
CREATE TABLE user_tokens (
  token_hash  text PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose     text NOT NULL CHECK (purpose IN ('invitation', 'password_reset')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX user_tokens_user ON user_tokens (user_id);
