/**
 * Home-insurance premium of the Demo API. Pure functions, no I/O; the numbers live in the rating
 * table (rating-table.ts) and docs/home-pricing.md explains them with a worked example.
 *
 * Per year, in minor units:
 *   building part  B = fixed + perSquareMetre × livingArea + perRoom × rooms   (housing type × occupancy)
 *   contents part  C = contentsValue × contentsRatePerMille / 1000             (coverage level)
 *   core           K = (B × levelFactor + C) × zoneFactor × constructionFactor × floorFactor
 *   options        O = Σ optionPrice(housing type) × (zoneFactor for theft, else 1)
 *   net            N = round(max(minimumNetPremium, K + O))
 *   tax              = round(N × taxRate)
 *   annual           = N + tax                                                 (exactly)
 *   monthly          = round(annual / 12)
 * with one rounding rule, ROUND_HALF_UP to integer minor units. livingArea may have two decimals
 * (72.35 m²): it is priced as given, exactly (decimal.js), never rounded to whole m² first.
 */
import { Decimal } from 'decimal.js';
import {
  COVERAGE_LEVELS,
  HOME_OPTIONS,
  HOUSING_TYPES,
  OCCUPANCIES,
  ZONES,
  type CoverageLevel,
  type HomeOption,
  type HousingType,
  type Occupancy,
  type Rate,
  type RatingTable,
  type Zone,
} from './model.ts';
import { RATING_TABLE } from './rating-table.ts';

export * from './model.ts';

/** Bounds of what the tariff prices; the API schemas document the same numbers. */
export const HOME_LIMITS = Object.freeze({
  rooms: { min: 1, max: 20 },
  /**
   * m², to the hundredth at most (72.35: the surface habitable of CCH R156-1, or the loi Carrez
   * surface of a co-ownership lot), priced as given; a value within 1e-9 of a hundredth (float noise,
   * 36.300000000000004) is read as that hundredth (home-risk.ts, toHundredth)
   */
  livingArea: { min: 9, max: 1000, decimals: 2 },
  /**
   * m² of living area per main room: below 7, rooms no one can live in (décret 2002-120 asks a decent
   * home for at least one main room of 9 m², or 20 m³; a bedroom is rarely under 7, even with the
   * kitchen and bathrooms counted in the area); above 300, a home whose rooms were not counted (a loft
   * of one 250 m² room is a home). Outside: 422 naming livingArea, at a quote and a creation.
   */
  areaPerRoom: { min: 7, max: 300 },
  floor: { min: 0, max: 60 },
  /** `yearsAhead`: after the year of the quote (or of the renewal), for a home being built. */
  constructionYear: { min: 1500, yearsAhead: 2 },
  /** minor units: 1 000.00 to 300 000.00 */
  contentsValue: { min: 100_000, max: 30_000_000 },
});

/** What the tariff prices: the risk, resolved (defaults applied, département known). */
export interface PricedHome {
  department: string;
  housingType: HousingType;
  occupancy: Occupancy;
  rooms: number;
  livingArea: number;
  /** Apartments only; null for a house or when not given. */
  floor: number | null;
  constructionYear: number | null;
  /** Minor units. */
  contentsValue: number;
  coverageLevel: CoverageLevel;
  options: readonly HomeOption[];
}

export interface HomePremium {
  zone: Zone;
  factors: { zone: string; coverageLevel: string; constructionYear: string; floor: string };
  /** Unrounded intermediate amounts in minor units, 4 decimals: for the docs and debugging. */
  parts: { building: string; contents: string; core: string; options: string };
  /** Integer minor units, per year. `annual = net + tax`. */
  net: number;
  tax: number;
  annual: number;
  /** One monthly instalment: round(annual / 12). */
  monthly: number;
}

export interface HomeCoverage {
  code: string;
  label: string;
  /** Minor units; null when the coverage is at rebuilding cost (the building) or statutory. */
  limit: number | null;
  deductible: number;
  option: boolean;
}

const ROUNDING = Decimal.ROUND_HALF_UP;

