import {
  customerWords,
  formatAmount,
  formatDepartureDate,
  formatDuration,
  label,
  plural,
  type CustomerLang,
} from '../../i18n/index.ts';
import type { Insurer } from '../../platform/config.ts';
import { html, type SafeHtml } from '../../platform/html.ts';
import { claimLink, type ClaimEvent } from '../sms/templates.ts';

/**
 * The customer's emails — claim opened, reminder, receipt — in the customer's language (words in
 * src/i18n/customer/): pure functions returning the subject, a plain-text body and an HTML body
 * (every value escaped, inline styles only, no image), each naming the partner's brand and the
 * insurer with its identity, and carrying the same bank-details link as the SMS. Sending is the
 * email channel's (it takes these and queues them).
 */

export interface CustomerEmail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export interface EmailInput {
  readonly language: CustomerLang;
  /** The partner's brand name (partners.brand_name, else its name). */
  readonly brand: string;
  readonly insurer: Insurer;
  /** The customer's first name, for the greeting; null: a greeting without it. */
  readonly firstName: string | null;
  /** IATA flight designator, e.g. "AF1234". */
  readonly flightNumber: string;
  /** Local departure date of the insured leg, YYYY-MM-DD. */
  readonly departureDate: string;
  /** Compensation in minor units (all passengers of the contract). */
  readonly amount: number;
  readonly currency: string;
}

interface LinkInput {
  /** PARASOL_PUBLIC_URL, without trailing slash. */
  readonly publicUrl: string;
  /** The bank-details token the SMS carries too. */
  readonly token: string;
  /** When the link stops taking bank details (claims.bank_details_due_at). */
  readonly dueAt: Date;
}

export interface ClaimOpenedEmailInput extends EmailInput, LinkInput {
  readonly event: ClaimEvent;
  readonly passengers: number;
}

export interface ReminderEmailInput extends EmailInput, LinkInput {
  /** The instant the reminder is written (how many days are left). */
  readonly now: Date;
}

export interface ReceiptEmailInput extends EmailInput {
  /** The last four characters of the IBAN paid into. */
  readonly ibanLast4: string;
}

export function renderClaimOpenedEmail(input: ClaimOpenedEmailInput): CustomerEmail {
  const w = customerWords(input.language);
  const f = facts(input);
  const what =
    input.event.kind === 'delayed'
      ? w.flightEvent.delayed(formatDuration(input.language, input.event.arrivalDelayMinutes))
      : w.flightEvent[input.event.kind];
  const paragraphs = w.email.opened.body({
    ...f,
    what,
    passengers: plural(input.language, input.passengers, w.passengers),
    due: lastDay(input.dueAt, input.language),
  });
  const link = claimLink(input.publicUrl, input.token);
  return compose(input, w.email.opened.subject(f), paragraphs, { href: link, label: w.email.opened.action });
}

export function renderReminderEmail(input: ReminderEmailInput): CustomerEmail {
  const w = customerWords(input.language);
  const f = facts(input);
  const daysLeft = Math.max(1, Math.floor((input.dueAt.getTime() - input.now.getTime()) / 86_400_000));
  const paragraphs = w.email.reminder.body({
    ...f,
    due: lastDay(input.dueAt, input.language),
    daysLeft: plural(input.language, daysLeft, w.days),
  });
  const link = claimLink(input.publicUrl, input.token);
  return compose(input, w.email.reminder.subject(f), paragraphs, { href: link, label: w.email.reminder.action });
}

export function renderReceiptEmail(input: ReceiptEmailInput): CustomerEmail {
  const w = customerWords(input.language);
  const f = facts(input);
  return compose(input, w.email.paid.subject(f), w.email.paid.body({ ...f, last4: input.ibanLast4 }), null);
}

