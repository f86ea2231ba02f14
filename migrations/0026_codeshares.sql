-- Codeshares (issue 13 §1): a leg sold under the marketing flight the customer booked (AF3612) may
-- be flown as another airline's flight (DL264). flight_number stays the marketing flight, the one
-- shown to the partner and the customer (claims, SMS, the customer's page, webhooks);
-- operating_flight_number is the flight that flies, when it differs (NULL: the leg flies under its
-- own number). Monitoring, flight events and claim opening key on monitored_flight_number, the
-- flight actually watched: the operating flight when named, else the marketing one.
ALTER TABLE contract_legs
  ADD COLUMN operating_flight_number text CHECK (operating_flight_number ~ '^[A-Z0-9]{2}[0-9]{1,4}[A-Z]?$');
ALTER TABLE contract_legs
  ADD COLUMN monitored_flight_number text GENERATED ALWAYS AS (coalesce(operating_flight_number, flight_number)) STORED;

-- monitoring and flight events find legs by the flight that flies
DROP INDEX contract_legs_flight;
CREATE INDEX contract_legs_flight ON contract_legs (monitored_flight_number, departure_date, environment);
