import { Type } from '@sinclair/typebox';
import { StringEnum } from '../platform/schema.ts';
import { ZIP_CODE_PATTERN } from '../reference/index.ts';
import { COVERAGE_LEVELS, HOME_LIMITS, HOME_OPTIONS, HOUSING_TYPES, OCCUPANCIES, ZONES } from './pricing.ts';
import { RATING_TABLE } from './rating-table.ts';

/** TypeBox schemas of the Demo API: request validation, response serialisation and OpenAPI. */

const PostalCode = Type.String({
  pattern: ZIP_CODE_PATTERN,
  maxLength: 5,
  description:
    'French postal code: a string of 5 digits, its leading zero kept (01000, not 1000). The same field as zipCode: give either, or both with the same value; answers carry both.',
  examples: ['75007'],
});
const ZipCode = Type.String({
  pattern: ZIP_CODE_PATTERN,
  maxLength: 5,
  description:
    'French postal code: a string of 5 digits, its leading zero kept (01000, not 1000). The same field as postalCode: give either, or both with the same value.',
  examples: ['75007'],
});

const MoneyOut = Type.Object({
  amount: Type.Integer({
    minimum: 0,
    maximum: 100_000_000_000,
    description: 'Integer amount in minor units: 31201 EUR is €312.01 (limits reach millions of euros).',
  }),
  currency: Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3, description: 'ISO 4217 currency code.' }),
});

export const CityRequest = Type.Object(
  { postalCode: Type.Optional(PostalCode), zipCode: Type.Optional(ZipCode) },
  { additionalProperties: false, examples: [{ postalCode: '75007' }] },
);

export const CityResponse = Type.Object({
  postalCode: Type.String({ pattern: ZIP_CODE_PATTERN, maxLength: 5 }),
  zipCode: Type.String({
    pattern: ZIP_CODE_PATTERN,
    maxLength: 5,
    description: 'The same value as postalCode.',
  }),
  cities: Type.Array(Type.String({ maxLength: 100 }), {
    maxItems: 100,
    description: "La Poste routing labels (libelleAcheminement) of the zip code's communes, distinct, sorted.",
  }),
});

const { rooms, livingArea, areaPerRoom, floor, constructionYear, contentsValue } = HOME_LIMITS;

const ContentsValue = Type.Object(
  {
    amount: Type.Integer({
      minimum: contentsValue.min,
      maximum: contentsValue.max,
      description: 'Value of furniture and belongings, in minor units (100000 = €1,000.00).',
    }),
    currency: StringEnum([RATING_TABLE.currency], { description: 'The tariff is in EUR.' }),
  },
  {
    additionalProperties: false,
    description: `Value of the contents to insure. Omitted: ${RATING_TABLE.defaultContentsValuePerRoom / 100} EUR per room.`,
  },
);

const CoverageLevelField = StringEnum(COVERAGE_LEVELS, {
  description: `essential: lower limits, €300 deductible; comfort: the usual limits, €150 deductible; premium: the highest limits, no deductible. Omitted: ${RATING_TABLE.defaultCoverageLevel}.`,
});

const OptionsField = Type.Array(
  StringEnum(HOME_OPTIONS, {
    description:
      'theft: theft and vandalism of belongings; glass_breakage: windows, glass doors, hobs; electrical_damage: appliances damaged by a power surge; legal_protection: disputes about the home.',
  }),
  {
    uniqueItems: true,
    maxItems: HOME_OPTIONS.length,
    description: 'Optional coverages, each priced on top of the core premium.',
  },
);

/**
 * A home, as /getPrice prices it and as the `risk` of a `home` policy. No `default` keywords: the
 * defaults are applied by the use case (home-risk.ts), the same way for both APIs.
 */
const homeFields = {
  postalCode: Type.Optional(PostalCode),
  zipCode: Type.Optional(ZipCode),
  city: Type.String({
    minLength: 1,
    maxLength: 100,
    description:
      'One of the cities /getCityByZipCode returns for the postal code, compared without case, accents, hyphens or apostrophes, ' +
      'Saint/St and Sainte/Ste alike, an arrondissement by its number ("Lyon 7e" is LYON); ' +
      "the commune's official name is also accepted; a control or invisible character (zero-width space, soft hyphen, direction mark) is refused. Answered as La Poste spells it.",
    examples: ['PARIS'],
  }),
  housingType: StringEnum(HOUSING_TYPES, {
    description: 'house: a detached or terraced house; apartment: a flat in a building.',
  }),
  occupancy: StringEnum(OCCUPANCIES, {
    description:
      'owner: the policyholder owns the home (the building is insured); tenant: the policyholder rents it (liability to the landlord is insured).',
  }),
  rooms: Type.Integer({
    minimum: rooms.min,
    maximum: rooms.max,
    description: `Main rooms (kitchen and bathrooms excluded), ${rooms.min}-${rooms.max}.`,
  }),
  livingArea: Type.Number({
    minimum: livingArea.min,
    maximum: livingArea.max,
    description:
      `Living area in m², ${livingArea.min}-${livingArea.max}: whole m² or to the hundredth at most (72.35: the surface habitable of a house, the loi Carrez surface of a co-ownership lot), priced as given; a value within 1e-9 of a hundredth (float noise: 36.300000000000004) is read and stored as it, a real third decimal (72.355) is a 422. ` +
      `It must suit the rooms: ${areaPerRoom.min} to ${areaPerRoom.max} m² per main room (12 rooms in 15 m² is a 422 naming livingArea).`,
    examples: [62, 72.35],
  }),
  floor: Type.Optional(
    Type.Integer({
      minimum: floor.min,
      maximum: floor.max,
      description: `Apartments only: the floor, 0 = ground floor (${floor.min}-${floor.max}). Omitted: priced as an upper floor.`,
    }),
  ),
  constructionYear: Type.Optional(
    Type.Integer({
      minimum: constructionYear.min,
      maximum: 2100,
      description: `Year the building was completed: at most ${constructionYear.yearsAhead} years after the year of the quote, for a home being built (a later year is a 422; 2100 is only the schema's bound). Omitted: priced as 1949-1999.`,
    }),
  ),
  contentsValue: Type.Optional(ContentsValue),
  coverageLevel: Type.Optional(CoverageLevelField),
  options: Type.Optional(OptionsField),
};

