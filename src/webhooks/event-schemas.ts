import { Type, type TSchema } from '@sinclair/typebox';
import { TEST_EVENT_TYPE, type WebhookEventType } from './webhook-events.ts';

/**
 * The body POSTed for each event type, as JSON Schema: what the Flight Delay API's OpenAPI document
 * lists under `webhooks` (one entry per type). Mirrors the payload types of webhook-events.ts; the
 * contract test validates delivered bodies against it.
 */

const DateTime = Type.String({ format: 'date-time', maxLength: 40 });
const Money = Type.Object(
  {
    amount: Type.Integer({
      format: 'int64',
      minimum: 0,
      maximum: 100_000_000,
      description: 'Integer amount in minor units.',
    }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3 }),
  },
  { additionalProperties: false },
);
const OperatingFlightNumber = Type.Optional(
  Type.String({
    maxLength: 10,
    description:
      'A codeshare leg: the operating flight (the one monitored, whose events open the claims); absent when the leg flies under its own number. flightNumber stays the flight the customer booked.',
  }),
);
const Flight = Type.Object({
  flightNumber: Type.String({ maxLength: 10 }),
  operatingFlightNumber: OperatingFlightNumber,
  departureAirport: Type.String({ maxLength: 3 }),
  arrivalAirport: Type.String({ maxLength: 3 }),
  airline: Type.String({ maxLength: 3 }),
  departureDateTime: Type.String({ maxLength: 16, description: "Local wall-clock time, 'YYYY-MM-DDTHH:mm'." }),
  departureAt: DateTime,
});
const LegFlight = Type.Object({
  leg: Type.Integer({ format: 'int32', minimum: 0, maximum: 1, description: '0 the outbound, 1 the return.' }),
  ...Flight.properties,
});
const Claim = {
  claimNumber: Type.String({ maxLength: 40 }),
  contractNumber: Type.String({ maxLength: 40 }),
  flightNumber: Type.String({ maxLength: 10 }),
  operatingFlightNumber: OperatingFlightNumber,
  departureDate: Type.String({ format: 'date', maxLength: 10 }),
  reason: Type.Union([Type.Literal('delay'), Type.Literal('cancellation')]),
  event: Type.Union([Type.Literal('delayed'), Type.Literal('cancelled'), Type.Literal('diverted')]),
  delayMinutes: Type.Union([Type.Integer({ format: 'int32', minimum: 0, maximum: 525_600 }), Type.Null()]),
  compensation: Money,
  status: Type.Union(
    ['opened', 'awaiting_bank_details', 'payment_pending', 'paid', 'expired', 'failed', 'voided'].map((s) =>
      Type.Literal(s),
    ),
  ),
  openedAt: DateTime,
  replaces: Type.Optional(
    Type.String({
      pattern: '^[A-Z]{3}-[0-9]{8}$',
      maxLength: 12,
      description:
        "The claim this one replaces, on the same insured flight: the insurer voided it because the flight data it was opened on was wrong (you had claim.voided for it), then recorded what really happened to the flight, which opened this one (its claim.opened carries this). The same as the claim's evidence.replaces in the claims API. Absent for any other claim.",
      examples: ['CLM-00000041'],
    }),
  ),
};

