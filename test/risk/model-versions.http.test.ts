import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { planWatches } from '../../src/monitoring/plan-watches.ts';
import { recordOperatorFlightEvent } from '../../src/monitoring/operator-flight-event.ts';
import {
  activateModelVersion,
  DbRiskModelSource,
  defaultRiskArtifact,
  ensureDefaultModel,
  fitArtifact,
  importVersion,
  listModelVersions,
  parseArtifact,
  readModelArtifact,
  refitFromOutcomes,
  refitVersionName,
  REFITS_PER_MINUTE,
  serializeArtifact,
  type FlightObservation,
} from '../../src/risk/index.ts';
import { riskModelV1 } from '../../src/flight/risk-model.ts';
import type { Environment } from '../../src/platform/db-schema.ts';
import type { Db } from '../../src/platform/db.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  openTestDatabase,
  post,
  runCliOn,
  subscription,
} from '../helper.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';

/** A few legs of history, enough for a small artifact (the model itself is tested in model tests). */
function history(version: string, legs = 400): Promise<ReturnType<typeof defaultRiskArtifact>> {
  const rows: FlightObservation[] = [];
  for (let i = 0; i < legs; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    rows.push({
      flightDate: `2008-0${1 + (i % 3)}-${day}`,
      airline: i % 2 ? 'AA' : 'UA',
      flightNumber: String(100 + (i % 5)),
      origin: 'ORD',
      dest: i % 3 ? 'LAX' : 'JFK',
      crsDepTime: `${String(6 + (i % 14)).padStart(2, '0')}15`,
      cancelled: i % 37 === 0,
      diverted: i % 211 === 0,
      arrDelay: i % 37 === 0 || i % 211 === 0 ? null : ((i * 7) % 200) - 20,
    });
  }
  return fitArtifact(rows, { version });
}

/** A version whose stored bytes are not those hashed when stored (a faulty restore, a disk), written by SQL. */
async function storeCorrupt(db: Db, version: string): Promise<void> {
  await db
    .insertInto('risk_models')
    .values({
      version,
      artifact: Buffer.from('truncated'),
      sha256: crypto.createHash('sha256').update('the bytes first stored').digest('hex'),
      data_cutoff: '2008-03-28',
      source: 'history',
      base_version: null,
      created_by: 'test',
    })
    .execute();
}

const leg = {
  departureAirport: 'ORD',
  arrivalAirport: 'LAX',
  airline: 'AA',
  departureLocal: '2027-01-15T18:15',
} as const;

