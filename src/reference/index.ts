/** The reference domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export { findAirline, ICAO_OVERRIDES } from './airlines.ts';
export { findAirport } from './airports.ts';
export { normaliseFlightNumber } from './flight-designators.ts';
export {
  ZIP_CODE_PATTERN,
  departmentOf,
  findZipCode,
  matchCity,
  overseasTerritoryOf,
  warmPostalCodes,
  type OverseasTerritory,
  type ZipCode,
} from './postal-codes.ts';
export { parseDeparture, parseInstant, requireAirline, requireAirport } from './validate.ts';
