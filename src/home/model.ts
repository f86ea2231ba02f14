/**
 * The home tariff's vocabularies and the shape of its rating table (rating-table.ts), apart from the
 * pricing functions so that the table and pricing.ts do not import each other.
 */

export const HOUSING_TYPES = ['house', 'apartment'] as const;
export const OCCUPANCIES = ['owner', 'tenant'] as const;
export const COVERAGE_LEVELS = ['essential', 'comfort', 'premium'] as const;
export const HOME_OPTIONS = ['theft', 'glass_breakage', 'electrical_damage', 'legal_protection'] as const;
export const ZONES = ['A', 'B', 'C', 'D', 'E'] as const;

export type HousingType = (typeof HOUSING_TYPES)[number];
export type Occupancy = (typeof OCCUPANCIES)[number];
export type CoverageLevel = (typeof COVERAGE_LEVELS)[number];
export type HomeOption = (typeof HOME_OPTIONS)[number];
export type Zone = (typeof ZONES)[number];

/** Decimal numbers are strings in the table, so that decimal.js reads them exactly. */
export type Rate = string;

export interface RatingTable {
  version: string;
  currency: string;
  taxRate: Rate;
  /** Floor on the net annual premium, minor units. */
  minimumNetPremium: number;
  quoteValidityDays: number;
  defaultCoverageLevel: CoverageLevel;
  /** Contents value assumed per room when the caller gives none, minor units. */
  defaultContentsValuePerRoom: number;
  base: Record<HousingType, Record<Occupancy, { fixed: number; perSquareMetre: number; perRoom: number }>>;
  zones: Record<Zone, { factor: Rate; description: string; departments: readonly string[] }>;
  /** The zone of every département not listed in a zone. */
  defaultZone: Zone;
  coverageLevels: Record<
    CoverageLevel,
    {
      factor: Rate;
      contentsRatePerMille: Rate;
      /** Deductible of the property coverages, minor units. */
      deductible: number;
      civilLiabilityLimit: number;
      tenantLiabilityLimit: number;
      theftShareOfContents: Rate;
      glassBreakageLimit: number;
      electricalDamageLimit: number;
      legalProtectionLimit: number;
    }
  >;
  /** Statutory deductible of the natural-disaster coverage (catastrophes naturelles), minor units. */
  naturalDisasterDeductible: number;
  /** Bands of construction years, oldest first; `to` inclusive, null = open. */
  constructionYears: readonly { to: number | null; factor: Rate }[];
  unknownConstructionYearFactor: Rate;
  floor: { groundFloorApartment: Rate; other: Rate };
  options: Record<HomeOption, { house: number; apartment: number; zoneScaled: boolean }>;
}
