import { Type } from '@sinclair/typebox';
import { CLAIM_STATUSES } from '../claims/index.ts';
import { FLIGHT_WATCH_STATES } from '../monitoring/index.ts';
import { FORMULAS } from '../partners/index.ts';
import { CANCEL_REASONS } from './cancel-contract.ts';
import { CLAIMS_PAGE } from './list-claims.ts';
import { CONTRACTS_PAGE } from './read-contracts.ts';
import { CONTRACT_NUMBER_PATTERN } from './contract-number.ts';
import { CONSENT_CHANNELS } from '../platform/db-schema.ts';
import { CONTRACT_CHANGES, CONTRACT_STATUSES } from './model.ts';
import { CUSTOMER_LANGUAGES } from '../platform/language.ts';
import { PERSON_NAME_DESCRIPTION } from '../platform/person-name.ts';
import { PageLimit, StringEnum } from '../platform/schema.ts';

/** TypeBox schemas of the Flight Delay API: request validation, response serialisation and OpenAPI. */

const FLIGHT_NUMBER_PATTERN = '^[A-Za-z0-9]{2} ?[0-9]{1,4}[A-Za-z]?$';
const DEPARTURE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2})?$';

export const Money = Type.Object(
  {
    amount: Type.Integer({
      minimum: 0,
      maximum: 100_000_000,
      description: 'Integer amount in minor units: 1250 EUR is €12.50.',
    }),
    currency: Type.String({
      pattern: '^[A-Z]{3}$',
      maxLength: 3,
      description: 'ISO 4217 currency code.',
      examples: ['EUR'],
    }),
  },
  { additionalProperties: false, title: 'Money' },
);

const Airport = (description: string, example: string) =>
  Type.String({
    pattern: '^[A-Za-z]{3}$',
    maxLength: 3,
    description: `${description}: IATA airport code.`,
    examples: [example],
  });
const LocalDateTime = (description: string, example = '2026-12-24T10:30') =>
  Type.String({
    pattern: DEPARTURE_PATTERN,
    maxLength: 29,
    description: `${description}: local wall-clock time at the departure airport, YYYY-MM-DDTHH:mm (an explicit offset from -12:00 to +14:00, such as +01:00, is also accepted; seconds and milliseconds, as JavaScript's toISOString() writes them, are accepted and dropped: a departure is to the minute). A local time that does not exist (clocks go forward) is refused; one that occurs twice (clocks go back) is read as its second occurrence: give the offset to mean the first.`,
    examples: [example],
  });
const Formula = StringEnum(FORMULAS, { description: 'delay, cancellation, or both (delay_and_cancellation).' });

const TripFields = {
  departureAirport: Airport('Outbound departure airport', 'CDG'),
  arrivalAirport: Airport('Outbound arrival airport', 'JFK'),
  airline: Type.String({
    pattern: '^[A-Za-z0-9]{2}$',
    maxLength: 2,
    description: 'Operating airline: IATA 2-character code of an active airline.',
    examples: ['AF'],
  }),
  departureDateTime: LocalDateTime('Outbound departure'),
  returnDepartureDateTime: Type.Optional(
    LocalDateTime(
      "Return departure, leaving arrivalAirport (the return flies the same route backwards) at least 60 minutes after the outbound, the two compared as instants, each read in its own airport's zone, whatever their wall clocks say (else 422 validation_failed naming returnDepartureDateTime); omit for a one-way trip",
      '2027-01-03T18:00',
    ),
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
      maxLength: 8,
      description:
        'Outbound flight designator when known, starting with the airline (e.g. AF006): the risk model may price that flight more sharply, and /subscribe must then name this flight.',
      examples: ['AF006'],
    }),
  ),
  returnFlightNumber: Type.Optional(
    Type.String({
      pattern: FLIGHT_NUMBER_PATTERN,
      maxLength: 8,
      description:
        'Return flight designator when known, starting with the airline (needs returnDepartureDateTime); /subscribe must then name this flight.',
      examples: ['AF007'],
    }),
  ),
  operatingFlightNumber: Type.Optional(
    Type.String({
      pattern: FLIGHT_NUMBER_PATTERN,
      maxLength: 8,
      description:
        "Codeshare: the flight that operates the outbound flightNumber (needs flightNumber), e.g. AF3612 operated as DL264. Any active airline's designator. The leg is priced as the operating flight (its carrier, its history), its exposure counts on the operating carrier, and /subscribe must then name this operating flight.",
      examples: ['DL264'],
    }),
  ),
  returnOperatingFlightNumber: Type.Optional(
    Type.String({
      pattern: FLIGHT_NUMBER_PATTERN,
      maxLength: 8,
      description: 'Codeshare: the flight that operates returnFlightNumber (needs returnFlightNumber).',
      examples: ['DL265'],
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
      description:
        'Your commission, a share of the net premium (0.2 = 20 %), with at most 5 decimals (0.1 + 0.2 computed in floating point is refused: send 0.3), within your agreement (else 422 configuration_out_of_bounds).',
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

const AirportOut = Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3, description: 'IATA airport code.' });
const FlightNumberOut = Type.String({ maxLength: 8, description: 'Flight designator, e.g. AF006.' });

const LegOut = Type.Object({
  departureAirport: AirportOut,
  arrivalAirport: AirportOut,
  airline: Type.String({ pattern: '^[A-Z0-9]{2}$', maxLength: 2, description: 'IATA airline code.' }),
  departureDateTime: Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$',
    maxLength: 16,
    description: 'Local time at the departure airport.',
  }),
  departureAt: Type.String({ format: 'date-time', maxLength: 40, description: 'The same instant in UTC.' }),
});

