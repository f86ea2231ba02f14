import type { RatingTable } from './model.ts';

/**
 * The home-insurance tariff of the Demo API, version `home-1`: plain data, explained line by line
 * in docs/home-pricing.md. Amounts are integer minor units (euro cents) per year before tax;
 * factors and rates are decimal strings, read exactly by decimal.js.
 */
export const RATING_TABLE: RatingTable = Object.freeze({
  version: 'home-1',
  currency: 'EUR',
  // taxe sur les conventions d'assurance on home multi-risk policies
  taxRate: '0.09',
  minimumNetPremium: 6_000,
  quoteValidityDays: 30,
  defaultCoverageLevel: 'comfort',
  defaultContentsValuePerRoom: 500_000,

  base: {
    house: {
      owner: { fixed: 8_000, perSquareMetre: 90, perRoom: 1_000 },
      tenant: { fixed: 5_000, perSquareMetre: 40, perRoom: 600 },
    },
    apartment: {
      owner: { fixed: 5_000, perSquareMetre: 60, perRoom: 800 },
      tenant: { fixed: 3_500, perSquareMetre: 30, perRoom: 500 },
    },
  },

  zones: {
    A: {
      factor: '0.90',
      description: 'Rural départements with few burglaries and little urban water damage',
      departments: [
        '03',
        '08',
        '09',
        '12',
        '15',
        '19',
        '23',
        '32',
        '36',
        '43',
        '46',
        '48',
        '52',
        '55',
        '58',
        '70',
        '87',
      ],
    },
    B: { factor: '1.00', description: 'Every département not listed elsewhere', departments: [] },
    C: {
      factor: '1.20',
      description: 'Large cities and the outer Paris suburbs',
      departments: ['06', '13', '31', '33', '34', '38', '44', '59', '67', '69', '77', '78', '91', '95'],
    },
    D: { factor: '1.40', description: 'Paris and the inner suburbs', departments: ['75', '92', '93', '94'] },
    E: {
      factor: '1.50',
      description: 'Overseas départements, exposed to cyclones',
      departments: ['971', '972', '973', '974', '976'],
    },
  },
  defaultZone: 'B',

  coverageLevels: {
    essential: {
      factor: '0.85',
      contentsRatePerMille: '3',
      deductible: 30_000,
      civilLiabilityLimit: 200_000_000,
      tenantLiabilityLimit: 50_000_000,
      theftShareOfContents: '0.5',
      glassBreakageLimit: 150_000,
      electricalDamageLimit: 200_000,
      legalProtectionLimit: 500_000,
    },
    comfort: {
      factor: '1.00',
      contentsRatePerMille: '4',
      deductible: 15_000,
      civilLiabilityLimit: 500_000_000,
      tenantLiabilityLimit: 100_000_000,
      theftShareOfContents: '0.75',
      glassBreakageLimit: 300_000,
      electricalDamageLimit: 400_000,
      legalProtectionLimit: 1_000_000,
    },
    premium: {
      factor: '1.30',
      contentsRatePerMille: '5',
      deductible: 0,
      civilLiabilityLimit: 1_000_000_000,
      tenantLiabilityLimit: 200_000_000,
      theftShareOfContents: '1',
      glassBreakageLimit: 600_000,
      electricalDamageLimit: 800_000,
      legalProtectionLimit: 2_000_000,
    },
  },
  naturalDisasterDeductible: 38_000,

  constructionYears: [
    { to: 1948, factor: '1.15' },
    { to: 1999, factor: '1.00' },
    { to: 2012, factor: '0.95' },
    { to: null, factor: '0.90' },
  ],
  unknownConstructionYearFactor: '1.00',
  floor: { groundFloorApartment: '1.10', other: '1.00' },

  options: {
    theft: { house: 4_000, apartment: 2_500, zoneScaled: true },
    glass_breakage: { house: 1_800, apartment: 1_200, zoneScaled: false },
    electrical_damage: { house: 2_000, apartment: 1_000, zoneScaled: false },
    legal_protection: { house: 2_400, apartment: 2_400, zoneScaled: false },
  },
});
