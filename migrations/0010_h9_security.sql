-- Hardening (issue 9, security defects).

-- Sign-in: every attempt is counted (atomically, before its password is checked), not only failures.
ALTER TABLE login_throttle RENAME COLUMN failures TO attempts;
