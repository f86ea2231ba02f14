import { DomainError } from '../platform/errors.ts';
import { findZipCode, overseasTerritoryOf } from '../reference/index.ts';
import { homeCities, notAHomePostalCode, postalCodeOf } from './home-risk.ts';

/**
 * POST /getCityByZipCode: the cities (La Poste routing labels) a French postal code serves, sorted.
 * The code comes as `postalCode` or by its former name `zipCode`; the answer gives both names.
 * It answers La Poste's data as it is, whatever the tariff covers: 97500 (Saint-Pierre-et-Miquelon)
 * gives its cities, and a code the data leaves out is a 404 `zip_code_not_found` — whose detail names
 * the overseas territory the code belongs to, if any (97133 Saint-Barthélemy, 988xx New Caledonia).
 * /getPrice and a home policy refuse a territory outside the tariff (home-risk.ts, assertCoveredTerritory).
 * A CEDEX label is left out (mail to an organisation, not a place where a home stands: homeCities),
 * and a code that has only such labels (83998, CANJUERS CEDEX) is a 404 saying so, as is a CEDEX
 * code the data leaves out (75700): the detail of an unknown code says a CEDEX code is not a home's.
 */
export function findCities(input: { postalCode?: string | undefined; zipCode?: string | undefined }): {
  postalCode: string;
  zipCode: string;
  cities: string[];
} {
  const { code } = postalCodeOf(input, '');
  const zip = findZipCode(code);
  const cities = zip ? homeCities(zip) : [];
  if (!zip || !cities.length) {
    const territory = overseasTerritoryOf(code);
    throw new DomainError(
      'zip_code_not_found',
      territory && !zip
        ? `${code} is a postal code of ${territory.name}, ${territory.status}, which La Poste's data leaves out.`
        : notAHomePostalCode(code, zip),
    );
  }
  return { postalCode: zip.zipCode, zipCode: zip.zipCode, cities };
}
