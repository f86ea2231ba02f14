-- A US bank account as a claim's bank details (payouts/us-bank-account.ts): a claim paid in USD asks for
-- the routing number (ABA, 9 digits), the account number and its type, paid by ACH in a NACHA file
-- (docs/payouts.md, "NACHA ACH file"). `account_kind` says which: `iban` (every row before this one) or
-- `us`. The account number is sealed like the IBAN (`us_account_enc`, crypto.ts; listed for master-key
-- rotation in sealed-columns-repo.ts); `iban_last4` keeps the last four characters of either account,
-- the only form shown after entry; `routing_number` names the customer's bank (no personal data, as the
-- BIC); `country` is US. Additive: every column is new or loses a NOT NULL; existing rows are `iban`
-- rows, as the previous version reads them (docs/OPERATIONS.md, "Migration 0061").
ALTER TABLE claim_bank_details
  ADD COLUMN account_kind text NOT NULL DEFAULT 'iban' CHECK (account_kind IN ('iban', 'us')),
  ADD COLUMN routing_number text CHECK (routing_number ~ '^[0-9]{9}$'),
  ADD COLUMN us_account_enc text,
  ADD COLUMN us_account_type text CHECK (us_account_type IN ('checking', 'savings')),
  ALTER COLUMN iban_enc DROP NOT NULL;

-- A production payout to a US account goes by ACH, in a NACHA file (rail `ach`), never in a pain.001:
-- the previous version's batch takes only `sepa` payouts, so it leaves these alone.
ALTER TABLE payouts DROP CONSTRAINT payouts_rail_check;
ALTER TABLE payouts ADD CONSTRAINT payouts_rail_check CHECK (rail IN ('simulated_bank', 'sepa', 'ach'));

ALTER TABLE claim_bank_details
  ADD CONSTRAINT claim_bank_details_account_present CHECK (
    (account_kind = 'iban' AND iban_enc IS NOT NULL)
    OR (account_kind = 'us' AND iban_enc IS NULL AND routing_number IS NOT NULL
        AND us_account_enc IS NOT NULL AND us_account_type IS NOT NULL)
  );
