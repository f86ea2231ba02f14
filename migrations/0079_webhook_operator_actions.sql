-- The operator console's webhooks page (src/web/admin-webhook-routes.ts): "Send a test event" and
-- "Send again" are done once per one-time token of the page (as the claim desk's forms, 0031), so a
-- double submit queues one test delivery, one redelivery — not two. One row per action done: the
-- page's token, the action (`test` of an endpoint, `redeliver` of a delivery) and its target, and
-- what it queued (the delivery, its event and attempt), answered again to a repeated submit. The
-- target lock each action takes first (the endpoint's, the delivery's row) serialises two submits.
-- The rows are kept on purpose, never swept: one per operator action (a few a day, tiny), and they
-- are an audit of what each submitted form did. Additive: a previous version neither reads nor
-- writes it.
CREATE TABLE webhook_operator_actions (
  action_token text NOT NULL,
  action       text NOT NULL CHECK (action IN ('test', 'redeliver')),
  target_id    uuid NOT NULL,
  delivery_id  uuid NOT NULL REFERENCES webhook_deliveries(id),
  event_id     text NOT NULL,
  attempt      integer NOT NULL,
  actor        text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (action_token, action, target_id)
);

-- Each delivery's latest successful attempt, set by the delivery job when an attempt succeeds and
-- never cleared: a delivery sent again keeps it, even when the re-send fails (its status then says
-- failed). An endpoint's latest success (its health's failing flag, since when it fails) is then one
-- backward scan of the index below, not a search of the attempts. Backfilled from the attempts.
-- Additive: a previous version does not set it — a success it records while both run is missed
-- (the endpoint may show failing from an earlier date until its next success).
ALTER TABLE webhook_deliveries ADD COLUMN succeeded_at timestamptz;

UPDATE webhook_deliveries d SET succeeded_at = s.at
FROM (
  SELECT delivery_id, max(at) AS at FROM webhook_delivery_attempts WHERE error IS NULL GROUP BY delivery_id
) s
WHERE s.delivery_id = d.id;

CREATE INDEX webhook_deliveries_endpoint_succeeded_idx ON webhook_deliveries (endpoint_id, succeeded_at);