describe('risk model versions', () => {
  it('stores the shipped model at first start and makes it price every environment, once', async (t) => {
    const { db } = await openTestDatabase(t, { empty: true });
    const first = await ensureDefaultModel(db);
    assert.deepEqual([...first].sort(), ['preproduction', 'production', 'sandbox']);
    assert.deepEqual(await ensureDefaultModel(db), [], 'a second start changes nothing');
    const [shipped] = await listModelVersions(db);
    assert.equal(shipped!.version, defaultRiskArtifact().version);
    assert.equal(shipped!.source, 'history');
    assert.deepEqual([...shipped!.activeIn].sort(), ['preproduction', 'production', 'sandbox']);
    // the stored bytes are the artifact's
    assert.deepEqual(parseArtifact(await readModelArtifact(db, shipped!.version)), defaultRiskArtifact());
  });

  it('imports a fitted file as a version, activates it in one environment (audited) and the source follows', async (t) => {
    const { db } = await openTestDatabase(t, { empty: true });
    await ensureDefaultModel(db);
    const fitted = await history('v2-test-import');
    const row = await importVersion(db, 'operator:test', serializeArtifact(fitted));
    assert.equal(row.version, 'v2-test-import');
    assert.deepEqual(row.activeIn, []);
    await assert.rejects(importVersion(db, 'operator:test', serializeArtifact(fitted)), { code: 'conflict' });
    await assert.rejects(importVersion(db, 'operator:test', Buffer.from('not a model')), { code: 'validation_failed' });
    await assert.rejects(importVersion(db, 'operator:test', serializeArtifact(fitted), '../etc'), {
      code: 'validation_failed',
    });

    const source = await DbRiskModelSource.open(db, { fallback: riskModelV1 });
    t.after(() => source.close());
    assert.equal(source.active('sandbox').version, defaultRiskArtifact().version);

    await activateModelVersion(db, 'operator:test', 'v2-test-import', ['sandbox']);
    await source.refresh();
    assert.equal(source.active('sandbox').version, 'v2-test-import');
    assert.equal(source.active('production').version, defaultRiskArtifact().version, 'other environments keep theirs');
    assert.equal(
      source.get(defaultRiskArtifact().version)?.version,
      defaultRiskArtifact().version,
      'the previous version still prices its quotes',
    );
    const p = source.active('sandbox').probabilities(leg);
    assert.ok(p.cancellation.gte(0) && p.cancellation.lte(1));

    const audits = await db
      .selectFrom('audit_log')
      .selectAll()
      .where('entity', '=', 'risk_model')
      .where('entity_id', '=', 'v2-test-import')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audits.map((a) => [a.action, a.actor, a.environment]),
      [
        ['created', 'operator:test', null],
        ['activated', 'operator:test', 'sandbox'],
      ],
    );
    await assert.rejects(activateModelVersion(db, 'operator:test', 'v9-missing', ['sandbox']), { code: 'not_found' });
  });

  it("refits from the platform's own decided production flights, without activating; nothing new, nothing created", async (t) => {
    // its own database: every decided production flight of the database is an observation
    const database = await openTestDatabase(undefined, { empty: true });
    const app = await buildTestApp({ database });
    t.after(async () => {
      await app.close();
      await database.close();
    });
    const { db } = app;
    await ensureDefaultModel(db);
    const now = () => new Date();
    assert.deepEqual(await refitFromOutcomes(db, 'operator:test', now()), {
      kind: 'unchanged',
      reason: 'no_new_observations',
      baseVersion: defaultRiskArtifact().version,
      observations: 0,
    });

    const partner = await createTestPartner(db, { environment: 'production' });
    const sandbox = await createTestPartner(db);
    const flight = await insureFlight(app.app, partner, { flightNumber: 'AF1234' });
    const simulated = await insureFlight(app.app, sandbox, { flightNumber: 'AF1235' });
    const dayBefore = new Date(Date.parse(`${flight.departureDate}T10:30:00Z`) - 86_400_000);
    await planWatches({ db, now: () => dayBefore });
    const dayAfter = new Date(dayBefore.getTime() + 2 * 86_400_000); // a delay is stated once flown
    await recordOperatorFlightEvent(
      { db, jobs: app.app.parasol.jobs, now: () => dayAfter },
      {
        environment: 'production',
        flightNumber: 'AF1234',
        departureDate: flight.departureDate,
        status: 'delayed',
        arrivalDelayMinutes: 200,
      },
      'operator:test',
    );
    await recordOperatorFlightEvent(
      { db, jobs: app.app.parasol.jobs, now },
      { environment: 'sandbox', flightNumber: 'AF1235', departureDate: simulated.departureDate, status: 'cancelled' },
      'operator:test',
    );

    const outcome = await refitFromOutcomes(db, 'operator:test', new Date('2026-11-23T16:20:31Z'));
    assert.equal(outcome.kind, 'created');
    assert.equal(outcome.observations, 1, 'the production flight only: sandbox outcomes are simulated');
    assert.equal(outcome.kind === 'created' && outcome.version, `${defaultRiskArtifact().version}.r202611231620`);
    const versions = await listModelVersions(db);
    const refit = versions.find((v) => v.source === 'refit')!;
    assert.equal(refit.baseVersion, defaultRiskArtifact().version);
    assert.deepEqual(refit.activeIn, [], 'a refit is compared before it goes live');
    assert.equal(refit.dataCutoff, flight.departureDate, 'the cut-off moves to the last observed flight');
    const refitted = parseArtifact(await readModelArtifact(db, refit.version));
    assert.equal(refitted.legs, defaultRiskArtifact().legs + 1);

    assert.equal(
      (await refitFromOutcomes(db, 'operator:test', new Date())).kind,
      'unchanged',
      'no new flight decided since',
    );
    assert.equal(refit.observations, 1, 'the flight is counted once, however many contracts it carries');

    // the same flight's decision corrected (the count is unchanged): its outcome changed, so a refit fits it
    await db
      .updateTable('flight_watches')
      .set({
        decision: JSON.stringify({ kind: 'delayed', arrivalDelayMinutes: 40, claimsOpened: 0, source: 'operator' }),
      })
      .where('environment', '=', 'production')
      .where('flight_number', '=', 'AF1234')
      .execute();
    // two refits at once (the weekly job and the CLI): one version, the other finds it made
    const [one, two] = await Promise.all([
      refitFromOutcomes(db, 'operator:one', new Date('2026-11-30T03:17:00Z')),
      refitFromOutcomes(db, 'operator:two', new Date('2026-11-30T03:18:00Z')),
    ]);
    assert.deepEqual(
      [one.kind, two.kind].sort(),
      ['created', 'unchanged'],
      `one refit of the corrected outcome: ${JSON.stringify([one, two])}`,
    );
    const refits = (await listModelVersions(db)).filter((v) => v.source === 'refit');
    assert.equal(refits.length, 2);
    const corrected = parseArtifact(await readModelArtifact(db, refits[0]!.version));
    assert.equal(corrected.legs, defaultRiskArtifact().legs + 1, 'the flight once, with its corrected outcome');
    assert.equal((await refitFromOutcomes(db, 'operator:test', new Date('2026-12-07T03:17:00Z'))).kind, 'unchanged');

    // two refits of other outcomes in the same minute: distinct names, sorted by time, each artifact named as its row
    const decide = (arrivalDelayMinutes: number) =>
      db
        .updateTable('flight_watches')
        .set({
          decision: JSON.stringify({ kind: 'delayed', arrivalDelayMinutes, claimsOpened: 0, source: 'operator' }),
        })
        .where('environment', '=', 'production')
        .where('flight_number', '=', 'AF1234')
        .execute();
    const named: string[] = [];
    for (const [delay, at] of [
      [90, '2026-12-07T03:17:10Z'],
      [300, '2026-12-07T03:17:40Z'],
      [20, '2026-12-07T03:17:59Z'],
    ] as const) {
      await decide(delay);
      const made = await refitFromOutcomes(db, 'operator:test', new Date(at));
      assert.equal(made.kind, 'created', `a refit of the outcome corrected to ${delay} min: ${JSON.stringify(made)}`);
      if (made.kind === 'created') named.push(made.version);
    }
    const minute = `${defaultRiskArtifact().version}.r202612070317`;
    assert.deepEqual(named, [minute, `${minute}-002`, `${minute}-003`]);
    assert.deepEqual([...named].sort(), named, 'sorted by name, sorted by time');
    for (const version of named)
      assert.equal(parseArtifact(await readModelArtifact(db, version)).version, version, 'its artifact says its name');
    // the renamed one activates (its artifact names its row) and sandbox prices with it; then back to the shipped
    const activeIn = async (version: string) =>
      (await listModelVersions(db)).find((v) => v.version === version)?.activeIn;
    await activateModelVersion(db, 'operator:test', `${minute}-002`, ['sandbox']);
    assert.deepEqual(await activeIn(`${minute}-002`), ['sandbox']);
    await activateModelVersion(db, 'operator:test', defaultRiskArtifact().version, ['sandbox']);
    assert.deepEqual(await activeIn(`${minute}-002`), []);
    assert.deepEqual(
      (await activeIn(defaultRiskArtifact().version))?.sort(),
      ['preproduction', 'production', 'sandbox'],
      'every environment on the shipped model again',
    );

    // a base of 64 characters (the longest `risk import --version` takes): its end is cut, the stamp and suffix never
    const long = `v3-${'x'.repeat(55)}-12345`;
    assert.equal(long.length, 64);
    await importVersion(db, 'operator:test', serializeArtifact(defaultRiskArtifact()), long);
    const longNamed: string[] = [];
    for (const [delay, at] of [
      [45, '2026-12-07T03:18:05Z'],
      [75, '2026-12-07T03:18:30Z'],
      [15, '2026-12-08T03:18:00Z'],
    ] as const) {
      await decide(delay);
      const made = await refitFromOutcomes(db, 'operator:test', new Date(at));
      assert.equal(made.kind === 'created' && made.baseVersion, long, JSON.stringify(made));
      if (made.kind === 'created') longNamed.push(made.version);
    }
    const cut = long.slice(0, 46); // the same cut for each, room kept for the suffix (`-999`)
    assert.deepEqual(longNamed, [`${cut}.r202612070318`, `${cut}.r202612070318-002`, `${cut}.r202612080318`]);
    assert.ok(
      longNamed.every((v) => v.length <= 64),
      'at most 64 characters',
    );
    assert.deepEqual([...longNamed].sort(), longNamed, 'sorted by name, sorted by time, another day another name');
  });

  it('names refits so that they sort by time, whatever the count in one minute, within 64 characters', () => {
    const at = new Date('2026-12-07T03:17:42Z');
    const names = Array.from({ length: REFITS_PER_MINUTE }, (_, i) => refitVersionName('v2-base', at, i + 1));
    assert.equal(names[0], 'v2-base.r202612070317');
    assert.deepEqual(names.slice(1, 3), ['v2-base.r202612070317-002', 'v2-base.r202612070317-003']);
    assert.deepEqual(
      [names[8], names[9], names[99]],
      ['v2-base.r202612070317-009', 'v2-base.r202612070317-010', 'v2-base.r202612070317-100'],
    );
    assert.deepEqual([...names].sort(), names, 'the 10th after the 9th, the 100th after the 99th');
    assert.equal(new Set(names).size, names.length);
    // the next minute sorts after every one of this minute's, and after the names of the earlier scheme
    const next = refitVersionName('v2-base', new Date('2026-12-07T03:18:00Z'));
    assert.ok(next > names.at(-1)! && next > 'v2-base.r202612070317-9', next);
    assert.throws(() => refitVersionName('v2-base', at, REFITS_PER_MINUTE + 1), RangeError);
    const long = 'x'.repeat(64);
    for (const n of [1, 2, 10, REFITS_PER_MINUTE]) {
      const name = refitVersionName(long, at, n);
      assert.ok(name.length <= 64 && name.startsWith(`${'x'.repeat(46)}.r202612070317`), name);
    }
  });

  it('refuses to activate a version that cannot price: corrupt bytes, another version inside, fitted on no data', async (t) => {
    const { db } = await openTestDatabase(t, { empty: true });
    await ensureDefaultModel(db);
    const fitted = await history('v2-sound');
    await importVersion(db, 'operator:test', serializeArtifact(fitted));
    const empty = { ...fitted, version: 'v2-empty', legs: 0, months: {}, daysOfWeek: {}, airlines: [], airports: [] };
    empty.cells = { airline: [], flightNumber: [], origin: [], dest: [], hour: [], counts: [] };
    await assert.rejects(
      importVersion(db, 'operator:test', serializeArtifact(empty)),
      (error: Error & { code?: string }) => error.code === 'validation_failed' && /no data/.test(error.message),
      'an artifact of no observations is not stored',
    );
    // rows as a faulty import, a restore or a disk would leave them (not through importVersion)
    const row = (version: string, bytes: Buffer, sha = crypto.createHash('sha256').update(bytes).digest('hex')) =>
      db
        .insertInto('risk_models')
        .values({
          version,
          artifact: bytes,
          sha256: sha,
          data_cutoff: '2008-03-28',
          source: 'history',
          base_version: null,
          created_by: 'test',
        })
        .execute();
    const sound = serializeArtifact(fitted);
    await row('v2-empty', serializeArtifact(empty));
    await row('v2-renamed', sound); // the artifact inside says v2-sound
    await row(
      'v2-corrupt',
      Buffer.from(sound.subarray(0, 100)),
      crypto.createHash('sha256').update(sound).digest('hex'),
    );
    await row('v2-garbage', Buffer.from('not a model'));
    for (const [version, why] of [
      ['v2-empty', /no data/],
      ['v2-renamed', /names version v2-sound/],
      ['v2-corrupt', /SHA-256/],
      ['v2-garbage', /gzip JSON/],
    ] as const) {
      await assert.rejects(
        activateModelVersion(db, 'operator:test', version, ['production']),
        (error: Error & { code?: string }) => error.code === 'validation_failed' && why.test(error.message),
        version,
      );
    }
    const versions = await listModelVersions(db);
    assert.deepEqual(
      versions.find((v) => v.version === defaultRiskArtifact().version)?.activeIn.sort(),
      ['preproduction', 'production', 'sandbox'],
      'nothing was activated',
    );
    // a version made active behind the platform's back (SQL): the source keeps the environment's model and says why
    const source = await DbRiskModelSource.open(db, { fallback: riskModelV1 });
    t.after(() => source.close());
    await db
      .updateTable('risk_model_activations')
      .set({ version: 'v2-corrupt' })
      .where('environment', '=', 'sandbox')
      .execute();
    await assert.rejects(source.refresh(), /v2-corrupt \(active in sandbox\).*SHA-256/);
    assert.equal(source.active('sandbox').version, defaultRiskArtifact().version, 'not the fallback (version 1)');
    // a process starting with it active: it starts, says why, and the environment prices with the shipped model
    const errors: Error[] = [];
    const starting = await DbRiskModelSource.open(db, {
      fallback: riskModelV1,
      shipped: defaultRiskArtifact().version,
      onError: (error) => errors.push(error),
    });
    t.after(() => starting.close());
    assert.deepEqual(
      errors.map((e) => e.message.replace(/:.*/, '')),
      ['risk model version v2-corrupt (active in sandbox)'],
    );
    assert.equal(starting.active('sandbox').version, defaultRiskArtifact().version, 'the shipped model, not version 1');
    await activateModelVersion(db, 'operator:test', 'v2-sound', ['sandbox']);
    await source.refresh();
    assert.equal(source.active('sandbox').version, 'v2-sound');
  });

  it('two operators activating at once: each audits the version it replaced; overlapping refreshes end on the last', async (t) => {
    const { db } = await openTestDatabase(t, { empty: true });
    await ensureDefaultModel(db);
    for (const version of ['v2-a', 'v2-b', 'v2-c'])
      await importVersion(db, 'operator:test', serializeArtifact(await history(version)));
    // both built already (activated elsewhere first): the two transactions overlap
    await activateModelVersion(db, 'operator:test', 'v2-a', ['sandbox']);
    await activateModelVersion(db, 'operator:test', 'v2-b', ['sandbox']);
    await Promise.all([
      activateModelVersion(db, 'operator:one', 'v2-a', ['production']),
      activateModelVersion(db, 'operator:two', 'v2-b', ['production']),
    ]);
    const audits = await db
      .selectFrom('audit_log')
      .select(['entity_id', 'data'])
      .where('entity', '=', 'risk_model')
      .where('action', '=', 'activated')
      .where('environment', '=', 'production')
      .where('actor', 'in', ['operator:one', 'operator:two'])
      .orderBy('id')
      .execute();
    const chain = audits.map((a) => [(a.data as { previous: string | null }).previous, a.entity_id]);
    assert.equal(chain.length, 2);
    assert.equal(chain[0]![0], defaultRiskArtifact().version, JSON.stringify(chain));
    assert.equal(chain[1]![0], chain[0]![1], `the second replaced the first: ${JSON.stringify(chain)}`);
    const active = (await listModelVersions(db)).find((v) => v.activeIn.includes('production'))!.version;
    assert.equal(active, chain[1]![1]);

    // a refresh that read the activations first (v2-c, built) and is held before it sets the models,
    // while a later one (v2-a, read after the change) runs to the end: the models stay the later one's
    let held: Promise<void> | undefined;
    let reached!: () => void;
    const heldThere = new Promise<void>((resolve) => (reached = resolve));
    const source = await DbRiskModelSource.open(db, {
      fallback: riskModelV1,
      beforeApply: () => {
        const wait = held;
        held = undefined; // one refresh only: the later one passes
        if (wait) reached();
        return wait;
      },
    });
    t.after(() => source.close());
    await activateModelVersion(db, 'operator:test', 'v2-a', ['sandbox']);
    const set = (version: string, environments: Environment[]) =>
      db.updateTable('risk_model_activations').set({ version }).where('environment', 'in', environments).execute();
    await set('v2-c', ['sandbox', 'preproduction']);
    let release!: () => void;
    held = new Promise<void>((resolve) => (release = resolve));
    const first = source.refresh();
    // the first refresh read v2-c and built it, and waits there
    await Promise.race([heldThere, first.then(() => assert.fail('the first refresh was not held'))]);
    await set('v2-a', ['sandbox', 'preproduction']);
    await source.refresh();
    assert.equal(source.active('sandbox').version, 'v2-a');
    release();
    await first;
    assert.equal(source.active('sandbox').version, 'v2-a', 'the earlier refresh, finished last, changes nothing');
    assert.equal(source.active('preproduction').version, 'v2-a');
  });

  it('is operated from the command line: versions, import, activate, refit, export', async (t) => {
    const { db } = await openTestDatabase(t, { empty: true });
    await ensureDefaultModel(db);
    const cli = (...argv: string[]) => runCliOn({ db }, argv, { actor: 'operator:cli-test' });
    const fs = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-risk-'));
    t.after(() => fs.rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'model.json.gz');
    await fs.writeFile(file, serializeArtifact(await history('ignored-name')));

    const imported = await cli('risk', 'import', file, '--version', 'v2-cli');
    assert.equal(imported.code, 0, imported.err);
    // the same name again: a conflict, said, exit 1, the stored version untouched
    const stored = await readModelArtifact(db, 'v2-cli');
    await fs.writeFile(file, serializeArtifact(await history('other-name')));
    const again = await cli('risk', 'import', file, '--version', 'v2-cli');
    assert.equal(again.code, 1, `a name taken already: ${again.out}`);
    assert.equal(again.err.trim(), 'error: Risk model version v2-cli exists already.');
    const againJson = await cli('--json', 'risk', 'import', file, '--version', 'v2-cli');
    assert.equal(againJson.code, 1);
    assert.equal((JSON.parse(againJson.err) as { error: { code: string } }).error.code, 'conflict');
    assert.deepEqual(await readModelArtifact(db, 'v2-cli'), stored, 'the first import stands');
    const activated = await cli('risk', 'activate', 'v2-cli', '--env', 'all');
    assert.equal(activated.code, 0, activated.err);
    assert.equal((await cli('risk', 'activate', 'v2-cli')).code, 2, 'the environment is required');
    assert.equal((await cli('risk', 'activate', 'nope', '--env', 'sandbox')).code, 1);
    await storeCorrupt(db, 'v2-cli-corrupt');
    const refused = await cli('risk', 'activate', 'v2-cli-corrupt', '--env', 'sandbox');
    assert.equal(refused.code, 1, 'a version that cannot price');
    assert.match(refused.err, /cannot price.*SHA-256/);
    const versions = await cli('--json', 'risk', 'versions');
    assert.equal(versions.code, 0, versions.err);
    const listed = JSON.parse(versions.out) as { versions: { version: string; activeIn: string[] }[] };
    assert.deepEqual(listed.versions.find((v) => v.version === 'v2-cli')?.activeIn.sort(), [
      'preproduction',
      'production',
      'sandbox',
    ]);
    const exported = path.join(dir, 'exported.json.gz');
    const exportRun = await cli('risk', 'export', 'v2-cli', exported);
    assert.equal(exportRun.code, 0, exportRun.err);
    assert.equal(parseArtifact(await fs.readFile(exported)).version, 'v2-cli');
    const refit = await cli('risk', 'refit');
    assert.equal(refit.code, 0, refit.err);
  });
});

