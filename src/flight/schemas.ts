import { Type } from '@sinclair/typebox';
import { FORMULAS } from '../partners/index.ts';
import { CANCEL_REASONS } from './cancel-contract.ts';
import { CLAIMS_PAGE } from './list-claims.ts';
import { CONTRACT_NUMBER_PATTERN } from './contract-number.ts';
import { StringEnum } from '../platform/schema.ts';

/** TypeBox schemas of the Flight Delay API: request validation, response serialisation and OpenAPI. */

const FLIGHT_NUMBER_PATTERN = '^[A-Za-z0-9]{2} ?[0-9]{1,4}[A-Za-z]?$';
const DEPARTURE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2})?(Z|[+-]\\d{2}:\\d{2})?$';

export const Money = Type.Object(
  {
    amount: Type.Integer({
      minimum: 0,
      maximum: 100_000_000,
      description: 'Integer amount in minor units: 1250 EUR is €12.50.',
    }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code.', examples: ['EUR'] }),
  },
  { additionalProperties: false, title: 'Money' },
);

const Airport = (description: string) =>
  Type.String({ pattern: '^[A-Za-z]{3}$', description: `${description}: IATA airport code.`, examples: ['CDG'] });
const LocalDateTime = (description: string) =>
  Type.String({
    pattern: DEPARTURE_PATTERN,
    description: `${description}: local wall-clock time at the departure airport, YYYY-MM-DDTHH:mm (an explicit offset such as +01:00 is also accepted).`,
    examples: ['2026-12-24T10:30'],
  });
const Formula = StringEnum(FORMULAS, { description: 'delay, cancellation, or both (delay_and_cancellation).' });

const TripFields = {
  departureAirport: Airport('Outbound departure airport'),
  arrivalAirport: Airport('Outbound arrival airport'),
  airline: Type.String({
    pattern: '^[A-Za-z0-9]{2}$',
    description: 'Operating airline: IATA 2-character code of an active airline.',
    examples: ['AF'],
  }),
  departureDateTime: LocalDateTime('Outbound departure'),
  returnDepartureDateTime: Type.Optional(
    LocalDateTime('Return departure (the return flies the same route backwards); omit for a one-way trip'),
  ),
  additionalPassengers: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 8,
      default: 0,
      description: 'Passengers besides the first, on the same booking (0-8).',
    }),
  ),
  flightNumber: Type.Optional(
    Type.String({
      pattern: FLIGHT_NUMBER_PATTERN,
      description:
        'Outbound flight designator when known, starting with the airline (e.g. AF006): the risk model may price that flight more sharply, and /subscribe must then name this flight.',
      examples: ['AF006'],
    }),
  ),
  returnFlightNumber: Type.Optional(
    Type.String({
      pattern: FLIGHT_NUMBER_PATTERN,
      description:
        'Return flight designator when known, starting with the airline (needs returnDepartureDateTime); /subscribe must then name this flight.',
      examples: ['AF007'],
    }),
  ),
};

const exampleTrip = {
  departureAirport: 'CDG',
  arrivalAirport: 'JFK',
  airline: 'AF',
  departureDateTime: '2026-12-24T10:30',
  returnDepartureDateTime: '2027-01-03T18:00',
  additionalPassengers: 1,
};

export const QuoteRequest = Type.Object(TripFields, { additionalProperties: false, examples: [exampleTrip] });

const Tier = Type.Object(
  {
    minDelayMinutes: Type.Integer({
      minimum: 15,
      maximum: 1440,
      description: 'Arrival delay at the gate, in minutes, from which this tier pays.',
    }),
    amount: Money,
  },
  { additionalProperties: false },
);

const Compensation = Type.Object(
  {
    delay: Type.Array(Tier, {
      maxItems: 5,
      description: 'Delay tiers; the highest tier reached pays, per passenger and per leg.',
    }),
    cancellation: Type.Union([Money, Type.Null()], {
      description: 'Paid per passenger for a cancelled leg; null when not covered.',
    }),
  },
  { additionalProperties: false },
);

