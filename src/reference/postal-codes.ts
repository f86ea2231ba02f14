import fs from 'node:fs';
import { createRequire } from 'node:module';
import { transliterateLatin } from '../platform/latin-text.ts';

/**
 * French postal codes from La Poste's official data, as published by the `codes-postaux` package
 * (its default index: one row per postal code and commune, ~36,000 rows; not the 68 MB `full` file).
 * Loaded once, at first use, and indexed by zip code in a Map; the raw rows are then dropped.
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
   * cityKey of a commune's official name → its routing label, where their keys differ:
   * "Saint-Germain-la-Blanche-Herbe" is routed as ST GERMAIN LA BLANCHE HERB, "Lyon 7e Arrondissement" as
   * LYON, "Les Baux-de-Provence" as BAUX-DE-PROVENCE (LES). A name two labels share is left out.
   */
  communes: ReadonlyMap<string, string>;
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
  const departments = new Map<string, Map<string, string>>();
  const communes = new Map<string, Map<string, string | null>>();
  for (const row of rows) {
    let byCity = departments.get(row.codePostal);
    if (!byCity) departments.set(row.codePostal, (byCity = new Map()));
    // the first commune of a label decides its département (labels spanning two are vanishingly rare)
    if (!byCity.has(row.libelleAcheminement)) byCity.set(row.libelleAcheminement, departmentOf(row.codeCommune));
    const name = cityKey(row.nomCommune);
    if (name === cityKey(row.libelleAcheminement)) continue;
    let byName = communes.get(row.codePostal);
    if (!byName) communes.set(row.codePostal, (byName = new Map()));
    const label = byName.get(name);
    byName.set(name, label === undefined || label === row.libelleAcheminement ? row.libelleAcheminement : null);
  }
  const map = new Map<string, ZipCode>();
  for (const [zipCode, byCity] of departments) {
    const names = [...(communes.get(zipCode) ?? [])].filter((e): e is [string, string] => e[1] !== null);
    map.set(
      zipCode,
      Object.freeze({
        zipCode,
        cities: Object.freeze([...byCity.keys()].sort()),
        departments: byCity,
        communes: new Map(names),
      }),
    );
  }
  return map;
}

/** Département of an INSEE commune code: the first two characters, three overseas (97x, 98x). */
export function departmentOf(communeCode: string): string {
  return /^9[78]/.test(communeCode) ? communeCode.slice(0, 3) : communeCode.slice(0, 2);
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
 * arrondissement", "Lyon 7e" and "LYON 07" alike; "MARSEILLE 6EME").
 */
export function cityKey(city: string): string {
  return transliterateLatin(city)
    .toUpperCase()
    .replace(/[-'.]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\bSAINT(E?)\b/g, 'ST$1')
    .replace(/ 0*(\d+)(?:ER|ERE|E|EME)?(?: ARRONDISSEMENT)?$/, ' $1');
}

/**
 * The routing label of `zip` that `city` designates: itself, else the one with the same cityKey,
 * else the label of the commune of that name ("Saint-Germain-la-Blanche-Herbe", whose label
 * La Poste cut to ST GERMAIN LA BLANCHE HERB; "Paris 7e Arrondissement", routed as PARIS).
 */
export function matchCity(zip: ZipCode, city: string): string | undefined {
  const exact = city.trim().toUpperCase();
  if (zip.cities.includes(exact)) return exact;
  const key = cityKey(city);
  return zip.cities.find((c) => cityKey(c) === key) ?? zip.communes.get(key);
}
