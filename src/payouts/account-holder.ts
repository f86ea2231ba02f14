import { hasHiddenCharacter } from '../platform/hidden-characters.ts';
import { personNameIssue, type PersonNameIssue } from '../platform/person-name.ts';
import { toSepaText } from './sepa-text.ts';

/**
 * The account holder's name as the customer types it on the bank-details page, checked before it is
 * stored and, later, written into a payment file (pain.001 `Nm`, NACHA's 22-character name): 2 to 70
 * characters (`holder_required`, counted once the name is in NFC); letters (any alphabet, an accent
 * or other combining mark only right after a letter), spaces, and the signs names use — hyphen,
 * apostrophe (' and the ways keyboards type it: ’ ‘ ʼ ´ `, all kept as '), full stop, comma,
 * ampersand ("Jean & Marie Dupont": SEPA writes it +, NACHA keeps it), slash ("Dupont/Martin"),
 * parentheses ("Anne-Marie (Dupont)") — and nothing else (`holder_characters`): no markup (< > "),
 * no control or invisible characters (tab, line break, U+0007, U+202E, U+034F, variation selectors,
 * the Hangul filler U+3164: the rule of every typed text, platform/hidden-characters.ts, here without
 * the joiners a Persian name may hold: this name goes into a Latin-only file), no digits nor other signs
 * (; : ? ! @…); at least one letter (`holder_needs_letters`: a name of
 * digits or signs only, worded apart on the page — "a name needs letters"); and at least two Latin
 * letters once transliterated as SEPA writes names (`holder_not_latin`: Cyrillic, Greek, CJK… would
 * leave nothing of it in the file).
 *
 * Beyond the person-name rule every typed name follows (platform/person-name.ts: not blank, nothing
 * hidden, a letter), the rest is this page's own: the payment files' length, characters and alphabet.
 *
 * The name kept is in NFC, trimmed, its runs of spaces (any Unicode space separator) made one space
 * and its apostrophes written '.
 */

export type AccountHolderIssueCode =
  'holder_required' | 'holder_characters' | 'holder_needs_letters' | 'holder_not_latin';

export type AccountHolderCheck = { ok: true; name: string } | { ok: false; code: AccountHolderIssueCode };

/** Letters (each with its combining marks), space separators and - ' . , & / ( ) (the page's message lists them): nothing else. */
const HOLDER_CHARACTERS = /^(?:\p{L}\p{M}*|[\p{Zs}\-'.,&/()])*$/u;
/** The apostrophe as keyboards type it (’ on most phones, ‘ at a word's start on iPhones, ʼ, ´, `): kept as '. */
const APOSTROPHES = /[’‘ʼ´`]/g;

const PERSON_NAME_ISSUES: Readonly<Record<PersonNameIssue, AccountHolderIssueCode>> = {
  blank: 'holder_required',
  hidden: 'holder_characters',
  no_letter: 'holder_needs_letters',
};

export function checkAccountHolder(text: string): AccountHolderCheck {
  const name = (text ?? '')
    .normalize('NFC')
    .trim()
    .replace(/\p{Zs}+/gu, ' ')
    .replace(APOSTROPHES, "'");
  if (name.length < 2 || name.length > 70) return { ok: false, code: 'holder_required' };
  // no letter at all (digits, signs, a tab, invisible characters only): say that a name needs letters,
  // whatever else it holds — the page's most useful words for "1\t2" or "12 34", as before the shared rule
  if (!/\p{L}/u.test(name)) return { ok: false, code: 'holder_needs_letters' };
  // then the person-name rule (nothing hidden); the zero-width joiners it lets through in a Persian or
  // Indic name are refused here too: the name goes into a Latin-only file
  if (hasHiddenCharacter(name)) return { ok: false, code: 'holder_characters' };
  const issue = personNameIssue(name);
  if (issue) return { ok: false, code: PERSON_NAME_ISSUES[issue] };
  if (!HOLDER_CHARACTERS.test(name)) return { ok: false, code: 'holder_characters' };
  // SEPA transfers carry names in the Latin character set: a name with nothing left after
  // transliteration (Cyrillic, Greek, CJK…) would be refused by the bank file, so it is asked again here.
  if (toSepaText(name).replace(/[^A-Za-z]/g, '').length < 2) return { ok: false, code: 'holder_not_latin' };
  return { ok: true, name };
}
