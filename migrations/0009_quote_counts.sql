-- Quotes write nothing per quote (a signed reference carries them); each API process counts them in
-- memory per partner, environment and hour, and adds its counts here every few seconds — enough for
-- the partner console's quotes over time and quote-to-contract conversion.
CREATE TABLE quote_counts (
  partner_id   uuid NOT NULL REFERENCES partners(id),
  environment  text NOT NULL CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  hour         timestamptz NOT NULL,
  quotes       bigint NOT NULL CHECK (quotes >= 0),
  PRIMARY KEY (partner_id, environment, hour)
);
