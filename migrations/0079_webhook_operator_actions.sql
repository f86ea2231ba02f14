-- The operator console's webhooks page (src/web/admin-webhook-routes.ts): "Send a test event" and
-- "Send again" are done once per one-time token of the page (as the claim desk's forms, 0031), so a
-- double submit queues one test delivery, one redelivery — not two. One row per action done: the
-- page's token, the action (`test` of an endpoint, `redeliver` of a delivery) and its target, and
-- what it queued (the delivery, its event and attempt), answered again to a repeated submit. The
-- target lock each action takes first (the endpoint's, the delivery's row) serialises two submits.
-- Additive: a previous version neither reads nor writes it.
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
