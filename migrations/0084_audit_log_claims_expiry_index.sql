-- The claims bordereau (ledger-repo.ts, claimRows) reads the expiry batches (audit rows `claims_expired`,
-- entity `claims`, id `expiry`) from the first opening of its expired claims to the period's end: the
-- only index serving them (audit_log_entity, on entity and id) gave them all, since the first batch,
-- each one read to test its time — a read that grew with every month of the platform. Partial: only
-- those rows, by time. Additive: the previous version only pays the index's upkeep.
CREATE INDEX audit_log_claims_expiry ON audit_log (at)
  WHERE entity = 'claims' AND entity_id = 'expiry' AND action = 'claims_expired';
