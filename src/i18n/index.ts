import Negotiator from 'negotiator';
import { en } from './en.ts';
import { fr } from './fr.ts';
import type { Words } from './words.ts';
import { CUSTOMER_LANGUAGES, LANGUAGES, type CustomerLang, type Lang } from '../platform/language.ts';

/**
 * The words of the portal and the consoles (French and English), one file per language, each checked
 * against `Words` (words.ts). Pages pick `t(lang)`. What customers read (SMS, emails, the bank-details
 * page, seven languages) is in customer/.
 */

export type { Words } from './words.ts';

export { LANGUAGES, type Lang };

export const WORDS: Record<Lang, Words> = { en, fr };
export const t = (lang: Lang): Words => WORDS[lang];

/** The language of a request: the `psl_lang` cookie, else Accept-Language, else English. */
export function languageOf(cookie: string | undefined, acceptLanguage: string | undefined): Lang {
  if (cookie === 'fr' || cookie === 'en') return cookie;
  return (preferred(acceptLanguage, LANGUAGES) as Lang | undefined) ?? 'en';
}

/**
 * The customer language a browser asks for (Accept-Language, RFC 9110 §12.5.4: weights, "de-CH"
 * matching "de"), or undefined when it sends none or none of ours. For the pages that know no
 * customer yet (an unknown link).
 */
export function customerLanguageOf(acceptLanguage: string | undefined): CustomerLang | undefined {
  return preferred(acceptLanguage, CUSTOMER_LANGUAGES) as CustomerLang | undefined;
}

/** The best of `available` for an Accept-Language header (negotiator, as Express and Koa use it). */
function preferred(acceptLanguage: string | undefined, available: readonly string[]): string | undefined {
  if (!acceptLanguage?.trim()) return undefined; // no header means any language: not a preference
  // our languages are primary tags ("de"): "de-DE" is asked as "de", so that at equal weight the order
  // decides (negotiator ranks an exact match above a prefix one: "de-DE, en" would be English)
  const primary = acceptLanguage
    .split(',')
    .map((range) => range.replace(/^\s*([A-Za-z]{1,8})-[^;]*/, '$1'))
    .join(',');
  return new Negotiator({ headers: { 'accept-language': primary } }).language([...available]);
}

export {
  CUSTOMER_LANGUAGES,
  CUSTOMER_WORDS,
  countryName,
  customerWords,
  formatAmount,
  formatDateTime,
  formatDelay,
  formatDepartureDate,
  formatDuration,
  isCustomerLang,
  label,
  plural,
  type CustomerLang,
  type CustomerWords,
  type IssueFacts,
  type LegalFacts,
  type Plural,
  type Section,
} from './customer/index.ts';
