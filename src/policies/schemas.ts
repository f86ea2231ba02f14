import { Type, type TSchema } from '@sinclair/typebox';
import { PERSON_NAME_DESCRIPTION } from '../platform/person-name.ts';
import { EXAMPLE_HOME_QUOTE_REFERENCE, exampleHome, HomeRiskSchema as HomeRisk } from '../home/index.ts';
import { PageLimit, StringEnum } from '../platform/schema.ts';
import {
  ACTIVATION_REASONS,
  CANCEL_REASONS,
  CORRECTION_REASONS,
  CREATE_STATUSES,
  POLICY_PAGE,
  POLICY_STATUSES,
  PREMIUM_FREQUENCIES,
  PRODUCTS,
  type Product,
} from './policy.ts';
import { POLICY_NUMBER_PATTERN } from './policy-number.ts';
import { PLATE_PATTERN, VIN_PATTERN } from './vehicle.ts';

/** TypeBox schemas of the API to manage policies: request validation, response serialisation and OpenAPI. */

const DateField = (description: string, example: string) =>
  Type.String({ format: 'date', maxLength: 10, description: `${description} (YYYY-MM-DD).`, examples: [example] });
const Airport = (description: string) =>
  Type.String({
    pattern: '^[A-Z]{3}$',
    maxLength: 3,
    description: `${description}: IATA airport code.`,
    examples: ['CDG'],
  });

/** What a name must be beyond its length (the person-name rule, platform/person-name.ts). */
const NAME_RULE = PERSON_NAME_DESCRIPTION;
const NO_CONTROL =
  'No control or invisible character (a line break, a tab, a direction mark, a zero-width space, a variation selector: invalid_format; U+200C, U+200D allowed only between two letters or marks of a script that writes them, such as Persian or Devanagari). Checked and stored trimmed.';
/** A currency as amounts take it (platform/money.ts, currencyError). */
const CURRENCY =
  'ISO 4217 currency code that amounts can be in: an unknown code is invalid_format; a fund code, a precious metal, XDR, XTS, XXX or a withdrawn currency such as HRK is not_allowed.';
/** A country code as the policies take it (country.ts). */
const COUNTRY =
  'ISO 3166-1 alpha-2 country code: GB for the United Kingdom (UK, EU, ZZ name no country), ES for the Canary Islands (IC is refused); XK (Kosovo) is accepted, and so are AC (Ascension) and TA (Tristan da Cunha), reserved codes of islands of Saint Helena (SH) with their own phone plans.';

const Address = Type.Object(
  {
    line1: Type.String({ minLength: 1, maxLength: 200, description: NO_CONTROL, examples: ['12 rue Cler'] }),
    line2: Type.Optional(Type.String({ maxLength: 200, description: NO_CONTROL })),
    postalCode: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9 -]{1,11}$',
      maxLength: 12,
      description: 'Postal code; for country FR, a French zip code of La Poste.',
      examples: ['75007'],
    }),
    city: Type.String({ minLength: 1, maxLength: 100, description: NO_CONTROL, examples: ['Paris'] }),
    country: Type.String({
      pattern: '^[A-Z]{2}$',
      maxLength: 2,
      description: COUNTRY,
      examples: ['FR'],
    }),
  },
  { additionalProperties: false },
);

const Email = Type.String({ format: 'email', maxLength: 254, examples: ['camille@example.com'] });
const Phone = Type.String({
  pattern: '^\\+[1-9][0-9]{6,14}$',
  maxLength: 16,
  description: 'Phone number in E.164 format.',
  examples: ['+33612345678'],
});

const Policyholder = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 100, description: NAME_RULE }),
    lastName: Type.String({ minLength: 1, maxLength: 100, description: NAME_RULE }),
    birthDate: DateField(
      'Date of birth; the policyholder is an adult (18 to 119 years old) on the effective date',
      '1990-04-12',
    ),
    email: Email,
    phone: Phone,
    address: Address,
  },
  {
    additionalProperties: false,
    description: 'The person who holds the policy. Birth date, email, phone and address are encrypted at rest.',
  },
);