export const SimulationRequest = Type.Object(
  {
    ...TripFields,
    formula: Formula,
    compensation: Type.Object(
      {
        delay: Type.Optional(
          Type.Array(Tier, { maxItems: 5, description: 'Delay tiers (required when the formula covers delay).' }),
        ),
        cancellation: Type.Optional(
          Type.Union([Money, Type.Null()], {
            description: 'Cancellation amount (required when the formula covers cancellation).',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    commissionRate: Type.Number({
      minimum: 0,
      maximum: 0.9,
      description: 'Your commission, a share of the net premium (0.2 = 20 %), within your agreement.',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        ...exampleTrip,
        formula: 'delay_and_cancellation',
        compensation: {
          delay: [
            { minDelayMinutes: 120, amount: { amount: 5000, currency: 'EUR' } },
            { minDelayMinutes: 180, amount: { amount: 10000, currency: 'EUR' } },
          ],
          cancellation: { amount: 15000, currency: 'EUR' },
        },
        commissionRate: 0.2,
      },
    ],
  },
);

const Premium = Type.Object(
  {
    total: Money,
    net: Money,
    tax: Money,
    commission: Money,
  },
  { description: 'total = net + tax; the commission is part of net.' },
);

const LegOut = Type.Object({
  departureAirport: Type.String(),
  arrivalAirport: Type.String(),
  airline: Type.String(),
  departureDateTime: Type.String({ description: 'Local time at the departure airport.' }),
  departureAt: Type.String({ format: 'date-time', description: 'The same instant in UTC.' }),
});

const ModelVersion = Type.String({
  description: 'Version of the risk model the premium was priced with (signed in the quote, recorded on the contract).',
  examples: ['v1'],
});

const Explanation = Type.Object(
  {
    base: Type.Number({ minimum: 0, maximum: 1, description: 'Base rate the factors apply to (a fraction).' }),
    factors: Type.Array(
      Type.Object({
        label: Type.String({ description: 'What the factor is about, e.g. "hour 19", "LAX", "OO on SAT–LAX".' }),
        factor: Type.Number({ minimum: 0, description: 'Multiplier applied to the rate.' }),
        credibility: Type.Number({
          minimum: 0,
          maximum: 1,
          description: 'Weight given to the data behind this factor (1 for a documented table factor).',
        }),
      }),
    ),
    probability: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'The probability the model returns (a fraction), after any cap.',
    }),
    text: Type.String({
      description: 'The same in words: base × factors = probability, in percent.',
      examples: ['2.17 % × 1.12 (hour 19) × 0.81 (LAX) × 0.87 (OO on SAT–LAX) = 1.73 %'],
    }),
  },
  { description: 'How the model built the probability: base rate × each factor (with its credibility) = probability.' },
);

const PayoutEvent = Type.Object(
  {
    event: StringEnum(['cancellation', 'diversion', 'delay'], {
      description: 'The payout event; the events of a leg are disjoint.',
    }),
    minDelayMinutes: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Delay band start (the tier it pays); null for cancellation and diversion.',
    }),
    maxDelayMinutes: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Delay band end, exclusive (the next tier); null for the highest tier.',
    }),
    probability: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'Probability of the event on this leg; for a band, P(delay ≥ min) − P(delay ≥ max).',
    }),
    payout: Money,
    explanation: Explanation,
  },
  { description: "A delay band's explanation is that of reaching its tier, P(delay ≥ minDelayMinutes)." },
);

const LegBreakdown = Type.Object({
  departureAirport: Type.String(),
  arrivalAirport: Type.String(),
  flightNumber: Type.Union([Type.String(), Type.Null()], {
    description: 'The flight the leg was priced for, when the request named one.',
  }),
  credibility: Type.Number({
    minimum: 0,
    maximum: 1,
    description:
      'How much the model knows of this leg (0: priors only, 1: ample history); the risk margin grows as it falls.',
  }),
  expectedLoss: Type.Object(Money.properties, {
    additionalProperties: false,
    description: 'Expected loss per passenger on this leg, rounded to minor units.',
  }),
  premium: Type.Object(Money.properties, {
    additionalProperties: false,
    description: "This leg's share of the net premium, per passenger (commission included, tax excluded).",
  }),
  events: Type.Array(PayoutEvent),
});

