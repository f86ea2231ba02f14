-- Since when an endpoint fails (webhooks-repo.ts, failingSince: the operator webhooks page) looks, in each delivery attempted after the endpoint's latest
-- success, for its first failed attempt after it: only the primary key (delivery_id, attempt) served
-- it, and for an endpoint failing for weeks the planner preferred a hash join reading every failed
-- attempt of the table (~0.5 s on 1M attempts). Per delivery, its failed attempts by time: the first
-- after the success is one probe of this index. Partial: only failed attempts (a healthy platform's
-- are few). Additive: the previous version only pays the index's upkeep.
CREATE INDEX webhook_delivery_attempts_failed ON webhook_delivery_attempts (delivery_id, at)
  WHERE error IS NOT NULL;
