-- A leg's claim voided by the claim desk (0052) no longer bars the leg from ever getting another one:
-- an operator who records the flight's true outcome (`parasol flights event`, the operator token's
-- POST /claims) opens a new claim on a leg whose claim was voided because the flight data that
-- opened it was wrong (docs/OPERATOR.md, "The claim desk"; docs/DECISIONS.md, "A new claim after a
-- void"). Exactly-once now reads "at most one claim per leg that is not voided": the unique key on
-- leg_id becomes a partial unique index (the ON CONFLICT target of claims' opening names its
-- predicate), and a plain index on leg_id keeps every claim of a leg, voided ones included, one index
-- look-up away (completion). `voided` is final (never reopened), so a voided claim never comes back
-- into the unique index.
-- Not across a rolling update (docs/OPERATIONS.md): the previous version's `ON CONFLICT (leg_id)`
-- infers no partial index.
CREATE UNIQUE INDEX claims_live_leg_key ON claims (leg_id) WHERE status <> 'voided';
CREATE INDEX claims_leg_id_idx ON claims (leg_id);
ALTER TABLE claims DROP CONSTRAINT claims_leg_id_key;

-- The leg remembers its claim's void, and why (the desk's choice, `parasol claims void --cause`):
-- `flight_data` (the flight data that opened the claim was wrong: an operator's true outcome may open
-- a new claim) or `other` (fraud, sanctions, duplicate…: never replaced). On the leg rather than only
-- in the audit trail because claims' opening share-locks the leg row: a void committing while a claim
-- opens is waited for and its mark re-read (a NOT EXISTS on voided claims read the statement's
-- snapshot, and missed a void committed meanwhile). The latest void's: a replacement voided in turn
-- sets them again.
ALTER TABLE contract_legs
  ADD COLUMN claim_voided_at timestamptz,
  ADD COLUMN claim_void_cause text CHECK (claim_void_cause IN ('flight_data', 'other')),
  ADD CONSTRAINT contract_legs_claim_void_check CHECK ((claim_voided_at IS NULL) = (claim_void_cause IS NULL));

-- Voids before this migration recorded no cause: `other`, never replaced (the safe reading).
UPDATE contract_legs l SET claim_voided_at = v.voided_at, claim_void_cause = 'other'
FROM (SELECT leg_id, max(updated_at) AS voided_at FROM claims WHERE status = 'voided' GROUP BY leg_id) v
WHERE v.leg_id = l.id;

-- One-off repair: until this version, contract completion read a leg without a claim as over
-- (`NOT (status settled OR (no claim AND flown))` is NULL there, and the row was left out), so a
-- round trip whose outbound claim settled (paid, expired, voided) was completed with its return still
-- to fly, and that flight would open it no claim (only active contracts get one). Such contracts are
-- active again: those with a leg that has no claim, whose flight is not decided (the completion's
-- "flown": claims-repo.ts `over`) and whose departure is ahead or within the monitoring's 7-day
-- look-back (MONITORING_SCHEDULE.planningLookbackDays: the planner watches such a leg again, reopening
-- its closed watch). Each with its audit row, `reopened` for `completion_bug`. Older ones stay
-- completed: docs/OPERATIONS.md lists them and their remedy (`parasol flights event`).
WITH reopened AS (
  UPDATE contracts c SET status = 'active'
  WHERE c.status = 'completed'
    AND EXISTS (
      SELECT 1 FROM contract_legs l
      WHERE l.contract_id = c.id AND l.departure_at > now() - interval '7 days'
        AND NOT EXISTS (SELECT 1 FROM claims cl WHERE cl.leg_id = l.id)
        AND NOT EXISTS (
          SELECT 1 FROM flight_watches w
          WHERE w.environment = l.environment AND w.flight_number = l.monitored_flight_number
            AND w.departure_date = l.departure_date AND w.state = 'decided'))
  RETURNING c.contract_number, c.partner_id, c.environment
)
INSERT INTO audit_log (actor, partner_id, environment, entity, entity_id, action, data)
SELECT 'system', partner_id, environment, 'contract', contract_number, 'reopened', '{"reason": "completion_bug"}'::jsonb
FROM reopened;