describe('pricing with the stored versions', () => {
  const ADMIN = { email: 'ops-risk-tests@parasol.test', password: 'operator password 47' };

  it('a fresh app quotes with the shipped v2; the operator activates another version in the console and new quotes use it', async (t) => {
    // its own database: it activates a version, which every app of a shared database would see
    const database = await openTestDatabase(undefined, { empty: true });
    const app = await buildTestApp({
      database,
      storedRiskModels: true,
      env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password },
    });
    t.after(async () => {
      await app.close();
      await database.close();
    });
    const partner = await createTestPartner(app.db);
    const trip = {
      departureAirport: 'ORD',
      arrivalAirport: 'LAX',
      airline: 'AA',
      departureDateTime: `${new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10)}T18:15`,
    };
    const quote = await post(app.app, `${FLIGHT}/getPrice`, trip, partner.auth);
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    assert.equal(quote.body.modelVersion, defaultRiskArtifact().version);
    const leg = quote.body.breakdown[0];
    assert.ok(leg.credibility > 0, 'a US domestic route the history covers');
    assert.ok(
      leg.events.every((e: { explanation: { text: string } }) => / = [\d.]+ %$/.test(e.explanation.text)),
      JSON.stringify(leg.events),
    );

    await importVersion(app.db, 'operator:test', serializeArtifact(await history('v2-console')));
    const operator = new Browser(app.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const page = await operator.get('/admin/risk');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<code>v2-console<\/code>/);
    const csrf = csrfOf(page.body)!;
    assert.equal(
      (await operator.post('/admin/risk/activate', { version: 'v2-console', environment: 'sandbox' })).statusCode,
      403,
      'no CSRF token, no change',
    );
    assert.equal(
      (await operator.post('/admin/risk/activate', { _csrf: csrf, version: 'nope', environment: 'sandbox' }))
        .statusCode,
      404,
    );
    const activated = await operator.post('/admin/risk/activate', {
      _csrf: csrf,
      version: 'v2-console',
      environment: 'sandbox',
    });
    assert.equal(activated.statusCode, 200);
    assert.match(activated.body, /v2-console now prices new quotes in sandbox/);
    await storeCorrupt(app.db, 'v2-console-corrupt');
    const refused = await operator.post('/admin/risk/activate', {
      _csrf: csrf,
      version: 'v2-console-corrupt',
      environment: 'sandbox',
    });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /v2-console-corrupt cannot price: .*the stored bytes .* do not match their SHA-256/);
    // another environment's version broken behind the platform's back: the activation is saved all the same
    await app.db
      .updateTable('risk_model_activations')
      .set({ version: 'v2-console-corrupt' })
      .where('environment', '=', 'preproduction')
      .execute();
    const warned = await operator.post('/admin/risk/activate', {
      _csrf: csrf,
      version: 'v2-console',
      environment: 'sandbox',
    });
    assert.equal(warned.statusCode, 200);
    assert.match(warned.body, /v2-console now prices new quotes in sandbox/);
    assert.match(
      warned.body,
      /could not reload every environment’s model: .*v2-console-corrupt \(active in preproduction\)/,
    );
    // in French, a sentence of its own: the error's English detail is the log's
    await operator.get('/lang/fr?next=/admin/risk');
    const warnedFr = await operator.post('/admin/risk/activate', {
      _csrf: csrf,
      version: 'v2-console',
      environment: 'sandbox',
    });
    assert.equal(warnedFr.statusCode, 200);
    assert.match(
      warnedFr.body,
      /ce serveur n’a pas pu recharger le modèle de chaque environnement\u202f: le détail est dans le journal du serveur\./,
    );
    assert.doesNotMatch(warnedFr.body, /active in preproduction|could not/);
    await operator.get('/lang/en?next=/admin/risk');

    const refit = await operator.post('/admin/risk/refit', { _csrf: csrf });
    assert.equal(refit.statusCode, 303, 'the refit is a job for the worker');
    assert.match((await operator.get(refit.headers.location as string)).body, /Refit queued/);

    const after = await post(app.app, `${FLIGHT}/getPrice`, trip, partner.auth);
    assert.equal(after.body.modelVersion, 'v2-console', 'the process that activated reloads at once');
    const contract = await post(
      app.app,
      `${FLIGHT}/subscribe`,
      subscription(quote.body.quoteReference, trip as never, {
        flights: [
          {
            flightNumber: 'AA123',
            departureAirport: 'ORD',
            arrivalAirport: 'LAX',
            departureDateTime: trip.departureDateTime,
          },
        ],
      }),
      partner.auth,
    );
    assert.equal(contract.status, 201, JSON.stringify(contract.body));
    assert.equal(
      contract.body.modelVersion,
      defaultRiskArtifact().version,
      'a quote keeps the version it was priced with',
    );
    assert.deepEqual(contract.body.premium, quote.body.premium);
  });
});
