import type { ColumnType, Generated, GeneratedAlways } from 'kysely';

/** Row types of the tables in migrations/, as the drivers return them (see db.ts for parsers). */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** jsonb: read as parsed JSON, written as a JSON string (both drivers then agree). */
type Json<T> = ColumnType<T, string, string>;

// The domains' vocabularies (their const arrays feed the CLI's choices and the pages too).
import type { Environment } from '../partners/model.ts';
import type { ClaimEventKind, ClaimReason, ClaimStatus, ClaimVoidCause } from '../claims/model.ts';
import type { ContractChange, ContractStatus } from '../flight/model.ts';
import type { PayoutStatus, Rail } from '../payouts/model.ts';
import type { SmsDeliveryStatus, SmsStatus } from '../notify/sms/model.ts';
import type { EmailStatus } from '../notify/email/model.ts';
import type { UserRole } from '../partners/model.ts';
import type { WebhookDeliveryStatus } from '../webhooks/model.ts';
import type { LedgerKind } from '../ledger/model.ts';
import type { FlightWatchState } from '../monitoring/model.ts';
import type { CustomerLang, Lang } from './language.ts';

export type {
  ClaimEventKind,
  ClaimReason,
  ClaimStatus,
  ClaimVoidCause,
  Environment,
  FlightWatchState,
  PayoutStatus,
  WebhookDeliveryStatus,
};

export interface PartnersTable {
  id: Generated<string>;
  slug: string;
  name: string;
  /** The name customers know the partner by (migration 0030); null: `name`. */
  brand_name: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
}

export interface AgreementsTable {
  partner_id: string;
  status: 'draft' | 'signed';
  allowed_formulas: string[];
  currency: string;
  tax_rate: string;
  commission_min: string;
  commission_max: string;
  compensation_min: number;
  compensation_max: number;
  signed_at: NullableTimestamp;
  signed_by: string | null;
  updated_at: Timestamp;
}

/** One signed version of a partner's agreement, immutable (migration 0029). */
export interface AgreementVersionsTable {
  partner_id: string;
  version: number;
  allowed_formulas: string[];
  currency: string;
  tax_rate: string;
  commission_min: string;
  commission_max: string;
  compensation_min: number;
  compensation_max: number;
  effective_at: Timestamp;
  signed_at: Timestamp;
  signed_by: string;
  reason: string;
}

export interface ApiSubscriptionsTable {
  partner_id: string;
  api: string;
  created_at: Generated<Date>;
}

export interface PartnerConfigurationsTable {
  id: Generated<string>;
  partner_id: string;
  version: number;
  formula: string;
  delay_tiers: Json<{ minDelayMinutes: number; amount: number }[]>;
  cancellation_amount: number;
  commission_rate: string;
  currency: string;
  created_by: string;
  created_at: Generated<Date>;
}

