-- A payout to a bank outside the EEA (an IBAN of AD, CH, GB, GI, MC, SM, VA) needs the insurer's
-- postal address in its pain.001 (EPC rulebook AT-P005, EU Transfer of Funds Regulation 2023/1113);
-- without PARASOL_SEPA_DEBTOR_ADDRESS the batch leaves it out (payouts/sepa-batch.ts). Its own
-- left-out code, `no_debtor_address`, beside 0058's `no_bic` and `invalid`: the customer's IBAN is
-- fine and no BIC fixes it — the operator sets the variable and restarts (docs/OPERATOR.md).
-- Additive: a previous version never writes the new code; it reads an unknown code as `invalid`.
ALTER TABLE payouts DROP CONSTRAINT payouts_left_out_code_check;
ALTER TABLE payouts
  ADD CONSTRAINT payouts_left_out_code_check CHECK (left_out_code IN ('no_bic', 'no_debtor_address', 'invalid'));
