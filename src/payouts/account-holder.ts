import { toSepaText } from './sepa-text.ts';

/**
 * The account holder's name as the customer types it on the bank-details page, checked before it is
 * stored and, later, written into a payment file (pain.001 `Nm`, NACHA's 22-character name): 2 to 70
 * characters (`holder_required`); letters (any alphabet, with their accents), spaces, and the signs
 * names use — hyphen, apostrophe (' or ’), full stop, comma — and nothing else (`holder_characters`):
 * no markup (`<b>`, `<script>`), no control or invisible formatting characters (tab, line break,
 * U+0007, U+202E…), no digits nor other signs; at least one letter (`holder_needs_letters`: a name of
 * digits or signs only, worded apart on the page — "a name needs letters"); and at least two Latin
 * letters once transliterated as SEPA writes names (`holder_not_latin`: Cyrillic, Greek, CJK… would
 * leave nothing of it in the file).
 *
 * The name kept is trimmed, its runs of spaces (any Unicode space separator) made one space.
 */

export type AccountHolderIssueCode =
  'holder_required' | 'holder_characters' | 'holder_needs_letters' | 'holder_not_latin';

export type AccountHolderCheck = { ok: true; name: string } | { ok: false; code: AccountHolderIssueCode };

/** Letters (with combining accents), space separators and - ' ’ . , (the page's message lists them): nothing else. */
const HOLDER_CHARACTERS = /^[\p{L}\p{M}\p{Zs}\-'’.,]*$/u;

export function checkAccountHolder(text: string): AccountHolderCheck {
  const name = (text ?? '').trim().replace(/\p{Zs}+/gu, ' ');
  if (name.length < 2 || name.length > 70) return { ok: false, code: 'holder_required' };
  // no letter at all (digits, signs): say that a name needs letters, whatever else it holds
  if (!/\p{L}/u.test(name)) return { ok: false, code: 'holder_needs_letters' };
  if (!HOLDER_CHARACTERS.test(name)) return { ok: false, code: 'holder_characters' };
  // SEPA transfers carry names in the Latin character set: a name with nothing left after
  // transliteration (Cyrillic, Greek, CJK…) would be refused by the bank file, so it is asked again here.
  if (toSepaText(name).replace(/[^A-Za-z]/g, '').length < 2) return { ok: false, code: 'holder_not_latin' };
  return { ok: true, name };
}