const Breakdown = Type.Array(LegBreakdown, {
  description:
    'Per leg, in the order of legs: the probability of each payout event with its explanation, the expected loss and the premium share per passenger.',
});

export const QuoteResponse = Type.Object({
  quoteReference: Type.String({
    description: 'Signed reference to pass to /subscribe; valid until expiresAt, subscribes once.',
  }),
  expiresAt: Type.String({ format: 'date-time' }),
  formula: Formula,
  passengers: Type.Integer(),
  premium: Premium,
  compensation: Compensation,
  legs: Type.Array(LegOut),
  configurationVersion: Type.Integer({ description: 'Version of your configuration this quote was priced with.' }),
  modelVersion: ModelVersion,
  breakdown: Breakdown,
});

export const SimulationResponse = Type.Object({
  formula: Formula,
  passengers: Type.Integer(),
  premium: Premium,
  compensation: Compensation,
  legs: Type.Array(LegOut),
  modelVersion: ModelVersion,
  breakdown: Breakdown,
});

const FlightIn = Type.Object(
  {
    flightNumber: Type.String({
      pattern: FLIGHT_NUMBER_PATTERN,
      description:
        'Full flight designator, starting with the quoted airline (the quoted flight when the quote named one).',
      examples: ['AF006'],
    }),
    departureAirport: Airport('Departure airport'),
    arrivalAirport: Airport('Arrival airport'),
    departureDateTime: LocalDateTime('Departure'),
  },
  { additionalProperties: false },
);

export const SubscribeRequest = Type.Object(
  {
    quoteReference: Type.String({ minLength: 10, maxLength: 2000 }),
    customer: Type.Object(
      {
        firstName: Type.String({ minLength: 1, maxLength: 100 }),
        lastName: Type.String({ minLength: 1, maxLength: 100 }),
        email: Type.String({ format: 'email', maxLength: 254 }),
        phone: Type.String({
          pattern: '^\\+[1-9][0-9]{6,14}$',
          description: 'Mobile phone in E.164 format: the claim SMS goes there.',
          examples: ['+33612345678'],
        }),
        language: StringEnum(['fr', 'en'], { description: 'Language of the messages the customer receives.' }),
      },
      { additionalProperties: false },
    ),
    booking: Type.Object(
      {
        reference: Type.String({
          pattern: '^[A-Za-z0-9]{5,12}$',
          description: 'Booking reference (PNR).',
          examples: ['ABC123'],
        }),
      },
      { additionalProperties: false },
    ),
    flights: Type.Array(FlightIn, {
      minItems: 1,
      maxItems: 2,
      description: 'The outbound flight and, when quoted, the return flight, as quoted.',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        quoteReference: 'q2.WyJ….AJT6HKRxbso2juD1c3hgTg.emA-UegxsMx3M1_8',
        customer: {
          firstName: 'Camille',
          lastName: 'Martin',
          email: 'camille@example.com',
          phone: '+33612345678',
          language: 'fr',
        },
        booking: { reference: 'ABC123' },
        flights: [
          {
            flightNumber: 'AF006',
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: '2026-12-24T10:30',
          },
          {
            flightNumber: 'AF007',
            departureAirport: 'JFK',
            arrivalAirport: 'CDG',
            departureDateTime: '2027-01-03T18:00',
          },
        ],
      },
    ],
  },
);

