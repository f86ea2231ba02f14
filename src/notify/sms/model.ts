/** The vocabulary of production SMS: the database schema derives from it. */
export const SMS_STATUSES = ['queued', 'sent', 'rejected'] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];

/**
 * What the carrier did with a sent message, as Twilio reports it in its status callback (the
 * `message_enum_status` of Twilio's API, without the inbound-only `receiving` and `received`).
 */
export const SMS_DELIVERY_STATUSES = [
  'accepted',
  'scheduled',
  'queued',
  'sending',
  'sent',
  'delivered',
  'undelivered',
  'failed',
  'read',
  'partially_delivered',
  'canceled',
] as const;
export type SmsDeliveryStatus = (typeof SMS_DELIVERY_STATUSES)[number];

/**
 * A claim message's kind is the third word of its idempotency key (`claim:<id>:<word>[:…]`,
 * claims/notify-claim.ts; an email's dedupe key is its SMS's key). These carry the customer's
 * bank-details link (a new one each): worth sending only while the claim waits for bank details —
 * never once it is settled or its details are given (the claims domain's `LINK_USELESS_CLAIM_STATUSES`:
 * the link leads to a closed page).
 */
export const LINK_MESSAGE_WORDS = ['bank-details', 'payment-failed', 'reminder', 'resend'] as const;
/**
 * These say where the claim stands, without a link — the receipt (`paid`), the withdrawal (`voided`),
 * the expiry (`expired`): worth sending while the claim still stands there (its status is the word).
 */
export const STATUS_MESSAGE_WORDS = ['paid', 'voided', 'expired'] as const;

/**
 * Sends that may have texted the customer, at most per message, whatever the jobs (Twilio has no
 * idempotency key): an attempt the provider answered with an error, or never received
 * (`NOT_SENT_RETRY_REASONS`), or that failed in the look-up before its send started, is given back
 * (`SmsRetryableError.notSent`) — a Twilio outage longer than the job's retries leaves the message for
 * the `sms_requeue` sweep, not used up; a timeout or a connection lost mid-send counts, and so does a send
 * the carrier failed for a passing reason of the platform's (sent again: `recordSmsDelivery`).
 */
export const MAX_SMS_ATTEMPTS = 8;
