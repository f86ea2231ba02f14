import { DomainError, type FieldError } from '../platform/errors.ts';
import { hasHiddenCharacter, hiddenCharacterError } from '../platform/hidden-characters.ts';
import { Decimal } from 'decimal.js';
import { departmentOf, findZipCode, matchCity, overseasTerritoryOf, type ZipCode } from '../reference/index.ts';
import {
  HOME_LIMITS,
  priceHome,
  zoneOf,
  type CoverageLevel,
  type HomeOption,
  type HousingType,
  type Occupancy,
  type PricedHome,
} from './pricing.ts';
import { RATING_TABLE } from './rating-table.ts';

/**
 * A home as partners describe it: to the Demo API's /getPrice, and as the `risk` of a `home`
 * policy in the API to manage policies. Money fields are `{ amount, currency }`.
 */
export interface HomeRiskInput {
  /** The one name across the APIs (policies' addresses use it too). */
  postalCode?: string | undefined;
  /** Its former name in the Demo API, still accepted (not both). */
  zipCode?: string | undefined;
  city: string;
  housingType: HousingType;
  occupancy: Occupancy;
  rooms: number;
  livingArea: number;
  floor?: number | undefined;
  constructionYear?: number | undefined;
  contentsValue?: { amount: number; currency: string } | undefined;
  coverageLevel?: CoverageLevel | undefined;
  options?: HomeOption[] | undefined;
}

/**
 * The same home with the defaults applied and the city spelt as La Poste does: what a quote binds
 * and what a policy stores. Two descriptions of one home have the same canonical risk.
 */
export interface HomeRisk {
  zipCode: string;
  city: string;
  housingType: HousingType;
  occupancy: Occupancy;
  rooms: number;
  livingArea: number;
  floor?: number;
  constructionYear?: number;
  contentsValue: { amount: number; currency: string };
  coverageLevel: CoverageLevel;
  options: HomeOption[];
}

export interface ResolvedHome {
  risk: HomeRisk;
  priced: PricedHome;
}

/**
 * Checks a home against the postal data and the tariff's rules and applies the defaults.
 * `at` is the JSON Pointer of the home in the request body ("" for /getPrice, "/risk" for a policy),
 * so that errors name the caller's field. An unknown zip code or a city the zip code does not serve
 * is a 422 here: the request is invalid, nothing is "not found".
 */
