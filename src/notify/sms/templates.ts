import { LOCALES, type Lang } from '../../platform/language.ts';
import { formatMoney } from '../../platform/money.ts';
import { t } from '../../i18n/index.ts';
import { smsLength, type SmsEncoding } from './segments.ts';

/**
 * The claim SMS, in the customer's language (words in src/i18n/). It names the flight and its date, the event, the
 * amount and the link to the bank-details page. Wording uses only GSM-7 characters (é è à ù are in
 * GSM 03.38; ê ç ô û î œ are not and are avoided), so a message stays GSM-7 and within two segments
 * with a public URL up to about 80 characters — see docs/sms.md for measured counts.
 */

export type Language = Lang;

export type ClaimEvent =
  | { readonly kind: 'delayed'; readonly arrivalDelayMinutes: number }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'diverted' };

export interface ClaimSmsInput {
  readonly language: Language;
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
  const amount = formatAmount(input.amount, input.currency, input.language);
  const body = t(input.language).sms.claim({
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
  const amount = formatAmount(input.amount, input.currency, input.language);
  const body = t(input.language).sms.paymentFailed({ flight, date, amount, link });
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
  const amount = formatAmount(input.amount, input.currency, input.language);
  const lastDay = new Date(input.dueAt.getTime() - 86_400_000).toISOString().slice(0, 10);
  const due = formatDepartureDate(lastDay, input.language);
  const body = t(input.language).sms.reminder({ flight, date, amount, due, link });
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
  const amount = formatAmount(input.amount, input.currency, input.language);
  const body = t(input.language).sms.paid({ flight, date, amount, last4: input.ibanLast4 });
  const length = smsLength(body);
  return { body, link: null, encoding: length.encoding, segments: length.segments, units: length.units };
}

/** What happened to the flight, in the words the customer's page uses too. */
function eventText(event: ClaimEvent, language: Language): string {
  const words = t(language).flightEvent;
  return event.kind === 'delayed' ? words.delayed(formatDelay(event.arrivalDelayMinutes)) : words[event.kind];
}

export function claimLink(publicUrl: string, token: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new RangeError('token must be base64url');
  return `${publicUrl.replace(/\/+$/, '')}/c/${token}`;
}

/** 195 → "3 h 15 min", 180 → "3 h", 45 → "45 min" (the same in French and English). */
export function formatDelay(minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 0)
    throw new RangeError(`delay must be a whole number of minutes, got ${minutes}`);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/**
 * `formatMoney` for a text message: 5000 EUR → "€50.00" (en) / "50,00 €" (fr). The no-break spaces
 * French formatting uses (U+00A0, U+202F) are not GSM-7 and become plain spaces.
 */
export function formatAmount(minor: number, currency: string, language: Language): string {
  return formatMoney(minor, currency, language).replace(/[\u00A0\u202F\u2009]/g, ' ');
}

/** "2025-03-12" → "12 Mar 2025" (en) / "12/03/2025" (fr; French month abbreviations such as "août" are not GSM-7). */
export function formatDepartureDate(date: string, language: Language): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new RangeError(`departure date must be YYYY-MM-DD, got "${date}"`);
  const instant = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  const options: Intl.DateTimeFormatOptions =
    language === 'fr'
      ? { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' }
      : { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' };
  return new Intl.DateTimeFormat(LOCALES[language], options).format(instant);
}
