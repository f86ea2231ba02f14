-- Limits on accumulation (docs/limits.md).
-- A flight, for exposure, is what a quote can name: airline, departure and arrival airports and the
-- scheduled departure in local time at the departure airport ('YYYY-MM-DDTHH:mm'); per environment
-- and currency. `amount` is the sum, over its active contract legs, of the highest payout each can
-- make (per passenger × passengers), in minor units. Subscribe adds in its transaction with a
-- conditional upsert that never lets it pass the cap; a cancellation subtracts.
CREATE TABLE flight_exposure (
  environment        text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  currency           char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  airline            text NOT NULL,
  departure_airport  text NOT NULL,
  arrival_airport    text NOT NULL,
  departure_local    text NOT NULL,
  departure_at       timestamptz NOT NULL,
  amount             bigint NOT NULL CHECK (amount >= 0),
  legs               integer NOT NULL CHECK (legs >= 0),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment, currency, airline, departure_airport, arrival_airport, departure_local)
);
-- contracts already active when this migration runs count from the start
INSERT INTO flight_exposure (environment, currency, airline, departure_airport, arrival_airport, departure_local, departure_at, amount, legs)
SELECT l.environment, c.currency, l.airline, l.departure_airport, l.arrival_airport, l.departure_local, min(l.departure_at),
       sum(c.passengers * GREATEST((c.coverage->>'cancellationAmount')::bigint,
                                   COALESCE((SELECT max((t->>'amount')::bigint) FROM jsonb_array_elements(c.coverage->'delayTiers') t), 0))),
       count(*)
FROM contract_legs l JOIN contracts c ON c.id = l.contract_id
WHERE c.status = 'active'
GROUP BY l.environment, c.currency, l.airline, l.departure_airport, l.arrival_airport, l.departure_local;
-- the console's and the quote snapshot's reads: upcoming flights by exposure
CREATE INDEX flight_exposure_upcoming ON flight_exposure (departure_at, amount);

-- The operator's cap per environment and currency, in minor units; absent = the documented default.
CREATE TABLE exposure_caps (
  environment  text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  currency     char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  amount       bigint NOT NULL CHECK (amount > 0),
  updated_by   text NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment, currency)
);

-- Stop-sales: no quote nor subscription for a leg that matches every scope column given (airline;
-- airport at either end; departure and arrival airports) and departs within [starts_at, ends_at),
-- in one environment or all (NULL), until the operator resumes sales (resumed_at).
CREATE TABLE stop_sales (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment        text CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  airline            text,
  airport            text,
  departure_airport  text,
  arrival_airport    text,
  starts_at          timestamptz NOT NULL,
  ends_at            timestamptz NOT NULL,
  reason             text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
  created_by         text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  resumed_at         timestamptz,
  resumed_by         text,
  CHECK (ends_at > starts_at),
  CHECK (airline IS NOT NULL OR airport IS NOT NULL OR departure_airport IS NOT NULL),
  CHECK ((departure_airport IS NULL) = (arrival_airport IS NULL))
);
CREATE INDEX stop_sales_live ON stop_sales (ends_at) WHERE resumed_at IS NULL;
