import { DomainError } from '../platform/errors.ts';
import { findZipCode } from '../reference/index.ts';

/** POST /getCityByZipCode: the cities (La Poste routing labels) a French zip code serves, sorted. */
export function findCities(input: { zipCode: string }): { zipCode: string; cities: string[] } {
  const zip = findZipCode(input.zipCode);
  if (!zip) throw new DomainError('zip_code_not_found', `No French postal code ${input.zipCode}.`);
  return { zipCode: zip.zipCode, cities: [...zip.cities] };
}
