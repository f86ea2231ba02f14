import { DomainError } from '../platform/errors.ts';
import { findZipCode, overseasTerritoryOf } from '../reference/index.ts';
import { postalCodeOf } from './home-risk.ts';

/**
 * POST /getCityByZipCode: the cities (La Poste routing labels) a French postal code serves, sorted.
 * The code comes as `postalCode` or by its former name `zipCode`; the answer gives both names.
 * It answers La Poste's data as it is, whatever the tariff covers: 97500 (Saint-Pierre-et-Miquelon)
 * gives its cities, and a code the data leaves out is a 404 `zip_code_not_found` — whose detail names
 * the overseas territory the code belongs to, if any (97133 Saint-Barthélemy, 988xx New Caledonia).
 * /getPrice and a home policy refuse a territory outside the tariff (home-risk.ts, assertCoveredTerritory).
 */
export function findCities(input: { postalCode?: string | undefined; zipCode?: string | undefined }): {
  postalCode: string;
  zipCode: string;
  cities: string[];
} {
  const { code } = postalCodeOf(input, '');
  const zip = findZipCode(code);
  if (!zip) {
    const territory = overseasTerritoryOf(code);
    throw new DomainError(
      'zip_code_not_found',
      territory
        ? `${code} is a postal code of ${territory.name}, ${territory.status}, which La Poste's data leaves out.`
        : `No French postal code ${code}.`,
    );
  }
  return { postalCode: zip.zipCode, zipCode: zip.zipCode, cities: [...zip.cities] };
}
