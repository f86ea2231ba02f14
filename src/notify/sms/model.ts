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
