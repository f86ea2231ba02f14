-- An operator's on_time, delay or diversion is refused before the flight departs; a flight every
-- contract moved off (a flight change, a leg's cancellation) finds its departure in the versions of
-- those contracts (monitoring/watches-repo.ts, scheduledDepartureOf). It looks them up by containment
-- (`flights @> '[{"flightNumber": "AF006"}]'`, and operatingFlightNumber), which this index answers
-- instead of reading every version. Additive: the previous version never reads contract_versions
-- by its flights, and only pays the index's upkeep on a contract's change.
CREATE INDEX contract_versions_flights ON contract_versions USING gin (flights jsonb_path_ops);
