import type { SafeHtml } from '../../platform/html.ts';

/**
 * Every text a customer reads — the SMS, the emails, the bank-details page and its legal pages —
 * one file per language (en.ts, fr.ts, de.ts, es.ts, it.ts, nl.ts, pt.ts), each `satisfies
 * CustomerWords`, so a missing key fails the type-check. Numbers, amounts and dates are formatted by
 * Intl in the customer's locale before they reach these functions (customer/format.ts); a word that
 * depends on a count is a `Plural`, chosen by Intl.PluralRules.
 *
 * SMS bodies use GSM-7 characters only where the language allows (docs/sms.md): a message outside
 * GSM-7 travels as UCS-2, at less than half the characters per segment.
 */

/** The forms of a counted word by CLDR plural category; `#` is the number, formatted. `other` is the fallback. */
export type Plural = { readonly other: string } & Partial<Record<Exclude<Intl.LDMLPluralRule, 'other'>, string>>;

/** Facts every legal text names. */
export interface LegalFacts {
  brand: string;
  insurer: string;
  address: string;
  registration: string;
  regulator: string;
  email: string;
  phone: string;
  privacyEmail: string;
  /** Days a customer has to give bank details (PARASOL_BANK_DETAILS_DAYS). */
  bankDetailsDays: string;
}

export interface Section {
  heading: string;
  paragraphs: string[];
}

