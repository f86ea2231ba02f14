import { parsePhoneNumberFromString as parseWithTypes } from 'libphonenumber-js/max';
import { DomainError, type FieldError } from '../platform/errors.ts';

/**
 * A customer's phone receives the claim SMS: a number libphonenumber's full metadata (`/max`: the
 * number types; the default build has none) calls `FIXED_LINE` cannot — a landline, Twilio 21614 at
 * the first claim, the customer never texted. Refused at subscription and at a contact change
 * (`phone_not_mobile`, 422). Not refused: `MOBILE`, and `FIXED_LINE_OR_MOBILE` (the plans that do not
 * tell them apart: the United States, Canada…), `PERSONAL_NUMBER`, `VOIP`, or a type the metadata does
 * not know — a number that may receive an SMS is given its chance. Contracts made before keep theirs.
 */
export function isLandline(phone: string): boolean {
  return parseWithTypes(phone)?.getType() === 'FIXED_LINE';
}

export const LANDLINE_MESSAGE =
  'is a landline (fixed-line number): the claim SMS cannot reach it; give a mobile phone number, e.g. +33612345678';

/** The field error of a landline, or none. */
export function landlineError(phone: string, field: string): FieldError | undefined {
  return isLandline(phone) ? { field, code: 'not_allowed', message: LANDLINE_MESSAGE } : undefined;
}

/** 422 `phone_not_mobile` naming the field. */
export function phoneNotMobile(error: FieldError): DomainError {
  return new DomainError('phone_not_mobile', 'The phone number is a landline: the claim SMS cannot reach it.', {
    errors: [error],
  });
}