const ModelVersion = Type.String({
  maxLength: 40,
  description: 'Version of the risk model the premium was priced with (signed in the quote, recorded on the contract).',
  examples: ['v2-2008q1'],
});

const Explanation = Type.Object(
  {
    base: Type.Number({ minimum: 0, maximum: 1, description: 'Base rate the factors apply to (a fraction).' }),
    factors: Type.Array(
      Type.Object({
        label: Type.String({
          maxLength: 200,
          description: 'What the factor is about, e.g. "hour 19", "LAX", "OO on SAT–LAX".',
        }),
        factor: Type.Number({ minimum: 0, description: 'Multiplier applied to the rate.' }),
        credibility: Type.Number({
          minimum: 0,
          maximum: 1,
          description: 'Weight given to the data behind this factor (1 for a documented table factor).',
        }),
      }),
      { maxItems: 50 },
    ),
    probability: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'The probability the model returns (a fraction), after any cap.',
    }),
    text: Type.String({
      maxLength: 5000,
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
    minDelayMinutes: Type.Union([Type.Integer({ minimum: 0, maximum: 1440 }), Type.Null()], {
      description: 'Delay band start (the tier it pays); null for cancellation and diversion.',
    }),
    maxDelayMinutes: Type.Union([Type.Integer({ minimum: 0, maximum: 1440 }), Type.Null()], {
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
  departureAirport: AirportOut,
  arrivalAirport: AirportOut,
  flightNumber: Type.Union([FlightNumberOut, Type.Null()], {
    description:
      'The flight the leg was priced for, when the request named one: the operating flight of a codeshare (operatingFlightNumber).',
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
  events: Type.Array(PayoutEvent, { maxItems: 10 }),
});

const Breakdown = Type.Array(LegBreakdown, {
  maxItems: 2,
  description:
    'Per leg, in the order of legs: the probability of each payout event with its explanation, the expected loss and the premium share per passenger.',
});

const DocumentRefOut = (what: string) =>
  Type.Object(
    {
      url: Type.String({ format: 'uri', maxLength: 2000, description: `Where the customer reads the ${what}.` }),
      version: Type.String({ maxLength: 40, description: `The insurer's version label of the ${what}.` }),
      sha256: Type.String({
        pattern: '^[0-9a-f]{64}$',
        maxLength: 64,
        description: `SHA-256 of the ${what} file: proves which text the customer received.`,
      }),
    },
    { additionalProperties: false },
  );

export const DocumentsOut = Type.Object(
  {
    version: Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description:
        'Version of this set of documents: the customer consents to it, and /subscribe refuses another (documents_version_mismatch).',
    }),
    ipid: DocumentRefOut('insurance product information document (IPID, IDD 2016/97 art. 20)'),
    terms: DocumentRefOut('terms and conditions'),
  },
  {
    additionalProperties: false,
    description:
      'The documents the customer must receive before buying. Show them, then send the consent to /subscribe.',
  },
);

export const InsurerOut = Type.Object(
  {
    name: Type.String({ maxLength: 200, description: "The insurer's legal name." }),
    registration: Type.String({ maxLength: 200, description: 'Legal form and registration number.' }),
    address: Type.String({ maxLength: 500, description: 'Registered office.' }),
    regulator: Type.String({ maxLength: 200, description: 'The supervisory authority.' }),
    complaints: Type.Object(
      {
        email: Type.String({ maxLength: 254, description: 'Where the customer sends a complaint.' }),
        url: Type.Union([Type.String({ format: 'uri', maxLength: 2000 }), Type.Null()], {
          description: 'The complaints procedure, when published.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: "The insurer's legal identity and complaints contact." },
);

const ConsentFields = {
  acceptedAt: Type.String({
    format: 'date-time',
    maxLength: 40,
    description: 'When the customer accepted the documents (not in the future, not before the quote).',
  }),
  documentsVersion: Type.Integer({
    minimum: 1,
    maximum: 2147483647,
    format: 'int32',
    description: 'documents.version of the quote the customer accepted.',
  }),
  channel: StringEnum(CONSENT_CHANNELS, {
    description: `Where the customer accepted: ${CONSENT_CHANNELS.join(', ')}.`,
  }),
};

const ConsentIn = Type.Object(ConsentFields, {
  additionalProperties: false,
  description:
    "The customer's acceptance of the quote's documents (IPID and terms), given before subscribing. Required.",
});

const Passengers = Type.Integer({ minimum: 1, maximum: 9, description: 'Insured passengers (1-9).' });
const ConfigurationVersion = (description?: string) =>
  Type.Integer({ minimum: 1, maximum: 2147483647, ...(description ? { description } : {}) });

export const QuoteResponse = Type.Object({
  quoteReference: Type.String({
    maxLength: 2000,
    description: 'Signed reference to pass to /subscribe; valid until expiresAt, subscribes once.',
  }),
  expiresAt: Type.String({ format: 'date-time', maxLength: 40 }),
  formula: Formula,
  passengers: Passengers,
  premium: Premium,
  compensation: Compensation,
  legs: Type.Array(LegOut, { maxItems: 2 }),
  configurationVersion: ConfigurationVersion('Version of your configuration this quote was priced with.'),
  modelVersion: ModelVersion,
  breakdown: Breakdown,
  documents: DocumentsOut,
  insurer: InsurerOut,
});

export const SimulationResponse = Type.Object({
  formula: Formula,
  passengers: Passengers,
  premium: Premium,
  compensation: Compensation,
  legs: Type.Array(LegOut, { maxItems: 2 }),
  modelVersion: ModelVersion,
  breakdown: Breakdown,
});

const FlightIn = Type.Object(
  {
    flightNumber: Type.String({
      pattern: FLIGHT_NUMBER_PATTERN,
      maxLength: 8,
      description:
        'Full flight designator, starting with the quoted airline (the quoted flight when the quote named one).',
      examples: ['AF006'],
    }),
    operatingFlightNumber: Type.Optional(
      Type.String({
        pattern: FLIGHT_NUMBER_PATTERN,
        maxLength: 8,
        description:
          "Codeshare: the flight that flies when flightNumber is a marketing number (AF3612 operated as DL264), any active airline's designator; the quoted one when the quote named one. Monitoring watches it and its events open the claims; the claims, the SMS and the customer's page show flightNumber, the flight the customer booked.",
        examples: ['DL264'],
      }),
    ),
    departureAirport: Airport('Departure airport', 'CDG'),
    arrivalAirport: Airport('Arrival airport', 'JFK'),
    departureDateTime: LocalDateTime('Departure'),
  },
  { additionalProperties: false },
);

const OperatingFlightOut = Type.Union([Type.String({ maxLength: 8 }), Type.Null()], {
  description:
    'A codeshare leg: the operating flight, monitored (its events open the claims); null when the leg flies under its own flightNumber.',
});

/** A Flight Delay customer's name: the person-name rule, and what changed for partners with it. */
const CUSTOMER_NAME_DESCRIPTION = `${PERSON_NAME_DESCRIPTION} Changed in November 2026: a name of spaces only was answered \`invalid\` ("must not be blank"); it is now \`required\`, as a policyholder's name and every blank field.`;

export const SubscribeRequest = Type.Object(
  {
    quoteReference: Type.String({ minLength: 10, maxLength: 2000 }),
    customer: Type.Object(
      {
        firstName: Type.String({ minLength: 1, maxLength: 100, description: CUSTOMER_NAME_DESCRIPTION }),
        lastName: Type.String({ minLength: 1, maxLength: 100, description: CUSTOMER_NAME_DESCRIPTION }),
        email: Type.String({ format: 'email', maxLength: 254 }),
        phone: Type.String({
          pattern: '^\\+[1-9][0-9]{6,14}$',
          maxLength: 16,
          description:
            'Mobile phone in E.164 format: the claim SMS goes there. A number libphonenumber gives a type that takes no SMS (FIXED_LINE, a landline — not FIXED_LINE_OR_MOBILE, as in the United States —, TOLL_FREE, PREMIUM_RATE, SHARED_COST, UAN, PAGER, VOICEMAIL) is refused: 422 phone_not_mobile.',
          examples: ['+33612345678'],
        }),
        language: StringEnum(CUSTOMER_LANGUAGES, {
          description: `Language of the messages the customer receives (SMS, email, bank-details page): one of ${CUSTOMER_LANGUAGES.join(', ')}.`,
        }),
      },
      { additionalProperties: false },
    ),
    booking: Type.Object(
      {
        reference: Type.String({
          pattern: '^[A-Za-z0-9_-]{1,64}$',
          maxLength: 64,
          description:
            "Booking reference: the PNR or the agency's own file reference (letters, digits, - and _, up to 64). Kept in capitals.",
          examples: ['ABC123', 'TRIP-2026_000417'],
        }),
      },
      { additionalProperties: false },
    ),
    flights: Type.Array(FlightIn, {
      minItems: 1,
      maxItems: 2,
      description: 'The outbound flight and, when quoted, the return flight, as quoted.',
    }),
    consent: ConsentIn,
  },
  {
    additionalProperties: false,
    examples: [
      {
        quoteReference:
          'q3.WyIxMTExMTExMS0xMTExLTQxMTEtODExMS0xMTExMTExMTExMTEiLCJzYW5kYm94IiwiMjIyMjIyMjItMjIyMi00MjIyLTgyMjItMjIyMjIyMjIyMjIyIiwiZGVsYXlfYW5kX2NhbmNlbGxhdGlvbiIsMiwiRVVSIixbNDE1NCwzNzQsODMwLDQ1MjhdLFtbIkNERyIsIkpGSyIsIkFGIiwiMjAyNi0xMi0yNFQxMDozMCJdLFsiSkZLIiwiQ0RHIiwiQUYiLCIyMDI3LTAxLTAzVDE4OjAwIl1dLCJ2Mi0yMDA4cTEiLDEsMSxbMTAyMSwxMDU2XSwxNzk1NTEyMDAwLDE3OTU1OTg0MDBd.example-tag-not-signed.example-quote-id',
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
        consent: { acceptedAt: '2026-11-24T09:25:00Z', documentsVersion: 1, channel: 'web' },
      },
    ],
  },
);

/** A leg's position in the trip as sold: it names the leg to change or cancel and stays when its flight changes. */
export const LegIndex = Type.Integer({
  minimum: 0,
  maximum: 1,
  description:
    "The leg's position in the trip as sold: 0 the outbound, 1 the return. It names the leg in a flight change or a leg cancellation and stays the same when the leg's flight changes; a cancelled leg leaves the list.",
});

export const ContractResponse = Type.Object({
  contractNumber: Type.String({ pattern: CONTRACT_NUMBER_PATTERN, maxLength: 40 }),
  status: StringEnum(CONTRACT_STATUSES),
  formula: Formula,
  passengers: Passengers,
  premium: Premium,
  compensation: Compensation,
  configurationVersion: ConfigurationVersion(),
  agreementVersion: Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.Null()], {
    description:
      'The version of your agreement with the insurer the contract was sold under (it keeps it when the agreement is amended); null for a sandbox contract sold before the agreement was signed.',
  }),
  modelVersion: ModelVersion,
  booking: Type.Object({ reference: Type.String({ pattern: '^[A-Z0-9_-]{1,64}$', maxLength: 64 }) }),
  flights: Type.Array(
    Type.Object({
      leg: LegIndex,
      flightNumber: Type.String({
        maxLength: 8,
        description: 'The flight the customer booked (a codeshare: its marketing flight).',
      }),
      operatingFlightNumber: OperatingFlightOut,
      ...LegOut.properties,
    }),
    { maxItems: 2 },
  ),
  version: Type.Integer({
    minimum: 1,
    maximum: 2147483647,
    description:
      'The contract version: 1 as sold, one more at each change (flight change, passenger or leg cancelled).',
  }),
  consent: Type.Union([Type.Object(ConsentFields, { additionalProperties: false }), Type.Null()], {
    description:
      "The customer's consent recorded with the contract; null on contracts sold before consent was recorded.",
  }),
  createdAt: Type.String({ format: 'date-time', maxLength: 40 }),
});

export const CancelRequest = Type.Object(
  {
    contractNumber: Type.String({ maxLength: 40, examples: ['FD-7K3M-9QXT'] }),
    reason: StringEnum(CANCEL_REASONS, { description: `Why the contract is cancelled: ${CANCEL_REASONS.join(', ')}.` }),
  },
  { additionalProperties: false, examples: [{ contractNumber: 'FD-7K3M-9QXT', reason: 'ticket_cancelled' }] },
);

export const CancelResponse = Type.Object({
  contractNumber: Type.String({ maxLength: 40 }),
  status: Type.Literal('cancelled'),
  reason: Type.String({ maxLength: 40, description: `One of ${CANCEL_REASONS.join(', ')}.` }),
  cancelledAt: Type.String({ format: 'date-time', maxLength: 40 }),
  refund: Money,
});

export const PartialCancellationRequest = Type.Object(
  {
    passengers: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 9,
        description:
          'How many passengers leave the contract: fewer than it insures. Before the first insured departure and while no claim exists.',
      }),
    ),
    leg: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1,
        description:
          'The leg that leaves the contract (0 outbound, 1 return): before its departure, while it has no claim, and while another leg stays.',
      }),
    ),
    reason: StringEnum(CANCEL_REASONS, { description: `Why: ${CANCEL_REASONS.join(', ')}.` }),
    contractVersion: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2147483647,
        description:
          "The contract's version you mean to change (`version` of GET /contracts/{contractNumber}; 1 as sold). When given and the contract has changed since, 409 `contract_changed` and nothing is cancelled: a request repeated without Idempotency-Key then cannot cancel twice. Recommended.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Exactly one of passengers, leg.',
    examples: [
      { passengers: 1, reason: 'customer_request', contractVersion: 2 },
      { leg: 1, reason: 'ticket_cancelled' },
    ],
  },
);