const DATA: Record<WebhookEventType | typeof TEST_EVENT_TYPE, { summary: string; data: TSchema }> = {
  'contract.created': {
    summary: 'A contract was subscribed',
    data: Type.Object({
      contractNumber: Type.String({ maxLength: 40 }),
      status: Type.Literal('active'),
      booking: Type.Object({ reference: Type.String({ maxLength: 64 }) }),
      passengers: Type.Integer({ format: 'int32', minimum: 1, maximum: 9 }),
      premium: Type.Object({ total: Money, net: Money, tax: Money, commission: Money }),
      flights: Type.Array(LegFlight, { maxItems: 2 }),
      createdAt: DateTime,
    }),
  },
  'contract.cancelled': {
    summary: 'A contract was cancelled, with its refund',
    data: Type.Object({
      contractNumber: Type.String({ maxLength: 40 }),
      status: Type.Literal('cancelled'),
      reason: Type.String({ maxLength: 40 }),
      cancelledAt: DateTime,
      refund: Money,
    }),
  },
  'contract.changed': {
    summary: 'A contract changed: its flights, or one passenger or one leg cancelled',
    data: Type.Object({
      contractNumber: Type.String({ maxLength: 40 }),
      status: Type.Literal('active'),
      version: Type.Integer({ format: 'int32', minimum: 2, maximum: 2147483647 }),
      change: Type.Union(['flight_changed', 'passenger_cancelled', 'leg_cancelled'].map((c) => Type.Literal(c))),
      passengers: Type.Integer({ format: 'int32', minimum: 1, maximum: 9 }),
      flights: Type.Array(LegFlight, { maxItems: 2 }),
      premium: Money,
      difference: Type.Object(
        {
          amount: Type.Integer({
            format: 'int64',
            minimum: -100_000_000,
            maximum: 100_000_000,
            description: 'Integer minor units: > 0 the customer was charged, < 0 refunded.',
          }),
          currency: Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3 }),
        },
        { additionalProperties: false },
      ),
      changedAt: DateTime,
    }),
  },
  'claim.opened': { summary: 'A claim was opened by the platform', data: Type.Object(Claim) },
  'claim.bank_details_received': {
    summary: 'The customer gave bank details',
    data: Type.Object({
      ...Claim,
      ibanLast4: Type.String({
        maxLength: 4,
        description:
          'The last four characters of the account given, never the account itself: of the IBAN, or of the account number when a US account (routing and account number) was given for a USD claim. The name stays ibanLast4.',
      }),
      receivedAt: DateTime,
    }),
  },
  'claim.paid': { summary: 'A claim was paid', data: Type.Object({ ...Claim, paidAt: DateTime }) },
  'claim.expired': {
    summary: 'No bank details arrived in time',
    data: Type.Object({ ...Claim, expiredAt: DateTime }),
  },
  'claim.failed': {
    summary: 'The payment failed, or a paid transfer came back; the customer may give new details',
    data: Type.Object({
      ...Claim,
      failureReason: Type.String({ maxLength: 500 }),
      paymentReturned: Type.Boolean({
        description:
          'true: the transfer had been paid (claim.paid was sent) and the customer’s bank sent it back (a SEPA return: account closed, blocked…); the claim is no longer paid and waits for new details. false: the bank rejected the transfer.',
      }),
      failedAt: DateTime,
    }),
  },
  'claim.voided': {
    summary: 'The insurer withdrew the claim before it was paid',
    data: Type.Object(
      { ...Claim, voidedAt: DateTime },
      {
        description:
          'The insurer’s claim desk voided the claim (status `voided`) before any money left — it was opened on wrong flight data, or on a fraud or sanctions finding: it will not be paid, a pending payment was cancelled, its bank-details link no longer works, and the customer was told by SMS if a message had given them a link. The desk’s reason is internal and not sent.',
      },
    ),
  },
  'claim.customer_unreachable': {
    summary: 'The message asking the customer for bank details did not reach them',
    data: Type.Object({
      ...Claim,
      channel: Type.Union(
        ['sms', 'email'].map((c) => Type.Literal(c)),
        {
          description:
            'sms: the SMS to the customer’s phone (correct the phone: the link is texted again). email: the email to the customer’s address, refused by their mail server for the address itself (unknown or disabled mailbox, a domain that takes no mail) — never for a refusal of our own server; correct the address with PATCH /contracts/{contractNumber}/customer: while the claim waits for bank details a new link is emailed to it (and texted to the phone: one live link per claim), and the next emails go to it. Sent once per refused message.',
        },
      ),
      message: Type.String({
        maxLength: 40,
        description:
          'Which message: opened (the first), payment_failed, reminder, resend (an email: opened or reminder).',
      }),
      deliveryStatus: Type.Union(
        ['rejected', 'undelivered', 'failed'].map((s) => Type.Literal(s)),
        {
          description:
            'rejected: the SMS provider refused the number, or the mail server the address, at send; undelivered or failed (SMS only): the carrier could not deliver it.',
        },
      ),
      errorCode: Type.Union([Type.Integer({ format: 'int32', minimum: 0, maximum: 2147483647 }), Type.Null()], {
        description:
          "sms: the SMS provider's error code (Twilio's: 30003 unreachable handset, 30005 unknown number, 30006 landline…). email: the SMTP reply code (550, 553…); null when the address was refused before any server answered.",
      }),
      reportedAt: DateTime,
    }),
  },
  [TEST_EVENT_TYPE]: {
    summary: 'A test event sent from the console or the API',
    data: Type.Object({
      endpointId: Type.String({ format: 'uuid', maxLength: 36 }),
      message: Type.String({ maxLength: 200 }),
    }),
  },
};

/** The OpenAPI 3.1 `webhooks` object: each event type POSTed as Standard Webhooks. */
export function webhookDocumentation(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [type, { summary, data }] of Object.entries(DATA)) {
    out[type] = {
      post: {
        operationId: `on_${type.replace(/\./g, '_')}`,
        summary,
        description: `POSTed to each of your endpoints subscribed to \`${type}\`, signed with Standard Webhooks (\`webhook-id\` = the event id, the same on every attempt and redelivery; \`webhook-timestamp\`; \`webhook-signature\`). Answer 2xx within 10 s; anything else is retried (10 attempts over about 2.7 days), except 410 Gone: not retried, and the endpoint is paused.`,
        tags: ['Webhooks'],
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: Type.Object({ type: Type.Literal(type), timestamp: DateTime, data }),
            },
          },
        },
        responses: {
          '200': { description: 'Received (any 2xx)' },
          '410': {
            description:
              'Gone: this receiver is no more. Not retried; the endpoint is paused and its pending deliveries end failed.',
          },
        },
      },
    };
  }
  return out;
}
