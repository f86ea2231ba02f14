-- Contracts after the sale (issue 13 §1): a contract changes (flight change, one passenger or one leg
-- cancelled) and keeps its number; each change makes a new version, recorded in contract_versions.

-- The contract's current version: 1 as sold, +1 per change.
ALTER TABLE contracts ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);

-- Each leg's share of the premium, per passenger, in minor units (src/flight/shares.ts): the contract's
-- premium is the sum over its legs of these shares times its passengers, exactly. A partial refund
-- gives back the shares of what it removes; a flight change replaces the changed legs' shares.
ALTER TABLE contract_legs
  ADD COLUMN share_net bigint CHECK (share_net >= 0),
  ADD COLUMN share_tax bigint CHECK (share_tax >= 0),
  ADD COLUMN share_commission bigint CHECK (share_commission >= 0 AND share_commission <= share_net);

-- Legs sold before: the per-passenger premium split equally over the contract's legs, the remainder
-- cent by cent to the first legs (every premium is a sum of per-passenger leg premiums times the
-- passengers, so it divides by the passengers exactly).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM contracts WHERE premium_net % passengers <> 0 OR premium_tax % passengers <> 0
                                        OR premium_commission % passengers <> 0) THEN
    RAISE EXCEPTION 'a contract premium does not divide by its passengers: shares cannot be backfilled';
  END IF;
END $$;
WITH ranked AS (
  SELECT l.id, c.premium_net / c.passengers AS net, c.premium_tax / c.passengers AS tax,
         c.premium_commission / c.passengers AS commission,
         (row_number() OVER (PARTITION BY l.contract_id ORDER BY l.leg_index) - 1) AS r,
         count(*) OVER (PARTITION BY l.contract_id) AS n
  FROM contract_legs l JOIN contracts c ON c.id = l.contract_id
)
UPDATE contract_legs l
SET share_net = ranked.net / ranked.n + CASE WHEN ranked.r < ranked.net % ranked.n THEN 1 ELSE 0 END,
    share_tax = ranked.tax / ranked.n + CASE WHEN ranked.r < ranked.tax % ranked.n THEN 1 ELSE 0 END,
    share_commission = ranked.commission / ranked.n + CASE WHEN ranked.r < ranked.commission % ranked.n THEN 1 ELSE 0 END
FROM ranked WHERE ranked.id = l.id;
ALTER TABLE contract_legs
  ALTER COLUMN share_net SET NOT NULL,
  ALTER COLUMN share_tax SET NOT NULL,
  ALTER COLUMN share_commission SET NOT NULL;

-- One row per version of a changed contract: version 1 (as sold) is written by the first change, so
-- a contract never changed has no row and a sale writes nothing more. No personal data: the flights,
-- the passengers count and the money.
CREATE TABLE contract_versions (
  contract_id         uuid NOT NULL REFERENCES contracts(id),
  version             integer NOT NULL CHECK (version >= 1),
  -- what made this version: 'subscribed' (version 1), 'flight_changed', 'passenger_cancelled', 'leg_cancelled'
  change              text NOT NULL CHECK (change IN ('subscribed', 'flight_changed', 'passenger_cancelled', 'leg_cancelled')),
  passengers          smallint NOT NULL CHECK (passengers BETWEEN 1 AND 10),
  -- the legs in force in this version: [{ leg, flightNumber, airline, departureAirport, arrivalAirport,
  -- departureLocal, departureAt, share: { net, tax, commission } }]
  flights             jsonb NOT NULL,
  premium_net         bigint NOT NULL CHECK (premium_net >= 0),
  premium_tax         bigint NOT NULL CHECK (premium_tax >= 0),
  premium_commission  bigint NOT NULL CHECK (premium_commission >= 0),
  premium_total       bigint NOT NULL CHECK (premium_total = premium_net + premium_tax),
  -- what the change cost the customer: > 0 charged, < 0 refunded, 0 for version 1 and even changes
  difference          bigint NOT NULL DEFAULT 0,
  -- the risk model version that priced the legs added by this change (the sale's for version 1)
  risk_model_version  text NOT NULL,
  reason              text,
  actor               text NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (contract_id, version)
);
