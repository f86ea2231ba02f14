-- Amendable agreements (issue 14 §2): a signed agreement is version 1; an amendment is a new version
-- with its own terms, an effective instant (never in the past when signed) and who signed it, when
-- and why. Versions are immutable rows. The version in force at an instant is the highest version
-- whose effective instant has passed; quotes are priced under it and every contract records it.
-- `agreements` keeps the original agreement (the draft, then version 1's status and signature).
CREATE TABLE agreement_versions (
  partner_id        uuid NOT NULL REFERENCES partners(id),
  version           integer NOT NULL CHECK (version > 0),
  allowed_formulas  text[] NOT NULL CHECK (cardinality(allowed_formulas) > 0),
  currency          char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  tax_rate          numeric(6, 5) NOT NULL CHECK (tax_rate >= 0 AND tax_rate < 1),
  commission_min    numeric(6, 5) NOT NULL CHECK (commission_min >= 0),
  commission_max    numeric(6, 5) NOT NULL CHECK (commission_max <= 0.9 AND commission_max >= commission_min),
  compensation_min  bigint NOT NULL CHECK (compensation_min > 0),
  compensation_max  bigint NOT NULL CHECK (compensation_max >= compensation_min),
  effective_at      timestamptz NOT NULL,
  signed_at         timestamptz NOT NULL,
  signed_by         text NOT NULL CHECK (length(signed_by) BETWEEN 1 AND 200),
  reason            text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
  PRIMARY KEY (partner_id, version)
);

-- Signed is signed: a version is never changed nor removed.
CREATE FUNCTION agreement_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'agreement versions are immutable once signed';
END;
$$;
CREATE TRIGGER agreement_versions_immutable BEFORE UPDATE OR DELETE ON agreement_versions FOR EACH ROW EXECUTE FUNCTION agreement_versions_immutable();
CREATE TRIGGER agreement_versions_changed AFTER INSERT OR UPDATE OR DELETE ON agreement_versions FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();

-- Every agreement signed before is version 1, in force since its signature.
INSERT INTO agreement_versions (partner_id, version, allowed_formulas, currency, tax_rate, commission_min, commission_max,
                                compensation_min, compensation_max, effective_at, signed_at, signed_by, reason)
SELECT partner_id, 1, allowed_formulas, currency, tax_rate, commission_min, commission_max,
       compensation_min, compensation_max, signed_at, signed_at, coalesce(signed_by, 'unknown'), 'original agreement'
FROM agreements WHERE status = 'signed';

-- The agreement version a contract was sold under; NULL when sold (sandbox only) under an unsigned
-- draft. Contracts sold before: version 1 when sold after its signature.
ALTER TABLE contracts ADD COLUMN agreement_version integer CHECK (agreement_version > 0);
UPDATE contracts c SET agreement_version = 1
FROM agreements a WHERE a.partner_id = c.partner_id AND a.status = 'signed' AND c.created_at >= a.signed_at;
