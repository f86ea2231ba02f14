-- The console's Failing flag (webhooks-repo.ts, endpointHealth) reads, for the endpoints of a page,
-- their deliveries attempted in the last 24 hours: by endpoint_id and last_attempt_at, which no
-- index served (the only one on endpoint_id is partial, pending deliveries only), so every listing
-- of the console read the whole table. Additive: the previous version only pays the index's upkeep.
CREATE INDEX webhook_deliveries_endpoint_attempts ON webhook_deliveries (endpoint_id, last_attempt_at);
