import fs from 'node:fs';
import { createRequire } from 'node:module';
import { transliterateLatin } from '../platform/latin-text.ts';

/**
 * French postal codes from La Poste's official data, as published by the `codes-postaux` package
 * (its default index: one row per postal code and commune, ~36,000 rows; not the 68 MB `full` file).
 * Loaded once, at first use or by `warmPostalCodes`, and indexed by zip code in a Map; the raw rows
 * are then dropped.
 *
 * The cities of a zip code are its distinct routing labels (`libelleAcheminement`, what La Poste
 * prints on the last line of an address), sorted. Each carries the département of its commune (from
 * the INSEE commune code: `2A`/`2B` for Corsica, three digits overseas), since a few zip codes serve
 * communes of two départements.
 */
export interface ZipCode {
  zipCode: string;
  /** Distinct routing labels, sorted. */
  cities: readonly string[];
  /** City (routing label) → département code ("75", "2A", "974"). */
  departments: ReadonlyMap<string, string>;
  /**
   * What `matchCity` looks up, built at load so that a request costs two Map lookups. `plain`: the
   * key of each label and of each commune's official name without the Saint/St folding → the label
   * (a label before a commune's name; "Saint-Micaud" → SAINT-MICAUD, "St-Micaud" → ST MICAUD where
   * 71460 has both). `folded`: the same with Saint and Sainte folded to ST and STE (`cityKey`), for
   * what `plain` does not know (only keys with an ST or STE: the others are in `plain`); where
   * labels share a key, the first in order.
   *
   * A commune's official name stands for its label where their keys differ: "Saint-Germain-la-Blanche-Herbe"
   * is routed as ST GERMAIN LA BLANCHE HERB, "Lyon 7e Arrondissement" as LYON, "Les Baux-de-Provence"
   * as BAUX-DE-PROVENCE (LES). Left out: a name two labels share, and a commune of another
   * département than its label's (75015 routes a corner of Issy-les-Moulineaux, 92, as PARIS, 75:
   * the label would not say which département a quote is for).
   */
  keys: { readonly plain: ReadonlyMap<string, string>; readonly folded: ReadonlyMap<string, string> };
}

interface PostalRow {
  codePostal: string;
  codeCommune: string;
  nomCommune: string;
  libelleAcheminement: string;
}

export const ZIP_CODE_PATTERN = '^[0-9]{5}$';

let index: Map<string, ZipCode> | undefined;

function load(): Map<string, ZipCode> {
  const file = createRequire(import.meta.url).resolve('codes-postaux/codes-postaux.json');
  const rows = JSON.parse(fs.readFileSync(file, 'utf8')) as PostalRow[];
  const byZip = new Map<string, PostalRow[]>();
  for (const row of rows) {
    const zipRows = byZip.get(row.codePostal);
    if (zipRows) zipRows.push(row);
    else byZip.set(row.codePostal, [row]);
  }
  const map = new Map<string, ZipCode>();
  for (const [zipCode, zipRows] of byZip) map.set(zipCode, indexZipCode(zipCode, zipRows));
  return map;
}

function indexZipCode(zipCode: string, rows: readonly PostalRow[]): ZipCode {
  const departments = new Map<string, string>();
  // the first commune of a label decides its département (labels spanning two are vanishingly rare)
  for (const row of rows)
    if (!departments.has(row.libelleAcheminement))
      departments.set(row.libelleAcheminement, departmentOf(row.codeCommune));
  const cities = [...departments.keys()].sort();
  const plain = new Map<string, string>();
  const folded = new Map<string, string>();
  for (const city of cities) {
    const key = plainKey(city);
    if (!plain.has(key)) plain.set(key, city);
    const foldedKey = foldSaints(key);
    if (foldedKey.includes('ST') && !folded.has(foldedKey)) folded.set(foldedKey, city);
  }
  // official names → their label, or null when two labels share a name
  const plainNames = new Map<string, string | null>();
  const foldedNames = new Map<string, string | null>();
  const add = (names: Map<string, string | null>, key: string, city: string) => {
    const known = names.get(key);
    names.set(key, known === undefined || known === city ? city : null);
  };
  for (const row of rows) {
    if (departmentOf(row.codeCommune) !== departments.get(row.libelleAcheminement)) continue;
    const key = plainKey(row.nomCommune);
    add(plainNames, key, row.libelleAcheminement);
    // "Paris" for the arrondissement's label where La Poste numbers it (75116: PARIS 16 only)
    const city = /^(Paris|Lyon|Marseille) \d+(?:er|e) Arrondissement$/.exec(row.nomCommune)?.[1];
    if (city) add(plainNames, city.toUpperCase(), row.libelleAcheminement);
    const foldedKey = foldSaints(key);
    if (foldedKey.includes('ST')) add(foldedNames, foldedKey, row.libelleAcheminement);
  }
  for (const [key, city] of plainNames) if (city !== null && !plain.has(key)) plain.set(key, city);
  for (const [key, city] of foldedNames) if (city !== null && !folded.has(key)) folded.set(key, city);
  return Object.freeze({ zipCode, cities: Object.freeze(cities), departments, keys: Object.freeze({ plain, folded }) });
}