function facts(input: EmailInput) {
  return {
    brand: oneLine(input.brand),
    flight: input.flightNumber.replace(/\s+/g, '').toUpperCase(),
    date: formatDepartureDate(input.departureDate, input.language),
    amount: formatAmount(input.amount, input.currency, input.language),
  };
}

/** The last whole day the link works: the due instant's UTC date minus one day, as in the reminder SMS. */
function lastDay(dueAt: Date, language: CustomerLang): string {
  return formatDepartureDate(new Date(dueAt.getTime() - 86_400_000).toISOString().slice(0, 10), language);
}

/** One line (a header cannot break): runs of white space made one space — but the no-break spaces French typography puts before ":" (U+00A0, U+202F). */
const oneLine = (text: string) => text.replace(/(?:(?![\u00a0\u202f])\s)+/g, ' ').trim();

function compose(
  input: EmailInput,
  subject: string,
  paragraphs: string[],
  action: { href: string; label: string } | null,
): CustomerEmail {
  const lang = input.language;
  const w = customerWords(lang);
  const brand = oneLine(input.brand);
  const i = input.insurer;
  const greeting = w.email.greeting(input.firstName ? oneLine(input.firstName) : null);
  const cover = w.cover(brand, i.legalName);
  const identity = [
    `${label(lang, w.footer.insurer)} ${i.legalName}, ${i.address}.`,
    `${label(lang, w.footer.registration)} ${i.registration}. ${label(lang, w.footer.regulator)} ${i.regulator}.`,
    `${label(lang, w.footer.contact)} ${i.email}, ${i.phone}. ${label(lang, w.footer.privacyNotice)} ${i.privacyEmail}.`,
  ];
  const legalLinks = action ? { legal: `${action.href}/legal`, privacy: `${action.href}/privacy` } : null;

  const text = [
    greeting,
    '',
    ...paragraphs.flatMap((p) => [p, '']),
    ...(action ? [`${label(lang, action.label)} ${action.href}`, ''] : []),
    w.email.closing,
    cover,
    '',
    '--',
    w.email.why(brand),
    ...identity,
    ...(legalLinks
      ? [
          `${label(lang, w.footer.legalNotice)} ${legalLinks.legal}`,
          `${label(lang, w.footer.privacyNotice)} ${legalLinks.privacy}`,
        ]
      : []),
  ].join('\n');

  const p = (content: string | SafeHtml) => html`<p style="margin:0 0 16px">${content}</p>`;
  const body = html`<!doctype html>
<html lang="${input.language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${subject}</title></head>
<body style="margin:0;padding:0;background:#f6f7f9">
<div style="max-width:560px;margin:0 auto;padding:24px;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#1a1a1a;background:#ffffff">
<p style="margin:0 0 16px;font-size:14px;color:#4b5563">${cover}</p>
${p(greeting)}
${paragraphs.map((text) => p(text))}
${
  action
    ? html`<p style="margin:24px 0"><a href="${action.href}" style="display:inline-block;padding:12px 20px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:bold">${action.label}</a></p>
<p style="margin:0 0 16px;font-size:14px;color:#4b5563">${w.email.linkText}<br><a href="${action.href}" style="color:#1d4ed8;word-break:break-all">${action.href}</a></p>`
    : ''
}
${p(html`${w.email.closing}<br>${cover}`)}
<hr style="border:0;border-top:1px solid #e5e7eb;margin:24px 0">
<div style="font-size:12px;color:#4b5563">
<p style="margin:0 0 8px">${w.email.why(brand)}</p>
${identity.map((line) => html`<p style="margin:0 0 8px">${line}</p>`)}
${legalLinks ? html`<p style="margin:0"><a href="${legalLinks.legal}" style="color:#1d4ed8">${w.footer.legalNotice}</a> · <a href="${legalLinks.privacy}" style="color:#1d4ed8">${w.footer.privacyNotice}</a></p>` : ''}
</div>
</div>
</body>
</html>`;
  return { subject: oneLine(subject), text, html: body.value };
}