const Premium = Type.Object(
  {
    amount: Type.Integer({
      minimum: 0,
      maximum: 100_000_000,
      description: 'Integer amount in minor units, per payment: 2600 EUR is €26.00 a month when frequency is monthly.',
    }),
    currency: Type.String({
      pattern: '^[A-Z]{3}$',
      maxLength: 3,
      description: CURRENCY,
      examples: ['EUR'],
    }),
    frequency: StringEnum(PREMIUM_FREQUENCIES, {
      description:
        'How often the amount is paid: single (once for the whole period), annual, semiannual, quarterly or monthly.',
    }),
  },
  { additionalProperties: false },
);

// Product-specific risks. The body accepts any object as risk; the route then validates it against
// the schema of its product (riskSchemas), so that errors name only that product's fields.

const FlightDelayRisk = Type.Object(
  {
    flights: Type.Array(
      Type.Object(
        {
          flightNumber: Type.String({
            pattern: '^[A-Z0-9]{2}[0-9]{1,4}[A-Z]?$',
            maxLength: 7,
            description:
              'Full flight designator: its first two characters are a known active IATA airline (else 422 unknown_airline).',
            examples: ['AF006'],
          }),
          departureAirport: Airport('Departure airport'),
          arrivalAirport: Airport('Arrival airport'),
          departureDate: DateField(
            'Local departure date: within the period of cover, and a return flight on or after its outbound flight',
            '2026-12-24',
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 2, description: 'The outbound flight and, for a return trip, the return flight.' },
    ),
    passengers: Type.Integer({ minimum: 1, maximum: 9, description: 'Insured passengers (1-9).' }),
    bookingReference: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,64}$',
        maxLength: 64,
        description:
          "Booking reference: the PNR or the agency's own file reference (letters, digits, - and _, up to 64).",
        examples: ['ABC123'],
      }),
    ),
  },
  { additionalProperties: false, title: 'Flight delay risk', description: 'For product flight_delay.' },
);

const TravelRisk = Type.Object(
  {
    destinationCountry: Type.String({
      pattern: '^[A-Z]{2}$',
      maxLength: 2,
      description: COUNTRY,
      examples: ['JP'],
    }),
    departureDate: DateField('First day of the trip, within the period of cover', '2027-08-01'),
    returnDate: DateField(
      'Last day of the trip, on or after departureDate and before the expiry date of the policy',
      '2027-08-20',
    ),
    travellers: Type.Integer({ minimum: 1, maximum: 9, description: 'Insured travellers (1-9).' }),
    tripCost: Type.Optional(
      Type.Object(
        {
          amount: Type.Integer({ minimum: 0, maximum: 10_000_000 }),
          currency: Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3, description: CURRENCY }),
        },
        { additionalProperties: false, description: 'Total cost of the trip, in minor units.' },
      ),
    ),
  },
  { additionalProperties: false, title: 'Travel risk', description: 'For product travel.' },
);

const VehicleRegistration = Type.String({
  pattern: PLATE_PATTERN,
  minLength: 2,
  maxLength: 15,
  description:
    'Registration plate: capitals A to Z and digits only (a plate in lower case sent in capitals, a German umlaut as its vowel and E: LÖ → LOE), in groups a single space or dash apart (no space or dash first or last, none doubled). Absent for a new vehicle not registered yet: then give its vin, and add the registration later with PATCH /policies/{policyNumber}/vehicle.',
  examples: ['AB-123-CD'],
});
const FirstRegistrationDate = DateField(
  'Date of first registration: not in the future, not before 1900; required with vehicleRegistration, absent without',
  '2021-03-15',
);

const MotorRisk = Type.Object(
  {
    vehicleRegistration: Type.Optional(VehicleRegistration),
    vin: Type.Optional(
      Type.String({
        pattern: VIN_PATTERN,
        maxLength: 17,
        description:
          'Vehicle identification number (ISO 3779): 17 digits and capitals without I, O or Q; the check digit (9th character) is checked for a North American (1-5) or Chinese (L) VIN. Required without vehicleRegistration.',
        examples: ['VF1RJA00168123456'],
      }),
    ),
    make: Type.String({ minLength: 1, maxLength: 50, description: NO_CONTROL, examples: ['Renault'] }),
    model: Type.String({ minLength: 1, maxLength: 50, description: NO_CONTROL, examples: ['Clio'] }),
    firstRegistrationDate: Type.Optional(FirstRegistrationDate),
    usage: StringEnum(['private', 'commute', 'business'], {
      description: 'private: leisure only; commute: also to and from work; business: for work.',
    }),
    annualMileage: Type.Optional(Type.Integer({ minimum: 0, maximum: 200_000, description: 'Kilometres a year.' })),
  },
  { additionalProperties: false, title: 'Motor risk', description: 'For product motor.' },
);

