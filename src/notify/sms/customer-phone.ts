import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { parsePhoneNumberFromString as parseWithTypes } from 'libphonenumber-js/max';
import { DomainError, type FieldError } from '../../platform/errors.ts';

/**
 * A customer's phone receives the claim SMS: a number libphonenumber's full metadata (`/max`: the
 * number types; the default build has none) gives a type that cannot is refused — `FIXED_LINE` (a
 * landline, Twilio 21614 at the first claim, the customer never texted), `TOLL_FREE`, `PREMIUM_RATE`,
 * `SHARED_COST`, `UAN` (a company's universal access number), `PAGER`, `VOICEMAIL` — at subscription,
 * at a contact change (only a new number: a contract keeps the one it has) and at the claim desk's
 * phone correction: `phone_not_mobile`, 422. Not refused: `MOBILE`, `FIXED_LINE_OR_MOBILE` (the plans
 * that do not tell them apart: the United States, Canada…), `PERSONAL_NUMBER`, `VOIP`, or a type the
 * metadata does not know — a number that may receive an SMS is given its chance.
 */
export const NOT_SMS_TYPES: ReadonlySet<string> = new Set([
  'FIXED_LINE',
  'TOLL_FREE',
  'PREMIUM_RATE',
  'SHARED_COST',
  'UAN',
  'PAGER',
  'VOICEMAIL',
]);

/** The number's type when it cannot receive an SMS (`FIXED_LINE`…), else undefined. */
export function notSmsType(phone: string): string | undefined {
  const type = parseWithTypes(phone)?.getType();
  return type && NOT_SMS_TYPES.has(type) ? type : undefined;
}

export const LANDLINE_MESSAGE =
  'is a landline (fixed-line number): the claim SMS cannot reach it; give a mobile phone number, e.g. +33612345678';

const NOT_MOBILE_MESSAGE =
  'cannot receive an SMS (a toll-free, premium-rate, shared-cost, pager, voicemail or company number): the claim SMS cannot reach it; give a mobile phone number, e.g. +33612345678';

/** The field error of a number the SMS cannot reach (a landline…), or none. */
export function landlineError(phone: string, field: string): FieldError | undefined {
  const type = notSmsType(phone);
  if (!type) return undefined;
  return { field, code: 'not_allowed', message: type === 'FIXED_LINE' ? LANDLINE_MESSAGE : NOT_MOBILE_MESSAGE };
}

/**
 * What is wrong with a customer's phone, the one rule of subscription, contact change and the claim desk:
 * not a valid number written in E.164 (`invalid_format`: "+33612345678", the metadata's length and
 * prefixes), or a valid one the SMS cannot reach (`not_allowed`: `landlineError`), or nothing.
 * `customerPhoneRefusal` turns it into the error to throw.
 */
export function customerPhoneError(phone: string, field: string): FieldError | undefined {
  // validity on the default metadata, as before the rule was shared; the types need `/max`
  const parsed = parsePhoneNumberFromString(phone);
  if (!parsed || !parsed.isValid() || parsed.number !== phone)
    return {
      field,
      code: 'invalid_format',
      message: 'must be a valid phone number in E.164 format, e.g. +33612345678',
    };
  return landlineError(phone, field);
}

/** The error of `customerPhoneError`'s refusal: 422 `phone_not_mobile` (not_allowed) or `validation_failed`. */
export function customerPhoneRefusal(error: FieldError): DomainError {
  return error.code === 'not_allowed'
    ? phoneNotMobile(error)
    : new DomainError('validation_failed', 'The phone number is not valid.', { errors: [error] });
}

/** 422 `phone_not_mobile` naming the field. */
export function phoneNotMobile(error: FieldError): DomainError {
  return new DomainError('phone_not_mobile', 'The phone number cannot receive an SMS: the claim SMS cannot reach it.', {
    errors: [error],
  });
}
