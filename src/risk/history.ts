import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { pipeline, type Readable } from 'node:stream';
import yauzl from 'yauzl';

/**
 * Reading flight history in the form the US Bureau of Transportation Statistics serves it
 * ("Reporting Carrier On-Time Performance (1987-present)"): CSV with a header row, about 110 columns,
 * quoted strings, `1.00` for true. Columns are found by header name, so subsets (the shared data) and
 * extra columns both work. Files are streamed line by line: a year is 7 million rows.
 */

/** One scheduled leg and what became of it. */
export interface FlightObservation {
  /** YYYY-MM-DD, local date of scheduled departure. */
  flightDate: string;
  /** IATA code of the reporting (operating) airline. */
  airline: string;
  /** Flight number as BTS gives it: digits only. */
  flightNumber: string;
  origin: string;
  dest: string;
  /** Scheduled local departure time 'hhmm'. */
  crsDepTime: string;
  cancelled: boolean;
  diverted: boolean;
  /** Arrival delay at the gate in minutes (negative = early); null when the leg was not operated to its destination. */
  arrDelay: number | null;
}

/** The header names read, as BTS spells them. */
export const HISTORY_COLUMNS = {
  flightDate: 'FlightDate',
  airline: 'Reporting_Airline',
  flightNumber: 'Flight_Number_Reporting_Airline',
  origin: 'Origin',
  dest: 'Dest',
  crsDepTime: 'CRSDepTime',
  cancelled: 'Cancelled',
  diverted: 'Diverted',
  arrDelay: 'ArrDelay',
} as const;

/** A history file that cannot be read as BTS on-time data; names the file and line. */
export class HistoryFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HistoryFormatError';
  }
}

