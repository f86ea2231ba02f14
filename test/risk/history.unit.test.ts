import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HistoryFormatError, readHistory, splitCsvLine, type FlightObservation } from '../../src/risk/history.ts';

/** Reading BTS on-time history: by header name, quoted fields, .csv / .csv.gz / .zip, streaming. */

const fixtures = fileURLToPath(new URL('../fixtures/risk/', import.meta.url));
const SAMPLE = path.join(fixtures, 'bts-2008q1-sample.csv.gz');
const WIDE = path.join(fixtures, 'bts-wide-quoted.csv');
const ZIP = path.join(fixtures, 'bts-2008-1-tiny.zip');

async function all(files: string[]): Promise<FlightObservation[]> {
  const rows: FlightObservation[] = [];
  for await (const o of readHistory(files)) rows.push(o);
  return rows;
}

function tmpFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-history-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('splitCsvLine', () => {
  it('splits plain and quoted fields, with commas and doubled quotes inside quotes', () => {
    assert.deepEqual(splitCsvLine('a,,b'), ['a', '', 'b']);
    assert.deepEqual(splitCsvLine('"Chicago, IL","say ""hi""",3,'), ['Chicago, IL', 'say "hi"', '3', '']);
    assert.deepEqual(splitCsvLine('"",x'), ['', 'x']);
  });
  it('rejects an unterminated quote', () => {
    assert.throws(() => splitCsvLine('"open,1'), HistoryFormatError);
  });
});

describe('readHistory', () => {
  it('streams a gzip CSV in the shared layout, every row an observation', async () => {
    const rows = await all([SAMPLE]);
    assert.equal(rows.length, 4436);
    const first = rows[0]!;
    assert.deepEqual(first, {
      flightDate: '2008-01-03',
      airline: 'WN',
      flightNumber: '335',
      origin: 'IAD',
      dest: 'TPA',
      crsDepTime: '1955',
      cancelled: false,
      diverted: false,
      arrDelay: -14,
    });
    assert.ok(rows.some((r) => r.cancelled && r.arrDelay === null));
    assert.ok(rows.some((r) => r.diverted && r.arrDelay === null));
    assert.ok(rows.every((r) => /^\d{4}$/.test(r.crsDepTime)));
  });

  it('reads by header name: extra columns, quoted commas, a trailing comma and CRLF give the same observations', async () => {
    const wide = await all([WIDE]);
    const plain = (await all([SAMPLE])).slice(0, 40);
    assert.equal(wide.length, 40);
    assert.deepEqual(wide, plain);
  });

  it('reads the CSV inside a BTS zip, ignoring the readme beside it', async () => {
    assert.deepEqual(await all([ZIP]), await all([WIDE]));
  });

  it('reads several files in order', async () => {
    const rows = await all([WIDE, ZIP]);
    assert.equal(rows.length, 80);
  });

  it('names the file and the missing column when the header lacks one', async () => {
    const file = tmpFile(
      'no-arrdelay.csv',
      'FlightDate,Reporting_Airline,Flight_Number_Reporting_Airline,Origin,Dest,CRSDepTime,Cancelled,Diverted\n',
    );
    await assert.rejects(
      all([file]),
      (e: Error) => e instanceof HistoryFormatError && /no column ArrDelay/.test(e.message) && e.message.includes(file),
    );
  });

  it('names the line of a malformed row', async () => {
    const header =
      'FlightDate,Reporting_Airline,Flight_Number_Reporting_Airline,Origin,Dest,CRSDepTime,Cancelled,Diverted,ArrDelay';
    const file = tmpFile(
      'bad.csv',
      `${header}\n2008-01-01,AA,1,ORD,LGA,0700,0.00,0.00,5.00\n2008-01-01,AA,1,ORD,LGA,0700,maybe,0.00,5.00\n`,
    );
    await assert.rejects(
      all([file]),
      (e: Error) => e instanceof HistoryFormatError && /line 3/.test(e.message) && /0\/1/.test(e.message),
    );
  });

  it('writes midnight 2400 as 0000 and keeps no delay for a cancelled leg', async () => {
    const header =
      'FlightDate,Reporting_Airline,Flight_Number_Reporting_Airline,Origin,Dest,CRSDepTime,Cancelled,Diverted,ArrDelay';
    const file = tmpFile('midnight.csv', `${header}\n2008-01-01,AA,0012,ORD,LGA,2400,1.00,0.00,\n`);
    assert.deepEqual(await all([file]), [
      {
        flightDate: '2008-01-01',
        airline: 'AA',
        flightNumber: '12',
        origin: 'ORD',
        dest: 'LGA',
        crsDepTime: '0000',
        cancelled: true,
        diverted: false,
        arrDelay: null,
      },
    ]);
  });

  it('refuses a file of another kind, and a file that does not exist', async () => {
    await assert.rejects(all([tmpFile('x.txt', 'hello')]), HistoryFormatError);
    await assert.rejects(all([path.join(fixtures, 'missing.csv.gz')]), /ENOENT/);
  });
});
