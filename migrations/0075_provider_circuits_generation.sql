-- The circuit breaker's generation (platform/circuit-breaker.ts): incremented each time a provider's
-- circuit opens, carried by every permit to call, so that an answer to a call made before it opened
-- (a straggler) neither closes it nor counts as the half-open probe's. Additive: a previous version
-- ignores the column (its default keeps inserts working); the table holds a row per provider.
ALTER TABLE provider_circuits ADD COLUMN generation integer NOT NULL DEFAULT 0;
