import type { FieldError } from './errors.ts';

/**
 * The one rule for "text a person typed must not hide characters" — a brand name in every SMS and PDF,
 * a policyholder's or a Flight Delay customer's name on every document, an address line, a vehicle's
 * make and model, the account holder on the bank-details page. Refused: control characters (Cc),
 * every format character (Cf: bidirectional marks, embeddings, overrides and isolates; zero-width
 * spaces and joiners; soft hyphen; tag characters; the BOM), the line and paragraph separators
 * (U+2028, U+2029), and every other Default_Ignorable_Code_Point — the characters Unicode says show
 * nothing: the combining grapheme joiner (U+034F), the variation selectors (U+FE00–FE0F,
 * U+E0100–E01EF), the Hangul fillers that render blank (U+115F, U+1160, U+3164, U+FFA0; U+3164 even
 * counts as a letter), the Mongolian free variation selectors… A text holding one reads as another
 * text ("Sky\u202Eylf") or breaks the line that prints it, and what a customer cannot see is refused
 * rather than guessed about.
 *
 * One option, where the uses really differ — `joiners`: the zero-width non-joiner and joiner (U+200C,
 * U+200D), which Arabic-script languages (Persian, Urdu…), the Indic scripts and Sinhala write inside
 * words (they choose a letter's joined or separate form), are allowed where such a script uses them:
 * between two letters or marks of a script that is not Latin, Greek or Cyrillic (nor a mark of no
 * script of its own, such as a combining acute). At the start or the end of a text, beside a space, a
 * digit or another joiner, or inside a Latin name ("Jo\u200dhn") one shows nothing and is refused. A
 * person's name or an address in those scripts holds them. A brand name does not take them (nor any
 * variation selector: "SkyFly ✈️" with the emoji's VS16 is refused, "SkyFly ✈" without it is taken —
 * an SMS or a PDF font may show the one as the other), and neither does the bank-details page's
 * account holder (the name goes into a Latin-only payment file).
 */
// the combining grapheme joiner (U+034F), the variation selectors and the Hangul fillers are Default_Ignorable_Code_Point
const HIDDEN = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029]/u;
const HIDDEN_BUT_JOINERS = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029]/u;
const JOINER = /[\u200c\u200d]/u;
const LETTER_OR_MARK = /^[\p{L}\p{M}]$/u;
// scripts that write no joiner; scx=Zinh: a mark of no script of its own (U+0301), unlike an Arabic vowel sign
const NO_JOINER_SCRIPT = /[\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}\p{sc=Common}\p{scx=Zinh}]/u;

/** Whether a character (a code point) is a letter or mark of a script that writes joiners. */
const joinsAround = (c: string | undefined): boolean =>
  c !== undefined && LETTER_OR_MARK.test(c) && !NO_JOINER_SCRIPT.test(c);

/** Whether every U+200C and U+200D of a text stands between two letters or marks of a script that uses them. */
const joinersInWords = (text: string): boolean => {
  if (!JOINER.test(text)) return true;
  const chars = Array.from(text);
  return chars.every((c, i) => !JOINER.test(c) || (joinsAround(chars[i - 1]) && joinsAround(chars[i + 1])));
};

export interface HiddenCharacterOptions {
  /** U+200C and U+200D are allowed inside words of the scripts that use them (names and addresses in Persian, Hindi…). */
  joiners?: boolean;
}

/** Whether a text holds a control or invisible character (see above); `joiners`: U+200C and U+200D allowed inside words of the scripts that use them. */
export const hasHiddenCharacter = (text: string, options: HiddenCharacterOptions = {}): boolean =>
  options.joiners ? HIDDEN_BUT_JOINERS.test(text) || !joinersInWords(text) : HIDDEN.test(text);

/** The field error of the rule, the same code and message wherever it applies. */
export const hiddenCharacterError = (field: string): FieldError => ({
  field,
  code: 'invalid_format',
  message: 'must not contain a control or invisible character (a line break, a tab, a direction mark)',
});
