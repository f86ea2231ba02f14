-- Bank details given by customers through the claim link: one set per claim (a failed payment may
-- later ask for new ones), the IBAN encrypted at rest and kept masked (last 4) for display.
CREATE TABLE claim_bank_details (
  claim_id        uuid PRIMARY KEY REFERENCES claims(id),
  account_holder  text NOT NULL,
  iban_enc        text NOT NULL,
  iban_last4      char(4) NOT NULL,
  bic             text,
  country         char(2) NOT NULL,
  received_at     timestamptz NOT NULL DEFAULT now()
);
