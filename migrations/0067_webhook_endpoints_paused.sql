-- Why and since when an endpoint is paused (docs/webhooks.md, "Paused endpoints"): 'manual' (the
-- partner or an operator), 'gone' (the receiver answered 410 Gone), 'failing' (no successful attempt
-- for days: webhooks_pause_failing). Both NULL while it is enabled. resumed_at: when it was last
-- enabled again or its URL changed; the failing sweep does not count the attempts made before it.
-- Additive: the previous version ignores the columns (an endpoint it pauses has no reason: shown as manual).
ALTER TABLE webhook_endpoints
  ADD COLUMN paused_reason text CHECK (paused_reason IN ('manual', 'gone', 'failing')),
  ADD COLUMN paused_at timestamptz(3),
  ADD COLUMN resumed_at timestamptz(3);

-- the endpoints paused before: the reason their latest 'disabled' audit row gives ('gone' from a 410,
-- else manual), at that row's time (else the endpoint's last change)
UPDATE webhook_endpoints e
SET paused_reason = CASE WHEN a.data->>'reason' = 'gone' THEN 'gone' ELSE 'manual' END,
    paused_at = coalesce(a.at, e.updated_at)
FROM webhook_endpoints e2
LEFT JOIN LATERAL (
  SELECT l.at, l.data FROM audit_log l
  WHERE l.entity = 'webhook_endpoint' AND l.entity_id = e2.id::text AND l.action = 'disabled'
  ORDER BY l.at DESC, l.id DESC LIMIT 1
) a ON true
WHERE e2.id = e.id AND NOT e.enabled AND e.removed_at IS NULL;

-- the endpoints resumed before: their latest 'enabled' audit row (written only on a resume, after a
-- 'disabled'), so the sweep does not count the failures from before their pause
UPDATE webhook_endpoints e
SET resumed_at = a.at
FROM (
  SELECT l.entity_id, max(l.at) AS at FROM audit_log l
  WHERE l.entity = 'webhook_endpoint' AND l.action = 'enabled'
    AND EXISTS (
      SELECT 1 FROM audit_log p
      WHERE p.entity = 'webhook_endpoint' AND p.entity_id = l.entity_id AND p.action = 'disabled' AND p.at <= l.at
    )
  GROUP BY l.entity_id
) a
WHERE a.entity_id = e.id::text AND e.enabled AND e.removed_at IS NULL;