/** Splits one CSV line (RFC 4180: quoted fields may hold commas and doubled quotes) into fields. */
export function splitCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const fields: string[] = [];
  let i = 0;
  const n = line.length;
  while (i <= n) {
    if (line.charCodeAt(i) === 34 /* " */) {
      let value = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q === -1) throw new HistoryFormatError('unterminated quoted field');
        value += line.slice(i, q);
        if (line.charCodeAt(q + 1) === 34) {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      fields.push(value);
      if (i < n && line.charCodeAt(i) !== 44) throw new HistoryFormatError('text after a closing quote');
      i++;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma === -1 ? n : comma;
      fields.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return fields;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const IATA_AIRLINE = /^[A-Z0-9]{2}$/;
const IATA_AIRPORT = /^[A-Z]{3}$/;

function flag(text: string, where: () => string): boolean {
  if (text === '') return false;
  const value = Number(text);
  if (value === 1) return true;
  if (value === 0) return false;
  throw new HistoryFormatError(`${where()}: expected 0/1, got '${text}'`);
}

/** Turns the fields of one row into an observation; throws HistoryFormatError with the place at fault. */
function toObservation(
  fields: string[],
  at: Record<keyof typeof HISTORY_COLUMNS, number>,
  where: () => string,
): FlightObservation {
  const get = (k: keyof typeof HISTORY_COLUMNS): string => fields[at[k]]?.trim() ?? '';
  const flightDate = get('flightDate');
  const airline = get('airline');
  const flightNumber = get('flightNumber');
  const origin = get('origin');
  const dest = get('dest');
  const crs = get('crsDepTime');
  if (!DATE.test(flightDate)) throw new HistoryFormatError(`${where()}: FlightDate '${flightDate}' is not YYYY-MM-DD`);
  if (!IATA_AIRLINE.test(airline))
    throw new HistoryFormatError(`${where()}: Reporting_Airline '${airline}' is not an IATA code`);
  if (!/^\d{1,4}$/.test(flightNumber))
    throw new HistoryFormatError(`${where()}: flight number '${flightNumber}' is not 1 to 4 digits`);
  if (!IATA_AIRPORT.test(origin) || !IATA_AIRPORT.test(dest))
    throw new HistoryFormatError(`${where()}: airports '${origin}', '${dest}' are not IATA codes`);
  if (!/^\d{1,4}$/.test(crs)) throw new HistoryFormatError(`${where()}: CRSDepTime '${crs}' is not hhmm`);
  const crsDepTime = crs.padStart(4, '0');
  const hh = Number(crsDepTime.slice(0, 2));
  // BTS writes midnight as 2400.
  if (hh > 24 || Number(crsDepTime.slice(2)) > 59)
    throw new HistoryFormatError(`${where()}: CRSDepTime '${crs}' is not a time`);
  const cancelled = flag(get('cancelled'), where);
  const diverted = flag(get('diverted'), where);
  const delayText = get('arrDelay');
  let arrDelay: number | null = null;
  if (delayText !== '') {
    arrDelay = Number(delayText);
    if (!Number.isFinite(arrDelay)) throw new HistoryFormatError(`${where()}: ArrDelay '${delayText}' is not a number`);
  }
  return {
    flightDate,
    airline,
    flightNumber: String(Number(flightNumber)),
    origin,
    dest,
    crsDepTime: hh === 24 ? `00${crsDepTime.slice(2)}` : crsDepTime,
    cancelled,
    diverted,
    arrDelay: cancelled || diverted ? null : arrDelay,
  };
}

/** Reads CSV text lines from a byte stream (UTF-8, LF or CRLF). */
async function* lines(stream: Readable): AsyncIterable<string> {
  let rest = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = rest + chunk;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl === -1) break;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      yield text.slice(start, end);
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  if (rest.length > 0) yield rest.endsWith('\r') ? rest.slice(0, -1) : rest;
}

/** Observations of one CSV stream; `name` is used in error messages. */
export async function* readHistoryCsv(stream: Readable, name: string): AsyncIterable<FlightObservation> {
  let at: Record<keyof typeof HISTORY_COLUMNS, number> | undefined;
  let lineNo = 0;
  for await (const line of lines(stream)) {
    lineNo++;
    if (at === undefined) {
      const header = splitCsvLine(line.replace(/^\uFEFF/, '')).map((h) => h.trim());
      const found: Partial<Record<keyof typeof HISTORY_COLUMNS, number>> = {};
      for (const [key, column] of Object.entries(HISTORY_COLUMNS) as [keyof typeof HISTORY_COLUMNS, string][]) {
        const index = header.indexOf(column);
        if (index === -1) throw new HistoryFormatError(`${name}: no column ${column} in the header`);
        found[key] = index;
      }
      at = found as Record<keyof typeof HISTORY_COLUMNS, number>;
      continue;
    }
    if (line.trim() === '') continue;
    const n = lineNo;
    let fields: string[];
    try {
      fields = splitCsvLine(line);
    } catch (error) {
      throw new HistoryFormatError(`${name} line ${n}: ${(error as Error).message}`);
    }
    yield toObservation(fields, at, () => `${name} line ${n}`);
  }
  if (at === undefined) throw new HistoryFormatError(`${name}: empty file, no header`);
}

/** The CSV entries of a zip archive (BTS serves one CSV per zip, beside a readme). */
async function* readZip(file: string): AsyncIterable<FlightObservation> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, z) =>
      error || !z ? reject(error ?? new Error('no zip')) : resolve(z),
    ),
  );
  try {
    const entries: yauzl.Entry[] = await new Promise((resolve, reject) => {
      const all: yauzl.Entry[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        all.push(entry);
        zip.readEntry();
      });
      zip.on('end', () => resolve(all));
      zip.on('error', reject);
      zip.readEntry();
    });
    const csvs = entries.filter((e) => /\.csv$/i.test(e.fileName)).sort((a, b) => (a.fileName < b.fileName ? -1 : 1));
    if (csvs.length === 0) throw new HistoryFormatError(`${file}: no .csv inside the zip`);
    for (const entry of csvs) {
      const stream = await new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(entry, (error, s) => (error || !s ? reject(error ?? new Error('no stream')) : resolve(s))),
      );
      yield* readHistoryCsv(stream, `${file}:${entry.fileName}`);
    }
  } finally {
    zip.close();
  }
}

/** Streams the observations of history files, in file order then row order: `.csv`, `.csv.gz` or BTS `.zip`. */
export async function* readHistory(files: string[]): AsyncIterable<FlightObservation> {
  for (const file of files) {
    if (/\.zip$/i.test(file)) {
      yield* readZip(file);
    } else if (/\.gz$/i.test(file)) {
      // pipeline, not pipe: an unreadable file fails the gunzip stream instead of leaving it waiting.
      yield* readHistoryCsv(
        pipeline(createReadStream(file), createGunzip(), () => undefined),
        file,
      );
    } else if (/\.csv$/i.test(file)) {
      yield* readHistoryCsv(createReadStream(file), file);
    } else {
      throw new HistoryFormatError(`${file}: expected a .csv, .csv.gz or .zip file`);
    }
  }
}