export const exampleHome = {
  zipCode: '75007',
  city: 'PARIS',
  housingType: 'apartment',
  occupancy: 'tenant',
  rooms: 3,
  livingArea: 62,
  floor: 2,
  constructionYear: 1930,
  contentsValue: { amount: 2_000_000, currency: 'EUR' },
  coverageLevel: 'comfort',
  options: ['glass_breakage', 'theft'],
};

export const HomeRisk = Type.Object(homeFields, {
  additionalProperties: false,
  title: 'Home risk',
  description: 'For product home: the fields of the Demo API /getPrice.',
});

export const HomeQuoteRequest = Type.Object(homeFields, { additionalProperties: false, examples: [exampleHome] });

const Coverage = Type.Object({
  code: Type.String({
    pattern: '^[a-z_]+$',
    maxLength: 40,
    description: 'building, tenant_liability, contents, natural_disasters, civil_liability, or an option.',
  }),
  label: Type.String({ maxLength: 200 }),
  limit: Type.Union([MoneyOut, Type.Null()], {
    description: 'Most paid per claim; null: the building at rebuilding cost, or natural disasters as the law sets.',
  }),
  deductible: MoneyOut,
  option: Type.Boolean({ description: 'Chosen among the options.' }),
});

export const HomeQuoteResponse = Type.Object({
  quoteReference: Type.String({
    maxLength: 4000,
    description:
      'Signed reference of this quote: pass it with a home policy to the API to manage policies; valid until expiresAt.',
  }),
  expiresAt: Type.String({ format: 'date-time', maxLength: 40 }),
  tariffVersion: Type.String({ maxLength: 40, description: 'Version of the rating table that priced the quote.' }),
  annualPremium: Type.Object(MoneyOut.properties, { description: 'Premium per year, tax included.' }),
  monthlyPremium: Type.Object(MoneyOut.properties, {
    description: 'One monthly instalment: the annual premium / 12, rounded half up to the cent.',
  }),
  annualTax: Type.Object(MoneyOut.properties, { description: 'Insurance tax included in the annual premium.' }),
  taxRate: Type.Number({ minimum: 0, maximum: 1, description: 'Insurance tax rate on the net premium (0.09 = 9 %).' }),
  zone: StringEnum(ZONES, { description: 'Tariff zone of the département (see the rating table).' }),
  department: Type.String({
    pattern: '^[0-9][0-9AB][0-9]?$',
    maxLength: 3,
    description: 'Département of the city: "75", "2A", "974".',
  }),
  coverages: Type.Array(Coverage, { maxItems: 20 }),
  // both names of the postal code and the defaults are always answered (homeRiskView)
  risk: Type.Object(
    {
      ...homeFields,
      postalCode: Type.String({
        pattern: ZIP_CODE_PATTERN,
        maxLength: 5,
        description: 'French postal code of the home, 5 digits.',
        examples: ['75007'],
      }),
      zipCode: Type.String({
        pattern: ZIP_CODE_PATTERN,
        maxLength: 5,
        description: 'The same value as postalCode.',
        examples: ['75007'],
      }),
      city: Type.String({
        maxLength: 100,
        description:
          'The city as La Poste spells it: one of the cities /getCityByZipCode returns, whatever spelling the request used.',
        examples: ['PARIS'],
      }),
      contentsValue: Type.Object(ContentsValue.properties, {
        additionalProperties: false,
        description: `Value of the contents insured: as requested, else ${RATING_TABLE.defaultContentsValuePerRoom / 100} EUR per room.`,
      }),
      coverageLevel: StringEnum(COVERAGE_LEVELS, {
        description: `The coverage level priced: as requested, else ${RATING_TABLE.defaultCoverageLevel}.`,
      }),
      options: Type.Array(OptionsField.items, {
        uniqueItems: true,
        maxItems: HOME_OPTIONS.length,
        description: 'The options priced, sorted; empty if none.',
      }),
    },
    {
      description:
        'The home as priced, defaults applied and the city as La Poste spells it: send it as the risk of a home policy.',
    },
  ),
});
