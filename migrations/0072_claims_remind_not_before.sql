-- Quiet hours (notify/sms/quiet-hours.ts): a reminder due while it is night where the customer lives
-- waits; the reminder scan (claims-repo.ts, findClaimsToRemind) skips the claim until this instant.
-- Additive and nullable: the previous version neither writes nor reads it (it reminds at any hour).
ALTER TABLE claims ADD COLUMN remind_not_before timestamptz;
