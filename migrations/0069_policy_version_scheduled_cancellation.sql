-- The Policy Admin API after the sale (docs/policies.md, docs/DECISIONS.md "A policy's ETag is its
-- version", "A cancellation from a later date is scheduled").
--
-- version: 1 at creation, +1 with every change written on the policy (by its own call or carried from
-- another term); its ETag, which If-Match compares under the policy's lock, so of two writes read from
-- one version exactly one is applied. Re-sealing its columns (master-key rotation) changes no version.
ALTER TABLE policies ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);

-- A cancellation from a later date than the day it is recorded (and not from the policy's inception) is
-- scheduled: the policy keeps its status, pending or active, and reads cancelled from that date on
-- (as expiry, derived when read). The cancellation is recorded (cancelled_at, the date, the reason)
-- while the status is not yet cancelled: a cancelled status still needs one.
ALTER TABLE policies
  DROP CONSTRAINT policies_check1,
  ADD CONSTRAINT policies_cancelled_recorded CHECK (status <> 'cancelled' OR cancelled_at IS NOT NULL);

-- Policies cancelled before from a date still to come went cancelled at once: they are in force until
-- that date, with the status they had (the `cancelled` audit row's previousStatus; active without it).
-- "Still to come" against today in UTC, as the app reads it (todayOf), not the session's time zone.
UPDATE policies p
   SET status = coalesce(
         (SELECT a.data ->> 'previousStatus'
            FROM audit_log a
           WHERE a.entity = 'policy' AND a.entity_id = p.policy_number AND a.action = 'cancelled'
             AND a.data ->> 'previousStatus' IN ('pending', 'active')
           ORDER BY a.id DESC
           LIMIT 1),
         'active')
 WHERE p.status = 'cancelled'
   AND p.cancellation_date > (now() AT TIME ZONE 'UTC')::date
   AND p.cancellation_date > p.effective_date;