/**
 * The zone of a département (codes as in postal-codes.ts: "75", "2A", "974"). The default zone is a
 * metropolitan one: an overseas code (97x, 98x) the table does not list — 975 Saint-Pierre-et-Miquelon,
 * an overseas collectivity, or any territory outside the tariff — throws rather than be priced as
 * metropolitan France (resolveHomeRisk refuses such a postal code before pricing).
 */
export function zoneOf(department: string, table: RatingTable = RATING_TABLE): Zone {
  const zone = ZONES.find((z) => table.zones[z].departments.includes(department));
  if (zone !== undefined) return zone;
  if (/^9[78]/.test(department))
    throw new RangeError(
      `Département ${department} is overseas and in no zone of the rating table: outside the tariff.`,
    );
  return table.defaultZone;
}

/** The annual and monthly premium of a home, and how they were formed. */
export function priceHome(home: PricedHome, table: RatingTable = RATING_TABLE): HomePremium {
  assertPriceable(home);
  const zone = zoneOf(home.department, table);
  const zoneFactor = new Decimal(table.zones[zone].factor);
  const level = table.coverageLevels[home.coverageLevel];
  const levelFactor = new Decimal(level.factor);
  const constructionFactor = new Decimal(constructionFactorOf(home.constructionYear, table));
  const floorFactor = new Decimal(
    home.housingType === 'apartment' && home.floor === 0 ? table.floor.groundFloorApartment : table.floor.other,
  );

  const base = table.base[home.housingType][home.occupancy];
  const building = new Decimal(base.fixed)
    .plus(new Decimal(base.perSquareMetre).times(home.livingArea))
    .plus(new Decimal(base.perRoom).times(home.rooms));
  const contents = new Decimal(home.contentsValue).times(level.contentsRatePerMille).div(1000);
  const core = building
    .times(levelFactor)
    .plus(contents)
    .times(zoneFactor)
    .times(constructionFactor)
    .times(floorFactor);
  const options = home.options.reduce((sum, option) => {
    const price = new Decimal(table.options[option][home.housingType]);
    return sum.plus(table.options[option].zoneScaled ? price.times(zoneFactor) : price);
  }, new Decimal(0));

  const net = toMinorUnits(Decimal.max(table.minimumNetPremium, core.plus(options)));
  const tax = toMinorUnits(new Decimal(net).times(table.taxRate));
  const annual = net + tax;
  return {
    zone,
    factors: {
      zone: zoneFactor.toFixed(2),
      coverageLevel: levelFactor.toFixed(2),
      constructionYear: constructionFactor.toFixed(2),
      floor: floorFactor.toFixed(2),
    },
    parts: {
      building: building.toFixed(4),
      contents: contents.toFixed(4),
      core: core.toFixed(4),
      options: options.toFixed(4),
    },
    net,
    tax,
    annual,
    monthly: toMinorUnits(new Decimal(annual).div(12)),
  };
}

