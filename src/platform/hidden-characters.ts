import type { FieldError } from './errors.ts';

/**
 * Control characters (Cc), and the invisible ones that reorder or hide text: every format character
 * (Cf: bidirectional marks, embeddings, overrides and isolates; zero-width spaces and joiners; soft
 * hyphen; tag characters; the BOM), line and paragraph separators (U+2028, U+2029), the combining
 * grapheme joiner (U+034F) and the Hangul fillers that render blank (U+115F, U+1160, U+3164, U+FFA0;
 * U+3164 even counts as a letter). A text people read — a brand name in every SMS, a policyholder's
 * name on every document — holding one reads as another text ("Sky\u202Eylf") or breaks the line
 * that prints it. The rule of partners' brand name and of the policy-admin API's names, address lines and
 * a vehicle's make and model (the bank-details page's account holder has a stricter rule of its own,
 * payouts/account-holder.ts; a Flight Delay customer's name is only checked not blank).
 */
// the combining grapheme joiner outside the class: a combining mark inside one reads as joined to the character before it
const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029\u115f\u1160\u3164\uffa0]|\u034f/u;

/**
 * The same, but the zero-width non-joiner and joiner (U+200C, U+200D), which Persian and the Indic
 * scripts write inside words (they choose a letter's joined or separate form): a person's name or an
 * address in those scripts holds them.
 */
const HIDDEN_BUT_JOINERS = /(?!\u200c|\u200d)[\p{Cc}\p{Cf}\u2028\u2029\u115f\u1160\u3164\uffa0]|\u034f/u;

/** Whether a text holds a control or invisible character; `joiners`: U+200C and U+200D are allowed. */
export const hasHiddenCharacter = (text: string, options: { joiners?: boolean } = {}): boolean =>
  (options.joiners ? HIDDEN_BUT_JOINERS : HIDDEN).test(text);

/** The field error of the rule, the same code and message wherever it applies. */
export const hiddenCharacterError = (field: string): FieldError => ({
  field,
  code: 'invalid_format',
  message: 'must not contain a control or invisible character (a line break, a tab, a direction mark)',
});