const OtherRisk = Type.Object(
  {},
  {
    additionalProperties: true,
    maxProperties: 50,
    title: 'Other risk',
    description:
      'For product other: free-form data about the insured risk, at most 50 fields, nested at most 64 levels deep (as any body).',
  },
);

/** The schema each product's risk must satisfy. */
export const riskSchemas: Record<Product, TSchema> = {
  home: HomeRisk,
  flight_delay: FlightDelayRisk,
  travel: TravelRisk,
  motor: MotorRisk,
  other: OtherRisk,
};

const examplePolicyholder = {
  firstName: 'Camille',
  lastName: 'Martin',
  birthDate: '1990-04-12',
  email: 'camille@example.com',
  phone: '+33612345678',
  address: { line1: '12 rue Cler', postalCode: '75007', city: 'Paris', country: 'FR' },
};

export const CreatePolicyRequest = Type.Object(
  {
    product: StringEnum(PRODUCTS, {
      description: 'home, flight_delay, travel, motor or other: decides the schema of risk.',
    }),
    externalReference: Type.String({
      pattern: '^[\\x21-\\x7E]{1,100}$',
      maxLength: 100,
      description:
        'Your own id of the policy (1-100 printable ASCII characters, no spaces): unique among your policies of this environment; a second policy with the same one is a 409.',
      examples: ['HOME-2026-000123'],
    }),
    policyholder: Policyholder,
    effectiveDate: DateField(
      'First day of cover: at most 1 year after today, at most 10 years before it (a policy recorded late)',
      '2026-12-01',
    ),
    expiryDate: DateField(
      'First day no longer covered, after effectiveDate: at most 10 years after it, 1 year for travel and flight_delay; after today for a pending policy (an active one recorded late may have ended)',
      '2027-12-01',
    ),
    premium: Premium,
    risk: Type.Union([HomeRisk, FlightDelayRisk, TravelRisk, MotorRisk, OtherRisk], {
      description:
        'The insured risk, validated against the schema of product: home takes the fields of the Demo API /getPrice.',
    }),
    quoteReference: Type.Optional(
      Type.String({
        minLength: 10,
        maxLength: 4000,
        description:
          'Home only: the quoteReference of a Demo API quote; the risk and the premium (annual or monthly) must then be the quoted ones, else 422 quote_mismatch.',
      }),
    ),
    status: Type.Optional(
      StringEnum(CREATE_STATUSES, {
        default: 'active',
        description:
          'active (default), or pending while your system awaits something (a payment, a signature): then activate it with POST /policies/{policyNumber}/activate.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        product: 'home',
        externalReference: 'HOME-2026-000123',
        policyholder: examplePolicyholder,
        effectiveDate: '2026-12-01',
        expiryDate: '2027-12-01',
        premium: { amount: 2600, currency: 'EUR', frequency: 'monthly' },
        risk: exampleHome,
        quoteReference: EXAMPLE_HOME_QUOTE_REFERENCE,
        status: 'active',
      },
    ],
  },
);

const PolicyNumberParam = Type.String({
  minLength: 1,
  maxLength: 40,
  description: 'The policy number returned at creation.',
  examples: ['PA-7K3M-9QXT'],
});

export const PolicyParams = Type.Object({ policyNumber: PolicyNumberParam }, { additionalProperties: false });

export const CancelPolicyRequest = Type.Object(
  {
    reason: StringEnum(CANCEL_REASONS, {
      description:
        'customer_request, non_payment, risk_ended (home sold, vehicle scrapped…), replaced (by another policy), duplicate, created_in_error, other.',
    }),
    effectiveDate: DateField(
      'First day no longer covered: from the policy effective date (cancelled from inception) to the day before its expiry date',
      '2027-06-30',
    ),
  },
  { additionalProperties: false, examples: [{ reason: 'customer_request', effectiveDate: '2027-06-30' }] },
);

export const PolicyholderChangeRequest = Type.Object(
  {
    firstName: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: `A corrected first name. ${NAME_RULE}` }),
    ),
    lastName: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: `A corrected last name. ${NAME_RULE}` }),
    ),
    birthDate: Type.Optional(
      DateField(
        'A corrected date of birth: the policyholder is an adult (18 to 119 years old) on the effective date',
        '1990-04-21',
      ),
    ),
    reason: Type.Optional(
      StringEnum(CORRECTION_REASONS, {
        'x-alone': false,
        description:
          'Required with firstName, lastName or birthDate, refused without: typo (recorded wrong), civil_status_change (marriage, a legal change of name), document_mismatch (the identity document says otherwise), other. Kept in the history of the policy, with the values before and after encrypted.',
      }),
    ),
    email: Type.Optional(Email),
    phone: Type.Optional(Phone),
    address: Type.Optional(Address),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'The policyholder details that change (at least one; an address as a whole); the others stay. A name or the birth date is a correction: give its reason.',
    examples: [
      { lastName: 'Martins', reason: 'typo' },
      {
        phone: '+33698765432',
        address: { line1: '3 place Bellecour', postalCode: '69002', city: 'Lyon', country: 'FR' },
      },
    ],
  },
);

