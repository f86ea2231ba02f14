import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Db } from '../../src/platform/db.ts';
import { parseArtifact } from '../../src/risk/index.ts';
import { runCliOn } from '../helper.ts';

/** `parasol risk fit | evaluate | predict`, on the committed sample; none of them needs the database. */

const fixtures = fileURLToPath(new URL('../fixtures/risk/', import.meta.url));
const SAMPLE = path.join(fixtures, 'bts-2008q1-sample.csv.gz');
const WIDE = path.join(fixtures, 'bts-wide-quoted.csv');
const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-risk-cli-'));

/** Any use of the database fails the test. */
const noDatabase = new Proxy({} as Db, {
  get() {
    throw new Error('risk commands must not touch the database');
  },
});

const cli = (...argv: string[]) => runCliOn({ db: noDatabase }, argv);

const model = path.join(dir, 'model.json.gz');

describe('parasol risk', () => {
  it('fit writes a versioned artifact from history files', async () => {
    const run = await cli('risk', 'fit', SAMPLE, '--out', model, '--version', 'v2-sample');
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /Model v2-sample: 4436 legs from 2008-01-01 to 2008-03-31/);
    const artifact = parseArtifact(fs.readFileSync(model));
    assert.equal(artifact.version, 'v2-sample');
    const again = path.join(dir, 'again.json.gz');
    assert.equal((await cli('risk', 'fit', SAMPLE, '--out', again, '--version', 'v2-sample')).code, 0);
    assert.ok(fs.readFileSync(again).equals(fs.readFileSync(model)), 'the same files give the same bytes');
  });

  it('fit names the version after the data cut-off by default, and adds to a base with --base', async () => {
    const out = path.join(dir, 'refit.json.gz');
    const run = await cli('--json', 'risk', 'fit', WIDE, '--base', model, '--out', out);
    assert.equal(run.code, 0, run.err);
    const summary = JSON.parse(run.out).model;
    assert.equal(summary.version, 'v2-2008-03-31');
    assert.equal(summary.legs, 4436 + 40);
  });

  it('fit refuses a file that is not history, with exit 1 and the reason', async () => {
    const bad = path.join(dir, 'bad.csv');
    fs.writeFileSync(bad, 'a,b\n1,2\n');
    const run = await cli('risk', 'fit', bad, '--out', path.join(dir, 'x.json.gz'));
    assert.equal(run.code, 1);
    assert.match(run.err, /no column FlightDate/);
    const missing = await cli('risk', 'evaluate', '--model', path.join(dir, 'nope.json.gz'), SAMPLE);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /Cannot read or write/);
  });

  it('evaluate prints, per event, A/E, AUC, log loss against the baseline, deciles, airlines and the loss ratio', async () => {
    const run = await cli('risk', 'evaluate', '--model', model, WIDE);
    assert.equal(run.code, 0, run.err);
    for (const text of [
      '| event | legs | actual | expected | A/E | AUC | log loss | baseline | gain |',
      '| cancelled |',
      '| delay_180 |',
      'A/E by decile',
      'A/E by airline:',
      'Loss ratio of the demo configuration',
      '| all | 40 |',
    ]) {
      assert.ok(run.out.includes(text), `missing ${text}`);
    }
    const json = JSON.parse((await cli('--json', 'risk', 'evaluate', '--model', model, WIDE)).out).evaluation;
    assert.equal(json.legs, 40);
    assert.equal(json.events.length, 5);
    const cancelled = json.events[0];
    assert.equal(cancelled.event, 'cancelled');
    assert.equal(cancelled.deciles.length, 10);
    assert.ok(cancelled.logLoss > 0 && cancelled.baselineLogLoss > 0);
  });

  it('predict writes one row per input row, in order, with empty cells for a leg it cannot price', async () => {
    const header =
      'FlightDate,Reporting_Airline,Flight_Number_Reporting_Airline,Origin,Dest,CRSDepTime,Cancelled,Diverted,ArrDelay';
    const input = path.join(dir, 'held-out.csv');
    fs.writeFileSync(
      input,
      [
        header,
        '2008-03-02,AA,330,ORD,LGA,1730,0.00,0.00,5.00',
        '2008-03-02,AA,330,ORD,QQQ,1730,0.00,0.00,5.00',
        '2008-03-02,OO,6543,SAT,LAX,0705,0.00,0.00,',
        '2008-03-02,AA,330,ORD,LGA,1730,1.00,0.00,',
      ].join('\n'),
    );
    const out = path.join(dir, 'predictions.csv');
    const run = await cli('risk', 'predict', input, '--out', out, '--model', model);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /Wrote 4 predictions \(1 not priceable\)/);
    const lines = fs.readFileSync(out, 'utf8').trimEnd().split('\n');
    assert.equal(lines[0], 'p_cancelled,p_diverted,p_delay_60,p_delay_120,p_delay_180');
    assert.equal(lines.length, 5);
    assert.equal(lines[2], ',,,,');
    // Rows 1 and 4 are the same leg: the outcome does not enter the prediction.
    assert.equal(lines[1], lines[4]);
    for (const line of [lines[1]!, lines[3]!]) {
      const p = line.split(',').map(Number);
      assert.equal(p.length, 5);
      assert.ok(p.every((x) => x > 0 && x < 1));
      assert.ok(p[2]! >= p[3]! && p[3]! >= p[4]!);
    }
  });

  it('runs from the command line without configuration or database', async () => {
    const out = path.join(dir, 'cli-predictions.csv');
    const env = { PATH: process.env.PATH ?? '', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'risk', 'predict', WIDE, '--out', out, '--model', model],
      { cwd: root, env },
    );
    assert.match(stdout, /Wrote 40 predictions/);
    assert.equal(fs.readFileSync(out, 'utf8').trimEnd().split('\n').length, 41);
  });
});
