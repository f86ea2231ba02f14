import { DomainError } from '../platform/errors.ts';
import { findZipCode } from '../reference/index.ts';
import { assertCoveredTerritory, postalCodeOf } from './home-risk.ts';

/**
 * POST /getCityByZipCode: the cities (La Poste routing labels) a French postal code serves, sorted.
 * The code comes as `postalCode` or by its former name `zipCode`; the answer gives both names.
 * A code of an overseas collectivity, outside the tariff, is a 422 `zip_code_not_covered` here too,
 * so that a form stops at its first step.
 */
export function findCities(input: { postalCode?: string | undefined; zipCode?: string | undefined }): {
  postalCode: string;
  zipCode: string;
  cities: string[];
} {
  const { code, field } = postalCodeOf(input, '');
  assertCoveredTerritory(code, field);
  const zip = findZipCode(code);
  if (!zip) throw new DomainError('zip_code_not_found', `No French postal code ${code}.`);
  return { postalCode: zip.zipCode, zipCode: zip.zipCode, cities: [...zip.cities] };
}
