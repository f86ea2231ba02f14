-- Renewal of a policy for a new term (docs/policies.md, docs/DECISIONS.md "Policy renewal"): the
-- renewal is a policy of its own, with its own number, linked both ways to the term it follows.
-- Each link is unique: a policy is renewed at most once, and a renewal renews one policy — but for
-- renewals cancelled: a renewal cancelled from its inception releases the policy it renewed, which
-- can be renewed again (docs/DECISIONS.md "Cancelling a renewed policy"), and keeps its link.
ALTER TABLE policies ADD COLUMN renews_policy_number text REFERENCES policies (policy_number);
CREATE UNIQUE INDEX policies_renews ON policies (renews_policy_number) WHERE status <> 'cancelled';
ALTER TABLE policies ADD COLUMN renewed_by_policy_number text UNIQUE REFERENCES policies (policy_number);
-- The term as sold, which activation never moves (docs/DECISIONS.md "Late activation", "Policy
-- renewal"): term_start_date is the effective date recorded at creation (a late activation moves
-- effective_date, the start of cover, not this), anniversary_date the first term's start, carried
-- from term to term, whose day of month a renewal of whole months keeps (clamped to a short month's end).
ALTER TABLE policies ADD COLUMN term_start_date date;
ALTER TABLE policies ADD COLUMN anniversary_date date;
UPDATE policies SET term_start_date = effective_date, anniversary_date = effective_date;
ALTER TABLE policies ALTER COLUMN term_start_date SET NOT NULL;
ALTER TABLE policies ALTER COLUMN anniversary_date SET NOT NULL;

-- A correction of a policyholder's name or birth date (docs/DECISIONS.md "Correcting a policyholder's
-- identity"): the fields corrected before and after, each side a JSON sealed with the master key, in
-- `*_enc` columns so that master-key rotation re-seals them (src/platform/sealed-columns-repo.ts). The
-- `policyholder_changed` audit row names the correction by its id.
CREATE TABLE policy_corrections (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  policy_id   uuid NOT NULL REFERENCES policies (id),
  reason      text NOT NULL,
  before_enc  text NOT NULL,
  after_enc   text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX policy_corrections_policy ON policy_corrections (policy_id);