export const VehicleRegistrationRequest = Type.Object(
  { vehicleRegistration: VehicleRegistration, firstRegistrationDate: FirstRegistrationDate },
  {
    additionalProperties: false,
    description: 'The registration of the vehicle of a motor policy recorded before the vehicle was registered.',
    examples: [{ vehicleRegistration: 'GH-456-JK', firstRegistrationDate: '2026-03-20' }],
  },
);

export const ActivatePolicyRequest = Type.Object(
  {
    reason: StringEnum(ACTIVATION_REASONS, {
      description:
        'What the pending policy was waiting for: payment_received, documents_received (a signature, a proof), underwriting_accepted, other. Kept in the history of the policy.',
    }),
  },
  { additionalProperties: false, examples: [{ reason: 'payment_received' }] },
);

export const RenewPolicyRequest = Type.Object(
  {
    externalReference: Type.String({
      pattern: '^[\\x21-\\x7E]{1,100}$',
      maxLength: 100,
      description:
        'Your own id of the new term, a policy of its own (1-100 printable ASCII characters, no spaces): unique among your policies of this environment.',
      examples: ['HOME-2027-000123'],
    }),
    premium: Premium,
    expiryDate: Type.Optional(
      DateField(
        'First day no longer covered by the new term, which starts on the expiry date of the policy renewed: by default the previous term is repeated (as many months, or days); at most 10 years after its start',
        '2028-12-01',
      ),
    ),
    status: Type.Optional(
      StringEnum(CREATE_STATUSES, {
        default: 'active',
        description: 'active (default), or pending until your system activates the new term.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { externalReference: 'HOME-2027-000123', premium: { amount: 2700, currency: 'EUR', frequency: 'monthly' } },
    ],
  },
);

export const SearchQuery = Type.Object(
  {
    externalReference: Type.Optional(
      Type.String({
        pattern: '^[\\x21-\\x7E]{1,100}$',
        maxLength: 100,
        description: 'Only the policy with this external reference.',
        examples: ['HOME-2026-000123'],
      }),
    ),
    status: Type.Optional(
      StringEnum(POLICY_STATUSES, {
        description:
          'Only policies with this status today, as each answers it (expired: the expiry date is today or past, UTC, a pending policy too; cancelled: from the effective date of the cancellation — a policy whose cancellation is scheduled from a later day is listed as active or pending until then).',
        examples: ['active'],
      }),
    ),
    product: Type.Optional(StringEnum(PRODUCTS, { description: 'Only policies of this product.', examples: ['home'] })),
    effectiveFrom: Type.Optional(DateField('Only policies effective on or after this day', '2026-12-01')),
    effectiveTo: Type.Optional(DateField('Only policies effective on or before this day', '2026-12-31')),
    cursor: Type.Optional(
      Type.String({
        maxLength: 500,
        description:
          'nextCursor of the previous page, with the same filters as that page (other filters: 422 invalid_cursor).',
      }),
    ),
    limit: Type.Optional(
      PageLimit(POLICY_PAGE, {
        description: `Page size, ${POLICY_PAGE.min}-${POLICY_PAGE.max} (default ${POLICY_PAGE.default}).`,
        examples: ['50'],
      }),
    ),
  },
  { additionalProperties: false },
);

const MoneyOut = {
  amount: Type.Integer({ minimum: 0, maximum: 100_000_000 }),
  currency: Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3 }),
};

