import {
  bicNeededForCurrency,
  usAccountOffered,
  type BankDetailsIssue,
  type ClaimForCustomer,
} from '../payouts/index.ts';
import { html, type SafeHtml } from '../platform/html.ts';
import type { Insurer } from '../platform/config.ts';
import { asset, errorSummary, fieldError } from './layout.ts';
import {
  countryName,
  customerWords,
  formatAmount,
  formatDateTime,
  formatDepartureDate,
  formatDuration,
  label,
  plural,
  type CustomerLang,
  type LegalFacts,
} from '../i18n/index.ts';
import { findAirport } from '../reference/index.ts';

/** What the customer pages say of the insurer (config.insurer) and the link's lifetime (config.bankDetailsDays). */
export interface PageLegal {
  readonly insurer: Insurer;
  readonly bankDetailsDays: number;
}

/**
 * An instant at an airport, in its local time ("24 Dec 2026, 14:05" in English, "24/12/2026 14:05" in
 * French: its date as the page's other dates), or in UTC when the airport is unknown.
 */
function localTime(iso: string, airport: string, language: Language): string {
  const zone = findAirport(airport)?.timeZone;
  const text = formatDateTime(new Date(iso), language, zone ?? 'UTC');
  return zone ? `${text} (${airport})` : `${text} UTC`;
}

/** Why the customer is paid: the flight facts the claim was decided on, and the rule of the insurance. */
function why(c: ClaimForCustomer, language: Language): SafeHtml {
  const w = words(language);
  const e = c.evidence;
  const rule =
    e.rule.trigger === 'delay_tier' && e.rule.minDelayMinutes !== null
      ? w.rule(formatDuration(language, e.rule.minDelayMinutes))
      : e.rule.trigger === 'cancellation'
        ? w.ruleCancellation
        : e.rule.trigger === 'diversion'
          ? w.ruleDiversion
          : '';
  return html`<section id="why"><h2>${w.why}</h2><dl>
<dt>${w.route}</dt><dd>${c.flightNumber} ${c.departureAirport} → ${c.arrivalAirport}, ${formatDepartureDate(c.departureDate, language)}</dd>
${e.scheduledArrival ? html`<dt>${w.scheduledArrival}</dt><dd id="scheduled-arrival">${localTime(e.scheduledArrival, c.arrivalAirport, language)}</dd>` : ''}
${e.actualArrival ? html`<dt>${w.actualArrival}</dt><dd id="actual-arrival">${localTime(e.actualArrival, c.arrivalAirport, language)}</dd>` : ''}
${e.delayMinutes !== null ? html`<dt>${w.delay}</dt><dd id="delay">${formatDuration(language, e.delayMinutes)}</dd>` : ''}
</dl><p>${rule}</p><p class="muted">${w.source(e.provider)}</p></section>`;
}

/** Where the claim stands once the link has done its work: never a dead end. */
function status(c: ClaimForCustomer, language: Language): SafeHtml {
  const w = words(language);
  const text =
    c.status === 'paid'
      ? // an instant, told as the page's other instants: in the arrival airport's time, which it names
        w.statusPaid(c.paidAt ? localTime(c.paidAt.toISOString(), c.arrivalAirport, language) : '')
      : c.status === 'payment_pending'
        ? w.statusPending(c.ibanLast4)
        : c.status === 'expired'
          ? w.statusExpired
          : c.status === 'voided'
            ? w.statusVoided
            : c.status === 'failed'
              ? w.rejected(c.ibanLast4)
              : w.statusOpened;
  return html`<section id="status"><h2>${w.statusTitle}</h2><p id="claim-status" data-status="${c.status}">${text}</p></section>`;
}

/**
 * The customer's bank-details page, in the customer's language (one of seven, words in
 * i18n/customer/), mobile first, no script needed; its footer names the insurer and links to the
 * legal notice and the privacy notice, served in the same language.
 */

type Language = CustomerLang;

const words = (language: Language) => customerWords(language).page;

