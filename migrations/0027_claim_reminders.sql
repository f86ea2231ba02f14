-- Reminders before a claim expires (issue 14 §3): the due date the customer was last reminded of.
-- A claim waiting for (new) bank details is reminded once per due date: the reminder sets this
-- column to the claim's bank_details_due_at in the transaction that issues the new link and writes
-- the SMS, under the claim's row lock, so a retried or concurrent reminder job sends nothing twice.
-- A rejected payment gives a new due date, hence one more reminder before that one.
ALTER TABLE claims ADD COLUMN reminded_due_at timestamptz;
