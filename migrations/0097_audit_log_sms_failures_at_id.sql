-- `parasol sms failures` (sms-repo.ts, listPlatformFailures) reads the SMS failure audit rows newest
-- first by (at, id) — two rows at one instant keep one order —, but 0096's partial index holds them by
-- `at` alone: EXPLAIN showed the planner read it, then sorted the joined rows again on (at, id) before
-- the limit (a Sort node on PostgreSQL 15; an Incremental Sort on id, its presorted key `at`, on PGlite
-- and with sorts discouraged). The same rows by (at, id) give the whole order: no sort, the limit
-- reached from the index. Built before the old one is dropped, in the migration's one transaction (the
-- drop's lock is brief). The previous version's query reads this index as it read 0096's.
CREATE INDEX audit_log_sms_failures_at_id ON audit_log (at, id)
  WHERE entity = 'sms' AND action IN ('sms_undelivered', 'sms_rejected');
DROP INDEX audit_log_sms_failures;