export const PartialCancellationResponse = Type.Object({
  contractNumber: Type.String({ maxLength: 40 }),
  change: StringEnum(['passenger_cancelled', 'leg_cancelled'] as const),
  reason: Type.String({ maxLength: 40, description: `One of ${CANCEL_REASONS.join(', ')}.` }),
  version: Type.Integer({
    minimum: 2,
    maximum: 2147483647,
    description: 'The contract version after the cancellation.',
  }),
  passengers: Type.Integer({ minimum: 1, maximum: 9, description: 'The passengers that stay covered.' }),
  flights: Type.Array(
    Type.Object({
      leg: LegIndex,
      flightNumber: FlightNumberOut,
      operatingFlightNumber: OperatingFlightOut,
      ...LegOut.properties,
    }),
    { maxItems: 2, description: 'The flights that stay covered.' },
  ),
  premium: Premium,
  refund: Type.Object(Money.properties, {
    additionalProperties: false,
    description: 'What the customer gets back: the premium (net and tax) of what leaves.',
  }),
  commissionReturned: Type.Object(Money.properties, {
    additionalProperties: false,
    description: 'Your commission on what leaves, given back (it is part of the refund).',
  }),
  cancelledAt: Type.String({ format: 'date-time', maxLength: 40 }),
});

const ClaimStatusIn = StringEnum(CLAIM_STATUSES, { description: 'A claim status.' });
const ContractStatusIn = StringEnum(CONTRACT_STATUSES, { description: 'A contract status.' });

