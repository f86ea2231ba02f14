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
  serializeArtifact,
  type FlightObservation,
} from '../../src/risk/index.ts';
import { riskModelV1 } from '../../src/flight/risk-model.ts';
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
    const activated = await cli('risk', 'activate', 'v2-cli', '--env', 'all');
    assert.equal(activated.code, 0, activated.err);
    assert.equal((await cli('risk', 'activate', 'v2-cli')).code, 2, 'the environment is required');
    assert.equal((await cli('risk', 'activate', 'nope', '--env', 'sandbox')).code, 1);
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
