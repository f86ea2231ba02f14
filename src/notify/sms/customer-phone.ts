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

export function isLandline(phone: string): boolean {
  return notSmsType(phone) === 'FIXED_LINE';
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

/** 422 `phone_not_mobile` naming the field. */
export function phoneNotMobile(error: FieldError): DomainError {
  return new DomainError('phone_not_mobile', 'The phone number cannot receive an SMS: the claim SMS cannot reach it.', {
    errors: [error],
  });
}