export const PolicyResponse = Type.Object({
  policyNumber: Type.String({ pattern: POLICY_NUMBER_PATTERN, maxLength: 40 }),
  externalReference: Type.String({ maxLength: 100 }),
  product: StringEnum(PRODUCTS),
  status: StringEnum(POLICY_STATUSES, {
    description:
      'pending (recorded, not in force until activated), active, cancelled from the effectiveDate of its cancellation (a cancellation scheduled from a later day leaves it pending or active until then), or expired once the expiry date is reached (a pending policy too).',
  }),
  policyholder: Type.Object({
    firstName: Type.String({ maxLength: 100 }),
    lastName: Type.String({ maxLength: 100 }),
    birthDate: Type.String({ format: 'date', maxLength: 10 }),
    email: Type.String({ format: 'email', maxLength: 254 }),
    phone: Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', maxLength: 16 }),
    address: Type.Object({
      line1: Type.String({ maxLength: 200 }),
      line2: Type.Optional(Type.String({ maxLength: 200 })),
      postalCode: Type.String({ maxLength: 12 }),
      city: Type.String({ maxLength: 100 }),
      country: Type.String({ pattern: '^[A-Z]{2}$', maxLength: 2 }),
    }),
  }),
  effectiveDate: Type.String({ format: 'date', maxLength: 10 }),
  expiryDate: Type.String({ format: 'date', maxLength: 10 }),
  premium: Type.Object({ ...MoneyOut, frequency: StringEnum(PREMIUM_FREQUENCIES) }),
  risk: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'The insured risk as stored (for home: defaults applied, the city as La Poste spells it).',
    },
  ),
  quoteReference: Type.Union([Type.String({ maxLength: 4000 }), Type.Null()]),
  renews: Type.Union([Type.String({ pattern: POLICY_NUMBER_PATTERN, maxLength: 40 }), Type.Null()], {
    description: 'The policy number of the previous term, when this policy is its renewal.',
  }),
  renewedBy: Type.Union([Type.String({ pattern: POLICY_NUMBER_PATTERN, maxLength: 40 }), Type.Null()], {
    description:
      'The policy number of the next term, once this policy is renewed. It goes back to null when that renewal is cancelled from its inception (this policy can then be renewed again); a renewal cancelled after its start keeps it: that term began, and this policy is not renewed a second time for it.',
  }),
  renewedByStatus: Type.Union([StringEnum(POLICY_STATUSES), Type.Null()], {
    description:
      'The status today of the policy renewedBy names (null when not renewed): cancelled for a renewal cancelled after its start, or with this policy.',
  }),
  cancellation: Type.Union(
    [
      Type.Object({
        reason: StringEnum(CANCEL_REASONS),
        effectiveDate: Type.String({
          format: 'date',
          maxLength: 10,
          description: 'First day no longer covered: status is cancelled from this day on (UTC).',
        }),
        cancelledAt: Type.String({ format: 'date-time', maxLength: 40, description: 'When it was recorded.' }),
      }),
      Type.Null(),
    ],
    {
      description:
        'The cancellation recorded, null when none. In effect (status cancelled) from its effectiveDate; recorded from a later day, it is scheduled: until that day the policy keeps its status, pending or active, and can still be changed.',
    },
  ),
  version: Type.Integer({
    minimum: 1,
    maximum: 2_147_483_647,
    description:
      'The version of the policy: 1 when recorded, one more with every change written on it (by your calls, or carried from another term). The ETag header of its answers is this number in quotes: send it in If-Match to change the policy only if it is still at that version.',
  }),
  createdAt: Type.String({
    format: 'date-time',
    maxLength: 40,
    description:
      'When the platform recorded the policy (its database time); GET /policies lists policies oldest first by it.',
  }),
  updatedAt: Type.String({ format: 'date-time', maxLength: 40, description: 'When the policy last changed.' }),
});

export const SearchResponse = Type.Object({
  policies: Type.Array(PolicyResponse, { maxItems: POLICY_PAGE.max }),
  nextCursor: Type.Union([Type.String({ maxLength: 500 }), Type.Null()], {
    description:
      'Pass as cursor for the next page; null when no policy is left to read. Present even after a short or empty page while policies are being written: ask again.',
  }),
});
