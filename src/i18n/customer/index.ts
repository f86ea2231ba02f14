import { LOCALES, type CustomerLang, type Lang } from '../../platform/language.ts';
import { formatMoney } from '../../platform/money.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { it } from './it.ts';
import { nl } from './nl.ts';
import { pt } from './pt.ts';
import type { CustomerWords, Plural } from './words.ts';

/**
 * The customer's words in seven languages (one file each, `satisfies CustomerWords`) and the Intl
 * formatting they are given: counts through Intl.PluralRules, numbers and amounts through
 * Intl.NumberFormat, dates through Intl.DateTimeFormat, all in the customer's locale (LOCALES).
 */

export type { CustomerWords, IssueFacts, LegalFacts, Plural, Section } from './words.ts';
export { CUSTOMER_LANGUAGES, isCustomerLang, type CustomerLang } from '../../platform/language.ts';

export const CUSTOMER_WORDS: Record<CustomerLang, CustomerWords> = { fr, en, de, es, it, nl, pt };
export const customerWords = (lang: CustomerLang): CustomerWords => CUSTOMER_WORDS[lang];

const pluralRules = new Map<CustomerLang, Intl.PluralRules>();

/** `plural('en', 2, { one: '# passenger', other: '# passengers' })` → "2 passengers" (the CLDR category of the count). */
export function plural(lang: CustomerLang, count: number, forms: Plural): string {
  let rules = pluralRules.get(lang);
  if (!rules) pluralRules.set(lang, (rules = new Intl.PluralRules(LOCALES[lang])));
  const category = rules.select(count);
  const form = (category === 'other' ? undefined : forms[category]) ?? forms.other;
  return form.replace('#', new Intl.NumberFormat(LOCALES[lang]).format(count));
}

/** 195 → "3 hours 15 minutes", 60 → "1 hour", 1 → "1 minute" (in words, for the page and the emails). */
export function formatDuration(lang: CustomerLang, minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 0)
    throw new RangeError(`a duration must be a whole number of minutes, got ${minutes}`);
  const w = CUSTOMER_WORDS[lang];
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return plural(lang, rest, w.minutes);
  const h = plural(lang, hours, w.hours);
  return rest === 0 ? h : `${h} ${plural(lang, rest, w.minutes)}`;
}

/** 195 → "3 h 15 min", 180 → "3 h", 45 → "45 min": the short form an SMS uses, the same in every language. */
export function formatDelay(minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 0)
    throw new RangeError(`delay must be a whole number of minutes, got ${minutes}`);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/**
 * `formatMoney` for a text message: 5000 EUR → "€50.00" (en) / "50,00 €" (fr, de…). The no-break spaces
 * some locales put in amounts (U+00A0, U+202F) are not GSM-7 and become plain spaces. With `display:
 * 'code'` the currency is its ISO code ("INR 50.00"), as an SMS writes a symbol GSM-7 lacks.
 */
export function formatAmount(
  minor: number,
  currency: string,
  lang: CustomerLang,
  display: 'symbol' | 'code' = 'symbol',
): string {
  return formatMoney(minor, currency, lang, display).replace(/[\u00A0\u202F\u2009]/g, ' ');
}

/**
 * "2025-03-12" → "12 Mar 2025" (en) / "12/03/2025" (fr, es, it, pt) / "12.03.2025" (de) / "12-03-2025" (nl):
 * digits elsewhere than English, as month abbreviations such as "août" or "mär" are not all GSM-7.
 */
export function formatDepartureDate(date: string, lang: CustomerLang): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new RangeError(`departure date must be YYYY-MM-DD, got "${date}"`);
  const instant = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Intl.DateTimeFormat(LOCALES[lang], { ...dateParts(lang), timeZone: 'UTC' }).format(instant);
}

/** The date as `formatDepartureDate` writes it in this language: one date format per page. */
const dateParts = (lang: CustomerLang): Intl.DateTimeFormatOptions =>
  lang === 'en'
    ? { day: 'numeric', month: 'short', year: 'numeric' }
    : { day: '2-digit', month: '2-digit', year: 'numeric' };

/**
 * An instant in a time zone, its date written as `formatDepartureDate` writes dates in this language:
 * "24 Dec 2026, 08:30" (en) / "24/12/2026 08:30" (fr) / "24.12.2026, 08:30" (de)…
 */
export function formatDateTime(instant: Date, lang: CustomerLang, timeZone: string): string {
  return new Intl.DateTimeFormat(LOCALES[lang], {
    ...dateParts(lang),
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
  }).format(instant);
}

const regionNames = new Map<CustomerLang, Intl.DisplayNames>();

/** "FR" → "France" (en, fr), "Frankreich" (de)…: a country's name in the customer's language; the code itself when Intl knows none. */
export function countryName(lang: CustomerLang, code: string): string {
  let names = regionNames.get(lang);
  if (!names)
    regionNames.set(lang, (names = new Intl.DisplayNames(LOCALES[lang], { type: 'region', fallback: 'code' })));
  try {
    return names.of(code) ?? code;
  } catch {
    return code; // not a well-formed region code
  }
}

/**
 * A label followed by its colon, as the language writes it — the customers' seven languages and the
 * pages' two: "Insurer:" in English, "Assureur :" in French, whose typography puts a narrow no-break space (U+202F) before ":" (and before ";", "?",
 * "!"), so that the sign never starts a line.
 */
export function label(lang: CustomerLang | Lang, text: string): string {
  return lang === 'fr' ? `${text}\u202f:` : `${text}:`;
}
