-- Several processes, one platform (issue 12 §1): per-partner rate limits, the circuit breaker's state
-- per flight-data provider shared by every worker, and change notifications (LISTEN/NOTIFY) so that
-- key revocations, configuration, agreement, limits and model changes reach every process at once.

-- The operator's rate limits for one partner, per operation class, in requests per minute per API
-- key; NULL = the platform default of that class (PARASOL_RATE_LIMIT_*_PER_MINUTE).
CREATE TABLE partner_rate_limits (
  partner_id        uuid PRIMARY KEY REFERENCES partners(id),
  quote_per_minute  integer CHECK (quote_per_minute > 0),
  write_per_minute  integer CHECK (write_per_minute > 0),
  read_per_minute   integer CHECK (read_per_minute > 0),
  updated_by        text NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- The circuit breaker of each flight-data provider, shared by every worker process: one process's
-- finding that a provider is down protects the others.
CREATE TABLE provider_circuits (
  provider          text PRIMARY KEY,
  state             text NOT NULL DEFAULT 'closed' CHECK (state IN ('closed', 'open', 'half_open')),
  failures          integer NOT NULL DEFAULT 0,
  opened_until      timestamptz,
  probe_started_at  timestamptz,
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Every change to what processes cache sends the table's name on channel parasol_changes, at
-- commit, whichever process (API, worker, CLI) made it. PostgreSQL folds identical notifications
-- of one transaction into one.
CREATE FUNCTION parasol_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('parasol_changes', TG_TABLE_NAME);
  RETURN NULL;
END
$$;

CREATE TRIGGER partners_changed AFTER INSERT OR UPDATE OR DELETE ON partners FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();
CREATE TRIGGER agreements_changed AFTER INSERT OR UPDATE OR DELETE ON agreements FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();
CREATE TRIGGER api_subscriptions_changed AFTER INSERT OR UPDATE OR DELETE ON api_subscriptions FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();
CREATE TRIGGER partner_configurations_changed AFTER INSERT OR UPDATE OR DELETE ON partner_configurations FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();
-- not last_used_at: key usage is written every few seconds and changes nothing cached
CREATE TRIGGER api_keys_changed AFTER INSERT OR DELETE OR UPDATE OF partner_id, environment, key_hash, revoked_at ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();
CREATE TRIGGER exposure_caps_changed AFTER INSERT OR UPDATE OR DELETE ON exposure_caps FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();
CREATE TRIGGER stop_sales_changed AFTER INSERT OR UPDATE OR DELETE ON stop_sales FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();
CREATE TRIGGER risk_model_activations_changed AFTER INSERT OR UPDATE OR DELETE ON risk_model_activations FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();
CREATE TRIGGER partner_rate_limits_changed AFTER INSERT OR UPDATE OR DELETE ON partner_rate_limits FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();