/** The coverages of a home policy at its level, with their limits and deductibles (minor units). */
export function coveragesOf(home: PricedHome, table: RatingTable = RATING_TABLE): HomeCoverage[] {
  const level = table.coverageLevels[home.coverageLevel];
  const deductible = level.deductible;
  const coverages: HomeCoverage[] = [
    home.occupancy === 'owner'
      ? {
          code: 'building',
          label: 'The building: fire, explosion, water damage, storm, hail and snow; rebuilt at cost',
          limit: null,
          deductible,
          option: false,
        }
      : {
          code: 'tenant_liability',
          label: 'Your liability to the landlord for fire, explosion and water damage',
          limit: level.tenantLiabilityLimit,
          deductible,
          option: false,
        },
    {
      code: 'contents',
      label: 'Your furniture and belongings: fire, explosion, water damage, storm, hail and snow',
      limit: home.contentsValue,
      deductible,
      option: false,
    },
    {
      code: 'natural_disasters',
      label: 'Natural disasters declared by the State (statutory deductible)',
      limit: null,
      deductible: table.naturalDisasterDeductible,
      option: false,
    },
    {
      code: 'civil_liability',
      label: 'Private-life civil liability of the household',
      limit: level.civilLiabilityLimit,
      deductible: 0,
      option: false,
    },
  ];
  const optional: Record<HomeOption, () => HomeCoverage> = {
    theft: () => ({
      code: 'theft',
      label: 'Theft and vandalism of belongings',
      limit: toMinorUnits(new Decimal(home.contentsValue).times(level.theftShareOfContents)),
      deductible,
      option: true,
    }),
    glass_breakage: () => ({
      code: 'glass_breakage',
      label: 'Breakage of windows, glass doors and glass-ceramic hobs',
      limit: level.glassBreakageLimit,
      deductible: 0,
      option: true,
    }),
    electrical_damage: () => ({
      code: 'electrical_damage',
      label: 'Electrical damage to appliances (power surge, lightning)',
      limit: level.electricalDamageLimit,
      deductible,
      option: true,
    }),
    legal_protection: () => ({
      code: 'legal_protection',
      label: 'Legal protection in disputes about the home',
      limit: level.legalProtectionLimit,
      deductible: 0,
      option: true,
    }),
  };
  for (const option of HOME_OPTIONS) if (home.options.includes(option)) coverages.push(optional[option]());
  return coverages;
}

function constructionFactorOf(year: number | null, table: RatingTable): Rate {
  if (year === null) return table.unknownConstructionYearFactor;
  const band = table.constructionYears.find((b) => b.to === null || year <= b.to);
  if (!band) throw new RangeError(`no construction-year band for ${year}`);
  return band.factor;
}

function assertPriceable(home: PricedHome): void {
  const within = (value: number, min: number, max: number, name: string) => {
    if (!Number.isSafeInteger(value) || value < min || value > max)
      throw new RangeError(`${name} must be an integer in ${min}..${max}, got ${value}`);
  };
  within(home.rooms, HOME_LIMITS.rooms.min, HOME_LIMITS.rooms.max, 'rooms');
  const area = HOME_LIMITS.livingArea;
  if (!hasAtMostDecimals(home.livingArea, area.decimals) || home.livingArea < area.min || home.livingArea > area.max)
    throw new RangeError(
      `livingArea must be in ${area.min}..${area.max} with at most ${area.decimals} decimals, got ${home.livingArea}`,
    );
  within(home.contentsValue, HOME_LIMITS.contentsValue.min, HOME_LIMITS.contentsValue.max, 'contentsValue');
  if (home.floor !== null) within(home.floor, HOME_LIMITS.floor.min, HOME_LIMITS.floor.max, 'floor');
  if (home.constructionYear !== null)
    within(home.constructionYear, HOME_LIMITS.constructionYear.min, 9999, 'constructionYear');
  if (!HOUSING_TYPES.includes(home.housingType))
    throw new RangeError(`unknown housingType ${String(home.housingType)}`);
  if (!OCCUPANCIES.includes(home.occupancy)) throw new RangeError(`unknown occupancy ${String(home.occupancy)}`);
  if (!COVERAGE_LEVELS.includes(home.coverageLevel))
    throw new RangeError(`unknown coverageLevel ${String(home.coverageLevel)}`);
  for (const option of home.options)
    if (!HOME_OPTIONS.includes(option)) throw new RangeError(`unknown option ${String(option)}`);
  if (new Set(home.options).size !== home.options.length) throw new RangeError('options must not repeat');
}

/** Whether a number is finite and has at most `decimals` digits after the point (72.35, not 72.351). */
export function hasAtMostDecimals(value: number, decimals: number): boolean {
  return Number.isFinite(value) && new Decimal(value).decimalPlaces() <= decimals;
}

/** The one rounding rule: half up to an integer number of minor units. */
function toMinorUnits(amount: Decimal): number {
  const rounded = amount.toDecimalPlaces(0, ROUNDING).toNumber();
  if (!Number.isSafeInteger(rounded)) throw new RangeError(`amount ${amount.toString()} is out of range`);
  return rounded;
}
