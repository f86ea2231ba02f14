import { customerWords, formatAmount, formatDelay, formatDepartureDate, type CustomerLang } from '../../i18n/index.ts';
import { gsm7Spelling, isGsm7, smsLength, type SmsEncoding } from './segments.ts';

export { formatAmount, formatDelay, formatDepartureDate };

/**
 * The claim SMS, in the customer's language (one of seven; words in src/i18n/customer/). It names the
 * partner's brand and the insurer, the flight and its date, the event, the amount and the link to the
 * bank-details page. Wording uses only GSM-7 characters (é è à ù ä ö ü ñ are in GSM 03.38; ê ç ô û
 * î œ á í ó ú ã õ are not and are avoided), so a message stays GSM-7 and within two segments with a
 * public URL up to about 80 characters — see docs/sms.md for measured counts.
 */

export type Language = CustomerLang;

export type ClaimEvent =
  | { readonly kind: 'delayed'; readonly arrivalDelayMinutes: number }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'diverted' };

export interface ClaimSmsInput {
  readonly language: Language;
  /** The partner's brand name (partners.brand_name, else its name). */
  readonly brand: string;
  /** The insurer's short name (config.insurer.shortName). */
  readonly insurer: string;
  /** IATA flight designator, e.g. "AF1234". */
  readonly flightNumber: string;
  /** Local departure date of the insured leg, YYYY-MM-DD. */
  readonly departureDate: string;
  readonly event: ClaimEvent;
  /** Compensation in minor units (all passengers of the contract). */
  readonly amount: number;
  readonly currency: string;
  /** PARASOL_PUBLIC_URL (config.publicUrl), without trailing slash. */
  readonly publicUrl: string;
  /** The bank-details token (≥ 128 random bits, base64url). */
  readonly token: string;
}

export interface ClaimSms {
  readonly body: string;
  readonly link: string;
  readonly encoding: SmsEncoding;
  readonly segments: number;
  /** Septets (GSM-7) or UTF-16 units (UCS-2). */
  readonly units: number;
}

export function renderClaimSms(input: ClaimSmsInput): ClaimSms {
  const link = claimLink(input.publicUrl, input.token);
  const flight = input.flightNumber.replace(/\s+/g, '').toUpperCase();
  const date = formatDepartureDate(input.departureDate, input.language);
  const amount = smsAmount(input.amount, input.currency, input.language);
  const body = customerWords(input.language).sms.claim({
    ...names(input),
    flight,
    date,
    what: eventText(input.event, input.language),
    amount,
    link,
  });
  const length = smsLength(body);
  return { body, link, encoding: length.encoding, segments: length.segments, units: length.units };
}

export type PaymentFailedSmsInput = Omit<ClaimSmsInput, 'event'>;

/** After a rejected payment: the customer is asked for new bank details through a new link. */
export function renderPaymentFailedSms(input: PaymentFailedSmsInput): ClaimSms {
  const link = claimLink(input.publicUrl, input.token);
  const flight = input.flightNumber.replace(/\s+/g, '').toUpperCase();
  const date = formatDepartureDate(input.departureDate, input.language);
  const amount = smsAmount(input.amount, input.currency, input.language);
  const body = customerWords(input.language).sms.paymentFailed({ ...names(input), flight, date, amount, link });
  const length = smsLength(body);
  return { body, link, encoding: length.encoding, segments: length.segments, units: length.units };
}

export interface ReminderSmsInput extends PaymentFailedSmsInput {
  /** When the claim expires without bank details (claims.bank_details_due_at). */
  readonly dueAt: Date;
}

/**
 * A few days before the claim expires: the compensation still waits for bank details, through a new
 * link, until the last whole day before the due instant (its UTC date minus one day, so the customer
 * never reads a day on which the link already expired).
 */
export function renderReminderSms(input: ReminderSmsInput): ClaimSms {
  const link = claimLink(input.publicUrl, input.token);
  const flight = input.flightNumber.replace(/\s+/g, '').toUpperCase();
  const date = formatDepartureDate(input.departureDate, input.language);
  const amount = smsAmount(input.amount, input.currency, input.language);
  const lastDay = new Date(input.dueAt.getTime() - 86_400_000).toISOString().slice(0, 10);
  const due = formatDepartureDate(lastDay, input.language);
  const body = customerWords(input.language).sms.reminder({ ...names(input), flight, date, amount, due, link });
  const length = smsLength(body);
  return { body, link, encoding: length.encoding, segments: length.segments, units: length.units };
}

