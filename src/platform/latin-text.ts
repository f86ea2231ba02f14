import { hasHiddenCharacter } from './hidden-characters.ts';

/**
 * The letters that lose more than an accent when a text is written in the plain Latin set SEPA
 * files guarantee (`toSepaText` below): "Łukasz" → "Lukasz", "Strauß" → "Strauss",
 * "Bjørn" → "Bjorn", "Cæsar" → "Caesar". Here in the shared kernel because two domains need the same
 * spelling: payouts writes the account holder's name with it in pain.001, and `maskNameIn`
 * (personal-text.ts) masks that spelling when a bank quotes the name back.
 */
export const LATIN_TRANSLITERATION: Readonly<Record<string, string>> = Object.freeze({
  ß: 'ss',
  Æ: 'AE',
  æ: 'ae',
  Œ: 'OE',
  œ: 'oe',
  Ø: 'O',
  ø: 'o',
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Þ: 'TH',
  þ: 'th',
  ı: 'i',
});

/**
 * The punctuation a name or a text may carry that plain ASCII spells otherwise: the apostrophe as
 * keyboards type it (’ ‘ ʼ → ') and the dashes (– — → -). Both payment files use it, SEPA
 * (sepa-text.ts) and NACHA (nacha-file.ts), so that "Seán O’Brien" is written SEAN O'BRIEN and not
 * SEAN O BRIEN.
 */
export const LATIN_PUNCTUATION: Readonly<Record<string, string>> = Object.freeze({
  '’': "'",
  '‘': "'",
  ʼ: "'",
  '–': '-',
  '—': '-',
});

/** The text without its accents (NFD marks removed), with `LATIN_TRANSLITERATION` and `LATIN_PUNCTUATION` applied: the name as the payment files write it. */
export function transliterateLatin(text: string): string {
  let out = '';
  for (const c of text.normalize('NFD').replace(/\p{M}/gu, ''))
    out += LATIN_TRANSLITERATION[c] ?? LATIN_PUNCTUATION[c] ?? c;
  return out;
}

const SEPA_CHAR = /[A-Za-z0-9/\-?:().,'+ ]/;

/**
 * The letters (LATIN_TRANSLITERATION, shared with the name masking), the punctuation both payment
 * files spell otherwise (LATIN_PUNCTUATION, shared with NACHA) and SEPA's own (& → +, _ → -).
 */
const SEPA_SPECIAL: Record<string, string> = {
  ...LATIN_TRANSLITERATION,
  ...LATIN_PUNCTUATION,
  '&': '+',
  _: '-',
};

/**
 * A text in the Latin set the EPC rulebook guarantees across banks (a-z A-Z 0-9 / - ? : ( ) . , ' +
 * space), as a pain.001 writes names, remittances and addresses (payouts/sepa-text.ts): accents
 * dropped, letters transliterated, any other character a space, spaces collapsed and trimmed.
 */
export function toSepaText(text: string): string {
  let out = '';
  for (const c of text.normalize('NFD').replace(/\p{M}/gu, '')) {
    const mapped = SEPA_SPECIAL[c] ?? c;
    out += [...mapped].every((m) => SEPA_CHAR.test(m)) ? mapped : ' ';
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** An address line's length in a pain.001 (`AdrLine`, Max70Text). */
export const SEPA_ADDRESS_LINE_MAX = 70;

/**
 * Whether one line of the insurer's postal address can be written in a pain.001 (`Dbtr/PstlAdr/AdrLine`):
 * no control or invisible character (the rule of typed text, as the insurer's other settings), and
 * 1 to 70 characters once in the Latin set (`toSepaText`: "東京都" or "!!!" leaves nothing). The one
 * rule of both the configuration at start (PARASOL_SEPA_DEBTOR_ADDRESS) and the file builder, so that
 * an address the start accepts never makes every file refused.
 */
export function isSepaAddressLine(line: string): boolean {
  if (hasHiddenCharacter(line)) return false;
  const written = toSepaText(line);
  return written.length >= 1 && written.length <= SEPA_ADDRESS_LINE_MAX;
}

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/**
 * Whether `code` can be the country of the insurer's postal address in a pain.001
 * (`Dbtr/PstlAdr/Ctry`, ISO 3166 alpha-2): two capitals naming a region ("FR", "LU"), not a made-up
 * pair ("QQ") nor "ZZ" (unknown). The one rule, with `isSepaAddressLine`, of both the configuration at
 * start (PARASOL_SEPA_DEBTOR_ADDRESS) and the file builder.
 */
export function isSepaCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && code !== 'ZZ' && REGIONS.of(code) !== undefined;
}