export const ClaimsRequest = Type.Object(
  {
    fromDate: Type.Optional(
      Type.String({
        format: 'date',
        maxLength: 10,
        description: 'First day (inclusive, UTC) on which claims were opened. Required unless contractNumber is given.',
      }),
    ),
    toDate: Type.Optional(
      Type.String({
        format: 'date',
        maxLength: 10,
        description: `Last day (inclusive, UTC); at most ${CLAIMS_PAGE.maxRangeDays} days after fromDate. Required unless contractNumber is given.`,
      }),
    ),
    contractNumber: Type.Optional(
      Type.String({ maxLength: 40, description: 'Only the claims of this contract; the dates are then optional.' }),
    ),
    status: Type.Optional(
      Type.Union([ClaimStatusIn, Type.Array(ClaimStatusIn, { minItems: 1, maxItems: CLAIM_STATUSES.length })], {
        description: 'Only the claims in this status, or in one of these statuses.',
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        maxLength: 500,
        description:
          'nextCursor of the previous page, with the same filters as that page (other filters: 422 invalid_cursor).',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CLAIMS_PAGE.max, default: CLAIMS_PAGE.default })),
  },
  {
    additionalProperties: false,
    examples: [
      { fromDate: '2026-12-01', toDate: '2026-12-31' },
      { contractNumber: 'FD-7K3M-9QXT', status: ['awaiting_bank_details', 'failed'] },
    ],
  },
);