export interface ApiKeysTable {
  id: Generated<string>;
  partner_id: string;
  environment: Environment;
  key_hash: string;
  display: string;
  label: string | null;
  created_at: Generated<Date>;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface UsersTable {
  id: Generated<string>;
  partner_id: string;
  email: string;
  /** Null while invited (migration 0028). */
  password_hash: string | null;
  created_at: Generated<Date>;
  /** What the user may do in the portal and console (migration 0028, docs/portal.md "Users and roles"). */
  role: UserRole;
  /** Set when the invitation's link was followed (or at creation by an operator); null: invited. */
  activated_at: NullableTimestamp;
  last_sign_in_at: NullableTimestamp;
  /** The language of the user's emails; null: English. */
  language: Lang | null;
}

/** Single-use links of invitations and password resets (migration 0028): only the token's SHA-256. */
export interface UserTokensTable {
  token_hash: string;
  user_id: string;
  purpose: 'invitation' | 'password_reset';
  created_at: Generated<Date>;
  expires_at: Date;
  used_at: NullableTimestamp;
}

/** Every email (migration 0028, notify/email/): the send queue and, for the outbox provider, the outbox. */
export interface EmailsTable {
  id: Generated<string>;
  kind: string;
  dedupe_key: string;
  partner_id: string | null;
  environment: Environment | null;
  to_enc: string;
  subject_enc: string;
  text_enc: string;
  html_enc: string | null;
  status: EmailStatus;
  provider: string | null;
  provider_message_id: string | null;
  attempts: Generated<number>;
  locked_until: NullableTimestamp;
  last_error: string | null;
  created_at: Generated<Date>;
  sent_at: NullableTimestamp;
}

export interface ContractsTable {
  id: Generated<string>;
  contract_number: string;
  partner_id: string;
  environment: Environment;
  quote_id: string;
  configuration_id: string;
  configuration_version: number;
  /** Version of the risk model the quote was priced with (migration 0011). */
  risk_model_version: string;
  status: ContractStatus;
  formula: string;
  coverage: Json<{
    formula: string;
    delayTiers: { minDelayMinutes: number; amount: number }[];
    cancellationAmount: number;
  }>;
  passengers: number;
  currency: string;
  premium_net: number;
  premium_tax: number;
  premium_commission: number;
  premium_total: number;
  /** Plaintext of rows written before migration 0010, until the start-up sealing empties it. */
  customer_first_name: string | null;
  customer_last_name: string | null;
  customer_first_name_enc: string | null;
  customer_last_name_enc: string | null;
  customer_email_enc: string;
  customer_phone_enc: string;
  customer_language: CustomerLang;
  /**
   * The booking reference (the airline's PNR), sealed, and its keyed hash (crypto.lookupHash,
   * purpose `booking-reference`) that searches match (migration 0054). NULL only for a contract sold
   * before 0054 and not sealed yet (its reference waits in contracts_booking_references_unsealed).
   */
  booking_reference_enc: string | null;
  booking_reference_hmac: string | null;
  first_departure_at: Timestamp;
  quoted_at: Timestamp;
  created_at: Generated<Date>;
  cancelled_at: NullableTimestamp;
  cancel_reason: string | null;
  refund_amount: number | null;
  /** The customer's consent to the pre-contract documents (migration 0022); NULL before it. */
  consent_accepted_at: NullableTimestamp;
  consent_documents_version: number | null;
  consent_channel: ConsentChannel | null;
  /** The agreement version the contract was sold under (migration 0029); NULL under an unsigned draft. */
  agreement_version: Generated<number | null>;
  /** The contract's current version: 1 as sold, +1 per change (migration 0024). */
  version: Generated<number>;
}

export const CONSENT_CHANNELS = ['web', 'mobile_app', 'call_centre', 'agency'] as const;
export type ConsentChannel = (typeof CONSENT_CHANNELS)[number];

/** One immutable version of the compliance pack of a partner's agreement (migration 0022). */
export interface AgreementDocumentsTable {
  partner_id: string;
  version: number;
  ipid_url: string;
  ipid_version: string;
  ipid_sha256: string;
  terms_url: string;
  terms_version: string;
  terms_sha256: string;
  insurer_name: string;
  insurer_registration: string;
  insurer_address: string;
  insurer_regulator: string;
  complaints_email: string;
  complaints_url: string | null;
  created_by: string;
  created_at: Generated<Date>;
}

export interface ContractLegsTable {
  id: Generated<string>;
  contract_id: string;
  leg_index: number;
  partner_id: string;
  environment: Environment;
  /** The marketing flight the customer booked: what the partner and the customer are shown. */
  flight_number: string;
  /** The flight that flies when it is another one (a codeshare, migration 0026); null otherwise. */
  operating_flight_number: string | null;
  /** coalesce(operating_flight_number, flight_number): what monitoring, flight events and claims key on. */
  monitored_flight_number: GeneratedAlways<string>;
  airline: string;
  departure_airport: string;
  arrival_airport: string;
  departure_local: string;
  departure_date: string;
  departure_at: Timestamp;
  /** The leg's share of the premium per passenger, minor units (migration 0024, src/flight/shares.ts). */
  share_net: number;
  share_tax: number;
  share_commission: number;
  /**
   * When the claim desk last voided a claim of this leg, and why (migration 0057): `flight_data` (the
   * flight data that opened it was wrong: an operator's event may open the leg a new claim) or `other`
   * (fraud, sanctions, duplicate…: never replaced). Null: no claim of the leg was voided.
   */
  claim_voided_at: Generated<Date | null>;
  claim_void_cause: Generated<ClaimVoidCause | null>;
}

/** One version of a changed contract (migration 0024); version 1 is written by the first change. */
export interface ContractVersionsTable {
  contract_id: string;
  version: number;
  change: ContractChange;
  passengers: number;
  flights: Json<ContractVersionFlight[]>;
  premium_net: number;
  premium_tax: number;
  premium_commission: number;
  premium_total: number;
  /** What the change cost the customer: > 0 charged, < 0 refunded. */
  difference: Generated<number>;
  risk_model_version: string;
  reason: string | null;
  actor: string;
  created_at: Generated<Date>;
}

export interface ContractVersionFlight {
  leg: number;
  flightNumber: string;
  /** A codeshare's operating flight; absent on a leg under its own number and on versions written before it was kept. */
  operatingFlightNumber?: string;
  airline: string;
  departureAirport: string;
  arrivalAirport: string;
  departureLocal: string;
  departureAt: string;
  share: { net: number; tax: number; commission: number };
}

export interface ClaimsTable {
  id: Generated<string>;
  claim_number: string;
  partner_id: string;
  environment: Environment;
  contract_id: string;
  leg_id: string;
  reason: ClaimReason;
  event: ClaimEventKind;
  status: ClaimStatus;
  delay_minutes: number | null;
  compensation_amount: number;
  currency: string;
  evidence: Json<unknown>;
  opened_at: Generated<Date>;
  paid_at: NullableTimestamp;
  updated_at: Generated<Date>;
  bank_details_due_at: NullableTimestamp;
  failure_reason: string | null;
  /** The due date the customer was reminded of (one reminder per due date), migration 0027. */
  reminded_due_at: NullableTimestamp;
  /** A reminder held by the customer's quiet hours waits until then (migration 0072). */
  remind_not_before: NullableTimestamp;
  /** Under manual review (migration 0031): not paid automatically until an operator approves. */
  manual_review_at: NullableTimestamp;
  manual_review_by: string | null;
  manual_review_reason: string | null;
}

/** The claim desk's actions done, by the one-time token of the form or CLI run that asked (migration 0031). */
export interface ClaimDeskActionsTable {
  action_token: string;
  claim_id: string;
  action: string;
  actor: string;
  created_at: Generated<Date>;
}

export interface ClaimTokensTable {
  claim_id: string;
  token_hash: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

/** A claim's earlier link, replaced by a newer one: its token's SHA-256 (migration 0060). */
export interface ClaimTokensReplacedTable {
  token_hash: string;
  claim_id: string;
  replaced_at: Generated<Date>;
}

export interface ClaimBankDetailsTable {
  claim_id: string;
  /** Plaintext of rows written before migration 0010, until the start-up sealing empties it. */
  account_holder: string | null;
  account_holder_enc: string | null;
  /** `iban`, or `us`: a US account (routing number, sealed account number, type), migration 0061. */
  account_kind: Generated<'iban' | 'us'>;
  /** Sealed; null for a US account. */
  iban_enc: string | null;
  /** The last four characters of the account, IBAN or US account number: the only form shown after entry. */
  iban_last4: string;
  bic: string | null;
  country: string;
  /** A US account's ABA routing number (9 digits); null for an IBAN. */
  routing_number: string | null;
  /** A US account's number, sealed; null for an IBAN. */
  us_account_enc: string | null;
  us_account_type: 'checking' | 'savings' | null;
  received_at: Generated<Date>;
}

export interface SmsOutboxTable {
  id: string;
  idempotency_key: string;
  partner_id: string;
  environment: 'sandbox' | 'preproduction';
  contract_id: string;
  claim_id: string | null;
  to_enc: string;
  /** Plaintext of rows written before migration 0042, until sealed at start; null once sealed. */
  body: string | null;
  link: string | null;
  body_enc: string | null;
  link_enc: string | null;
  sent_at: Timestamp;
}

export interface PayoutsTable {
  id: Generated<string>;
  claim_id: string;
  partner_id: string;
  environment: Environment;
  rail: Rail;
  status: PayoutStatus;
  attempt: Generated<number>;
  end_to_end_id: string;
  amount: number;
  currency: string;
  batch_id: string | null;
  created_at: Generated<Date>;
  instructed_at: NullableTimestamp;
  settled_at: NullableTimestamp;
  /** When the bank reported the paid transfer returned (migration 0048); null otherwise. */
  returned_at: NullableTimestamp;
  failure_reason: string | null;
  updated_at: Generated<Date>;
  /** Since when a pending payout is left out of its currency's file, and why (migration 0058); null once filed. */
  left_out_at: NullableTimestamp;
  left_out_code: LeftOutCode | null;
  left_out_reason: string | null;
}

/**
 * Why a pending payout is left out of its currency's file: `no_bic` (a cross-border transfer without
 * the creditor's BIC), `no_debtor_address` (a bank outside the EEA, PARASOL_SEPA_DEBTOR_ADDRESS not
 * set: migration 0093) or `invalid`.
 */
export type LeftOutCode = 'no_bic' | 'no_debtor_address' | 'invalid';

export interface PayoutAttemptsTable {
  end_to_end_id: string;
  payout_id: string;
  attempt: number;
  created_at: Generated<Date>;
}

export interface SepaBatchesTable {
  id: Generated<string>;
  message_id: string;
  created_at: Generated<Date>;
  created_by: string;
  execution_date: string;
  payouts_count: number;
  /** In minor units of `currency`. */
  control_sum: number;
  /** The file's currency (migration 0053): EUR a SEPA credit transfer, another a cross-border one. */
  currency: Generated<string>;
  /** Plaintext of rows written before migration 0010, until the start-up sealing empties it. */
  xml: string | null;
  xml_enc: string | null;
  file_path: string | null;
  /** When the file was first written (recorded with `file_path`; migration 0076): an ACH return window counts from it. */
  file_written_at: Date | null;
  /** `pain.001`, or `nacha`: an ACH file (migration 0062), whose text `xml_enc` holds. */
  format: Generated<'pain.001' | 'nacha'>;
  /** A NACHA file's immediate origin, creation date (UTC) and File ID Modifier: unique together (migration 0062). */
  nacha_origin: string | null;
  nacha_file_date: string | null;
  nacha_file_id_modifier: string | null;
}

export interface SmsMessagesTable {
  id: Generated<string>;
  idempotency_key: string;
  partner_id: string;
  environment: Environment;
  claim_id: string | null;
  to_enc: string;
  body_enc: string;
  status: SmsStatus;
  provider: string | null;
  provider_message_id: string | null;
  attempts: Generated<number>;
  locked_until: NullableTimestamp;
  last_error: string | null;
  created_at: Generated<Date>;
  sent_at: NullableTimestamp;
  /** The carrier's latest status of a sent message (Twilio's status callback, migration 0043). */
  delivery_status: SmsDeliveryStatus | null;
  /** Twilio's error code when the message was not delivered. */
  delivery_error: number | null;
  delivery_updated_at: NullableTimestamp;
}

/** A delivery receipt that arrived before its message's provider id was recorded (migration 0046). */
export interface SmsDeliveryEarlyTable {
  id: Generated<string>;
  provider: string;
  message_sid: string;
  status: SmsDeliveryStatus;
  error: number | null;
  /** Migration 0094: the provider's route's reading of `error` (SmsDeliveryReport.platformFailure). */
  platform_failure: Generated<'lasting' | 'temporary' | null>;
  received_at: Generated<Date>;
}

export interface OperatorTokensTable {
  id: Generated<string>;
  name: string;
  token_hash: string;
  created_at: Generated<Date>;
  created_by: string;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface QuoteCountsTable {
  partner_id: string;
  environment: Environment;
  hour: Timestamp;
  quotes: number;
}

export interface IdempotencyKeysTable {
  partner_id: string;
  environment: Environment;
  key: string;
  operation: string;
  request_hash: string;
  status: 'in_flight' | 'completed';
  locked_until: Timestamp;
  response_status: number | null;
  /** jsonb of rows written before migration 0010, until the start-up sealing empties it. */
  response_body: ColumnType<unknown, string | null, string | null>;
  /** The serialized response, encrypted: a replay sends exactly these bytes. */
  response_enc: string | null;
  created_at: Generated<Date>;
  expires_at: Timestamp;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: Generated<Date>;
  actor: string;
  partner_id: string | null;
  environment: Environment | null;
  entity: string;
  entity_id: string;
  action: string;
  data: Json<unknown>;
}

export type PolicyProduct = 'home' | 'flight_delay' | 'travel' | 'motor' | 'other';
export type PremiumFrequency = 'single' | 'annual' | 'semiannual' | 'quarterly' | 'monthly';

export interface PoliciesTable {
  id: Generated<string>;
  policy_number: string;
  partner_id: string;
  environment: Environment;
  external_reference: string;
  product: PolicyProduct;
  status: 'pending' | 'active' | 'cancelled';
  /** Plaintext of rows written before migration 0010, until the start-up sealing empties it. */
  holder_first_name: string | null;
  holder_last_name: string | null;
  holder_first_name_enc: string | null;
  holder_last_name_enc: string | null;
  holder_birth_date_enc: string;
  holder_email_enc: string;
  holder_phone_enc: string;
  holder_address_enc: string;
  effective_date: string;
  expiry_date: string;
  premium_amount: number;
  currency: string;
  premium_frequency: PremiumFrequency;
  /** Plaintext of rows written before migration 0051, until the start-up sealing empties it. */
  risk: Json<Record<string, unknown>> | null;
  /** The risk's JSON, sealed (migration 0051). */
  risk_enc: string | null;
  quote_reference: string | null;
  /** The policy this one renews for a new term, and the renewal of this one (migration 0055). */
  renews_policy_number: Generated<string | null>;
  renewed_by_policy_number: Generated<string | null>;
  /**
   * The term as sold (migration 0055): its start as recorded (a late activation moves effective_date,
   * not this), and the first term's start, whose day of month renewals keep.
   */
  term_start_date: string;
  anniversary_date: string;
  /**
   * A cancellation recorded: with status `cancelled` when it took effect at once; on a pending or active
   * policy, scheduled from cancellation_date, a day still to come when it was recorded (migration 0069).
   */
  cancel_reason: string | null;
  cancellation_date: string | null;
  cancelled_at: NullableTimestamp;
  /** 1 at creation, +1 with every change written on the policy: its ETag (migration 0069). */
  version: Generated<number>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** A correction of a policyholder's name or birth date, the values before and after sealed (migration 0055). */
export interface PolicyCorrectionsTable {
  id: Generated<string>;
  policy_id: string;
  reason: string;
  before_enc: string;
  after_enc: string;
  created_at: Generated<Date>;
}

export interface OperatorsTable {
  id: Generated<string>;
  email: string;
  password_hash: string;
  created_at: Generated<Date>;
}

export interface WebSessionsTable {
  token_hash: string;
  kind: 'partner' | 'operator';
  user_id: string | null;
  operator_id: string | null;
  partner_id: string | null;
  csrf_token: string;
  created_at: Generated<Date>;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface LoginThrottleTable {
  key: string;
  attempts: number;
  window_start: Timestamp;
  locked_until: NullableTimestamp;
}

export interface WebhookEndpointsTable {
  id: Generated<string>;
  partner_id: string;
  environment: Environment;
  url: string;
  description: string | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: NullableTimestamp;
  /**
   * The one-time token of the rotation that set the current secret (migration 0095), null for one
   * without (API, CLI without --once): what a second submit of the console's form compares.
   */
  secret_rotation_token: string | null;
  /** null = every event type */
  event_types: string[] | null;
  enabled: Generated<boolean>;
  /** Why it is paused (migration 0067); null while enabled. */
  paused_reason: WebhookPausedReason | null;
  paused_at: NullableTimestamp;
  /** When it was last enabled again after a pause. */
  resumed_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  removed_at: NullableTimestamp;
}

/** Why an endpoint is paused: by the partner or an operator, a 410 Gone, or failing for days. */
export type WebhookPausedReason = 'manual' | 'gone' | 'failing';

export interface WebhookEventsTable {
  id: string;
  partner_id: string;
  environment: Environment;
  type: string;
  /**
   * json (not jsonb): the exact text sent, `{"type","timestamp","data"}`; NULL when the event carries
   * personal data (SEALED_WEBHOOK_EVENT_TYPES): then `payload_enc` holds that text sealed (migration 0056).
   */
  payload: ColumnType<{ type: string; timestamp: string; data: unknown } | null, string | null, string | null>;
  payload_enc: string | null;
  created_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  event_id: string;
  endpoint_id: string;
  partner_id: string;
  environment: Environment;
  status: Generated<WebhookDeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  locked_until: NullableTimestamp;
  last_attempt_at: NullableTimestamp;
  last_status_code: number | null;
  last_error: string | null;
  /** Its latest successful attempt's time; kept when it is sent again (migration 0079). */
  succeeded_at: NullableTimestamp;
  created_at: Timestamp;
  completed_at: NullableTimestamp;
}

export interface WebhookDeliveryAttemptsTable {
  delivery_id: string;
  attempt: number;
  at: Timestamp;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/**
 * The one-time actions done (test event, send again, and the console's secret rotation), by the page's
 * one-time token and their target (migrations 0079, 0091): the operator webhooks page's, the partner
 * console's (its rows' actor the partner user) and the CLI's `--once`. A repeated submit finds its row
 * and does nothing more.
 */
export interface WebhookOperatorActionsTable {
  action_token: string;
  action: 'test' | 'redeliver' | 'rotate';
  /** The endpoint tested or rotated, the delivery sent again. */
  target_id: string;
  /** What a test or a send again queued; null for a rotation (it queues nothing). */
  delivery_id: string | null;
  event_id: string | null;
  attempt: number | null;
  actor: string;
  created_at: Generated<Date>;
}

/** One watch per flight (environment + designator as the legs store it + local departure date). */
export interface FlightWatchesTable {
  id: Generated<string>;
  environment: Environment;
  flight_number: string;
  departure_date: string;
  origin: string;
  destination: string;
  scheduled_departure: Timestamp;
  scheduled_arrival: NullableTimestamp;
  state: FlightWatchState;
  next_check_at: NullableTimestamp;
  checks: Generated<number>;
  consecutive_errors: Generated<number>;
  last_checked_at: NullableTimestamp;
  last_outcome: string | null;
  last_status: ColumnType<unknown, string | null | undefined, string | null>;
  last_error: string | null;
  decision: ColumnType<unknown, string | null | undefined, string | null>;
  review_reason: string | null;
  decided_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** What the sandbox/preproduction simulator makes a flight do; flight_number is the canonical designator (AF6). */
export interface SimulatedFlightEventsTable {
  environment: 'sandbox' | 'preproduction';
  flight_number: string;
  departure_date: string;
  status: 'on_time' | 'delayed' | 'cancelled' | 'diverted';
  arrival_delay_minutes: number | null;
  diverted_to: string | null;
  set_at: Timestamp;
  set_by: string;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  partner_id: string;
  environment: Environment;
  kind: LedgerKind;
  amount: number;
  currency: string;
  contract_id: string;
  claim_id: string | null;
  payout_id: string | null;
  event_key: string;
  occurred_at: Timestamp;
  corrects: number | null;
  recorded_by: string;
  recorded_at: Generated<Date>;
}

export interface Database {
  ledger_entries: LedgerEntriesTable;
  partners: PartnersTable;
  agreements: AgreementsTable;
  agreement_documents: AgreementDocumentsTable;
  agreement_versions: AgreementVersionsTable;
  api_subscriptions: ApiSubscriptionsTable;
  partner_configurations: PartnerConfigurationsTable;
  api_keys: ApiKeysTable;
  users: UsersTable;
  user_tokens: UserTokensTable;
  emails: EmailsTable;
  contracts: ContractsTable;
  contract_legs: ContractLegsTable;
  contract_versions: ContractVersionsTable;
  claims: ClaimsTable;
  claim_desk_actions: ClaimDeskActionsTable;
  claim_tokens: ClaimTokensTable;
  claim_tokens_replaced: ClaimTokensReplacedTable;
  claim_bank_details: ClaimBankDetailsTable;
  sms_outbox: SmsOutboxTable;
  payouts: PayoutsTable;
  payout_attempts: PayoutAttemptsTable;
  sepa_batches: SepaBatchesTable;
  sms_messages: SmsMessagesTable;
  sms_delivery_early: SmsDeliveryEarlyTable;
  operator_tokens: OperatorTokensTable;
  quote_counts: QuoteCountsTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_log: AuditLogTable;
  policies: PoliciesTable;
  policy_corrections: PolicyCorrectionsTable;
  flight_watches: FlightWatchesTable;
  simulated_flight_events: SimulatedFlightEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  contracts_booking_references_unsealed: ContractsBookingReferencesUnsealedTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  webhook_operator_actions: WebhookOperatorActionsTable;
  operators: OperatorsTable;
  web_sessions: WebSessionsTable;
  login_throttle: LoginThrottleTable;
  risk_models: RiskModelsTable;
  risk_model_activations: RiskModelActivationsTable;
  flight_exposure: FlightExposureTable;
  exposure_caps: ExposureCapsTable;
  stop_sales: StopSalesTable;
  partner_rate_limits: PartnerRateLimitsTable;
  provider_circuits: ProviderCircuitsTable;
}

/**
 * Booking references of contracts sold before migration 0054, moved out of `contracts` in clear: the
 * start-up sealing (platform/seal-personal-data.ts) seals each into its contract and deletes it.
 */
export interface ContractsBookingReferencesUnsealedTable {
  contract_id: string;
  booking_reference: string;
}

/** The operator's per-partner rate limits (requests per minute per key); NULL = the class default. */
export interface PartnerRateLimitsTable {
  partner_id: string;
  quote_per_minute: number | null;
  write_per_minute: number | null;
  read_per_minute: number | null;
  updated_by: string;
  updated_at: Timestamp;
}

/**
 * The circuit breaker of one provider — a flight-data provider's, or the SMTP server's (`email:smtp`) —
 * shared by every worker (platform/circuit-breaker.ts, `SharedCircuitBreaker`).
 */
export interface ProviderCircuitsTable {
  provider: string;
  state: ColumnType<
    'closed' | 'open' | 'half_open',
    'closed' | 'open' | 'half_open' | undefined,
    'closed' | 'open' | 'half_open'
  >;
  failures: Generated<number>;
  /** Incremented each time the circuit opens (migration 0075): permits carry it. */
  generation: Generated<number>;
  opened_until: NullableTimestamp;
  probe_started_at: NullableTimestamp;
  updated_at: Timestamp;
}

export interface RiskModelsTable {
  version: string;
  /** gzip JSON artifact (src/risk/artifact.ts); PGlite returns a Uint8Array, pg a Buffer. */
  artifact: Uint8Array;
  sha256: string;
  data_cutoff: string;
  source: 'history' | 'refit';
  base_version: string | null;
  observations: Generated<number>;
  /** A refit's SHA-256 of the outcomes it added (sorted); null for history versions and older refits (migration 0090). */
  outcomes_sha256: Generated<string | null>;
  created_by: string;
  created_at: Generated<Date>;
}

export interface RiskModelActivationsTable {
  environment: Environment;
  version: string;
  activated_by: string;
  activated_at: Generated<Date>;
}

/** Limits on accumulation (migrations/0012_flight_exposure.sql, docs/limits.md). */
export interface FlightExposureTable {
  environment: Environment;
  currency: string;
  airline: string;
  departure_airport: string;
  arrival_airport: string;
  departure_local: string;
  departure_at: Timestamp;
  amount: number;
  legs: number;
  updated_at: Generated<Date>;
}

export interface ExposureCapsTable {
  environment: Environment;
  currency: string;
  amount: number;
  updated_by: string;
  updated_at: Generated<Date>;
}

export interface StopSalesTable {
  id: Generated<string>;
  environment: Environment | null;
  airline: string | null;
  airport: string | null;
  departure_airport: string | null;
  arrival_airport: string | null;
  starts_at: Timestamp;
  /** NULL: open-ended, until sales resume (migration 0070). */
  ends_at: NullableTimestamp;
  reason: string;
  created_by: string;
  created_at: Generated<Date>;
  resumed_at: NullableTimestamp;
  resumed_by: string | null;
}
