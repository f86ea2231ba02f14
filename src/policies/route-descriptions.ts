/** The long OpenAPI descriptions of the Policy Admin API's operations (routes.ts), kept out of the route options. */

export const CREATE_POLICY_DESCRIPTION =
  'Stores a policy from your policy-administration system and returns it with its policyNumber. ' +
  'externalReference is your own id: ' +
  'unique among your policies of this environment (409 external_reference_conflict otherwise, naming the existing policyNumber). ' +
  'risk is validated against the schema of product; ' +
  'a home policy may name a Demo API quote, whose risk and premium it must then match (422 quote_mismatch). ' +
  'Honours Idempotency-Key: a retry replays the 201.';

export const CANCEL_POLICY_DESCRIPTION =
  'Ends a pending or active policy from effectiveDate (from its effective date to the day before its expiry). ' +
  'Cancelling again with the same reason and date returns the same result; ' +
  'another reason or date, or an expired policy, is a 409 policy_not_cancellable. ' +
  'Honours Idempotency-Key.';

export const ACTIVATE_POLICY_DESCRIPTION =
  'Puts a pending policy in force (pending → active) for its period of cover as recorded, saying what it was waiting for. ' +
  'Activating an active policy answers it unchanged; a cancelled policy, or one past its expiry date, is a 409 policy_not_activatable. ' +
  'Honours Idempotency-Key.';

export const CHANGE_POLICYHOLDER_DESCRIPTION =
  "Changes the policyholder's email, phone or address (the fields given; an address as a whole), checked as at creation. " +
  'Allowed while the policy is pending, active or expired; a cancelled policy is a 409 policy_not_changeable. ' +
  'Names and birth date do not change: a policy for another person is a new policy. ' +
  'Honours Idempotency-Key.';