const Instant = (description: string) =>
  Type.Union([Type.String({ format: 'date-time', maxLength: 40 }), Type.Null()], {
    description: `${description}; null when unknown.`,
  });

const ClaimEvidenceOut = Type.Object(
  {
    source: Type.String({
      maxLength: 100,
      description:
        'Where the flight facts came from: `monitoring:<provider>` (flight data), `partner_report` (POST /claims in sandbox and preproduction) or `operator`.',
    }),
    provider: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
      description: 'The flight-data provider, when the monitoring decided.',
    }),
    providerFlightId: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
    scheduledDeparture: Instant('Scheduled gate departure'),
    actualDeparture: Instant('Actual gate departure'),
    scheduledArrival: Instant('Scheduled gate arrival: the reference of the delay'),
    actualArrival: Instant('Actual gate arrival (block-on); the runway time is never used'),
    divertedTo: Type.Union([Type.String({ maxLength: 10 }), Type.Null()], {
      description: 'Airport the flight was diverted to.',
    }),
    delayMinutes: Type.Union([Type.Integer({ format: 'int32', minimum: 0, maximum: 525_600 }), Type.Null()], {
      description: 'Arrival delay at the gate in minutes, as computed (or reported); null unless delayed.',
    }),
    rule: Type.Object(
      {
        trigger: StringEnum(['delay_tier', 'cancellation', 'diversion']),
        minDelayMinutes: Type.Union([Type.Integer({ format: 'int32', minimum: 0, maximum: 1440 }), Type.Null()], {
          description: 'Threshold of the delay tier that pays; null for a cancellation.',
        }),
        amountPerPassenger: Money,
        passengers: Type.Integer({ format: 'int32', minimum: 1, maximum: 9 }),
        configurationVersion: Type.Integer({
          format: 'int32',
          minimum: 1,
          maximum: 2147483647,
          description: "Version of your configuration whose coverage the contract holds: the rule's version.",
        }),
      },
      { additionalProperties: false, description: "The contract's rule that pays, and its version." },
    ),
    decidedAt: Type.String({ format: 'date-time', maxLength: 40, description: 'When the platform opened the claim.' }),
    replaces: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{3}-[0-9]{8}$',
        maxLength: 12,
        description:
          'The claim this one replaces, on the same insured flight: the insurer voided it because the flight data it was opened on was wrong (you had claim.voided for it), then recorded what really happened to the flight, which opened this one (its own claim.opened). Absent for any other claim.',
        examples: ['CLM-00000041'],
      }),
    ),
  },
  { additionalProperties: false, description: 'Why the claim was opened: the facts, the delay, the rule.' },
);

export const ClaimNumberParams = Type.Object(
  {
    claimNumber: Type.String({
      maxLength: 40,
      description:
        'One of your claim numbers (CLM-00000042, any case), up to 40 characters. Any other value of up to 40 characters, well formed or not, answers 404 `claim_not_found`, as an unknown contract number does; beyond 40 characters, or holding U+0000, 422 `validation_failed`.',
      examples: ['CLM-00000042'],
    }),
  },
  { additionalProperties: false },
);

const ClaimOut = Type.Object({
  claimNumber: Type.String({ pattern: '^[A-Z]{3}-[0-9]{8}$', maxLength: 12 }),
  contractNumber: Type.String({ maxLength: 40 }),
  status: StringEnum(CLAIM_STATUSES, {
    description:
      'opened → awaiting_bank_details (the customer was texted a link) → payment_pending → paid; failed: the payment was rejected or returned, new details are awaited; expired: no bank details in time; voided: the insurer withdrew the claim before any money left (wrong flight data, a fraud or sanctions finding), it will not be paid.',
  }),
  reason: StringEnum(['delay', 'cancellation']),
  event: StringEnum(['delayed', 'cancelled', 'diverted'], { description: 'What happened to the flight.' }),
  flightNumber: Type.String({
    maxLength: 8,
    description: 'The flight the customer booked (a codeshare: its marketing flight).',
  }),
  operatingFlightNumber: OperatingFlightOut,
  departureDate: Type.String({ format: 'date', maxLength: 10 }),
  delayMinutes: Type.Union([Type.Integer({ minimum: 0, maximum: 525_600 }), Type.Null()], {
    description: 'Arrival delay at the gate; null unless the flight was delayed (cancelled, diverted).',
  }),
  compensation: Money,
  openedAt: Type.String({ format: 'date-time', maxLength: 40 }),
  paidAt: Type.Union([Type.String({ format: 'date-time', maxLength: 40 }), Type.Null()]),
  evidence: ClaimEvidenceOut,
});

