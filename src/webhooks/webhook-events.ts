import { encrypt, randomToken, SEALED_WEBHOOK_EVENT_TYPES, type EncryptionKeys } from '../platform/crypto.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import type { WebhookEndpointCache } from './endpoint-cache.ts';
import * as repo from './webhooks-repo.ts';

/**
 * The events partners receive by webhook, their payloads, and how other domains emit them.
 *
 * A payload follows the Standard Webhooks recommendation: `{ "type", "timestamp", "data" }`, where
 * `timestamp` is when the event happened (ISO 8601, UTC) and `data` is the event's own object below.
 * Money is integer minor units with its currency, as in the APIs. No personal data of the customer
 * is ever sent (no name, phone, email or full IBAN). docs/webhooks.md shows an example of each.
 *
 * An event whose payload carries personal data (SEALED_WEBHOOK_EVENT_TYPES: contract.created and its
 * booking reference) is stored sealed with the master key, the exact text sent (`payload_enc`,
 * opened at each attempt); the others are stored as sent, in clear (`payload`). Its emitter passes
 * the keys (emitWebhookEvents); the claim.* emitters, whose events carry none, need none.
 */

export const WEBHOOK_EVENT_TYPES = [
  'contract.created',
  'contract.cancelled',
  'contract.changed',
  'claim.opened',
  'claim.bank_details_received',
  'claim.paid',
  'claim.expired',
  'claim.failed',
  'claim.voided',
  'claim.customer_unreachable',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent only by "send a test event" to one endpoint; never subscribed to. */
export const TEST_EVENT_TYPE = 'webhook.test';

export interface WebhookMoney {
  /** Integer minor units (cents). */
  amount: number;
  currency: string;
}

export interface WebhookFlight {
  /** The flight the customer booked (the marketing flight of a codeshare). */
  flightNumber: string;
  /** A codeshare's operating flight, the one monitored; absent when the leg flies under its own number. */
  operatingFlightNumber?: string;
  departureAirport: string;
  arrivalAirport: string;
  airline: string;
  /** Local wall-clock time at the departure airport, 'YYYY-MM-DDTHH:mm'. */
  departureDateTime: string;
  /** The same instant in UTC, ISO 8601. */
  departureAt: string;
}

export interface ContractCreatedData {
  contractNumber: string;
  status: 'active';
  booking: { reference: string };
  passengers: number;
  premium: { total: WebhookMoney; net: WebhookMoney; tax: WebhookMoney; commission: WebhookMoney };
  /** Each with its leg: 0 the outbound, 1 the return. */
  flights: (WebhookFlight & { leg: number })[];
  createdAt: string;
}

export interface ContractCancelledData {
  contractNumber: string;
  status: 'cancelled';
  /** The reason given to POST /cancel (ticket_cancelled, customer_request, …). */
  reason: string;
  cancelledAt: string;
  refund: WebhookMoney;
}

/** A live contract changed (its flights, or one passenger or one leg cancelled) and keeps its number. */
export interface ContractChangedData {
  contractNumber: string;
  status: 'active';
  /** The new version (1 as sold). */
  version: number;
  change: 'flight_changed' | 'passenger_cancelled' | 'leg_cancelled';
  passengers: number;
  /** The flights insured from now on, each with its leg (0 outbound, 1 return). */
  flights: (WebhookFlight & { leg: number })[];
  /** The premium after the change. */
  premium: WebhookMoney;
  /** What the change cost the customer: > 0 charged, < 0 refunded. */
  difference: WebhookMoney;
  changedAt: string;
}

/** What every claim.* event carries: the claim as it is after the change. */
export interface ClaimWebhookData {
  claimNumber: string;
  contractNumber: string;
  /** The insured leg's flight as the customer booked it and local departure date ('YYYY-MM-DD'). */
  flightNumber: string;
  /** A codeshare's operating flight (whose event opened the claim); absent when the leg flies under its own number. */
  operatingFlightNumber?: string;
  departureDate: string;
  /** What is paid: the delay tier reached, or the cancellation amount. */
  reason: 'delay' | 'cancellation';
  /** What happened to the flight. */
  event: 'delayed' | 'cancelled' | 'diverted';
  /** Arrival delay at the gate in minutes (delayed flights), else null. */
  delayMinutes: number | null;
  /** Total for the leg: amount per passenger × passengers. */
  compensation: WebhookMoney;
  status: 'opened' | 'awaiting_bank_details' | 'payment_pending' | 'paid' | 'expired' | 'failed' | 'voided';
  openedAt: string;
  /**
   * The voided claim this one replaces, on the same leg (an operator recorded the flight's true outcome
   * after the insurer voided a claim opened on wrong flight data): the claims API's `evidence.replaces`.
   * Absent for any other claim.
   */
  replaces?: string;
}

export type ClaimOpenedData = ClaimWebhookData;
export interface ClaimBankDetailsReceivedData extends ClaimWebhookData {
  /**
   * The last four characters of the account given, never the account itself: of the IBAN, or of the
   * account number when a US account was given (a USD claim). Named ibanLast4 all the same.
   */
  ibanLast4: string;
  receivedAt: string;
}
export interface ClaimPaidData extends ClaimWebhookData {
  paidAt: string;
}
export interface ClaimExpiredData extends ClaimWebhookData {
  /** No bank details arrived before this deadline. */
  expiredAt: string;
}
export interface ClaimFailedData extends ClaimWebhookData {
  /** Why the payment failed (as the bank or the simulated bank said); the customer may give new details. */
  failureReason: string;
  /**
   * true: the transfer had been paid (claim.paid was sent) and the customer's bank sent it back (a
   * SEPA return: account closed, blocked…): the claim is no longer paid and waits for new details.
   * false: the bank rejected the transfer.
   */
  paymentReturned: boolean;
  failedAt: string;
}

/**
 * The insurer's claim desk withdrew the claim before any money left (wrong flight data, a fraud or
 * sanctions finding): it will not be paid; a pending payment was cancelled. The desk's reason is
 * internal and not sent.
 */
export interface ClaimVoidedData extends ClaimWebhookData {
  voidedAt: string;
}

/**
 * A message asking the customer for bank details did not reach them: the SMS provider refused the
 * number, or the carrier could not deliver it (`sms`); the customer's mail server refused the address
 * (`email`). The partner, who knows its customer, can correct the phone (PATCH
 * /contracts/{contractNumber}/customer: the link is texted again to the new number) or the address
 * (a new link is emailed to the new address and texted to the phone, and the next emails go to it).
 */
export interface ClaimCustomerUnreachableData extends ClaimWebhookData {
  channel: 'sms' | 'email';
  /** Which message: opened (the first), payment_failed, reminder, resend. */
  message: string;
  /** `rejected` (refused at send: not a mobile number the provider accepts), `undelivered` or `failed` (by the carrier). */
  deliveryStatus: 'rejected' | 'undelivered' | 'failed';
  /**
   * The SMS provider's error code (Twilio's: 30003 unreachable handset, 30005 unknown number, 30006
   * landline…), the SMTP reply code for an email (550, 553…), or null.
   */
  errorCode: number | null;
  reportedAt: string;
}

export interface WebhookEventData {
  'contract.created': ContractCreatedData;
  'contract.cancelled': ContractCancelledData;
  'contract.changed': ContractChangedData;
  'claim.opened': ClaimOpenedData;
  'claim.bank_details_received': ClaimBankDetailsReceivedData;
  'claim.paid': ClaimPaidData;
  'claim.expired': ClaimExpiredData;
  'claim.failed': ClaimFailedData;
  'claim.voided': ClaimVoidedData;
  'claim.customer_unreachable': ClaimCustomerUnreachableData;
}

export interface TestEventData {
  endpointId: string;
  message: string;
}

/** The body POSTed, byte for byte (key order as here). */
export interface WebhookPayload<T extends string = string, D = unknown> {
  type: T;
  timestamp: string;
  data: D;
}

export interface WebhookEventInput<T extends WebhookEventType = WebhookEventType> {
  partnerId: string;
  environment: Environment;
  type: T;
  data: WebhookEventData[T];
  /** When it happened: the emitting use case's clock (`deps.now()`, or the time its data says). */
  occurredAt: Date;
}

/** One event of any type, with data of its type. */
export type AnyWebhookEventInput = { [K in WebhookEventType]: WebhookEventInput<K> }[WebhookEventType];

export interface EmitResult {
  /** Events stored (only those at least one endpoint wants). */
  events: number;
  /** Deliveries created, one job each. */
  deliveries: number;
}

/** `msg_` + 128 random bits: the event id, sent as `webhook-id` on every attempt. */
export function newEventId(): string {
  return `msg_${randomToken(16)}`;
}

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * Emits events to the partners' webhook endpoints, set-wise, inside the caller's transaction: the
 * live endpoints of the partners and environments concerned come from `endpoints`, the API process's
 * cache (no query when cached), or from one indexed lookup without it (nothing more is written when
 * none wants an event), then one insert per 1,000 events, one per 1,000 deliveries (one per event ×
 * matching endpoint, unique) and one for all the delivery jobs. Events, deliveries and jobs commit
 * with the change they describe, or not at all.
 *
 * The cache is an optional last argument rather than a dependency every caller must carry: the
 * partner APIs' writes (subscribe, cancellations, changes: `FlightDeps.webhookEndpoints`) pass it, as
 * they are the hot path; the workers' claim.* events, set-wise and rare, keep their lookup and change
 * no signature. A transaction that changes endpoints itself must not pass it (endpoint-cache.ts).
 */
export async function emitWebhookEvents(
  trx: Executor,
  jobs: JobQueue,
  keys: EncryptionKeys,
  events: readonly AnyWebhookEventInput[],
  endpoints?: WebhookEndpointCache,
): Promise<EmitResult> {
  if (events.length === 0) return { events: 0, deliveries: 0 };
  const live = endpoints ? await endpoints.liveEndpointsFor(trx, events) : await repo.liveEndpointsFor(trx, events);
  return emitToEndpoints(trx, jobs, events, live, keys);
}

/**
 * Stores the events the endpoints `live` want, their deliveries and jobs (see emitWebhookEvents);
 * `keys` seal the payloads of SEALED_WEBHOOK_EVENT_TYPES (eventRow).
 */
async function emitToEndpoints(
  trx: Executor,
  jobs: JobQueue,
  events: readonly AnyWebhookEventInput[],
  live: readonly repo.LiveEndpoint[],
  keys?: EncryptionKeys,
): Promise<EmitResult> {
  if (live.length === 0) return { events: 0, deliveries: 0 };
  const byScope = new Map<string, repo.LiveEndpoint[]>();
  for (const endpoint of live) {
    const key = `${endpoint.partner_id}/${endpoint.environment}`;
    byScope.set(key, [...(byScope.get(key) ?? []), endpoint]);
  }

  const eventRows: repo.NewEvent[] = [];
  const pairs: { event_id: string; endpoint_id: string; partner_id: string; environment: Environment }[] = [];
  for (const event of events) {
    const wanting = (byScope.get(`${event.partnerId}/${event.environment}`) ?? []).filter(
      (e) => e.event_types === null || e.event_types.includes(event.type),
    );
    if (wanting.length === 0) continue;
    const row = eventRow(event.partnerId, event.environment, event.type, event.data, event.occurredAt, keys);
    eventRows.push(row);
    for (const endpoint of wanting)
      pairs.push({
        event_id: row.id,
        endpoint_id: endpoint.id,
        partner_id: event.partnerId,
        environment: event.environment,
      });
  }
  if (eventRows.length === 0) return { events: 0, deliveries: 0 };
  await repo.insertEvents(trx, eventRows);
  const deliveryIds = await repo.insertDeliveries(trx, pairs);
  await jobs.sendMany(
    'webhooks_deliver',
    deliveryIds.map((deliveryId) => ({ deliveryId, attempt: 1 })),
    { trx },
  );
  return { events: eventRows.length, deliveries: deliveryIds.length };
}

/** One event: see emitWebhookEvents. */
export async function emitWebhookEvent<T extends WebhookEventType>(
  trx: Executor,
  jobs: JobQueue,
  keys: EncryptionKeys,
  event: WebhookEventInput<T>,
  endpoints?: WebhookEndpointCache,
): Promise<EmitResult> {
  return emitWebhookEvents(trx, jobs, keys, [event as unknown as AnyWebhookEventInput], endpoints);
}

/**
 * An event's row: its payload is the text POSTed, `{"type","timestamp","data"}`, stored as it is
 * (`payload`) or, for a type of SEALED_WEBHOOK_EVENT_TYPES, sealed with `keys` (`payload_enc`): the
 * delivery sends the same text either way (webhook-delivery.ts, payloadText).
 */
export function eventRow(
  partnerId: string,
  environment: Environment,
  type: string,
  data: unknown,
  occurredAt: Date,
  keys?: EncryptionKeys,
): repo.NewEvent {
  const text = JSON.stringify({ type, timestamp: occurredAt.toISOString(), data } satisfies WebhookPayload);
  let stored: { payload: string; payload_enc: null } | { payload: null; payload_enc: string };
  if (SEALED_WEBHOOK_EVENT_TYPES.includes(type)) {
    if (!keys) throw new Error(`A ${type} event carries personal data: it is emitted with the keys that seal it`);
    stored = { payload: null, payload_enc: encrypt(keys, text) };
  } else {
    stored = { payload: text, payload_enc: null };
  }
  return { id: newEventId(), partner_id: partnerId, environment, type, ...stored, created_at: occurredAt };
}

/** The claim.* events whose data is the claim alone (emitClaimWebhookEvents); claim.customer_unreachable has its own. */
export type ClaimWebhookEventType = Exclude<Extract<WebhookEventType, `claim.${string}`>, 'claim.customer_unreachable'>;

/**
 * The claim.* events of many claims at once, their data read from the database in one statement
 * (claims, contracts, legs, and the bank details for claim.bank_details_received), then emitted
 * as emitWebhookEvents does. Call it in the transaction that changed the claims, after the
 * change: each event shows the claim as it now is. `occurredAt`: the use case's clock, the time it
 * wrote the change with (the event's `timestamp`, as its data's openedAt, receivedAt, failedAt…). The endpoints are read once, first (those that
 * want this type, for the claims' partners and environments); claims of partners without one are
 * not even read.
 */
export async function emitClaimWebhookEvents(
  trx: Executor,
  jobs: JobQueue,
  type: ClaimWebhookEventType,
  claimIds: readonly string[],
  occurredAt: Date,
): Promise<EmitResult> {
  if (claimIds.length === 0) return { events: 0, deliveries: 0 };
  const live = await repo.liveEndpointsForClaims(trx, claimIds, type);
  if (live.length === 0) return { events: 0, deliveries: 0 };
  const rows = await repo.findClaimsForEvents(trx, claimIds, [...new Set(live.map((e) => e.partner_id))]);
  const iso = (d: Date | null) => (d ?? occurredAt).toISOString();
  const events = rows.map((r): AnyWebhookEventInput => {
    const base = claimData(r);
    const scope = { partnerId: r.partner_id, environment: r.environment, occurredAt };
    switch (type) {
      case 'claim.opened':
        return { ...scope, type, data: base };
      case 'claim.bank_details_received':
        return { ...scope, type, data: { ...base, ibanLast4: r.iban_last4 ?? '', receivedAt: iso(r.received_at) } };
      case 'claim.paid':
        return { ...scope, type, data: { ...base, paidAt: iso(r.paid_at) } };
      case 'claim.expired':
        return { ...scope, type, data: { ...base, expiredAt: iso(r.updated_at) } };
      case 'claim.voided':
        return { ...scope, type, data: { ...base, voidedAt: occurredAt.toISOString() } };
      case 'claim.failed':
        return {
          ...scope,
          type,
          data: {
            ...base,
            failureReason: r.failure_reason ?? 'payment_failed',
            paymentReturned: r.payment_returned,
            failedAt: iso(r.updated_at),
          },
        };
    }
  });
  return emitToEndpoints(trx, jobs, events, live);
}

type ClaimEventRow = Awaited<ReturnType<typeof repo.findClaimsForEvents>>[number];

/** What every claim.* event carries, from a row of findClaimsForEvents. */
function claimData(r: ClaimEventRow): ClaimWebhookData {
  return {
    claimNumber: r.claim_number,
    contractNumber: r.contract_number,
    flightNumber: r.flight_number,
    ...(r.operating_flight_number ? { operatingFlightNumber: r.operating_flight_number } : {}),
    departureDate: r.departure_date,
    reason: r.reason,
    event: r.event,
    delayMinutes: r.delay_minutes,
    compensation: { amount: Number(r.compensation_amount), currency: r.currency },
    status: r.status,
    openedAt: r.opened_at.toISOString(),
    ...(r.replaces ? { replaces: r.replaces } : {}),
  };
}

/** claim.customer_unreachable for one claim, in the transaction that learnt it (see ClaimCustomerUnreachableData). */
export async function emitCustomerUnreachable(
  trx: Executor,
  jobs: JobQueue,
  claimId: string,
  report: Pick<ClaimCustomerUnreachableData, 'channel' | 'message' | 'deliveryStatus' | 'errorCode'>,
  occurredAt: Date,
): Promise<EmitResult> {
  const live = await repo.liveEndpointsForClaims(trx, [claimId], 'claim.customer_unreachable');
  if (live.length === 0) return { events: 0, deliveries: 0 };
  const rows = await repo.findClaimsForEvents(trx, [claimId], [...new Set(live.map((e) => e.partner_id))]);
  const events = rows.map((r): AnyWebhookEventInput => ({
    partnerId: r.partner_id,
    environment: r.environment,
    occurredAt,
    type: 'claim.customer_unreachable',
    data: { ...claimData(r), ...report, reportedAt: occurredAt.toISOString() },
  }));
  return emitToEndpoints(trx, jobs, events, live);
}
