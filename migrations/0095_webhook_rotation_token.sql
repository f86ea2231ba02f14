-- The one-time token of the rotation that set an endpoint's current secret (the partner console's
-- "Rotate the secret", 0091), NULL when a rotation without one (the API, the CLI without --once) set
-- it or before any. A second submit of the same form shows the secret again only while this column
-- still names its token: "no rotation since" is this link, not the previous secret's end compared to
-- the rotation's instant plus the grace to the millisecond (which a change of the grace, or an instant
-- stored at another precision, would break). The rotations under way at this migration are linked as
-- the previous version judged them. Additive: the previous version ignores the column.
ALTER TABLE webhook_endpoints ADD COLUMN secret_rotation_token text;
UPDATE webhook_endpoints e
   SET secret_rotation_token = a.action_token
  FROM webhook_operator_actions a
 WHERE a.action = 'rotate'
   AND a.target_id = e.id
   AND e.previous_secret_expires_at = a.created_at + interval '24 hours';
