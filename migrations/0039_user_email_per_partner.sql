-- Partner users (docs/portal.md, "Users and roles"): an address is unique per partner, and among the
-- users who can sign in (a password set), not across every row. An admin may therefore invite an
-- address that already has an account at another partner: the invitation is written and emailed like
-- any other, and the console answers the same — it no longer tells one partner that an address has
-- an account at another. The invited person learns, when following the link, that the address is
-- already in use; the inviting partner sees an invitation never accepted.
ALTER TABLE users DROP CONSTRAINT users_email_key;
CREATE UNIQUE INDEX users_partner_email ON users (partner_id, email);
-- sign-in finds one account per address: at most one row with a password
CREATE UNIQUE INDEX users_signin_email ON users (email) WHERE password_hash IS NOT NULL;
