import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { FieldError } from '../platform/errors.ts';
import { hasHiddenCharacter as hiddenIn, hiddenCharacterError } from '../platform/hidden-characters.ts';
import { personNameError } from '../platform/person-name.ts';
import { findZipCode } from '../reference/index.ts';
import { checkCountry } from './country.ts';
import { plusYears, type Address } from './policy.ts';

/** The policyholder's contact rules, shared by recording a policy and changing its policyholder's contact. */

/** A real phone number, written in E.164. */
export function checkPhone(phone: string, field: string): FieldError[] {
  const parsed = parsePhoneNumberFromString(phone);
  return !parsed || !parsed.isValid() || parsed.number !== phone
    ? [{ field, code: 'invalid_format', message: 'must be a valid phone number in E.164 format, e.g. +33612345678' }]
    : [];
}

/**
 * A control or invisible character (a line break, a tab, a direction mark, a zero-width space, a
 * variation selector, a Hangul filler: platform/hidden-characters.ts): no address line, make or model
 * holds one — every document, letter and export that prints it would break on it, or read another
 * text. The zero-width non-joiner and joiner are allowed between two letters of a script that writes
 * them (Persian and Indic addresses do), not elsewhere.
 * Checked on the value as stored, trimmed: a line break sent last is trimmed away, not refused.
 */
export const hasHiddenCharacter = (text: string): boolean => hiddenIn(text.trim(), { joiners: true });

/**
 * The names given (a change may give one, or none) that break the person-name rule
 * (platform/person-name.ts: blank, a control or invisible character, no letter): `at` + `/firstName`,
 * `/lastName`; one error a name.
 */
export function checkNames(
  names: { firstName?: string | undefined; lastName?: string | undefined },
  at: string,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const f of ['firstName', 'lastName'] as const) {
    const name = names[f];
    const error = name === undefined ? undefined : personNameError(name, `${at}/${f}`);
    if (error) errors.push(error);
  }
  return errors;
}

const ADULT_AGE = 18;
const MAX_AGE = 120;

/** A birth date in the past, of a policyholder 18 or older and younger than 120 on the effective date. */
export function checkBirthDate(birthDate: string, effectiveDate: string, today: string, field: string): FieldError[] {
  if (birthDate >= today) return [{ field, code: 'out_of_range', message: 'must be in the past' }];
  if (plusYears(birthDate, ADULT_AGE) > effectiveDate)
    return [
      { field, code: 'out_of_range', message: `the policyholder must be ${ADULT_AGE} or older on the effective date` },
    ];
  if (plusYears(birthDate, MAX_AGE) <= effectiveDate)
    return [
      {
        field,
        code: 'out_of_range',
        message: `the policyholder must be younger than ${MAX_AGE} on the effective date`,
      },
    ];
  return [];
}

/**
 * A line and a city that are not blank, no line with a control or invisible character (one error a
 * field), a country that is one; a French postal code of La Poste in France.
 */
export function checkAddress(address: Address, at: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['line1', 'line2', 'city'] as const) {
    const text = address[field];
    if (text === undefined) continue;
    if (field !== 'line2' && !text.trim())
      errors.push({ field: `${at}/${field}`, code: 'required', message: 'must not be blank' });
    else if (hasHiddenCharacter(text)) errors.push(hiddenCharacterError(`${at}/${field}`));
  }
  errors.push(...checkCountry(address.country, `${at}/country`));
  if (address.country === 'FR' && !findZipCode(address.postalCode.trim()))
    errors.push({ field: `${at}/postalCode`, code: 'invalid', message: 'is not a French postal code' });
  return errors;
}

/** An address as stored: trimmed, the postal code in capitals, no blank second line. */
export function trimAddress(a: Address): Address {
  return {
    line1: a.line1.trim(),
    ...(a.line2?.trim() ? { line2: a.line2.trim() } : {}),
    postalCode: a.postalCode.trim().toUpperCase(),
    city: a.city.trim(),
    country: a.country,
  };
}

/** An email as stored: trimmed, in lower case. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();
