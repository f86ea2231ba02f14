/** The long OpenAPI descriptions of the Policy Admin API's operations (routes.ts), kept out of the route options. */

export const CREATE_POLICY_DESCRIPTION =
  'Stores a policy from your policy-administration system and returns it with its policyNumber. ' +
  'externalReference is your own id: ' +
  'unique among your policies of this environment (409 external_reference_conflict otherwise, naming the existing policyNumber). ' +
  'risk is validated against the schema of product; ' +
  'a home policy may name a Demo API quote, whose risk and premium it must then match (422 quote_mismatch). ' +
  'A pending policy must end after today (it could never be activated otherwise); an active one recorded late may have ended (it reads expired). ' +
  'The 201 carries the ETag of the policy (version 1). ' +
  'Honours Idempotency-Key: a retry replays the 201.';

/** Said by every change: If-Match, optional. */
const IF_MATCH =
  'Send If-Match with the ETag of the policy as you read it to change it only if nobody changed it since: otherwise 412 policy_changed, and nothing is changed. ';

export const CANCEL_POLICY_DESCRIPTION =
  'Ends a pending or active policy from effectiveDate (from its effective date to the day before its expiry). ' +
  'From today or a past day, or from its inception, status is cancelled at once; from a later day the cancellation is scheduled: the policy keeps its status (pending or active), shows the cancellation, and can still be changed until that day, from which it reads cancelled. ' +
  'Cancelling again with the same reason and date returns the same result; ' +
  'a scheduled cancellation moves earlier by cancelling again from an earlier day (with the reason now given; at once from today, a past day or the inception); ' +
  'it is never moved later nor withdrawn: another reason for the same date, a later date, a policy already cancelled, or an expired policy is a 409 policy_not_cancellable. ' +
  'Cancelling a renewed policy cancels its renewal (not started yet) too, from its inception, with the same reason; ' +
  'cancelling a renewal from its inception releases the policy it renews (renewedBy back to null), which can be renewed again; ' +
  'cancelling it from a later date keeps the link (that term began), and the policy it renews answers renewedByStatus cancelled. ' +
  IF_MATCH +
  'Honours Idempotency-Key.';

export const ACTIVATE_POLICY_DESCRIPTION =
  'Puts a pending policy in force (pending → active), saying what it was waiting for, until its expiry date as recorded: ' +
  'from its effective date, or from the day of activation when the effective date is past (cover never starts before the policy is in force; the answer shows the new effectiveDate). ' +
  'Activating an active policy answers it unchanged; a cancelled policy, or one past its expiry date, is a 409 policy_not_activatable. ' +
  'A cancellation scheduled stands: the policy is in force until its date. ' +
  IF_MATCH +
  'Honours Idempotency-Key.';

export const CHANGE_POLICYHOLDER_DESCRIPTION =
  "Changes the policyholder's email, phone or address (the fields given; an address as a whole), checked as at creation, " +
  'or corrects a name or the birth date recorded wrong, with a reason (required for those fields), kept in the history of the policy with the values before and after encrypted. ' +
  'Allowed while the policy is pending, active or expired, and until the date of a cancellation scheduled; a cancelled policy is a 409 policy_not_changeable. ' +
  "A correction of a name or the birth date is the person's record corrected, and a new email, phone or address is where the same person is reached now: " +
  "either reaches the policy's renewals too (renewedBy, term after term, up to a cancelled one), each recorded with its own history entry, in the same call; " +
  'a field reaches a renewal only where the renewal still holds the value this policy held before: a renewal holding another value (changed on its own) keeps it, and so do its renewals. ' +
  'A birth date that would make the policyholder 120 or older on the effective date of a renewal it reaches is a 422 validation_failed whose policyNumber member names that renewal, and nothing is corrected. ' +
  'A name or birth date sent with the value the policy already holds changes nothing and is not recorded; an email, phone or address sent with the value it holds is recorded on this policy and reaches no renewal. ' +
  'A change does not reach back to the policy a renewal renews: that term stays as it was insured. ' +
  'A policy for another person is a new policy. ' +
  IF_MATCH +
  'Honours Idempotency-Key.';

export const RENEW_POLICY_DESCRIPTION =
  'Records the next term of an active home, motor or other policy as a policy of its own (a new policyNumber): ' +
  'from the expiry date of the policy renewed, for the same policyholder and risk, with the premium given; ' +
  'by default as long as the previous term as sold (a late activation does not shorten it; whole months keep the day of month of the first term, clamped to the month end) — expiryDate to change it. ' +
  'Policyholder and risk are copied as they are now, with every change made so far (contact details, corrections, the vehicle registered); ' +
  'a later change on the policy renewed (a correction, new contact details, the vehicle registered) reaches its renewal too where the renewal still holds the value copied. ' +
  'The renewal shows renews, the policy renewed renewedBy; a renewal is renewed the same way. ' +
  'A policy cancelled (or whose cancellation is scheduled: it ends then), pending, expired (its cover lapsed), covering a trip (travel, flight_delay), ' +
  'or ending more than a year ahead is a 409 policy_not_renewable, as is one whose stored policyholder or risk no longer passes the checks of a creation on the new term, rules added since it was recorded included (detail names the field: correct it first with PATCH /policies/{policyNumber}/policyholder, a name or the birth date with a reason); a make or model is not checked for control characters then (no call changes it), and a home risk (no call changes it either) only for what the home tariff cannot cover or rate: a postal code outside its territory, such as 975xx, or whose département is in no zone of the current rating table (record a new policy) — a rule of a quote it breaks (rooms against living area, decimals, a CEDEX code, the city, the construction year) does not block its renewal; a policy already renewed is a 409 policy_already_renewed naming its renewal. ' +
  IF_MATCH +
  'The 201 carries the ETag of the renewal (version 1). ' +
  'Honours Idempotency-Key: a retry replays the 201.';

export const REGISTER_VEHICLE_DESCRIPTION =
  'Adds the registration plate and first registration date of the vehicle of a motor policy recorded before the vehicle was registered (by its vin). ' +
  'The same registration again and the same first registration date answer the policy unchanged; a vehicle already registered otherwise, a policy of another product, or a cancelled policy (not one whose cancellation is only scheduled) is a 409 policy_not_changeable. ' +
  'The same registration is the same groups: a space and a dash are one separator, but where the groups split counts (M-AB 123, Munich, is not MA-B 123, Mannheim); only two French SIV plates (AB-123-CD, AB 123 CD, AB123CD) are compared without their separators. ' +
  'With the same Idempotency-Key, the plate spelt otherwise is another body: 422 idempotency_key_reused. ' +
  "The registration reaches the policy's renewals too (renewedBy, term after term, up to a cancelled one), each recorded with its own history entry, in the same call, " +
  'where the renewal still insures that vehicle unregistered: a renewal registered on its own keeps its registration, and so do its renewals; never the policy a renewal renews. ' +
  'Audited with the field names, never their values. ' +
  IF_MATCH +
  'Honours Idempotency-Key.';
