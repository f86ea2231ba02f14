-- The compliance pack (issue 13 §2): the documents a customer must receive before buying (the
-- insurance product information document of IDD art. 20 and the terms) and the insurer's legal
-- identity and complaints contact, attached by the operator to a partner's agreement. Versions are
-- immutable rows: a quote signs the version it was issued with, so a new version applies to new
-- quotes only, and the contract records the customer's consent to the quoted version.
CREATE TABLE agreement_documents (
  partner_id            uuid NOT NULL REFERENCES partners(id),
  version               integer NOT NULL CHECK (version > 0),
  ipid_url              text NOT NULL CHECK (ipid_url ~ '^https://' AND length(ipid_url) <= 2000),
  ipid_version          text NOT NULL CHECK (length(ipid_version) BETWEEN 1 AND 40),
  ipid_sha256           char(64) NOT NULL CHECK (ipid_sha256 ~ '^[0-9a-f]{64}$'),
  terms_url             text NOT NULL CHECK (terms_url ~ '^https://' AND length(terms_url) <= 2000),
  terms_version         text NOT NULL CHECK (length(terms_version) BETWEEN 1 AND 40),
  terms_sha256          char(64) NOT NULL CHECK (terms_sha256 ~ '^[0-9a-f]{64}$'),
  insurer_name          text NOT NULL CHECK (length(insurer_name) BETWEEN 1 AND 200),
  insurer_registration  text NOT NULL CHECK (length(insurer_registration) BETWEEN 1 AND 200),
  insurer_address       text NOT NULL CHECK (length(insurer_address) BETWEEN 1 AND 500),
  insurer_regulator     text NOT NULL CHECK (length(insurer_regulator) BETWEEN 1 AND 200),
  complaints_email      text NOT NULL CHECK (length(complaints_email) BETWEEN 3 AND 254),
  complaints_url        text CHECK (complaints_url ~ '^https://' AND length(complaints_url) <= 2000),
  created_by            text NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (partner_id, version)
);

CREATE TRIGGER agreement_documents_changed AFTER INSERT OR UPDATE OR DELETE ON agreement_documents FOR EACH STATEMENT EXECUTE FUNCTION parasol_notify_change();

-- The customer's consent, as the partner reports it at /subscribe: when the customer accepted the
-- pre-contract documents, which version, through which channel. NULL on contracts sold before.
ALTER TABLE contracts ADD COLUMN consent_accepted_at timestamptz;
ALTER TABLE contracts ADD COLUMN consent_documents_version integer;
ALTER TABLE contracts ADD COLUMN consent_channel text CHECK (consent_channel IN ('web', 'mobile_app', 'call_centre', 'agency'));
