-- The money ledger (issue 14 §1): every money movement, written in the transaction of the change
-- that causes it, in integer minor units of its currency. Append-only: a trigger refuses UPDATE and
-- DELETE; a correction is a new entry (`corrects` names the entry it corrects). Every report
-- (bordereaux, partner statements) is a query over this table, so they reconcile to the cent.
CREATE TABLE ledger_entries (
  id           bigserial PRIMARY KEY,
  partner_id   uuid NOT NULL REFERENCES partners(id),
  environment  text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  kind         text NOT NULL CHECK (kind IN ('premium_written', 'tax', 'commission', 'refund', 'compensation_paid', 'payout_failed')),
  -- signed: a commission given back on cancellation is a negative commission entry
  amount       bigint NOT NULL,
  currency     char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  contract_id  uuid NOT NULL REFERENCES contracts(id),
  claim_id     uuid REFERENCES claims(id),
  payout_id    uuid REFERENCES payouts(id),
  -- the business event behind the entry ('contract:<id>:written', 'payout:<id>:<attempt>:paid'…):
  -- one entry per event and kind, so a retried job or a backfill run twice writes nothing twice
  event_key    text NOT NULL,
  occurred_at  timestamptz NOT NULL,
  corrects     bigint REFERENCES ledger_entries(id),
  recorded_by  text NOT NULL,
  recorded_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_key, kind)
);
CREATE INDEX ledger_entries_period ON ledger_entries (partner_id, environment, occurred_at);
CREATE INDEX ledger_entries_contract ON ledger_entries (contract_id);
CREATE INDEX ledger_entries_claim ON ledger_entries (claim_id) WHERE claim_id IS NOT NULL;

CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only: write a correcting entry instead';
END;
$$;
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();
