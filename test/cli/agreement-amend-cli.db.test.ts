import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openTestDatabase, runCliOn, uniqueSlug } from '../helper.ts';

/** `parasol agreement amend` and `agreement history` (issue 14 §2), through runCliOn with a set clock. */

const { db } = await openTestDatabase({ after: (close: () => unknown) => after(async () => void (await close())) });

const NOW = new Date();
const DAY = 86_400_000;

const cli = (argv: string[]) => runCliOn({ db }, argv, { now: () => NOW });

const TERMS = (commissionMax: string, compensationMax = '500.00') => [
  '--formulas',
  'delay,cancellation,delay_and_cancellation',
  '--currency',
  'EUR',
  '--tax-rate',
  '0.09',
  '--commission-min',
  '0',
  '--commission-max',
  commissionMax,
  '--compensation-min',
  '10.00',
  '--compensation-max',
  compensationMax,
];

const day = (offset: number) => new Date(NOW.getTime() + offset * DAY).toISOString().slice(0, 10);

describe('agreement amend and history', () => {
  it('signs an amendment effective later, warns about the configuration, and lists the versions', async () => {
    const slug = uniqueSlug('amend-cli');
    assert.equal((await cli(['partners', 'create', '--slug', slug, '--name', 'Amend Air'])).code, 0);
    assert.equal((await cli(['agreement', 'set', slug, ...TERMS('0.3')])).code, 0);

    const unsigned = await cli(['agreement', 'amend', slug, ...TERMS('0.2'), '--effective', day(3), '--reason', 'x']);
    assert.equal(unsigned.code, 1, 'a draft is not amended, it is set');
    assert.match(unsigned.err, /signed agreement/);

    assert.equal((await cli(['agreement', 'sign', slug])).code, 0);
    const config = ['config', 'set', slug, '--formula', 'delay', '--tier', '120=50.00', '--commission', '0.25'];
    assert.equal((await cli(config)).code, 0);

    const past = await cli(['agreement', 'amend', slug, ...TERMS('0.2'), '--effective', day(-1), '--reason', 'late']);
    assert.equal(past.code, 1);
    assert.match(past.err, /--effective.*never in the past/);
    const malformed = await cli(['agreement', 'amend', slug, ...TERMS('0.2'), '--effective', 'soon', '--reason', 'x']);
    assert.equal(malformed.code, 1);
    assert.match(malformed.err, /--effective/);

    const amended = await cli([
      '--json',
      'agreement',
      'amend',
      slug,
      ...TERMS('0.2', '400.00'),
      '--effective',
      day(5),
      '--reason',
      '2027 renewal',
    ]);
    assert.equal(amended.code, 0, amended.err);
    const body = JSON.parse(amended.out);
    assert.equal(body.agreement.version, 2);
    assert.equal(body.agreement.effectiveAt, `${day(5)}T00:00:00.000Z`);
    assert.equal(body.agreement.reason, '2027 renewal');
    assert.deepEqual(
      body.changes.map((c: { field: string }) => c.field),
      ['commissionMax', 'compensationMax'],
    );
    assert.deepEqual(
      body.violations.map((v: { field: string }) => v.field),
      ['/commissionRate'],
      'the configuration (0.25) is above the new maximum',
    );

    const text = await cli([
      'agreement',
      'amend',
      slug,
      ...TERMS('0.2', '400.00'),
      '--effective',
      day(6),
      '--reason',
      'again',
    ]);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /Signed version 3 .* effective/);
    assert.match(text.out, /Changes: none/);
    assert.match(text.out, /Warning: the current configuration .* outside version 3/);

    // saving a configuration the scheduled versions reject is allowed, with a warning
    const warned = await cli(config);
    assert.equal(warned.code, 0);
    assert.match(warned.out, /Warning: agreement version 2, effective .*, rejects this configuration/);

    const history = await cli(['agreement', 'history', slug]);
    assert.equal(history.code, 0, history.err);
    const lines = history.out.split('\n');
    assert.match(lines[0]!, /^VERSION\s+EFFECTIVE\s+STATE/);
    assert.match(lines[1]!, /^1\s+.*in force.*original agreement\s+original$/);
    assert.match(
      lines[2]!,
      /^2\s+.*scheduled.*2027 renewal\s+commissionMax 0\.3 → 0\.2; compensationMax 500\.00 EUR → 400\.00 EUR$/,
    );
    assert.match(lines[3]!, /^3\s+.*scheduled.*again\s+none$/);

    const json = JSON.parse((await cli(['--json', 'agreement', 'history', slug])).out);
    assert.deepEqual(
      json.versions.map((v: { version: number; inForce: boolean }) => [v.version, v.inForce]),
      [
        [1, true],
        [2, false],
        [3, false],
      ],
    );
  });
});