/** ISO 3166 codes left to users (AA, QM-QZ, XA-XZ, ZZ): no country, whatever Intl calls them ("Unknown Region"). */
const USER_ASSIGNED = /^(?:AA|Q[M-Z]|X[A-Z]|ZZ)$/;

/** The country's name in the customer's language, or '' when the code names no country (XX, ZZ, 12…). */
function nameOfCountry(language: Language, code: string): string {
  if (!/^[A-Z]{2}$/.test(code) || USER_ASSIGNED.test(code)) return '';
  const name = countryName(language, code);
  return name === code ? '' : name;
}

/**
 * A refused detail's message, in the customer's language: most are one sentence; an IBAN of the wrong
 * length names its country and the lengths expected and entered, a BIC of the wrong length the length
 * entered, an IBAN of a country without IBANs that country ("Banks of this country (United States, US)
 * do not use IBANs…"; a code naming no country is said to be none).
 */
export function issueText(language: Language, issue: BankDetailsIssue): string {
  const message = words(language).errors[issue.code];
  if (typeof message === 'string') return message;
  const country = issue.facts?.country ?? '';
  return message({
    country,
    countryName: nameOfCountry(language, country),
    expected: issue.facts?.expected ?? 0,
    entered: issue.facts?.entered ?? 0,
  });
}

function intro(c: ClaimForCustomer, language: Language): SafeHtml {
  return words(language).intro(
    html`<strong>${c.flightNumber}</strong>`,
    formatDepartureDate(c.departureDate, language),
    eventText(c, language),
  );
}

function eventText(c: ClaimForCustomer, language: Language): string {
  const w = customerWords(language).flightEvent;
  if (c.event === 'delayed') return w.delayed(formatDuration(language, c.delayMinutes ?? 0));
  return c.event === 'cancelled' ? w.cancelled : w.diverted;
}

/** The facts the legal texts name. */
export function legalFacts(language: Language, brand: string, legal: PageLegal): LegalFacts {
  const i = legal.insurer;
  return {
    brand,
    insurer: i.legalName,
    address: i.address,
    registration: i.registration,
    regulator: i.regulator,
    email: i.email,
    phone: i.phone,
    privacyEmail: i.privacyEmail,
    bankDetailsDays: plural(language, legal.bankDetailsDays, customerWords(language).days),
  };
}

/** The brand line at the top and the insurer's identity, contact and legal links at the bottom. */
interface Frame {
  brand: string;
  legal: PageLegal;
  /** The page's own link (`/c/<token>`), from which the legal pages hang; null on the unknown-link page. */
  base: string | null;
}

function footer(language: Language, frame: Frame): SafeHtml {
  const w = customerWords(language).footer;
  const i = frame.legal.insurer;
  return html`<footer id="legal-footer" lang="${language}">
<p>${customerWords(language).cover(frame.brand, i.legalName)}</p>
<p>${label(language, w.insurer)} ${i.legalName}, ${i.address}. ${label(language, w.registration)} ${i.registration}. ${label(language, w.regulator)} ${i.regulator}.</p>
<p>${label(language, w.contact)} <a href="mailto:${i.email}">${i.email}</a>, <a href="tel:${i.phone.replace(/[^+0-9]/g, '')}">${i.phone}</a></p>
${frame.base ? html`<p><a id="legal-link" href="${frame.base}/legal">${w.legalNotice}</a> · <a id="privacy-link" href="${frame.base}/privacy">${w.privacyNotice}</a></p>` : ''}
</footer>`;
}

