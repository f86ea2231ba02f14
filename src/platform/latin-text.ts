/**
 * The letters that lose more than an accent when a text is written in the plain Latin set SEPA
 * files guarantee (payouts/sepa-text.ts `toSepaText`): "Łukasz" → "Lukasz", "Strauß" → "Strauss",
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
