import type { FieldError } from './errors.ts';
import { hasHiddenCharacter, hiddenCharacterError } from './hidden-characters.ts';

/**
 * The rule of a person's name as a partner or a customer types it — a policyholder's first and last
 * name (policy-admin API), a Flight Delay customer's (/subscribe), and, under its stricter rule of its
 * own, the account holder on the bank-details page (payouts/account-holder.ts): not blank, no control
 * or invisible character (hidden-characters.ts; the zero-width non-joiner and joiner allowed between
 * two letters of a script that writes them, as Persian and Indic names do), and a letter of any script (a name of "-", "." or a zero-width joiner alone
 * names nobody). Checked on the name trimmed, as it is stored: a line break sent last ("Jean\n") is
 * trimmed away, not refused.
 */
export type PersonNameIssue = 'blank' | 'hidden' | 'no_letter';

/** A letter of any script. */
const LETTER = /\p{L}/u;

/** What is wrong with the name, the first rule it breaks; undefined when it is a name. */
export function personNameIssue(name: string): PersonNameIssue | undefined {
  const trimmed = name.trim();
  if (!trimmed) return 'blank';
  if (hasHiddenCharacter(trimmed, { joiners: true })) return 'hidden';
  if (!LETTER.test(trimmed)) return 'no_letter';
  return undefined;
}

/** The field error of the rule (`required`, `invalid_format`, `invalid`), the same wherever a name is typed. */
export function personNameError(name: string, field: string): FieldError | undefined {
  switch (personNameIssue(name)) {
    case 'blank':
      return { field, code: 'required', message: 'must not be blank' };
    case 'hidden':
      return hiddenCharacterError(field);
    case 'no_letter':
      return { field, code: 'invalid', message: 'must contain a letter' };
    default:
      return undefined;
  }
}

/** The rule as the OpenAPI descriptions say it (policy-admin and Flight Delay names alike). */
export const PERSON_NAME_DESCRIPTION =
  'Holds a letter (else invalid), and no control or invisible character (a line break, a tab, a direction mark, a zero-width space, a variation selector, a Hangul filler: invalid_format); the zero-width non-joiner and joiner (U+200C, U+200D) are allowed between two letters or marks of a script that writes them (Persian, Indic, Sinhala names), never at an end nor in a Latin, Greek or Cyrillic word. Blank: required. Checked and stored trimmed.';