function layout(language: Language, title: string, body: SafeHtml, frame?: Frame): string {
  return html`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} — ${frame ? frame.brand : 'Parasol'}</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; padding: 1rem; color: #1a1a1a; background: #f6f7f9; line-height: 1.5; }
  main { max-width: 32rem; margin: 0 auto; background: #fff; border-radius: .5rem; padding: 1.25rem; }
  h1 { font-size: 1.4rem; margin-top: 0; }
  .amount { font-size: 1.8rem; font-weight: 700; margin: .25rem 0 1rem; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input, select { width: 100%; box-sizing: border-box; font-size: 1.1rem; padding: .6rem; border: 1px solid #6b7280; border-radius: .4rem; }
  input[aria-invalid="true"], select[aria-invalid="true"] { border: 2px solid #b42318; }
  .error { color: #b42318; margin: .25rem 0 0; }
  #error-summary { border: 2px solid #b42318; border-radius: .4rem; padding: .5rem .75rem; margin: 0 0 1rem; }
  #error-summary h2 { margin: 0 0 .25rem; color: #b42318; }
  #error-summary ul { margin: 0; padding-left: 1.25rem; }
  #error-summary a { color: #b42318; }
  h2 { font-size: 1.1rem; margin: 1.25rem 0 .5rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem .75rem; margin: 0; }
  dt { font-weight: 600; } dd { margin: 0; }
  .muted { color: #4b5563; font-size: .9rem; }
  button { margin-top: 1.25rem; width: 100%; font-size: 1.1rem; padding: .8rem; border: 0; border-radius: .4rem; background: #1d4ed8; color: #fff; }
  button:focus, input:focus, select:focus { outline: 3px solid #93c5fd; }
  .brand { font-size: .9rem; color: #4b5563; margin: 0 0 .75rem; }
  footer { max-width: 32rem; margin: 1rem auto 0; color: #4b5563; font-size: .85rem; overflow-wrap: anywhere; }
  footer p { margin: .25rem 0; }
  a { color: #1d4ed8; }
</style>
</head>
<body><main>${frame ? html`<p class="brand" id="brand">${customerWords(language).cover(frame.brand, frame.legal.insurer.legalName)}</p>` : ''}${body}</main>${frame ? footer(language, frame) : ''}</body>
</html>`.value;
}

export interface FormState {
  values: {
    /** Which form was sent: `us` (a US account, a claim in USD) or `iban` (the default). */
    accountKind?: 'iban' | 'us';
    accountHolder: string;
    iban: string;
    bic: string;
    routingNumber?: string;
    accountNumber?: string;
    accountType?: string;
  };
  issues: BankDetailsIssue[];
}

const EMPTY_FORM: FormState['values'] = {
  accountKind: 'iban',
  accountHolder: '',
  iban: '',
  bic: '',
  routingNumber: '',
  accountNumber: '',
  accountType: '',
};

const frameOf = (claim: ClaimForCustomer, legal: PageLegal, token: string): Frame => ({
  brand: claim.brand,
  legal,
  base: `/c/${token}`,
});

function amountFor(claim: ClaimForCustomer): SafeHtml {
  const w = words(claim.language);
  return html`<p class="amount">${formatAmount(claim.amount, claim.currency, claim.language)}</p>
<p class="muted" id="passengers">${w.forPassengers(plural(claim.language, claim.passengers, customerWords(claim.language).passengers))}</p>`;
}

/**
 * The bank-details form: an IBAN (and BIC); for a claim paid in USD, a US account (holder, routing
 * number, account number, checking or savings), with a link to the IBAN form for a customer whose
 * account is abroad (`ibanAsked`: `?account=iban`) and back. After a refused post, the form sent.
 */
