-- The API processes cache each partner's live webhook endpoints (src/webhooks/endpoint-cache.ts), so
-- that emitting an event in a sale's transaction costs no lookup: any change to an endpoint, whoever
-- makes it (an API process, the console, the CLI), tells every process on parasol_changes at commit
-- (the function of migration 0019), and each drops what it cached.
CREATE TRIGGER webhook_endpoints_changed AFTER INSERT OR UPDATE OR DELETE ON webhook_endpoints FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();