export interface CustomerWords {
  /** The name of the language in itself, for the legal pages' language links. */
  languageName: string;
  /** "SkyFly flight delay cover, insured by Parasol Assurances". */
  cover: (brand: string, insurer: string) => string;
  flightEvent: { delayed: (delay: string) => string; cancelled: string; diverted: string };
  hours: Plural;
  minutes: Plural;
  passengers: Plural;
  days: Plural;
  sms: {
    claim: (s: {
      brand: string;
      insurer: string;
      flight: string;
      date: string;
      what: string;
      amount: string;
      link: string;
    }) => string;
    paymentFailed: (s: {
      brand: string;
      insurer: string;
      flight: string;
      date: string;
      amount: string;
      link: string;
    }) => string;
    reminder: (s: {
      brand: string;
      insurer: string;
      flight: string;
      date: string;
      amount: string;
      due: string;
      link: string;
    }) => string;
    paid: (s: {
      brand: string;
      insurer: string;
      flight: string;
      date: string;
      amount: string;
      last4: string;
    }) => string; /** The claim desk voided the claim: withdrawn, not paid; never the desk's reason. */
    voided: (s: { brand: string; insurer: string; flight: string; date: string }) => string;
    /** The claim expired without bank details: not paid; whom to ask (the seller). */
    expired: (s: { brand: string; insurer: string; flight: string; date: string; amount: string }) => string;
  };
  email: {
    greeting: (firstName: string | null) => string;
    /** Under the button: the same link written out. */
    linkText: string;
    closing: string;
    /** Why this email: the customer bought the cover with the flight. */
    why: (brand: string) => string;
    opened: {
      subject: (s: { brand: string; flight: string }) => string;
      body: (s: {
        flight: string;
        date: string;
        what: string;
        amount: string;
        passengers: string;
        due: string;
      }) => string[];
      action: string;
    };
    reminder: {
      subject: (s: { brand: string; flight: string }) => string;
      body: (s: { flight: string; date: string; amount: string; due: string; daysLeft: string }) => string[];
      action: string;
    };
    paid: {
      subject: (s: { brand: string; flight: string }) => string;
      body: (s: { flight: string; date: string; amount: string; last4: string }) => string[];
    };
  };
  /** The bank-details page behind the SMS link (web/claim-page.ts). */
  page: {
    title: string;
    intro: (flight: SafeHtml, date: string, what: string) => SafeHtml;
    amount: string;
    forPassengers: (passengers: string) => string;
    ask: string;
    holder: string;
    iban: string;
    /** The BIC field when the BIC is needed only for an IBAN outside the EEA (a claim paid in EUR). */
    bic: string;
    /** The BIC field when the claim is paid in another currency than EUR: required whatever the IBAN. */
    bicRequired: (currency: string) => string;
    /** The US account's fields (a claim paid in USD: payouts' `usAccountOffered`). */
    routingNumber: string;
    accountNumber: string;
    accountType: string;
    /** The account-type list's first, empty choice: none is sent unless the customer picks one */
    chooseAccountType: string;
    checking: string;
    savings: string;
    /** The US form's link to the IBAN form (a customer whose account is abroad), and back. */
    useIban: string;
    useUs: string;
    /** Above the form and in the title when details were refused (the error summary's heading). */
    invalid: string;
    submit: string;
    thanks: (last4: string) => string;
    rejected: (last4: string | null) => string;
    why: string;
    route: string;
    scheduledArrival: string;
    actualArrival: string;
    delay: string;
    rule: (delay: string) => string;
    ruleCancellation: string;
    ruleDiversion: string;
    source: (provider: string | null) => string;
    statusTitle: string;
    statusPending: (last4: string | null) => string;
    statusPaid: (date: string) => string;
    statusExpired: string;
    /** The claim desk voided the claim (withdrawn by the insurer). */
    statusVoided: string;
    statusOpened: string;
    /** A replaced link's one neutral status line (no amount, date nor account): the claim is paid. */
    replacedPaid: string;
    /** A replaced link's one neutral status line: the claim's payment is on its way. */
    replacedPending: string;
    /** While the claim waits for details, an earlier link (replaced by a newer one, or used): the newest message holds the link to use. */
    newestMessage: string;
    unknownTitle: string;
    unknown: string;
    errors: {
      holder_required: string;
      holder_not_latin: string;
      /** Markup, control characters, digits or other signs: says what a name may hold (payouts' account-holder.ts: letters, spaces, - ' . ,). */
      holder_characters: string;
      /** A name of digits or signs only. */
      holder_needs_letters: string;
      iban_required: string;
      /** Not 2 letters and 2 digits then letters and digits, or characters out of their country's places. */
      iban_invalid: string;
      /** A country without IBANs ("Banks of this country (United States, US) do not use IBANs…"), or no country code at all. */
      iban_unknown_country: (f: IssueFacts) => string;
      /** "An IBAN with country code FR (France) has 27 characters; you entered 26." */
      iban_length: (f: IssueFacts) => string;
      /** The IBAN's own check digits do not match: a typo. */
      iban_mistyped: string;
      iban_check_digits: string;
      iban_not_sepa: string;
      /** A Swiss or Liechtenstein QR-IBAN: it only receives QR-bill payments. */
      iban_qr: string;
      bic_required: string;
      bic_required_for_currency: string;
      /** "A BIC has 8 or 11 characters; you entered 9." */
      bic_length: (f: IssueFacts) => string;
      bic_invalid: string;
      bic_country_mismatch: string;
      routing_required: string;
      routing_invalid: string;
      routing_unknown_prefix: string;
      routing_check_digit: string;
      account_number_required: string;
      account_number_too_long: string;
      account_number_invalid: string;
      account_type_invalid: string;
    };
  };
  /** The footer of the page and the emails: the insurer's identity and contact. */
  footer: {
    insurer: string;
    registration: string;
    regulator: string;
    contact: string;
    legalNotice: string;
    privacyNotice: string;
    back: string;
  };
  legalNotice: (f: LegalFacts) => Section[];
  privacyNotice: (f: LegalFacts) => Section[];
}

/**
 * What an error message of the bank-details page names (payouts' issue facts): the IBAN's country code
 * and its name in the page's language, the length its country sets, the length entered.
 */
export interface IssueFacts {
  country: string;
  countryName: string;
  expected: number;
  entered: number;
}
