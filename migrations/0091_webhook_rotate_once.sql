-- The partner console's "Rotate the secret" is done once per one-time token of the page, as "Send a
-- test event" and "Send again" are (0079): a double click rotated twice, and the first new secret
-- shown was lost. Its row (`rotate`, the endpoint as target) queues nothing: no delivery, event or
-- attempt, so those three may be NULL for it — and for it only. A token's partner is then read
-- through the endpoint rotated. Additive: a previous version never writes `rotate` and never
-- matches its rows (its checks read `test` and `redeliver`, through their deliveries).
ALTER TABLE webhook_operator_actions DROP CONSTRAINT webhook_operator_actions_action_check;
ALTER TABLE webhook_operator_actions
  ADD CONSTRAINT webhook_operator_actions_action_check CHECK (action IN ('test', 'redeliver', 'rotate'));
ALTER TABLE webhook_operator_actions
  ALTER COLUMN delivery_id DROP NOT NULL,
  ALTER COLUMN event_id DROP NOT NULL,
  ALTER COLUMN attempt DROP NOT NULL;
ALTER TABLE webhook_operator_actions
  ADD CONSTRAINT webhook_operator_actions_queued CHECK (
    action = 'rotate' OR (delivery_id IS NOT NULL AND event_id IS NOT NULL AND attempt IS NOT NULL)
  );
