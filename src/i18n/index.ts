import { en } from './en.ts';
import { fr } from './fr.ts';
import type { Words } from './words.ts';
import { LANGUAGES, type Lang } from '../platform/language.ts';

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
  const first = (acceptLanguage ?? '').split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('fr') ? 'fr' : 'en';
}

export {
  CUSTOMER_LANGUAGES,
  CUSTOMER_WORDS,
  customerWords,
  formatAmount,
  formatDelay,
  formatDepartureDate,
  formatDuration,
  isCustomerLang,
  plural,
  type CustomerLang,
  type CustomerWords,
  type LegalFacts,
  type Plural,
  type Section,
} from './customer/index.ts';
