/**
 * SMS length accounting (3GPP TS 23.038 / 23.040). A body made only of GSM 03.38 characters travels
 * as GSM-7: 160 septets in one SMS, 153 per segment once concatenated; the extension characters
 * (€ [ ] { } \ ~ ^ | and form feed) take two septets and an escape pair is never split across
 * segments. Any other character (ê, ç, ô, œ, emoji, the no-break spaces Intl puts in French amounts)
 * turns the whole message into UCS-2: 70 UTF-16 units alone, 67 per segment, surrogate pairs kept whole.
 */

const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENSION = '\f^{}\\[~]|€';

const BASIC = new Set(GSM7_BASIC);
const EXTENSION = new Set(GSM7_EXTENSION);

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsLength {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number;
  segments: number;
  /** Characters outside GSM-7 that forced UCS-2 (empty for GSM-7). */
  nonGsmCharacters: string[];
}

export function isGsm7(text: string): boolean {
  for (const c of text) if (!BASIC.has(c) && !EXTENSION.has(c)) return false;
  return true;
}

export function smsLength(text: string): SmsLength {
  const chars = [...text];
  const nonGsm = [...new Set(chars.filter((c) => !BASIC.has(c) && !EXTENSION.has(c)))];
  if (nonGsm.length === 0) {
    const widths = chars.map((c) => (EXTENSION.has(c) ? 2 : 1));
    const units = widths.reduce((a, b) => a + b, 0);
    return { encoding: 'GSM-7', units, segments: countSegments(widths, units, 160, 153), nonGsmCharacters: [] };
  }
  const widths = chars.map((c) => c.length); // 2 for a surrogate pair
  const units = widths.reduce((a, b) => a + b, 0);
  return { encoding: 'UCS-2', units, segments: countSegments(widths, units, 70, 67), nonGsmCharacters: nonGsm };
}

/** Greedy packing: an indivisible character that does not fit starts the next segment. */
function countSegments(widths: number[], total: number, single: number, perSegment: number): number {
  if (total === 0) return 0;
  if (total <= single) return 1;
  let segments = 1;
  let used = 0;
  for (const width of widths) {
    if (used + width > perSegment) {
      segments += 1;
      used = 0;
    }
    used += width;
  }
  return segments;
}

/** Look-alikes for characters with no GSM-7 letter of their own once their accents are taken off. */
const GSM7_SPELLING: Record<string, string> = {
  œ: 'oe',
  Œ: 'OE',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ı: 'i',
  '‘': "'",
  '’': "'",
  '‚': "'",
  '“': '"',
  '”': '"',
  '„': '"',
  '«': '"',
  '»': '"',
  '–': '-',
  '—': '-',
  '‐': '-',
  '…': '...',
  '\u00a0': ' ',
  '\u202f': ' ',
  '\u2009': ' ',
};

/**
 * A name as GSM-7 can carry it: characters GSM 03.38 has are kept (é, ä, Ç, ñ, ø…), others lose their
 * accents when the bare letter is GSM-7 (ô → o, ç → c, ł → l), typographic quotes, dashes and
 * spaces become their ASCII look-alikes, œ becomes oe (Oe before a small letter). Whatever has no GSM-7 spelling
 * (other scripts, emoji) is left as is, and the message travels as UCS-2. For the partner's brand and
 * the insurer's name in an SMS: one "ô" in a brand would otherwise turn every message into UCS-2, twice
 * as many segments or more.
 */
export function gsm7Spelling(text: string): string {
  let out = '';
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (BASIC.has(c) || EXTENSION.has(c)) out += c;
    else if (c === 'Œ' && /\p{Ll}/u.test(chars[i + 1] ?? '')) out += 'Oe';
    else if (GSM7_SPELLING[c] !== undefined) out += GSM7_SPELLING[c];
    else {
      const bare = c.normalize('NFD').replace(/\p{M}+/gu, '');
      out += bare !== '' && isGsm7(bare) ? bare : c;
    }
  }
  return out;
}
