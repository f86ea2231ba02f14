-- Every contract records the version of the risk model its quote was priced with (the signed quote
-- carries it). Contracts sold before this migration were all priced by version 1, the only model
-- there was; the default fills them in and is then dropped, so a new contract must name its version.
ALTER TABLE contracts ADD COLUMN risk_model_version text NOT NULL DEFAULT 'v1'
  CHECK (length(risk_model_version) BETWEEN 1 AND 64);
ALTER TABLE contracts ALTER COLUMN risk_model_version DROP DEFAULT;
