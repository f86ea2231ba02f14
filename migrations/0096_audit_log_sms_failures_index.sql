-- `parasol sms failures` (sms-repo.ts, listPlatformFailures) reads the SMS audit rows a failure of the
-- platform's side writes (`sms_undelivered`, `sms_rejected`), newest first, at most a page of them: the
-- only index serving them (audit_log_entity, on entity and id) gave every SMS audit row since the first,
-- each one read to test its action and time — a read that grew with every message sent. Partial: only
-- those rows, by time (as 0084). Additive: the previous version only pays the index's upkeep.
CREATE INDEX audit_log_sms_failures ON audit_log (at)
  WHERE entity = 'sms' AND action IN ('sms_undelivered', 'sms_rejected');