export function claimPage(
  claim: ClaimForCustomer,
  legal: PageLegal,
  token: string,
  form?: FormState,
  ibanAsked = false,
): string {
  const w = words(claim.language);
  const offered = usAccountOffered(claim.currency);
  const kind = offered && (form ? form.values.accountKind === 'us' : !ibanAsked) ? 'us' : 'iban';
  const values = form?.values ?? EMPTY_FORM;
  const issues = form?.issues ?? [];
  // a claim paid in another currency than EUR is a cross-border transfer: the BIC is required, whatever
  // the IBAN (payouts' checkSepaAccount); in EUR only for an IBAN outside the EEA, which the label says
  const bicRequired = bicNeededForCurrency(claim.currency);
  const field = (
    name: 'accountHolder' | 'iban' | 'bic' | 'routingNumber' | 'accountNumber',
    label: string,
    autocomplete: string,
    code = false,
    required = true,
  ) => {
    const issue = issues.find((i) => i.field === name);
    const id = `f-${name}`;
    const error = fieldError(id, issue && issueText(claim.language, issue));
    // codes (IBAN, BIC, account number): a phone shows its letters keyboard in capitals, without
    // corrections; a routing number its digits keyboard
    const typing =
      name === 'routingNumber'
        ? html`inputmode="numeric" autocorrect="off" spellcheck="false" maxlength="14"`
        : code
          ? html`inputmode="text" autocapitalize="characters" autocorrect="off" spellcheck="false" maxlength="${name === 'iban' ? 42 : name === 'accountNumber' ? 24 : 14}"`
          : '';
    return html`<label for="${id}">${label}</label>
<input id="${id}" name="${name}" value="${values[name] ?? ''}" autocomplete="${autocomplete}" ${typing} ${required ? html`aria-required="true"` : ''}${error.attributes}>
${error.message}`;
  };
  const typeIssue = issues.find((i) => i.field === 'accountType');
  const typeError = fieldError('f-accountType', typeIssue && issueText(claim.language, typeIssue));
  const accountType = html`<label for="f-accountType">${w.accountType}</label>
<select id="f-accountType" name="accountType" aria-required="true"${typeError.attributes}>
<option value="" ${values.accountType === 'checking' || values.accountType === 'savings' ? '' : html`selected`}>${w.chooseAccountType}</option>
${(['checking', 'savings'] as const).map((t) => html`<option value="${t}" ${values.accountType === t ? html`selected` : ''}>${w[t]}</option>`)}
</select>
${typeError.message}`;
  const accountFields =
    kind === 'us'
      ? html`<input type="hidden" name="accountKind" value="us">
${field('accountHolder', w.holder, 'name')}
${field('routingNumber', w.routingNumber, 'off')}
${field('accountNumber', w.accountNumber, 'off', true)}
${accountType}`
      : html`<input type="hidden" name="accountKind" value="iban">
${field('accountHolder', w.holder, 'name')}
${field('iban', w.iban, 'off', true)}
${bicRequired ? field('bic', w.bicRequired(claim.currency), 'off', true) : field('bic', w.bic, 'off', true, false)}`;
  const otherForm = !offered
    ? ''
    : kind === 'us'
      ? html`<p class="muted"><a id="use-iban" href="/c/${token}?account=iban">${w.useIban}</a></p>`
      : html`<p class="muted"><a id="use-us" href="/c/${token}">${w.useUs}</a></p>`;
  // refused details: said at the top (on a phone the fields are below the fold), in the title, and the
  // focus there (`autofocus`, no script), each message a link to its field
  const summary = errorSummary(
    w.invalid,
    issues.map((i) => ({ field: `f-${i.field}`, text: issueText(claim.language, i) })),
  );
  return layout(
    claim.language,
    issues.length ? `${w.invalid} — ${w.title}` : w.title,
    html`${summary}<h1>${w.title}</h1>
<p>${intro(claim, claim.language)}</p>
<p>${w.amount}</p>
${amountFor(claim)}
${claim.status === 'failed' ? html`<p class="error" role="alert">${w.rejected(claim.ibanLast4)}</p>` : ''}
${why(claim, claim.language)}
<p>${w.ask}</p>
<form method="post" novalidate>
${accountFields}
<button type="submit">${w.submit}</button>
</form>
${otherForm}
<script src="${asset('iban.js')}" defer></script>`,
    frameOf(claim, legal, token),
  );
}

export function thanksPage(claim: ClaimForCustomer, legal: PageLegal, token: string, last4: string): string {
  const w = words(claim.language);
  return layout(
    claim.language,
    w.title,
    html`<h1>${w.title}</h1>${amountFor(claim)}<p>${w.thanks(last4)}</p>
${why(claim, claim.language)}`,
    frameOf(claim, legal, token),
  );
}