export function resolveHomeRisk(input: HomeRiskInput, at: string, now: Date): ResolvedHome {
  const { code, field } = postalCodeOf(input, at);
  assertCoveredTerritory(code, field);
  const zip = findZipCode(code);
  const cities = zip ? homeCities(zip) : [];
  if (!zip || !cities.length) {
    throw new DomainError('unknown_zip_code', notAHomePostalCode(code, zip), {
      errors: [
        {
          field,
          code: 'invalid',
          message: 'is not the postal code of a commune (a CEDEX code is not where a home stands)',
        },
      ],
    });
  }
  if (!input.city.trim()) {
    throw new DomainError('validation_failed', `${at}/city must not be blank.`, {
      errors: [{ field: `${at}/city`, code: 'required', message: 'must not be blank' }],
    });
  }
  // the platform's rule for typed text: "PA\u200bRIS" reads as PARIS, and would be a baffling city_mismatch
  if (hasHiddenCharacter(input.city.trim())) {
    const error = hiddenCharacterError(`${at}/city`);
    throw new DomainError('validation_failed', `${error.field} ${error.message}.`, { errors: [error] });
  }
  const matched = matchCity(zip, input.city);
  // a CEDEX label routes mail to an organisation: no home stands there
  const city = matched !== undefined && cities.includes(matched) ? matched : undefined;
  if (!city) {
    throw new DomainError(
      'city_mismatch',
      `${input.city} is not served by the zip code ${zip.zipCode}; use one of: ${cities.join(', ')}.`,
      {
        errors: [{ field: `${at}/city`, code: 'not_allowed', message: `must be one of the cities of ${zip.zipCode}` }],
        acceptedValues: cities,
      },
    );
  }

  const errors: FieldError[] = [];
  if (input.housingType !== 'apartment' && input.floor !== undefined) {
    errors.push({ field: `${at}/floor`, code: 'not_allowed', message: 'only applies to an apartment' });
  }
  // a home being built is insured from its completion's year at the latest: this year's and the next two
  const latestYear = now.getUTCFullYear() + HOME_LIMITS.constructionYear.yearsAhead;
  if (input.constructionYear !== undefined && input.constructionYear > latestYear) {
    errors.push({
      field: `${at}/constructionYear`,
      code: 'out_of_range',
      message: `must be ${latestYear} or earlier (at most ${HOME_LIMITS.constructionYear.yearsAhead} years after ${now.getUTCFullYear()}, for a home being built)`,
    });
  }
  const livingArea = toHundredth(input.livingArea);
  errors.push(...livingAreaErrors(input.rooms, input.livingArea, livingArea, at));
  if (input.contentsValue && input.contentsValue.currency !== RATING_TABLE.currency) {
    errors.push({
      field: `${at}/contentsValue/currency`,
      code: 'not_allowed',
      message: `must be ${RATING_TABLE.currency}`,
    });
  }
  if (input.options && new Set(input.options).size !== input.options.length) {
    errors.push({ field: `${at}/options`, code: 'invalid', message: 'must not repeat an option' });
  }
  if (errors.length)
    throw new DomainError(
      'validation_failed',
      errors.length === 1 ? `${errors[0]!.field} ${errors[0]!.message}.` : `${errors.length} fields are invalid.`,
      { errors },
    );

  const contentsValue = input.contentsValue?.amount ?? input.rooms * RATING_TABLE.defaultContentsValuePerRoom;
  const coverageLevel = input.coverageLevel ?? RATING_TABLE.defaultCoverageLevel;
  const options = [...(input.options ?? [])].sort();
  const risk: HomeRisk = {
    zipCode: zip.zipCode,
    city,
    housingType: input.housingType,
    occupancy: input.occupancy,
    rooms: input.rooms,
    livingArea: livingArea!,
    ...(input.floor !== undefined ? { floor: input.floor } : {}),
    ...(input.constructionYear !== undefined ? { constructionYear: input.constructionYear } : {}),
    contentsValue: { amount: contentsValue, currency: RATING_TABLE.currency },
    coverageLevel,
    options,
  };
  const priced: PricedHome = {
    department: zip.departments.get(city)!,
    housingType: risk.housingType,
    occupancy: risk.occupancy,
    rooms: risk.rooms,
    livingArea: risk.livingArea,
    floor: risk.floor ?? null,
    constructionYear: risk.constructionYear ?? null,
    contentsValue,
    coverageLevel,
    options,
  };
  return { risk, priced };
}

/**
 * The cities of a zip code where a home may stand: its routing labels but a CEDEX one. A CEDEX code
 * (courrier d'entreprise à distribution exceptionnelle) routes mail to a business, an administration
 * or a camp, not to an address where someone lives: La Poste's data of communes leaves them out, but
 * for 83998, CANJUERS CEDEX (the military camp of Canjuers).
 */
export function homeCities(zip: ZipCode): string[] {
  return zip.cities.filter((city) => !/\bCEDEX\b/.test(city));
}

/** Why `code` names no commune a home may stand in: for /getPrice's 422 and /getCityByZipCode's 404. */
export function notAHomePostalCode(code: string, zip: ZipCode | undefined): string {
  return zip
    ? `${code} is a CEDEX code (${zip.cities.join(', ')}), which routes mail to an organisation: no home stands there; give the postal code of the home's commune.`
    : `${code} is not the postal code of a French commune in La Poste's data; a CEDEX code (mail to a business or an administration) is not one either: give the postal code of the home's commune.`;
}

/**
 * A living area to the hundredth: the value itself, or the hundredth it is within 1e-9 of — the
 * noise of a binary float a partner's code computed (36.300000000000004 is 36.3) — else undefined
 * (72.355 has a real third decimal).
 */
export function toHundredth(livingArea: number): number | undefined {
  if (!Number.isFinite(livingArea)) return undefined;
  const { decimals } = HOME_LIMITS.livingArea;
  const rounded = new Decimal(livingArea).toDecimalPlaces(decimals, Decimal.ROUND_HALF_UP).toNumber();
  return Math.abs(livingArea - rounded) <= AREA_NOISE ? rounded : undefined;
}

