import { DomainError } from '../platform/errors.ts';
import { findZipCode } from '../reference/index.ts';
import { postalCodeOf } from './home-risk.ts';

/**
 * POST /getCityByZipCode: the cities (La Poste routing labels) a French postal code serves, sorted.
 * The code comes as `postalCode` or by its former name `zipCode`; the answer gives both names.
 */
export function findCities(input: { postalCode?: string | undefined; zipCode?: string | undefined }): {
  postalCode: string;
  zipCode: string;
  cities: string[];
} {
  const { code } = postalCodeOf(input, '');
  const zip = findZipCode(code);
  if (!zip) throw new DomainError('zip_code_not_found', `No French postal code ${code}.`);
  return { postalCode: zip.zipCode, zipCode: zip.zipCode, cities: [...zip.cities] };
}