const FlightStatusOut = Type.Object(
  {
    state: StringEnum(['scheduled', ...FLIGHT_WATCH_STATES], {
      description:
        'scheduled until the platform watches the flight (from a few hours before departure) or decides on the leg; watching; decided (the outcome is known, claims opened if any: a leg with a claim is decided even when an event reported it ahead of the watch); manual_review (the insurer checks the data); closed.',
    }),
    lastCheckedAt: Type.Union([Type.String({ format: 'date-time', maxLength: 40 }), Type.Null()]),
    decidedAt: Type.Union([Type.String({ format: 'date-time', maxLength: 40 }), Type.Null()], {
      description: 'When the platform decided what happened to the flight; null while it has not.',
    }),
    outcome: Type.Union(
      [
        Type.Object({
          event: StringEnum(['cancelled', 'delayed', 'diverted', 'landed'], {
            description:
              'What the platform decided happened to the flight: landed, it arrived on time or early; delayed, with delayMinutes, for any late arrival, even one that pays nothing.',
          }),
          delayMinutes: Type.Union([Type.Integer({ format: 'int32', minimum: 0, maximum: 525_600 }), Type.Null()], {
            description: 'Arrival delay at the gate when delayed; null otherwise.',
          }),
        }),
        Type.Null(),
      ],
      {
        description:
          "The decision the platform took on the leg: its claim's event when it has one (whoever reported the flight: the monitoring, an operator, you in sandbox), else the flight watch's decision (the monitoring's, or an operator's flight event); null while none was taken.",
      },
    ),
  },
  {
    description:
      'What the platform knows of the insured flight. A leg with a claim is `decided` even before the platform watches its flight (an event reported ahead).',
  },
);

export const ContractNumberParams = Type.Object(
  {
    contractNumber: Type.String({
      maxLength: 40,
      description:
        'One of your contract numbers, up to 40 characters. Any other value of up to 40 characters, well formed or not, answers 404 `contract_not_found`; beyond 40 characters, or holding U+0000, 422 `validation_failed`.',
      examples: ['FD-7K3M-9QXT'],
    }),
  },
  { additionalProperties: false },
);

/** An amount that may be negative: what a change charged (> 0) or refunded (< 0). */
const SignedMoney = Type.Object(
  {
    amount: Type.Integer({
      minimum: -100_000_000,
      maximum: 100_000_000,
      description: 'Integer amount in minor units, signed: positive charged to the customer, negative refunded.',
    }),
    currency: Type.String({
      pattern: '^[A-Z]{3}$',
      maxLength: 3,
      description: 'ISO 4217 currency code.',
      examples: ['EUR'],
    }),
  },
  { additionalProperties: false, title: 'SignedMoney' },
);

const ContractVersionOut = Type.Object(
  {
    version: Type.Integer({ minimum: 1, maximum: 2147483647 }),
    change: StringEnum(CONTRACT_CHANGES, {
      description:
        'What made this version: subscribed (version 1, as sold), flight_changed, passenger_cancelled, leg_cancelled.',
    }),
    at: Type.String({ format: 'date-time', maxLength: 40 }),
    passengers: Passengers,
    flights: Type.Array(
      Type.Object({
        leg: LegIndex,
        flightNumber: FlightNumberOut,
        operatingFlightNumber: Type.Union([Type.String({ maxLength: 8 }), Type.Null()], {
          description:
            'A codeshare leg: the operating flight; null when the leg flies under its own flightNumber, and on versions recorded before the platform kept it.',
        }),
        departureAirport: AirportOut,
        arrivalAirport: AirportOut,
        departureDateTime: Type.String({ maxLength: 16, description: 'Local time at the departure airport.' }),
      }),
      { maxItems: 2 },
    ),
    premium: Money,
    difference: SignedMoney,
    modelVersion: ModelVersion,
    reason: Type.Union([Type.String({ maxLength: 40 }), Type.Null()]),
  },
  { description: 'One version of the contract: its flights, passengers and premium from then on.' },
);

export const ContractDetailResponse = Type.Object({
  ...ContractResponse.properties,
  customer: Type.Object({
    firstName: Type.String({ maxLength: 100 }),
    lastName: Type.String({ maxLength: 100 }),
    email: Type.String({ format: 'email', maxLength: 254 }),
    phone: Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', maxLength: 16, description: 'E.164.' }),
    language: Type.String({ maxLength: 2, description: `One of ${CUSTOMER_LANGUAGES.join(', ')}.` }),
  }),
  flights: Type.Array(
    Type.Object({
      leg: LegIndex,
      flightNumber: FlightNumberOut,
      operatingFlightNumber: OperatingFlightOut,
      ...LegOut.properties,
      flightStatus: FlightStatusOut,
    }),
    { maxItems: 2 },
  ),
  cancellation: Type.Union([
    Type.Object({
      cancelledAt: Type.String({ format: 'date-time', maxLength: 40 }),
      reason: Type.String({ maxLength: 40, description: `One of ${CANCEL_REASONS.join(', ')}.` }),
      refund: Money,
    }),
    Type.Null(),
  ]),
  claims: Type.Array(ClaimOut, {
    maxItems: 100,
    description:
      'The claims of the contract, oldest first: at most one per leg that is not voided. A claim the insurer voided stays listed (status voided), next to the new claim an operator opened on its leg when recording the flight’s true outcome.',
  }),
  versions: Type.Array(ContractVersionOut, {
    maxItems: 100,
    description:
      'The versions of a changed contract, oldest first (version 1 as sold, then one per change); empty while the contract was never changed.',
  }),
});

