-- Renewal of a policy for a new term (docs/policies.md, docs/DECISIONS.md "Policy renewal"): the
-- renewal is a policy of its own, with its own number, linked both ways to the term it follows.
-- Each link is unique: a policy is renewed at most once, and a renewal renews one policy.
ALTER TABLE policies ADD COLUMN renews_policy_number text UNIQUE REFERENCES policies (policy_number);
ALTER TABLE policies ADD COLUMN renewed_by_policy_number text UNIQUE REFERENCES policies (policy_number);
