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

/**
 * The 249 officially assigned ISO 3166-1 alpha-2 codes (source: the ISO 3166 Maintenance Agency's
 * Online Browsing Platform, https://www.iso.org/obp/ui/#search/code/, "Officially assigned" codes,
 * as of 2026). Not `Intl.DisplayNames`, which also names withdrawn codes (UK, DD, SU, YU, CS, AN, FX)
 * and reserved or user-assigned ones (EU, EZ, UN, QO, XA, AC, CP, DG, EA, IC, TA…). Checked by a unit
 * test against the i18n-iso-countries package (a devDependency: test/platform/country-codes.unit.test.ts),
 * which also lists XK (Kosovo, user-assigned, not ISO's); a new assignment is added here
 * (docs/DECISIONS.md, "The ISO country list is the code's own").
 */
const ISO_3166_ALPHA_2: ReadonlySet<string> = Object.freeze(
  new Set(
    [
      'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ',
      'BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ',
      'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ',
      'DE DJ DK DM DO DZ',
      'EC EE EG EH ER ES ET',
      'FI FJ FK FM FO FR',
      'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY',
      'HK HM HN HR HT HU',
      'ID IE IL IM IN IO IQ IR IS IT',
      'JE JM JO JP',
      'KE KG KH KI KM KN KP KR KW KY KZ',
      'LA LB LC LI LK LR LS LT LU LV LY',
      'MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ',
      'NA NC NE NF NG NI NL NO NP NR NU NZ',
      'OM',
      'PA PE PF PG PH PK PL PM PN PR PS PT PW PY',
      'QA',
      'RE RO RS RU RW',
      'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ',
      'TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ',
      'UA UG UM US UY UZ',
      'VA VC VE VG VI VN VU',
      'WF WS',
      'YE YT',
      'ZA ZM ZW',
    ]
      .join(' ')
      .split(' '),
  ),
);

/**
 * Whether `code` is a country of the insurer's postal address in a pain.001 (`Dbtr/PstlAdr/Ctry`,
 * ISO 3166 alpha-2): an officially assigned code in capitals ("FR", "LU", "GB"), not a withdrawn one
 * ("UK", "DD"), a reserved or user-assigned one ("EU", "XA", "ZZ") nor a made-up pair ("QQ"). Any
 * country, not only SEPA members: the address is the insurer's, its account may be elsewhere. The one
 * rule, with `isSepaAddressLine`, of both the configuration at start (PARASOL_SEPA_DEBTOR_ADDRESS) and
 * the file builder.
 */
export function isCountryCode(code: string): boolean {
  return ISO_3166_ALPHA_2.has(code);
}