/** How far from a hundredth a living area may be and still be read as that hundredth (float noise). */
const AREA_NOISE = 1e-9;

/**
 * The living area's own rules beyond its schema: to the hundredth at most (72.35 m²; `rounded`,
 * toHundredth's reading, undefined for a real third decimal), and an area a home of that many main
 * rooms can have (HOME_LIMITS.areaPerRoom: 12 rooms in 15 m², or 1 room in 1 000 m², are
 * declarations to correct, not homes to price). Checked at a quote and a creation, not on a renewal
 * (storedHomeRiskErrors).
 */
function livingAreaErrors(rooms: number, given: number, rounded: number | undefined, at: string): FieldError[] {
  const field = `${at}/livingArea`;
  const { decimals } = HOME_LIMITS.livingArea;
  if (rounded === undefined)
    return [
      { field, code: 'invalid', message: `must have at most ${decimals} decimals (m² to the hundredth), got ${given}` },
    ];
  const { min, max } = HOME_LIMITS.areaPerRoom;
  if (rounded < rooms * min || rounded > rooms * max)
    return [
      {
        field,
        code: 'out_of_range',
        message: `must be between ${min} and ${max} m² per main room: ${Math.max(HOME_LIMITS.livingArea.min, rooms * min)} to ${Math.min(HOME_LIMITS.livingArea.max, rooms * max)} m² for ${rooms} room${rooms === 1 ? '' : 's'}`,
      },
    ];
  return [];
}

/**
 * What blocks the renewal of a stored home risk (a policy's): only what the tariff cannot cover or
 * rate — a postal code of a territory outside it (975xx), or whose département is in no zone of the
 * current rating table. The rules of a quote (rooms against area, decimals, a CEDEX code, the city
 * among the code's labels, the construction year) are not applied again: a policy in force renews
 * tacitly (code des assurances, L113-12) and a wrong declaration is the insurer's to raise at a claim
 * (L113-8, L113-9), as a motor policy breaking a rule added later is renewed as stored
 * (docs/policies.md). storedHomeRiskFindings lists them, for the renewal's audit row. Field errors
 * under `at`; empty when the risk may be renewed.
 */
export function storedHomeRiskErrors(risk: HomeRisk, at: string): FieldError[] {
  const code = String(risk.zipCode);
  const field = `${at}/zipCode`;
  const territory = uncoveredTerritoryError(code, field);
  if (territory) return [territory];
  for (const department of storedDepartments(code, risk.city)) {
    try {
      zoneOf(department);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      return [
        {
          field,
          code: 'not_allowed',
          message: `is in the département ${department}, in no zone of the rating table ${RATING_TABLE.version}: outside the home tariff`,
        },
      ];
    }
  }
  return [];
}

/**
 * The départements a stored postal code stands for: its city's in La Poste's data, else (a city
 * relabelled since) every one the code serves, else (a code the data no longer has) its own
 * prefix's (97x, 98x, or the first two digits).
 */
function storedDepartments(code: string, city: string): string[] {
  const zip = findZipCode(code);
  if (!zip) return [departmentOf(code)];
  const department = zip.departments.get(city);
  return department !== undefined ? [department] : [...new Set(zip.departments.values())];
}

/**
 * The rules of a quote a stored home risk no longer meets (the postal code and city, rooms against
 * area, decimals, the construction year, the current table's bounds), checked on the day of its
 * renewal: non-blocking findings for the renewal's audit row (storedHomeRiskErrors blocks).
 */
export function storedHomeRiskFindings(risk: HomeRisk, at: string, now: Date): FieldError[] {
  try {
    const { priced } = resolveHomeRisk({ ...risk, zipCode: String(risk.zipCode) }, at, now);
    priceHome(priced);
    return [];
  } catch (error) {
    if (error instanceof DomainError) {
      const errors = error.extra.errors;
      return errors?.length ? errors : [{ field: at, code: 'invalid', message: error.detail }];
    }
    if (error instanceof RangeError)
      return [
        {
          field: at,
          code: 'invalid',
          message: `is not priced by the rating table ${RATING_TABLE.version} (${error.message})`,
        },
      ];
    throw error;
  }
}

