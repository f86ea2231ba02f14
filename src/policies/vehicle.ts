import type { FieldError } from '../platform/errors.ts';

/** A motor policy's vehicle (the schema's MotorRisk), as far as the rules below read it. */
export interface MotorRisk {
  vehicleRegistration?: string | undefined;
  vin?: string | undefined;
  make: string;
  model: string;
  firstRegistrationDate?: string | undefined;
}

/**
 * A registration plate: capitals and digits in groups a single space or dash apart, as plates are
 * written (AB-123-CD, AB 123 CD, AB123CD). No separator first, last or doubled: a plate sent as
 * "AB-123-CD " or "A--------" would be stored as no plate reads.
 */
export const PLATE_PATTERN = '^[A-Z0-9]+(?:[ -][A-Z0-9]+)*$';

/** A French plate of the SIV (since 2009): AA-123-AA, written with dashes, spaces or none. */
const FRENCH_SIV = /^[A-Z]{2}[ -]?[0-9]{3}[ -]?[A-Z]{2}$/;

/**
 * Whether two plates are the same one. A space and a dash are the same separator, but where the
 * groups split is part of the plate: the German M-AB 123 (Munich) is not MA-B 123 (Mannheim). Only
 * two French SIV plates are compared without their separators (AB-123-CD, AB 123 CD and AB123CD are
 * one plate: its groups are fixed by its form).
 */
export function samePlate(a: string, b: string): boolean {
  if (FRENCH_SIV.test(a) && FRENCH_SIV.test(b)) return a.replace(/[ -]/g, '') === b.replace(/[ -]/g, '');
  return a.replace(/-/g, ' ') === b.replace(/-/g, ' ');
}

/** No vehicle was registered before this day. */
const FIRST_REGISTRATION_MIN = '1900-01-01';

/**
 * A vehicle is identified by its registration, or — a new vehicle insured before it is registered —
 * by its VIN alone: then it has no first registration date yet. A registered vehicle has its first
 * registration date, not in the future and not before 1900. A VIN given is checked either way.
 */
export function checkVehicle(vehicle: MotorRisk, today: string, at: string): FieldError[] {
  const errors: FieldError[] = [];
  if (vehicle.vin !== undefined) errors.push(...checkVin(vehicle.vin, `${at}/vin`));
  if (vehicle.vehicleRegistration === undefined) {
    if (vehicle.vin === undefined)
      errors.push({
        field: `${at}/vehicleRegistration`,
        code: 'required',
        message: 'is required, or the vin of a vehicle not registered yet',
      });
    if (vehicle.firstRegistrationDate !== undefined)
      errors.push({
        field: `${at}/firstRegistrationDate`,
        code: 'not_allowed',
        message: 'only applies to a registered vehicle (with vehicleRegistration)',
      });
    return errors;
  }
  errors.push(...checkFirstRegistration(vehicle.firstRegistrationDate, today, `${at}/firstRegistrationDate`));
  return errors;
}

/** A registered vehicle's first registration date: given, not in the future, not before 1900. */
export function checkFirstRegistration(date: string | undefined, today: string, field: string): FieldError[] {
  if (date === undefined) return [{ field, code: 'required', message: 'is required with vehicleRegistration' }];
  if (date > today) return [{ field, code: 'out_of_range', message: 'must not be in the future' }];
  if (date < FIRST_REGISTRATION_MIN)
    return [{ field, code: 'out_of_range', message: `must be on or after ${FIRST_REGISTRATION_MIN}` }];
  return [];
}

/**
 * A vehicle's identification number (VIN, ISO 3779): 17 characters, digits and capitals without I, O
 * and Q. Its 9th character is a check digit where the VIN's region requires one — North America
 * (a first character 1 to 5, FMVSS 115) and China (L, GB 16735) — and is checked there; elsewhere
 * (a European VIN, W…, V…, Z…) position 9 is the maker's and only the format is checked.
 */
export const VIN_PATTERN = '^[A-HJ-NPR-Z0-9]{17}$';

/** The value of each letter a VIN may hold (ISO 3779 transliteration), in the order of LETTERS. */
const LETTERS = 'ABCDEFGHJKLMNPRSTUVWXYZ';
const LETTER_VALUES = '12345678123457923456789';
const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

/** The check digit a VIN's other characters call for: 0-9, or X for 10. */
export function vinCheckDigit(vin: string): string {
  const sum = [...vin].reduce(
    (total, c, i) => total + Number(/[0-9]/.test(c) ? c : LETTER_VALUES[LETTERS.indexOf(c)]) * WEIGHTS[i]!,
    0,
  );
  const remainder = sum % 11;
  return remainder === 10 ? 'X' : String(remainder);
}

/** Whether the VIN's region requires its 9th character to be the check digit. */
export const vinHasCheckDigit = (vin: string): boolean => /^[1-5L]/.test(vin);

/** A VIN of the right format (the schema's pattern), and with its check digit where required. */
export function checkVin(vin: string, field: string): FieldError[] {
  if (!new RegExp(VIN_PATTERN).test(vin))
    return [{ field, code: 'invalid_format', message: 'must be 17 digits and capitals, without I, O or Q' }];
  if (vinHasCheckDigit(vin) && vin[8] !== vinCheckDigit(vin))
    return [{ field, code: 'invalid', message: 'has a wrong check digit (its 9th character)' }];
  return [];
}
