-- The metrics' parasol_flight_watches_manual_review{environment} (platform/metrics.ts) counts, at
-- every scrape, the flights the monitoring gave to an operator (state manual_review): no index served
-- them (flight_watches_due holds the watching ones only), so each scrape read the whole table, which
-- grows by a row per insured flight. Partial: only the few watches waiting for an operator. Additive:
-- the previous version only pays the index's upkeep.
CREATE INDEX flight_watches_manual_review ON flight_watches (environment) WHERE state = 'manual_review';