export const ContactChangeRequest = Type.Object(
  {
    phone: Type.Optional(
      Type.String({
        pattern: '^\\+[1-9][0-9]{6,14}$',
        maxLength: 16,
        description:
          "New mobile phone in E.164 format: the next SMS goes there. A new number of a type that takes no SMS (libphonenumber FIXED_LINE, a landline; TOLL_FREE, PREMIUM_RATE, SHARED_COST, UAN, PAGER, VOICEMAIL) is refused: 422 phone_not_mobile; the contract's own number sent again is not.",
        examples: ['+33698765432'],
      }),
    ),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    language: Type.Optional(
      StringEnum(CUSTOMER_LANGUAGES, {
        description: `Language of the next messages: one of ${CUSTOMER_LANGUAGES.join(', ')}.`,
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ phone: '+33698765432' }] },
);

export const ContactChangeResponse = Type.Object({
  contractNumber: Type.String({ maxLength: 40 }),
  changed: Type.Array(StringEnum(['phone', 'email', 'language']), { maxItems: 3 }),
});

export const ContractSearchQuery = Type.Object(
  {
    bookingReference: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,64}$',
        maxLength: 64,
        description: 'Only the contracts of this booking.',
        examples: ['ABC123'],
      }),
    ),
    status: Type.Optional(
      Type.Union([ContractStatusIn, Type.Array(ContractStatusIn, { maxItems: CONTRACT_STATUSES.length })], {
        description: 'Only the contracts in this status (repeat the parameter for several).',
      }),
    ),
    createdFrom: Type.Optional(
      Type.String({
        format: 'date',
        maxLength: 10,
        description: 'First day (inclusive, UTC) on which the contracts were subscribed.',
      }),
    ),
    createdTo: Type.Optional(
      Type.String({
        format: 'date',
        maxLength: 10,
        description: 'Last day (inclusive, UTC) on which the contracts were subscribed.',
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        maxLength: 500,
        description:
          'nextCursor of the previous page, with the same filters as that page (other filters: 422 invalid_cursor).',
      }),
    ),
    limit: Type.Optional(
      PageLimit(
        { min: 1, max: CONTRACTS_PAGE.max },
        { description: `Contracts per page: 1 to ${CONTRACTS_PAGE.max} (default ${CONTRACTS_PAGE.default}).` },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ContractSearchResponse = Type.Object({
  contracts: Type.Array(ContractResponse, { maxItems: CONTRACTS_PAGE.max }),
  nextCursor: Type.Union([Type.String({ maxLength: 500 }), Type.Null()], {
    description: 'Pass it as cursor for the next page; null on the last page.',
  }),
});

export const FlightEventRequest = Type.Object(
  {
    flightNumber: Type.String({
      pattern: FLIGHT_NUMBER_PATTERN,
      maxLength: 8,
      description:
        'The flight that flies, as on your contracts, e.g. AF006. A codeshare leg is reached by its operating flight (the leg sold as AF3612 operated as DL264: report DL264), never by its marketing number, which does not fly; its claim then shows AF3612.',
      examples: ['AF006'],
    }),
    departureDate: Type.String({
      format: 'date',
      maxLength: 10,
      description: 'Local departure date at the departure airport.',
    }),
    status: StringEnum(['delayed', 'cancelled', 'diverted'], { description: 'What happened to the flight.' }),
    delayMinutes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2880,
        description:
          'Arrival delay at the gate in minutes; required when status is delayed. The name claims answer with (delayMinutes).',
      }),
    ),
    arrivalDelayMinutes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2880,
        deprecated: true,
        description: 'Former name of delayMinutes, still accepted (not both).',
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
    examples: [{ flightNumber: 'AF006', departureDate: '2026-12-24', status: 'delayed', delayMinutes: 195 }],
  },
);

export const FlightEventResponse = Type.Object({
  claimsOpened: Type.Array(ClaimOut, {
    maxItems: 100_000,
    description:
      'The claims this event opened on your active contracts (none when they were already open, or nothing is covered); with an operator token, on every partner’s.',
  }),
  contractsReopened: Type.Optional(
    Type.Array(Type.String({ maxLength: 40 }), {
      maxItems: 100_000,
      description:
        'Operator token only: contracts completed as flown with nothing to pay that this event (a correction) gave a claim; active again until it settles.',
    }),
  ),
  claimsNotChanged: Type.Optional(
    Type.Array(
      Type.Object({
        claimNumber: Type.String({ pattern: '^[A-Z]{3}-[0-9]{8}$', maxLength: 12 }),
        status: StringEnum(CLAIM_STATUSES),
        compensation: Money,
        eventWouldPay: Money,
      }),
      {
        maxItems: 100_000,
        description:
          'Operator token only: claims already open on the flight that this event would pay differently; an event never changes a claim (the claim desk corrects an amount). Voided claims are not listed: the event opens their leg a new claim when it pays and the insurer voided them because the flight data was wrong.',
      },
    ),
  ),
});

