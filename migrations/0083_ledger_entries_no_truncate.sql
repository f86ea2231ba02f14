-- The ledger is append-only (migration 0023): its row trigger refuses UPDATE and DELETE, but TRUNCATE
-- fires no row trigger, so one statement (or a TRUNCATE … CASCADE of a table it references) could
-- empty it. A statement trigger refuses it too, with the same message; a correction is a new entry.
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_append_only();
