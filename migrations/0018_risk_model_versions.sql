-- Risk model versions (docs/pricing.md, "Model versions"). Every fit is a new version, kept with its
-- artifact (the gzip JSON of src/risk/artifact.ts: sufficient statistics, so a refit adds the
-- platform's own observations without the original history files) and its data cut-off. The
-- operator chooses, per environment, which version prices new quotes.
CREATE TABLE risk_models (
  version        text PRIMARY KEY CHECK (version ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
  artifact       bytea NOT NULL,
  -- SHA-256 of the artifact bytes: two versions with the same bytes are the same model
  sha256         text NOT NULL,
  -- the last day of data the version was fitted on
  data_cutoff    date NOT NULL,
  -- 'history' (fitted from history files: the shipped default or `risk import`) or 'refit'
  -- (a history version plus every production flight the platform decided)
  source         text NOT NULL CHECK (source IN ('history', 'refit')),
  base_version   text REFERENCES risk_models(version),
  -- platform observations added on top of the base (0 for a history version)
  observations   integer NOT NULL DEFAULT 0 CHECK (observations >= 0),
  created_by     text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  CHECK ((source = 'refit') = (base_version IS NOT NULL))
);

-- Which version prices new quotes, per environment; changed by the operator only (audited).
CREATE TABLE risk_model_activations (
  environment   text PRIMARY KEY CHECK (environment IN ('sandbox', 'preproduction', 'production')),
  version       text NOT NULL REFERENCES risk_models(version),
  activated_by  text NOT NULL,
  activated_at  timestamptz NOT NULL DEFAULT now()
);
