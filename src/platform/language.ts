/** The languages of the portal and the consoles (words in src/i18n/en.ts, fr.ts). */
export const LANGUAGES = ['en', 'fr'] as const;
export type Lang = (typeof LANGUAGES)[number];

/**
 * The languages a customer is served in: SMS, emails, the bank-details page and its legal pages
 * (one message file each in src/i18n/customer/). The API validates the customer's language against it.
 */
export const CUSTOMER_LANGUAGES = ['fr', 'en', 'de', 'es', 'it', 'nl', 'pt'] as const;
export type CustomerLang = (typeof CUSTOMER_LANGUAGES)[number];

/** The locale each language formats dates, numbers and amounts in (Intl). */
export const LOCALES: Record<CustomerLang, string> = {
  en: 'en-GB',
  fr: 'fr-FR',
  de: 'de-DE',
  es: 'es-ES',
  it: 'it-IT',
  nl: 'nl-NL',
  pt: 'pt-PT',
};

export function isCustomerLang(value: string): value is CustomerLang {
  return (CUSTOMER_LANGUAGES as readonly string[]).includes(value);
}