export const ContractResponse = Type.Object({
  contractNumber: Type.String({ pattern: CONTRACT_NUMBER_PATTERN }),
  status: StringEnum(['active', 'cancelled', 'completed']),
  formula: Formula,
  passengers: Type.Integer(),
  premium: Premium,
  compensation: Compensation,
  configurationVersion: Type.Integer(),
  modelVersion: ModelVersion,
  booking: Type.Object({ reference: Type.String() }),
  flights: Type.Array(Type.Object({ flightNumber: Type.String(), ...LegOut.properties })),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CancelRequest = Type.Object(
  {
    contractNumber: Type.String({ maxLength: 40, examples: ['FD-7K3M-9QXT'] }),
    reason: StringEnum(CANCEL_REASONS, { description: `Why the contract is cancelled: ${CANCEL_REASONS.join(', ')}.` }),
  },
  { additionalProperties: false, examples: [{ contractNumber: 'FD-7K3M-9QXT', reason: 'ticket_cancelled' }] },
);

export const CancelResponse = Type.Object({
  contractNumber: Type.String(),
  status: Type.Literal('cancelled'),
  reason: Type.String(),
  cancelledAt: Type.String({ format: 'date-time' }),
  refund: Money,
});

export const ClaimsRequest = Type.Object(
  {
    fromDate: Type.String({ format: 'date', description: 'First day (inclusive, UTC) on which claims were opened.' }),
    toDate: Type.String({
      format: 'date',
      description: `Last day (inclusive, UTC); at most ${CLAIMS_PAGE.maxRangeDays} days after fromDate.`,
    }),
    contractNumber: Type.Optional(Type.String({ maxLength: 40, description: 'Only the claims of this contract.' })),
    cursor: Type.Optional(Type.String({ maxLength: 500, description: 'nextCursor of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CLAIMS_PAGE.max, default: CLAIMS_PAGE.default })),
  },
  { additionalProperties: false, examples: [{ fromDate: '2026-12-01', toDate: '2026-12-31' }] },
);

const ClaimOut = Type.Object({
  claimNumber: Type.String(),
  contractNumber: Type.String(),
  status: StringEnum(['opened', 'awaiting_bank_details', 'payment_pending', 'paid', 'expired', 'failed']),
  reason: StringEnum(['delay', 'cancellation']),
  event: StringEnum(['delayed', 'cancelled', 'diverted'], { description: 'What happened to the flight.' }),
  flightNumber: Type.String(),
  departureDate: Type.String({ format: 'date' }),
  delayMinutes: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Arrival delay at the gate; null unless the flight was delayed (cancelled, diverted).',
  }),
  compensation: Money,
  openedAt: Type.String({ format: 'date-time' }),
  paidAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const FlightEventRequest = Type.Object(
  {
    flightNumber: Type.String({
      pattern: '^[A-Za-z0-9]{2} ?[0-9]{1,4}[A-Za-z]?$',
      description: 'The flight designator as on your contracts, e.g. AF006.',
      examples: ['AF006'],
    }),
    departureDate: Type.String({ format: 'date', description: 'Local departure date at the departure airport.' }),
    status: StringEnum(['delayed', 'cancelled', 'diverted'], { description: 'What happened to the flight.' }),
    arrivalDelayMinutes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2880,
        description: 'Arrival delay at the gate in minutes; required when status is delayed.',
      }),
    ),
    environment: Type.Optional(
      StringEnum(['sandbox', 'preproduction', 'production'], {
        description:
          "Operator tokens only: the environment whose contracts the event concerns (default production). With a partner key it can only repeat the key's own environment.",
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ flightNumber: 'AF006', departureDate: '2026-12-24', status: 'delayed', arrivalDelayMinutes: 195 }],
  },
);

export const FlightEventResponse = Type.Object({
  claimsOpened: Type.Array(ClaimOut, {
    description:
      'The claims this event opened on your active contracts (none when they were already open, or nothing is covered); with an operator token, on every partner’s.',
  }),
});

export const ClaimsResponse = Type.Object({
  claims: Type.Array(ClaimOut),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor for the next page; null on the last page.',
  }),
});

export const SandboxMessagesQuery = Type.Object(
  {
    contractNumber: Type.String({
      maxLength: 40,
      description: 'One of your sandbox or preproduction contracts.',
      examples: ['FD-7K3M-9QXT'],
    }),
  },
  { additionalProperties: false },
);

export const SandboxMessagesResponse = Type.Object({
  messages: Type.Array(
    Type.Object({
      to: Type.String({ description: 'The customer phone number (E.164).' }),
      body: Type.String(),
      link: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
        description: 'The bank-details link the message carries.',
      }),
      sentAt: Type.String({ format: 'date-time' }),
    }),
  ),
});