export interface PaidSmsInput extends Omit<PaymentFailedSmsInput, 'publicUrl' | 'token'> {
  /** The last four characters of the IBAN paid into. */
  readonly ibanLast4: string;
}

/** The receipt: the compensation is paid into the account ending …; no link. */
export function renderPaidSms(input: PaidSmsInput): Omit<ClaimSms, 'link'> & { readonly link: null } {
  const flight = input.flightNumber.replace(/\s+/g, '').toUpperCase();
  const date = formatDepartureDate(input.departureDate, input.language);
  const amount = smsAmount(input.amount, input.currency, input.language);
  const body = customerWords(input.language).sms.paid({
    ...names(input),
    flight,
    date,
    amount,
    last4: input.ibanLast4,
  });
  const length = smsLength(body);
  return { body, link: null, encoding: length.encoding, segments: length.segments, units: length.units };
}

export type VoidedSmsInput = Omit<PaidSmsInput, 'ibanLast4' | 'amount' | 'currency'>;

/** The claim desk voided the claim: withdrawn by the insurer, not paid; no link, never the desk's reason. */
export function renderVoidedSms(input: VoidedSmsInput): Omit<ClaimSms, 'link'> & { readonly link: null } {
  const flight = input.flightNumber.replace(/\s+/g, '').toUpperCase();
  const date = formatDepartureDate(input.departureDate, input.language);
  const body = customerWords(input.language).sms.voided({ ...names(input), flight, date });
  const length = smsLength(body);
  return { body, link: null, encoding: length.encoding, segments: length.segments, units: length.units };
}

export type ExpiredSmsInput = Omit<PaidSmsInput, 'ibanLast4'>;

/** The claim expired without bank details (its due date passed): not paid, the seller to ask; no link. */
export function renderExpiredSms(input: ExpiredSmsInput): Omit<ClaimSms, 'link'> & { readonly link: null } {
  const flight = input.flightNumber.replace(/\s+/g, '').toUpperCase();
  const date = formatDepartureDate(input.departureDate, input.language);
  const amount = smsAmount(input.amount, input.currency, input.language);
  const body = customerWords(input.language).sms.expired({ ...names(input), flight, date, amount });
  const length = smsLength(body);
  return { body, link: null, encoding: length.encoding, segments: length.segments, units: length.units };
}

/** What happened to the flight, in the words the customer's page uses too. */
function eventText(event: ClaimEvent, language: Language): string {
  const words = customerWords(language).flightEvent;
  return event.kind === 'delayed' ? words.delayed(formatDelay(event.arrivalDelayMinutes)) : words[event.kind];
}

/** The brand and insurer, without characters that would break the message (a newline, a tab). */
/** The brand and the insurer as the SMS spells them: spaces collapsed, in GSM-7 letters where they have one. */
function names(input: { brand: string; insurer: string }) {
  const spelled = (name: string) => gsm7Spelling(name.replace(/\s+/g, ' ').trim());
  return { brand: spelled(input.brand), insurer: spelled(input.insurer) };
}

/**
 * The amount as an SMS writes it: with the currency's symbol when GSM-7 has it (€ £ $ ¥, and the
 * letters of "CHF", "kr"…), else with its ISO code ("INR 50.00", "50,00 TRY"): one ₹ would make the
 * whole message UCS-2, 67 characters a segment instead of 153 (a linked message 4 segments instead of 2).
 * Emails and the customer's page keep the symbol.
 */
export function smsAmount(minor: number, currency: string, language: Language): string {
  const symbol = formatAmount(minor, currency, language);
  return isGsm7(symbol) ? symbol : formatAmount(minor, currency, language, 'code');
}

export function claimLink(publicUrl: string, token: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new RangeError('token must be base64url');
  return `${publicUrl.replace(/\/+$/, '')}/c/${token}`;
}