/**
 * The postal code a request gives, as `postalCode` or `zipCode` (the Demo API's name in the public
 * contract) — either, or both with the same value, as the API answers a home risk; `field` names it for errors.
 */
export function postalCodeOf(input: { postalCode?: string | undefined; zipCode?: string | undefined }, at: string) {
  if (input.postalCode !== undefined && input.zipCode !== undefined && input.postalCode !== input.zipCode)
    throw new DomainError('validation_failed', 'postalCode and zipCode name the same code: give one, or both alike.', {
      errors: [{ field: `${at}/zipCode`, code: 'invalid', message: 'must equal postalCode (the same field)' }],
    });
  const code = input.postalCode ?? input.zipCode;
  if (code === undefined)
    throw new DomainError('validation_failed', 'postalCode is required.', {
      errors: [{ field: `${at}/postalCode`, code: 'required', message: 'is required' }],
    });
  return { code, field: `${at}/${input.postalCode !== undefined ? 'postalCode' : 'zipCode'}` };
}

/**
 * The tariff prices homes in metropolitan France and the overseas départements (971 to 974, 976):
 * a postal code of another overseas territory (the overseas collectivities Saint-Barthélemy,
 * Saint-Martin, Saint-Pierre-et-Miquelon, Wallis-et-Futuna and French Polynesia, New Caledonia, the
 * French Southern and Antarctic Lands) is refused as such, 422 `zip_code_not_covered`, by /getPrice
 * and a home policy, rather than as an unknown code. /getCityByZipCode answers La Poste's data as it
 * is (find-cities.ts).
 */
export function assertCoveredTerritory(code: string, field: string): void {
  const error = uncoveredTerritoryError(code, field);
  if (error === undefined) return;
  const territory = overseasTerritoryOf(code)!;
  throw new DomainError(
    'zip_code_not_covered',
    `${code} is a postal code of ${territory.name}, ${territory.status}: the home tariff covers metropolitan France and the overseas départements (Guadeloupe, Martinique, French Guiana, Réunion, Mayotte) only.`,
    { errors: [error] },
  );
}

/**
 * The field error of a postal code outside the home tariff's territory, else undefined: for
 * assertCoveredTerritory, and for a stored home policy's risk on its renewal (storedHomeRiskErrors).
 */
export function uncoveredTerritoryError(code: string, field: string): FieldError | undefined {
  const territory = overseasTerritoryOf(code);
  if (territory === undefined) return undefined;
  return { field, code: 'not_allowed', message: `is a postal code of ${territory.name}, outside the home tariff` };
}

/** The fields of a canonical home risk, in the order the API shows them. */
const HOME_RISK_FIELDS: readonly (keyof HomeRisk)[] = [
  'zipCode',
  'city',
  'housingType',
  'occupancy',
  'rooms',
  'livingArea',
  'floor',
  'constructionYear',
  'contentsValue',
  'coverageLevel',
  'options',
];

/** The fields in which two canonical risks differ (JSON Pointers relative to the risk). */
export function riskDifferences(expected: HomeRisk, actual: HomeRisk): { field: string; expected: unknown }[] {
  return HOME_RISK_FIELDS.filter((f) => JSON.stringify(expected[f] ?? null) !== JSON.stringify(actual[f] ?? null)).map(
    (f) => ({ field: `/${f}`, expected: expected[f] ?? null }),
  );
}

/**
 * A canonical home risk (a quote's, or a policy's as stored) as the APIs answer it: its postal code
 * under both names, `postalCode` and `zipCode`, then the fields in the API's order (jsonb keeps its own).
 * Sent back as is, it is a valid home risk.
 */
export function homeRiskView(risk: HomeRisk): HomeRiskView {
  return {
    postalCode: risk.zipCode,
    ...(Object.fromEntries(
      HOME_RISK_FIELDS.filter((f) => risk[f] !== undefined).map((f) => [f, risk[f]]),
    ) as unknown as HomeRisk),
  };
}

/** A home risk as answered: the canonical risk and its postal code by the name of the addresses too. */
export type HomeRiskView = HomeRisk & { postalCode: string };