export const ClaimResponse = ClaimOut;

export const ClaimsResponse = Type.Object({
  claims: Type.Array(ClaimOut, { maxItems: CLAIMS_PAGE.max }),
  nextCursor: Type.Union([Type.String({ maxLength: 500 }), Type.Null()], {
    description:
      'Pass as cursor for the next page; null when no claim is left to read. Present even after a short or empty page while claims are being written: ask again.',
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
      to: Type.String({
        pattern: '^\\+[1-9][0-9]{6,14}$',
        maxLength: 16,
        description: 'The customer phone number (E.164).',
      }),
      body: Type.String({ maxLength: 1600, description: 'The text of the SMS.' }),
      link: Type.Union([Type.String({ format: 'uri', maxLength: 2000 }), Type.Null()], {
        description: 'The bank-details link the message carries.',
      }),
      sentAt: Type.String({ format: 'date-time', maxLength: 40 }),
    }),
    { maxItems: 1000 },
  ),
});

// Flight change (issue 13 §1): preview, then confirm with the signed change reference.

const ChangedFlightIn = Type.Object(
  {
    leg: LegIndex,
    flightNumber: Type.String({
      pattern: FLIGHT_NUMBER_PATTERN,
      maxLength: 8,
      description: "The new flight's full designator: a flight of the contract's airline.",
      examples: ['AF010'],
    }),
    operatingFlightNumber: Type.Optional(
      Type.String({
        pattern: FLIGHT_NUMBER_PATTERN,
        maxLength: 8,
        description:
          "Codeshare: the flight that flies the new flightNumber (AF3612 operated as DL264), any active airline's designator, as at /subscribe. The new flight is stated whole: without it the leg flies under flightNumber and a codeshare leg's operating flight is cleared — name it again on a retimed codeshare. Priced, watched and counted for the exposure as the operating flight.",
        examples: ['DL264'],
      }),
    ),
    departureAirport: Airport("Departure airport, the leg's own (a flight change keeps the route)", 'CDG'),
    arrivalAirport: Airport("Arrival airport, the leg's own (a flight change keeps the route)", 'JFK'),
    departureDateTime: LocalDateTime('New departure', '2026-12-24T14:05'),
  },
  { additionalProperties: false },
);

export const FlightChangeRequest = Type.Object(
  {
    flights: Type.Array(ChangedFlightIn, {
      minItems: 1,
      maxItems: 2,
      description: 'The new flight of each leg that changes (1 or 2, each leg once); the other legs stay as they are.',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        flights: [
          {
            leg: 0,
            flightNumber: 'AF010',
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: '2026-12-24T14:05',
          },
        ],
      },
    ],
  },
);

const ChangeOutcome = StringEnum(['charge', 'refund', 'none'], {
  description: 'charge: the customer pays the difference; refund: the customer gets it back; none: the premium stays.',
});

export const FlightChangePreviewResponse = Type.Object({
  contractNumber: Type.String({ pattern: CONTRACT_NUMBER_PATTERN, maxLength: 40 }),
  version: Type.Integer({
    minimum: 1,
    maximum: 2147483647,
    description: 'The contract version the change was priced on: it applies to it only.',
  }),
  changeReference: Type.String({
    maxLength: 2000,
    description: 'Signed; confirm it with POST /contracts/{contractNumber}/flight-change before expiresAt.',
  }),
  expiresAt: Type.String({ format: 'date-time', maxLength: 40, description: '30 minutes after the preview.' }),
  flights: Type.Array(
    Type.Object({
      leg: LegIndex,
      flightNumber: FlightNumberOut,
      operatingFlightNumber: OperatingFlightOut,
      ...LegOut.properties,
    }),
    { maxItems: 2, description: "The contract's flights after the change." },
  ),
  premium: Type.Object({ before: Premium, after: Premium }),
  difference: SignedMoney,
  outcome: ChangeOutcome,
  modelVersion: ModelVersion,
});

export const FlightChangeConfirmRequest = Type.Object(
  { changeReference: Type.String({ minLength: 10, maxLength: 2000 }) },
  {
    additionalProperties: false,
    examples: [
      {
        changeReference:
          'fc1.WyIxMTExMTExMS0xMTExLTQxMTEtODExMS0xMTExMTExMTExMTEiLCJzYW5kYm94IiwiRkQtN0szTS05UVhUIiwxLCJ2Mi0yMDA4cTEiLDE3OTU1MTM4MDAsW1swLCJBRjAxMCIsIjIwMjYtMTItMjRUMTQ6MDUiLDExODksMTA3LDIzOF1dXQ.example-tag-not-signed',
      },
    ],
  },
);

export const FlightChangeResponse = Type.Object({
  ...ContractResponse.properties,
  difference: SignedMoney,
  outcome: ChangeOutcome,
});

/**
 * The OpenAPI examples the portal's getting-started steps show (web/catalog.ts): one story, the one
 * the document tells and test/http/openapi-examples.http.test.ts runs against the API.
 */
export const GETTING_STARTED_EXAMPLES = {
  quote: exampleTrip,
  flightChangePreview: (FlightChangeRequest as unknown as { examples: Record<string, unknown>[] }).examples[0]!,
  flightChange: (FlightChangeConfirmRequest as unknown as { examples: { changeReference: string }[] }).examples[0]!,
};
