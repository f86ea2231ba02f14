/** The languages customers and partner users are served in (SMS, claim page, portal and consoles). */
export const LANGUAGES = ['en', 'fr'] as const;
export type Lang = (typeof LANGUAGES)[number];

/** The locale each language formats dates and amounts in. */
export const LOCALES: Record<Lang, string> = { en: 'en-GB', fr: 'fr-FR' };
