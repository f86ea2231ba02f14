-- Flight monitoring (docs/monitoring.md). One watch per flight, shared by every contract leg on it:
-- the flight is the designator AS THE LEGS STORE IT (claims are opened by that exact string) and
-- the local departure date. The planner creates watches set-wise, the dispatcher leases the due
-- ones (next_check_at) and queues one check job per watch.
CREATE TABLE flight_watches (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment          text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  flight_number        text NOT NULL,
  departure_date       date NOT NULL,
  -- the route and departure instant of the insured legs (refreshed at every check)
  origin               char(3) NOT NULL,
  destination          char(3) NOT NULL,
  scheduled_departure  timestamptz NOT NULL,
  -- scheduled gate arrival, learnt from the provider's answers: the schedule and deadline hang on it
  scheduled_arrival    timestamptz,
  -- watching → decided | manual_review | closed (no active contract left on the flight)
  state                text NOT NULL DEFAULT 'watching' CHECK (state IN ('watching', 'decided', 'manual_review', 'closed')),
  -- when the next check is due (pushed forward by the dispatcher's lease); only while watching
  next_check_at        timestamptz,
  checks               integer NOT NULL DEFAULT 0 CHECK (checks >= 0),
  consecutive_errors   integer NOT NULL DEFAULT 0 CHECK (consecutive_errors >= 0),
  last_checked_at      timestamptz,
  -- what the last check ended with: pending:not_final, unknown_flight, error:timeout, circuit_open…
  last_outcome         text,
  -- the last status record received (the evidence format of monitoring/flight-event.ts)
  last_status          jsonb,
  last_error           text,
  -- { kind, arrivalDelayMinutes?, claimsOpened, source }
  decision             jsonb,
  review_reason        text,
  decided_at           timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment, flight_number, departure_date),
  CHECK ((state = 'watching') = (next_check_at IS NOT NULL)),
  CHECK ((state = 'decided') = (decision IS NOT NULL))
);
-- the dispatcher: due watches, oldest first
CREATE INDEX flight_watches_due ON flight_watches (next_check_at) WHERE state = 'watching';
-- the planner: active legs departing in its window
CREATE INDEX contract_legs_departure ON contract_legs (departure_at);

-- What the sandbox / preproduction flight simulator makes a flight do (`parasol flights simulate`),
-- shared by every process and kept across restarts. One event per flight: flight_number is the
-- canonical designator (airline + number without leading zeros + suffix: AF006 and AF6 → AF6).
CREATE TABLE simulated_flight_events (
  environment            text NOT NULL CHECK (environment IN ('sandbox', 'preproduction')),
  flight_number          text NOT NULL,
  departure_date         date NOT NULL,
  status                 text NOT NULL CHECK (status IN ('on_time', 'delayed', 'cancelled', 'diverted')),
  arrival_delay_minutes  integer CHECK (arrival_delay_minutes >= 0),
  diverted_to            text,
  set_at                 timestamptz NOT NULL DEFAULT now(),
  set_by                 text NOT NULL,
  PRIMARY KEY (environment, flight_number, departure_date),
  CHECK ((status = 'delayed') = (arrival_delay_minutes IS NOT NULL)),
  CHECK (diverted_to IS NULL OR status = 'diverted')
);
