/**
 * One typed error model. Use cases throw `DomainError(code, detail, extra)`; the HTTP error handler
 * (problem.ts) turns it into RFC 9457 problem+json using this table. The `detail` is shown to
 * the caller, so it never carries internals; `extra` adds documented members (e.g. `errors`).
 * A code marked `operator: true` is answered only by the consoles and the CLI, never by the partner
 * APIs: no API route can declare it (`problemResponses`, platform/openapi.ts), so their documents
 * never list it among an operation's `x-problem-codes`.
 */
export const ERROR_CODES = {
  // 400
  malformed_request: { status: 400, title: 'Malformed request' },
  // 401
  unauthenticated: { status: 401, title: 'Missing or invalid API key' },
  // 403
  api_not_subscribed: { status: 403, title: 'API not subscribed' },
  agreement_not_signed: { status: 403, title: 'Agreement not signed' },
  forbidden: { status: 403, title: 'Not allowed' },
  // 404
  not_found: { status: 404, title: 'Not found' },
  route_not_found: { status: 404, title: 'No such route' },
  contract_not_found: { status: 404, title: 'Contract not found' },
  claim_not_found: { status: 404, title: 'Claim not found' },
  partner_not_found: { status: 404, title: 'Partner not found', operator: true },
  api_key_not_found: { status: 404, title: 'API key not found', operator: true },
  zip_code_not_found: { status: 404, title: 'Zip code not found' },
  policy_not_found: { status: 404, title: 'Policy not found' },
  webhook_endpoint_not_found: { status: 404, title: 'Webhook endpoint not found' },
  webhook_delivery_not_found: { status: 404, title: 'Webhook delivery not found' },
  flight_watch_not_found: { status: 404, title: 'Flight watch not found', operator: true },
  stop_sale_not_found: { status: 404, title: 'Stop-sale not found', operator: true },
  // 409
  quote_already_used: { status: 409, title: 'Quote already subscribed' },
  contract_not_cancellable: { status: 409, title: 'Contract cannot be cancelled' },
  contract_cancelled: { status: 409, title: 'Contract cancelled' },
  contract_not_changeable: { status: 409, title: 'Contract cannot be changed' },
  contract_changed: { status: 409, title: 'Contract changed since the preview' },
  leg_departed: { status: 409, title: 'Flight departed or departing too soon' },
  leg_has_claim: { status: 409, title: 'A claim exists on the leg' },
  flight_not_departed: { status: 409, title: 'Flight not departed yet' },
  idempotency_request_in_progress: { status: 409, title: 'A request with this idempotency key is in progress' },
  partner_not_configured: { status: 409, title: 'Partner not configured' },
  agreement_already_signed: { status: 409, title: 'Agreement already signed', operator: true },
  agreement_missing: { status: 409, title: 'No agreement', operator: true },
  conflict: { status: 409, title: 'Conflict', operator: true },
  // a form saved from a version another save replaced meanwhile: refused, nothing written (lost updates)
  configuration_changed: { status: 409, title: 'Configuration changed since the form was opened', operator: true },
  agreement_changed: { status: 409, title: 'Agreement changed since the form was opened', operator: true },
  external_reference_conflict: { status: 409, title: 'External reference already used' },
  policy_not_cancellable: { status: 409, title: 'Policy cannot be cancelled' },
  policy_not_activatable: { status: 409, title: 'Policy cannot be activated' },
  policy_not_changeable: { status: 409, title: 'Policy cannot be changed' },
  policy_not_renewable: { status: 409, title: 'Policy cannot be renewed' },
  policy_already_renewed: { status: 409, title: 'Policy already renewed' },
  webhook_endpoint_limit: { status: 409, title: 'Too many webhook endpoints' },
  webhook_endpoint_disabled: { status: 409, title: 'Webhook endpoint disabled' },
  webhook_delivery_pending: { status: 409, title: 'Webhook delivery still pending' },
  capacity_exceeded: { status: 409, title: 'Flight capacity exceeded' },
  sales_suspended: { status: 409, title: 'Sales suspended' },
  // the operator's claim desk (claims/desk.ts, payouts/manual-review.ts): why the claim's state refuses an action
  desk_form_used: { status: 409, title: 'Form used for another action', operator: true },
  claim_settled: { status: 409, title: 'Claim settled', operator: true },
  claim_not_awaiting_bank_details: { status: 409, title: 'Claim not waiting for bank details', operator: true },
  claim_past_due: { status: 409, title: 'Claim past its due date', operator: true },
  phone_unchanged: { status: 409, title: 'Phone number unchanged', operator: true },
  claim_under_review: { status: 409, title: 'Claim under manual review already', operator: true },
  claim_not_under_review: { status: 409, title: 'Claim not under manual review', operator: true },
  payout_instructed: { status: 409, title: 'Payout sent to the bank already', operator: true },
  payout_not_pending: { status: 409, title: 'Payout not pending', operator: true },
  payout_not_bank_transfer: { status: 409, title: 'Payout not paid by bank transfer', operator: true },
  claim_not_voidable: { status: 409, title: 'Claim not voidable: money has left or it is settled', operator: true },
  claim_not_voided: { status: 409, title: 'Claim not voided', operator: true },
  void_cause_unchanged: { status: 409, title: 'Void cause unchanged', operator: true },
  claim_replaced: { status: 409, title: 'Voided claim replaced by a new claim', operator: true },
  claim_voided_for_other_cause: {
    status: 409,
    title: 'Claim voided already, for another cause: parasol claims void-cause corrects it',
    operator: true,
  },
  // 412: a write sent with If-Match on a resource changed since (lost updates, as the consoles' `*_changed`)
  policy_changed: { status: 412, title: 'Policy changed since you read it' },
  // 405, 408, 413, 414, 415
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request timeout' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  // 422
  validation_failed: { status: 422, title: 'Validation failed' },
  unknown_airport: { status: 422, title: 'Unknown airport' },
  unknown_airline: { status: 422, title: 'Unknown airline' },
  phone_not_mobile: { status: 422, title: 'Phone number is not a mobile' },
  invalid_departure_time: { status: 422, title: 'Invalid departure time' },
  departure_too_soon: { status: 422, title: 'Departure too soon' },
  departure_too_far: { status: 422, title: 'Departure too far ahead' },
  formula_not_allowed: { status: 422, title: 'Formula not allowed' },
  configuration_out_of_bounds: { status: 422, title: 'Configuration outside the agreement' },
  quote_invalid: { status: 422, title: 'Invalid quote reference' },
  quote_expired: { status: 422, title: 'Quote expired' },
  change_reference_invalid: { status: 422, title: 'Invalid change reference' },
  change_expired: { status: 422, title: 'Change reference expired' },
  flights_mismatch: { status: 422, title: 'Flights do not match the quote' },
  documents_version_mismatch: { status: 422, title: 'Consent to documents other than those quoted' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused with a different request' },
  invalid_cursor: { status: 422, title: 'Invalid cursor' },
  unknown_zip_code: { status: 422, title: 'Unknown zip code' },
  city_mismatch: { status: 422, title: 'City not served by the zip code' },
  zip_code_not_covered: { status: 422, title: 'Zip code outside the territory of the tariff' },
  quote_mismatch: { status: 422, title: 'Policy does not match the quote' },
  webhook_url_not_allowed: { status: 422, title: 'Webhook URL not allowed' },
  // 429, 431
  rate_limited: { status: 429, title: 'Too many requests' },
  header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  // 5xx
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string; operator?: true }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * What is wrong with a field, stable for clients and pages, which translate by it (the message is
 * English prose for a developer). A field error thrown without one is sent as `invalid`.
 */
export const FIELD_ERROR_CODES = [
  'invalid',
  'required',
  'unknown_field',
  'invalid_type',
  'invalid_format',
  'too_short',
  'too_long',
  'too_few',
  'too_many',
  'out_of_range',
  'not_increasing',
  'not_allowed',
] as const;
export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];

export interface FieldError {
  /** JSON Pointer to the offending field, e.g. "/departureAirport". */
  field: string;
  /** Stable, for clients and pages to act on or translate; `invalid` when nothing more precise fits. */
  code: FieldErrorCode;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: { errors?: FieldError[]; [member: string]: unknown } = {},
  ) {
    super(`${code}: ${detail}`);
    this.name = 'DomainError';
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}