/**
 * The French overseas territories outside the overseas départements, by their postal codes: French
 * postal codes, but territories with their own status, tax rules and, for New Caledonia and French
 * Polynesia, their own insurance law. Five are overseas collectivities (Constitution, article 74);
 * New Caledonia is a collectivity sui generis (title XIII), the French Southern and Antarctic Lands
 * an overseas territory with a statute of its own; Clipperton, uninhabited, has no postal code of
 * its own. La Poste's data above leaves them out but for Saint-Pierre-et-Miquelon (975xx);
 * Saint-Barthélemy and Saint-Martin each have one code, inside Guadeloupe's 971xx. Their English
 * names and statuses, for messages.
 */
export interface OverseasTerritory {
  name: string;
  /** What the territory is, as a phrase: "an overseas collectivity". */
  status: string;
}

const COLLECTIVITY = 'an overseas collectivity';
const OVERSEAS_TERRITORIES: readonly (OverseasTerritory & { prefix: string })[] = [
  { prefix: '97133', name: 'Saint Barthélemy', status: COLLECTIVITY },
  { prefix: '97150', name: 'Saint Martin', status: COLLECTIVITY },
  { prefix: '975', name: 'Saint Pierre and Miquelon', status: COLLECTIVITY },
  { prefix: '984', name: 'the French Southern and Antarctic Lands', status: 'an overseas territory' },
  { prefix: '986', name: 'Wallis and Futuna', status: COLLECTIVITY },
  { prefix: '987', name: 'French Polynesia', status: COLLECTIVITY },
  { prefix: '988', name: 'New Caledonia', status: 'a collectivity sui generis' },
];

/** The overseas territory, not a département, a postal code belongs to (Saint Barthélemy for 97133), else undefined. */
export function overseasTerritoryOf(zipCode: string): OverseasTerritory | undefined {
  const territory = OVERSEAS_TERRITORIES.find((t) => zipCode.startsWith(t.prefix));
  return territory && { name: territory.name, status: territory.status };
}

/** Département of an INSEE commune code: the first two characters, three overseas (97x, 98x). */
export function departmentOf(communeCode: string): string {
  return /^9[78]/.test(communeCode) ? communeCode.slice(0, 3) : communeCode.slice(0, 2);
}

/**
 * Loads the index now rather than on the first request that needs it (half a second of CPU):
 * `npm start` calls it once listening, so that start-up is not delayed and a partner's first
 * /getPrice is not the slow one.
 */
export function warmPostalCodes(): void {
  index ??= load();
}

export function findZipCode(zipCode: string): ZipCode | undefined {
  index ??= load();
  return index.get(zipCode);
}

/**
 * How a city given by a caller is compared with the routing labels: without accents, case,
 * hyphens, apostrophes or repeated spaces ("Saint-Denis" finds "SAINT DENIS"), the ligatures
 * spelt out ("Bonnœil" finds "BONNOEIL"), Saint and Sainte as La Poste abbreviates them in
 * long labels (ST, STE, either way), and an arrondissement by its number ("Lyon 7e
 * arrondissement", "Lyon 7e", "Paris 7e arr." and "LYON 07" alike; "MARSEILLE 6EME").
 */
export function cityKey(city: string): string {
  return foldSaints(plainKey(city));
}

/** `cityKey` but for Saint and Sainte, left as written. */
function plainKey(city: string): string {
  return plainLatin(city)
    .toUpperCase()
    .replace(/[-'.]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/ 0*(\d+)(?:ER|ERE|E|EME)?(?: ARR(?:ONDISSEMENT)?)?$/, ' $1');
}

/** `transliterateLatin`, quicker on what is plain ASCII once its accents are off (La Poste's labels, most names). */
function plainLatin(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  const bare = text.normalize('NFD').replace(/\p{M}/gu, '');
  return /^[\x20-\x7e]*$/.test(bare) ? bare : transliterateLatin(bare);
}

function foldSaints(key: string): string {
  return !key.includes('SAINT') ? key : key.replace(/\bSAINT(E?)\b/g, 'ST$1');
}

/**
 * The routing label of `zip` that `city` designates: itself; else, compared by `cityKey`, first as
 * written (a label, then a commune's official name: "Ouroux-sous-le-Bois-Sainte-Marie" is routed as
 * OUROUX SS LE BOIS STE MARI, not as OUROUX SOUS LE BOIS STE MARIE, the label of Ozolles), then
 * with Saint and St alike (a label, then an official name: "Saint-Germain-la-Blanche-Herbe", whose
 * label La Poste cut to ST GERMAIN LA BLANCHE HERB; "Paris 7e Arrondissement", routed as PARIS).
 */
export function matchCity(zip: ZipCode, city: string): string | undefined {
  const exact = city.trim().toUpperCase();
  if (zip.departments.has(exact)) return exact;
  const key = plainKey(city);
  return zip.keys.plain.get(key) ?? zip.keys.folded.get(foldSaints(key));
}
