import { isSupportedCountry } from 'libphonenumber-js';
import type { FieldError } from '../platform/errors.ts';

/**
 * ISO 3166-1 alpha-2 codes of territories with no telephone numbering of their own, absent from
 * libphonenumber's metadata: Antarctica, Bouvet Island, the French Southern Territories, South
 * Georgia, Heard and McDonald Islands, Pitcairn, the US Minor Outlying Islands.
 */
const WITHOUT_PHONE_PLAN = new Set(['AQ', 'BV', 'TF', 'GS', 'HM', 'PN', 'UM']);

/**
 * Whether a code names a country or territory: one of ISO 3166-1 alpha-2, as libphonenumber (already
 * the phone numbers' check) knows them, with the few that have no phone plan. `UK` (the United
 * Kingdom is `GB`), `EU`, `ZZ`, `XX` name none — a partner's system sending them has a bug to fix,
 * not a country to store.
 */
export const isCountryCode = (code: string): boolean => isSupportedCountry(code) || WITHOUT_PHONE_PLAN.has(code);

/** `field` when `code` names no country (the schema has checked its form: two capitals); the message does not repeat it. */
export function checkCountry(code: string, field: string): FieldError[] {
  return isCountryCode(code)
    ? []
    : [
        {
          field,
          code: 'invalid',
          message: `is not an ISO 3166-1 country code${code === 'UK' ? ' (the United Kingdom is GB)' : ''}`,
        },
      ];
}
