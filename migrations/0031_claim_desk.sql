-- The operator's claim desk (issue 14 §4).
-- A claim under manual review is not paid automatically: the simulated bank's job and the SEPA batch
-- skip its payout (even one already queued) until an operator approves. Who put it under review, why
-- and when; approving clears the three (the audit log keeps both actions with their reasons).
ALTER TABLE claims ADD COLUMN manual_review_at timestamptz;
ALTER TABLE claims ADD COLUMN manual_review_by text;
ALTER TABLE claims ADD COLUMN manual_review_reason text;

-- One row per desk action done: the one-time token of the form (or of the CLI run) that asked for it.
-- A double submit of the same form finds its token here and does nothing again.
CREATE TABLE claim_desk_actions (
  action_token text PRIMARY KEY,
  claim_id     uuid NOT NULL REFERENCES claims(id),
  action       text NOT NULL,
  actor        text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX claim_desk_actions_claim ON claim_desk_actions (claim_id);

-- The claim page lists every message of a claim.
CREATE INDEX IF NOT EXISTS sms_outbox_claim ON sms_outbox (claim_id);
CREATE INDEX IF NOT EXISTS sms_messages_claim ON sms_messages (claim_id);
