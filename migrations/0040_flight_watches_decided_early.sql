-- Flights decided before their scheduled departure (an operator's or a simulated event: a cancellation
-- known ahead). Legs can still be sold on such a flight until shortly before it departs; the planner
-- (monitoring/plan-watches.ts) gives them the flight's decision every 5 minutes, reading only these
-- watches — few, where decided watches are one per flight and day, for ever.
CREATE INDEX flight_watches_decided_early ON flight_watches (scheduled_departure)
  WHERE state = 'decided' AND decided_at < scheduled_departure;