/**
 * A link that can take no more bank details (used, expired, or the claim settled) shows where the
 * claim stands and why it is paid, rather than a dead end: the customer keeps the SMS and comes back.
 * A used link whose claim waits for new details sends the customer to the newest message
 * (`newestMessage`), never to the newer link itself. A claim the insurer voided shows that it is
 * withdrawn, and neither an amount nor why it would be paid. A link a newer one replaced shows none of
 * the claim's details (`replacedPage`).
 */
export function closedPage(claim: ClaimForCustomer, legal: PageLegal, token: string): string {
  if (claim.replaced) return replacedPage(claim, legal, token);
  const w = words(claim.language);
  const newest = claim.newestMessage ? html`<p id="newest-message" role="alert">${w.newestMessage}</p>` : '';
  return layout(
    claim.language,
    w.title,
    claim.status === 'voided'
      ? html`<h1>${w.title}</h1>
${status(claim, claim.language)}`
      : html`<h1>${w.title}</h1>${newest}${amountFor(claim)}
${status(claim, claim.language)}
${why(claim, claim.language)}`,
    frameOf(claim, legal, token),
  );
}

/**
 * A link a newer one replaced (a reminder, a resend, a rejected payment's): a resend may mean it went to
 * a wrong number, so its page shows none of the claim's details — no amount, flight, passengers nor
 * account digits — only where the claim stands in one neutral line, and, while the claim waits for
 * details, that the newest message holds the link to use (never that link).
 */
function replacedPage(claim: ClaimForCustomer, legal: PageLegal, token: string): string {
  const w = words(claim.language);
  const line =
    claim.status === 'paid'
      ? w.replacedPaid
      : claim.status === 'payment_pending'
        ? w.replacedPending
        : claim.status === 'expired'
          ? w.statusExpired
          : claim.status === 'voided'
            ? w.statusVoided
            : null;
  return layout(
    claim.language,
    w.title,
    html`<h1>${w.title}</h1>
${line ? html`<p id="claim-status" data-status="${claim.status}">${line}</p>` : ''}
${claim.newestMessage ? html`<p id="newest-message" role="alert">${w.newestMessage}</p>` : ''}`,
    frameOf(claim, legal, token),
  );
}

/** The legal notice or the privacy notice, in the customer's language, under the claim's link (its brand). */
export function legalPage(kind: 'legal' | 'privacy', claim: ClaimForCustomer, legal: PageLegal, token: string): string {
  const language = claim.language;
  const w = customerWords(language);
  const facts = legalFacts(language, claim.brand, legal);
  const title = kind === 'legal' ? w.footer.legalNotice : w.footer.privacyNotice;
  const sections = kind === 'legal' ? w.legalNotice(facts) : w.privacyNotice(facts);
  return layout(
    language,
    title,
    html`<h1>${title}</h1>
${sections.map((section) => html`<section><h2>${section.heading}</h2>${section.paragraphs.map((p) => html`<p>${p}</p>`)}</section>`)}
<p><a href="/c/${token}">${w.footer.back}</a></p>`,
    frameOf(claim, legal, token),
  );
}

/**
 * An unknown link: we do not know whose it is, so the page speaks the browser's language when it is one
 * of the customers' (Accept-Language), else French and English.
 */
export function unknownPage(language: CustomerLang | undefined): string {
  if (language) {
    const w = words(language);
    return layout(language, w.unknownTitle, html`<h1>${w.unknownTitle}</h1><p>${w.unknown}</p>`);
  }
  return layout(
    'fr',
    `${words('fr').unknownTitle} / ${words('en').unknownTitle}`,
    html`<h1>${words('fr').unknownTitle}</h1><p>${words('fr').unknown}</p><h1 lang="en">${words('en').unknownTitle}</h1><p lang="en">${words('en').unknown}</p>`,
  );
}
