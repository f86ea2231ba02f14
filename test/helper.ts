import { sql } from 'kysely';
import type { CustomerLang } from '../src/platform/language.ts';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp, type BuildOptions } from '../src/app.ts';
import type { CliIo } from '../src/cli/kit.ts';
import type { ClaimView } from '../src/flight/index.ts';
import type { PolicyView } from '../src/policies/index.ts';
import type { UndeclaredProblem } from '../src/platform/openapi.ts';
import { riskModelV1 } from '../src/flight/risk-model.ts';
import { createApiKey } from '../src/partners/api-keys.ts';
import { setConfiguration, type ConfigurationInput } from '../src/partners/configuration.ts';
import { setDocuments } from '../src/partners/documents.ts';
import { APIS, type ApiName, type DocumentSetInput, type Environment } from '../src/partners/model.ts';
import { DEMO_DOCUMENTS } from '../src/partners/seed.ts';
import {
  createPartner,
  setAgreement,
  setSubscription,
  signAgreement,
  type AgreementInput,
} from '../src/partners/partners.ts';
import { loadConfig, type Config } from '../src/platform/config.ts';
import { decrypt } from '../src/platform/crypto.ts';
import { migrationFiles, openDatabase, type DatabaseHandle, type Db } from '../src/platform/db.ts';
import type { Browser } from './web/inject-browser.ts';

/**
 * Test tiers share these helpers. The database is PGlite in memory by default, or the PostgreSQL of
 * TEST_DATABASE_URL: each `openTestDatabase` is a database of its own, copied from a migrated
 * template (and factories create a fresh partner every time).
 */
export const usingPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * Polls until `check` returns a value other than undefined (jobs run asynchronously); fails after
 * `ms`, a ceiling for a stuck test, never a speed requirement: generous so a loaded machine passes.
 */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/**
 * The bank-details link of a production claim's first SMS (queued for Twilio, which the tests do not
 * configure), read from its sealed body once the notification job has written it.
 */
export async function productionSmsLink(t: TestApp, claimId: string): Promise<string> {
  return eventually(async () => {
    const sms = await t.db
      .selectFrom('sms_messages')
      .select('body_enc')
      .where('claim_id', '=', claimId)
      .executeTakeFirst();
    return sms ? /https:\/\/\S+/.exec(decrypt(t.app.parasol.keys.encryption, sms.body_enc))?.[0] : undefined;
  });
}

/** Where to hang the teardown: a test's context (`t.after`), or nothing and the caller closes. */
type Teardown = Pick<TestContext, 'after'> | undefined;

/**
 * A migrated database of its own, empty of business rows (`empty` is kept for the callers that say
 * they need it: every test database is now its own). Nobody pays the migrations or PGlite's initdb
 * per database: on PostgreSQL, a copy of one migrated template database (`CREATE DATABASE … TEMPLATE`,
 * dropped on close); on PGlite, an in-memory instance started from a tarball of one migrated data
 * directory, cached in the temporary directory across test files. Both templates are named by a hash
 * of the migrations (and of PGlite's version), so a new migration builds a new template.
 */
export async function openTestDatabase(t?: Teardown, _options: { empty?: boolean } = {}): Promise<DatabaseHandle> {
  const url = process.env.TEST_DATABASE_URL;
  const handle = url ? await openPostgresCopy(url) : await openDatabase({ loadDataDir: await pgliteTemplate() });
  await handle.migrate(); // a no-op on the template's copy; kept so a stale template can never hide a migration
  t?.after(() => handle.close());
  return handle;
}

/**
 * `ms` of time passed for the shared circuit `key` (platform/circuit-breaker.ts `SharedCircuitBreaker`,
 * on the database's clock, which a test cannot move): its stored instants — the cool-down's end, the
 * probe's mark — moved that far into the past. A probe whose mark moved is then one a newer probe may
 * replace, and its own answers a straggler's: move time only past a probe's timeout, or with none.
 */
export async function circuitTimePassed(db: Db, key: string, ms: number): Promise<void> {
  const earlier = (column: 'opened_until' | 'probe_started_at') =>
    sql<Date>`${sql.ref(column)} - ${ms}::double precision * interval '1 millisecond'`;
  await db
    .updateTable('provider_circuits')
    .set({ opened_until: earlier('opened_until'), probe_started_at: earlier('probe_started_at') })
    .where('provider', '=', key)
    .execute();
}

/**
 * A logger that keeps what it is given, for a test to read its lines (manual review must warn, a
 * sweep reports its run): `info`, `warn` and `error` as the app's logger takes them (the fields, then
 * the message). Its lines are the calls, not the JSON written: createLogger with a `stream` for that.
 */
export function recordingLog() {
  const lines: { level: string; message: string; data: Record<string, unknown> }[] = [];
  const record = (level: string) => (data: object, message?: string) =>
    void lines.push({ level, message: message ?? '', data: data as Record<string, unknown> });
  return { lines, info: record('info'), warn: record('warn'), error: record('error') };
}

/** Migration files' names and contents, with PGlite's version: the templates' identity. */
const templateKey = memoise(async () => {
  const hash = crypto.createHash('sha256');
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  for (const file of migrationFiles()) hash.update(file).update(await fs.readFile(path.join(root, 'migrations', file)));
  hash.update(await fs.readFile(path.join(root, 'node_modules/@electric-sql/pglite/package.json')));
  return hash.digest('hex').slice(0, 12);
});

function memoise<T>(build: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () =>
    (value ??= build().catch((error) => {
      value = undefined;
      throw error;
    }));
}

/** The migrated PGlite data directory as a tarball: read from the cache file, or built once and written there. */
const pgliteTemplate = memoise(async (): Promise<Blob> => {
  const file = path.join(os.tmpdir(), `parasol-test-pglite-${await templateKey()}.tar`);
  try {
    return new Blob([await fs.readFile(file)]);
  } catch {
    // not built yet (or by a concurrent file at this very moment: both build, the last rename wins)
  }
  const handle = await openDatabase({});
  try {
    await handle.migrate();
    const blob = await handle.dumpDataDir!();
    const partial = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    await fs.writeFile(partial, Buffer.from(await blob.arrayBuffer()));
    await fs.rename(partial, file); // atomic: a reader sees a whole tarball or none
    return blob;
  } finally {
    await handle.close();
  }
});

/** Runs statements on the server's `postgres` database (CREATE/DROP DATABASE cannot run in the test's own). */
async function onPostgresAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, name: string): string {
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

/** The name of TEST_DATABASE_URL's database: the prefix of its template and copies (one per engineer or CI run). */
function baseName(url: string): string {
  return (
    decodeURIComponent(new URL(url).pathname.slice(1))
      .replace(/[^a-z0-9_]/gi, '_')
      .slice(0, 30) || 'parasol'
  );
}

/**
 * The migrated template on PostgreSQL, built once per set of migrations: under an advisory lock
 * (test files start at once), migrated under a temporary name and renamed when complete, so a
 * process killed half-way leaves no half-migrated template.
 */
const postgresTemplate = memoise(async (): Promise<string> => {
  const url = process.env.TEST_DATABASE_URL!;
  const name = `${baseName(url)}_tpl_${await templateKey()}`;
  return onPostgresAdmin(url, async (client) => {
    await client.query('SELECT pg_advisory_lock(7270302)');
    try {
      if ((await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name;
      const building = `${name}_building`;
      await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${building}`);
      const handle = await openDatabase({ databaseUrl: withDatabase(url, building), poolSize: 1 });
      try {
        await handle.migrate();
      } finally {
        await handle.close();
      }
      // the migration's connection is closed, but its server process may still be on its way out
      await retryWhileAccessed(() => client.query(`ALTER DATABASE ${building} RENAME TO ${name}`));
      return name;
    } finally {
      await client.query('SELECT pg_advisory_unlock(7270302)');
    }
  });
});

let copies = 0;

/**
 * 55006 "database is being accessed by other users": a connection to the template (or to the database
 * being renamed) has been closed by its client and its server process has not exited yet. Short-lived:
 * try again for up to a minute.
 */
async function retryWhileAccessed<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 200) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
}

/** A copy of the migrated template on the test server, dropped on close. */
async function openPostgresCopy(url: string): Promise<DatabaseHandle> {
  const template = await postgresTemplate();
  copies += 1;
  const name = `${baseName(url)}_${process.pid}_${copies}_${crypto.randomBytes(3).toString('hex')}`;
  // FILE_COPY copies the template's files (fast for a small database) instead of WAL-logging every block
  await onPostgresAdmin(url, (client) =>
    retryWhileAccessed(() => client.query(`CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`)),
  );
  const handle = await openDatabase({ databaseUrl: withDatabase(url, name), poolSize: 20 });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await onPostgresAdmin(url, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    PARASOL_DATA_DIR: path.join(os.tmpdir(), `parasol-test-${process.pid}`),
    PARASOL_MASTER_KEY: crypto.createHash('sha256').update('parasol tests').digest('base64'),
    LOG_LEVEL: 'silent',
    PARASOL_RATE_LIMIT_PER_MINUTE: '100000',
    PARASOL_AUTH_FAILURES_PER_MINUTE: '100000', // tests of bad keys all come from 127.0.0.1
    // Many tests insure the same flights (trip(): AF CDG→JFK) on one shared PostgreSQL database: a
    // cap that never refuses them. The limits tests set their own caps (test/http/flight-limits.http.test.ts).
    PARASOL_FLIGHT_CAP_DEFAULT: '1000000000',
    // The scheduled SEPA batch would take, at the top of an hour, the pending payouts a test is about
    // to batch itself: off unless a test asks (test/payouts/sepa-schedule.db.test.ts).
    PARASOL_SEPA_BATCH_SCHEDULE: 'off',
    // Quiet hours hold reminders and expiry notices at night where the customer lives (their phone's
    // country): tests run at any hour, so off unless a test asks (test/claims/quiet-hours.http.test.ts).
    PARASOL_SMS_QUIET_HOURS: 'off',
    ...overrides,
  });
}

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  database: DatabaseHandle;
  /** Closes the app and the database it opened. */
  close(): Promise<void>;
}

/**
 * What a run of the CLI may add or change (CliIo): another actor, a clock, flight providers, standard
 * input, files, a configuration of its own — or services where a database alone has none.
 */
export type CliRunOptions = Partial<Omit<CliIo, 'db' | 'out' | 'err'>>;

/**
 * Runs one operator command as `parasol` would inside the server: against a test app's database and
 * services (configuration, keys, job queue), or against a database alone (`{ db }`: the commands that
 * need no services, as the database tier's files run them). Its exit code and what it printed;
 * `options` add to or replace the services (actor `operator:test` unless told).
 */
export async function runCliOn(
  t: TestApp | { db: Db },
  argv: string[],
  options: CliRunOptions = {},
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { config, keys, jobs } = 'app' in t ? t.app.parasol : {};
  // imported here: the command definitions load every domain, which the unit tier's files never need
  const { runCli } = await import('../src/cli/program.ts');
  const code = await runCli(argv, {
    db: t.db,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    actor: 'operator:test',
    ...(config && keys && jobs ? { config, keys, jobs } : {}),
    ...options,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/**
 * An operator's API token, made as an operator makes one (`parasol operators token-create`): what
 * production flight events need (POST /claims). Its plaintext and the header that sends it.
 */
export async function operatorToken(
  t: TestApp,
  name: string,
): Promise<{ plaintext: string; auth: { authorization: string } }> {
  const created = await runCliOn(t, ['--json', 'operators', 'token-create', '--name', name]);
  assert.equal(created.code, 0, created.err);
  const { plaintext } = JSON.parse(created.out) as { plaintext: string };
  return { plaintext, auth: { authorization: `Bearer ${plaintext}` } };
}

/** The configuration of production payouts (SEPA credit transfer files written to `payoutsDir`). */
export function sepaPayoutsEnv(payoutsDir: string): Record<string, string> {
  return {
    PARASOL_PAYOUTS_DIR: payoutsDir,
    PARASOL_SEPA_DEBTOR_NAME: 'Parasol Assurances SA',
    PARASOL_SEPA_DEBTOR_IBAN: 'FR7630006000011234567890189',
    PARASOL_SEPA_DEBTOR_BIC: 'AGRIFRPP',
    PARASOL_SEPA_DEBTOR_ADDRESS: 'FR:1 place de la Bourse|75002 Paris',
  };
}

/**
 * A ready app on its own test database. In a suite: `before(async () => (t = await buildTestApp()))`
 * and `after(() => t.close())`.
 */
export async function buildTestApp(
  options: BuildOptions & { env?: Record<string, string>; storedRiskModels?: boolean } = {},
): Promise<TestApp> {
  const ownDatabase = !options.database;
  const database = options.database ?? (await openTestDatabase());
  // Pricing tests state their premiums under version 1 (the table of priors, docs/pricing.md); an app
  // that prices with the versions stored in the database (the shipped v2) asks for storedRiskModels.
  const { storedRiskModels, ...rest } = options;
  const riskModel = storedRiskModels || rest.riskModels ? rest.riskModel : (rest.riskModel ?? riskModelV1);
  // every problem an API operation answers is held to the codes its document lists for that status
  // (platform/openapi.ts, operationProblemCodes): one it does not list fails the suite at close
  const undeclared: UndeclaredProblem[] = [];
  const app = await buildApp(testConfig(options.env), {
    cacheTtlMs: 0,
    onUndeclaredProblem: (problem) => undeclared.push(problem),
    ...rest,
    riskModel,
    database,
  });
  return {
    app,
    db: database.db,
    database,
    close: async () => {
      await app.close();
      if (ownDatabase) await database.close();
      if (undeclared.length > 0) throw new Error(undeclaredProblemsMessage(undeclared));
    },
  };
}

/** The problems answered with a code their operation's document does not list, one line each. */
export function undeclaredProblemsMessage(problems: readonly UndeclaredProblem[]): string {
  const lines = [
    ...new Set(
      problems.map(
        (p) => `${p.method} ${p.route} ${p.status} ${p.code} (documented: ${p.documented.join(', ') || 'none'})`,
      ),
    ),
  ];
  return `The API answered problem codes its OpenAPI document does not list; declare them on the route (problemResponses):\n${lines.join('\n')}`;
}

let counter = 0;
export function uniqueSlug(prefix = 'partner'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export const DEFAULT_AGREEMENT: AgreementInput = {
  allowedFormulas: ['delay', 'cancellation', 'delay_and_cancellation'],
  currency: 'EUR',
  taxRate: '0.09',
  commissionMin: '0',
  commissionMax: '0.3',
  compensationMin: 1_000,
  compensationMax: 50_000,
};

export const DEFAULT_CONFIGURATION: ConfigurationInput = {
  formula: 'delay_and_cancellation',
  delayTiers: [
    { minDelayMinutes: 120, amount: 5_000 },
    { minDelayMinutes: 180, amount: 10_000 },
  ],
  cancellationAmount: 15_000,
  commissionRate: '0.2',
};

export interface TestPartner {
  id: string;
  slug: string;
  /** Plaintext API key of `environment`. */
  key: string;
  environment: Environment;
  auth: { authorization: string };
}

/** A fresh partner with an agreement (signed unless told), subscriptions, a configuration and a key. */
export async function createTestPartner(
  db: Db,
  options: {
    signed?: boolean;
    apis?: ApiName[];
    agreement?: Partial<AgreementInput>;
    configuration?: Partial<ConfigurationInput> | null;
    /** The agreement's compliance pack (version 1); null for none. */
    documents?: DocumentSetInput | null;
    environment?: Environment;
  } = {},
): Promise<TestPartner> {
  const actor = 'operator:test';
  const partner = await createPartner(db, actor, { slug: uniqueSlug(), name: 'Test Partner' });
  await setAgreement(db, actor, partner.id, { ...DEFAULT_AGREEMENT, ...options.agreement });
  if (options.signed ?? true) await signAgreement(db, actor, partner.id);
  if (options.documents !== null) await setDocuments(db, actor, partner.id, options.documents ?? DEMO_DOCUMENTS);
  for (const api of options.apis ?? APIS) await setSubscription(db, actor, partner.id, api, true);
  if (options.configuration !== null)
    await setConfiguration(db, actor, partner.id, { ...DEFAULT_CONFIGURATION, ...options.configuration });
  const environment = options.environment ?? 'sandbox';
  const { plaintext } = await createApiKey(db, actor, { partnerId: partner.id, environment });
  return {
    id: partner.id,
    slug: partner.slug,
    key: plaintext,
    environment,
    auth: { authorization: `Bearer ${plaintext}` },
  };
}

/** Local wall-clock 'YYYY-MM-DDTHH:mm' some days ahead (good enough for airports near UTC±12). */
export function daysAhead(days: number, time = '10:30'): string {
  const d = new Date(Date.now() + days * 86_400_000);
  return `${d.toISOString().slice(0, 10)}T${time}`;
}

export const FLIGHT = '/flight-delay/v1';
export const POLICY_ADMIN = '/policy-admin/v1';

/** A policyholder the Policy Admin API accepts as is: the tests' default, spread to change a field. */
export const HOLDER = {
  firstName: 'Camille',
  lastName: 'Martin',
  birthDate: '1990-04-12',
  email: 'camille@example.com',
  phone: '+33612345678',
  address: { line1: '12 rue Cler', postalCode: '75007', city: 'Paris', country: 'FR' },
};

export interface Reply {
  status: number;
  body: any; // JSON under test
  headers: Record<string, string | string[] | number | undefined>;
}

/** POST JSON through inject, as a partner's integration would. */
export async function post(
  app: FastifyInstance,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await app.inject({
    method: 'POST',
    url,
    payload: body as object,
    headers: { 'content-type': 'application/json', ...headers },
  });
  const text = response.body;
  return { status: response.statusCode, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** One page of a cursor listing: its rows, and the cursor of the next page (null on the last). */
export interface ListingPage<T> {
  rows: T[];
  nextCursor: string | null;
}

/**
 * Every row of a cursor listing, following nextCursor to its last page. An oldest-first listing
 * (/getclaims, GET /policies, the console's claims table: platform/cursor.ts) stops a page at the
 * commit horizon while another transaction of the database is open — a notification or webhook
 * job's, on PostgreSQL — so one page may be short, or empty with a cursor: a test that asserts what a
 * listing holds reads all of it. An empty page waits a moment before asking again (the open
 * transaction has to end first: the one sleep the tests allow outside `eventually`). Bounded like
 * `eventually`: after `maxPages` pages or `ms` (a ceiling for a stuck test, never a speed
 * requirement) it fails, saying how much it read. `from`: the cursor to start at (the rest of a
 * listing whose first page the test read itself), the first page otherwise.
 */
export async function allPages<T>(
  what: string,
  page: (cursor: string | undefined) => Promise<ListingPage<T>>,
  options: { from?: string; maxPages?: number; ms?: number } = {},
): Promise<T[]> {
  const maxPages = options.maxPages ?? 500;
  const deadline = Date.now() + (options.ms ?? 120_000);
  const rows: T[] = [];
  let cursor = options.from;
  for (let pages = 1; ; pages++) {
    const next = await page(cursor);
    rows.push(...next.rows);
    if (next.nextCursor === null) return rows;
    const read = `${pages} pages, ${rows.length} rows read, next cursor ${next.nextCursor}`;
    assert.ok(pages < maxPages, `${what}: still a nextCursor after ${read}`);
    assert.ok(Date.now() <= deadline, `${what}: not at the last page in time (${read})`);
    if (next.rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    cursor = next.nextCursor;
  }
}

/**
 * Every row of the partner console's claims table from `url` (/console/claims?...), following its
 * "next page" link to the last page (allPages: the table stops a page at the commit horizon, as
 * /getclaims does): each row's HTML. `browser`: a signed-in partner user.
 */
export async function consoleClaimRows(browser: Browser, url: string): Promise<string[]> {
  return allPages(`GET ${url}`, async (next) => {
    const res = await browser.get(next ?? url);
    assert.equal(res.statusCode, 200, `GET ${next ?? url}: ${res.body.slice(0, 500)}`);
    const link = /<p class="pager">.*<a href="(\/console\/claims\?[^"]*cursor=[^"]*)"/.exec(res.body)?.[1];
    return {
      rows: /<tbody>(.*?)<\/tbody>/s.exec(res.body)?.[1]?.match(/<tr>.*?<\/tr>/gs) ?? [],
      nextCursor: link ? link.replaceAll('&amp;', '&') : null,
    };
  });
}

/**
 * Every claim a /getclaims body selects for `partner`, all pages read (allPages); `body` without
 * cursor. `route`: the operation's alias /getClaims, for the test of the alias.
 */
export async function allClaims(
  app: FastifyInstance,
  partner: Pick<TestPartner, 'auth'>,
  body: Record<string, unknown>,
  route: '/getclaims' | '/getClaims' = '/getclaims',
): Promise<ClaimView[]> {
  const what = `POST ${route} ${JSON.stringify(body)}`;
  return allPages(what, async (cursor) => {
    const res = await post(app, `${FLIGHT}${route}`, { ...body, ...(cursor ? { cursor } : {}) }, partner.auth);
    assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
    return { rows: res.body.claims, nextCursor: res.body.nextCursor };
  });
}

/** Every policy a GET /policies query selects for `partner`, all pages read (allPages); `query` without cursor. */
export async function allPolicies(
  app: FastifyInstance,
  partner: Pick<TestPartner, 'auth'>,
  query: Record<string, string> = {},
): Promise<PolicyView[]> {
  const what = `GET /policies?${new URLSearchParams(query)}`;
  return allPages(what, async (cursor) => {
    const search = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const res = await app.inject({ method: 'GET', url: `${POLICY_ADMIN}/policies?${search}`, headers: partner.auth });
    assert.equal(res.statusCode, 200, `${what}: ${res.body}`);
    const body = res.json() as { policies: PolicyView[]; nextCursor: string | null };
    return { rows: body.policies, nextCursor: body.nextCursor };
  });
}

/** A trip `days` ahead, CDG→JFK on Air France, optionally with a return a week later. */
export function trip(days = 30, options: { returnTrip?: boolean; additionalPassengers?: number } = {}) {
  return {
    departureAirport: 'CDG',
    arrivalAirport: 'JFK',
    airline: 'AF',
    departureDateTime: daysAhead(days),
    ...(options.returnTrip ? { returnDepartureDateTime: daysAhead(days + 7, '18:00') } : {}),
    ...(options.additionalPassengers !== undefined ? { additionalPassengers: options.additionalPassengers } : {}),
  };
}

export const CUSTOMER = {
  firstName: 'Camille',
  lastName: 'Martin',
  email: 'camille@example.com',
  phone: '+33612345678',
  language: 'fr',
};

/** When the test customer accepted the documents: fixed per process, so that retries send identical bodies. */
const CONSENT_AT = new Date();

/** The customer's consent to the documents of a quote: version 1, the test partners' (createTestPartner). */
export function consent(documentsVersion = 1, at = CONSENT_AT) {
  return { acceptedAt: at.toISOString(), documentsVersion, channel: 'web' as const };
}

/** The subscribe body matching a quoted trip. */
export function subscription(
  quoteReference: string,
  t: ReturnType<typeof trip>,
  overrides: Record<string, unknown> = {},
) {
  const flights = [
    {
      flightNumber: 'AF006',
      departureAirport: t.departureAirport,
      arrivalAirport: t.arrivalAirport,
      departureDateTime: t.departureDateTime,
    },
  ];
  if ('returnDepartureDateTime' in t && t.returnDepartureDateTime) {
    flights.push({
      flightNumber: 'AF007',
      departureAirport: t.arrivalAirport,
      arrivalAirport: t.departureAirport,
      departureDateTime: t.returnDepartureDateTime,
    });
  }
  return {
    quoteReference,
    customer: CUSTOMER,
    booking: { reference: 'ABC123' },
    flights,
    consent: consent(),
    ...overrides,
  };
}

/** Quote then subscribe; returns the contract body. */
export async function subscribeTrip(app: FastifyInstance, partner: TestPartner, t = trip()): Promise<Reply> {
  const quote = await post(app, `${FLIGHT}/getPrice`, t, partner.auth);
  if (quote.status !== 200) throw new Error(`getPrice failed: ${JSON.stringify(quote.body)}`);
  return post(app, `${FLIGHT}/subscribe`, subscription(quote.body.quoteReference, t), partner.auth);
}

export interface InsuredFlight {
  contractNumber: string;
  flightNumber: string;
  /** Local departure date of the outbound leg. */
  departureDate: string;
  /** The return leg's, when `returnFlight` was given. */
  returnFlight?: string;
  returnDate?: string;
}

/**
 * Quote then subscribe a CDG → JFK trip on the given flight (and JFK → CDG on `returnFlight`), for
 * claims tests: they need their own flight numbers, so that their events touch only their contracts.
 */
export async function insureFlight(
  app: FastifyInstance,
  partner: TestPartner,
  options: {
    flightNumber: string;
    returnFlight?: string;
    days?: number;
    passengers?: number;
    language?: CustomerLang;
    customer?: { firstName?: string; lastName?: string; phone?: string; email?: string };
  },
): Promise<InsuredFlight> {
  const t = trip(options.days ?? 12, {
    returnTrip: options.returnFlight !== undefined,
    additionalPassengers: (options.passengers ?? 1) - 1,
  });
  const quote = await post(app, `${FLIGHT}/getPrice`, t, partner.auth);
  if (quote.status !== 200) throw new Error(`getPrice failed: ${JSON.stringify(quote.body)}`);
  const flights = [
    {
      flightNumber: options.flightNumber,
      departureAirport: 'CDG',
      arrivalAirport: 'JFK',
      departureDateTime: t.departureDateTime,
    },
  ];
  if (options.returnFlight && t.returnDepartureDateTime)
    flights.push({
      flightNumber: options.returnFlight,
      departureAirport: 'JFK',
      arrivalAirport: 'CDG',
      departureDateTime: t.returnDepartureDateTime,
    });
  const customer = { ...CUSTOMER, language: options.language ?? 'en', ...options.customer };
  const res = await post(
    app,
    `${FLIGHT}/subscribe`,
    {
      quoteReference: quote.body.quoteReference,
      customer,
      booking: { reference: 'PNR123' },
      flights,
      consent: consent(quote.body.documents.version),
    },
    partner.auth,
  );
  if (res.status !== 201) throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    contractNumber: res.body.contractNumber as string,
    flightNumber: options.flightNumber,
    departureDate: t.departureDateTime.slice(0, 10),
    ...(options.returnFlight && t.returnDepartureDateTime
      ? { returnFlight: options.returnFlight, returnDate: t.returnDepartureDateTime.slice(0, 10) }
      : {}),
  };
}

/**
 * A flight insured for `who` and reported cancelled by `auth` (the partner itself in sandbox, an
 * operator's token in production): its contract and the one claim opened.
 */
export async function cancelledFlightClaim(
  t: TestApp,
  who: TestPartner,
  auth: Record<string, string>,
  flight: Parameters<typeof insureFlight>[2],
) {
  const c = await insureFlight(t.app, who, flight);
  const opened = await post(
    t.app,
    `${FLIGHT}/claims`,
    { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
    auth,
  );
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  return { c, claimNumber: opened.body.claimsOpened[0].claimNumber as string };
}

/**
 * A sandbox claim of `who` on a flight reported cancelled: the path of the bank-details link its
 * first sandbox message carries (once the notification job has queued it), and the contract.
 */
export async function sandboxClaimLink(
  t: TestApp,
  who: TestPartner,
  flight: Parameters<typeof insureFlight>[2],
): Promise<{ path: string; contractNumber: string }> {
  const { c } = await cancelledFlightClaim(t, who, who.auth, flight);
  const messages = async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${c.contractNumber}`,
      headers: who.auth,
    });
    return (res.json() as { messages: { link: string }[] }).messages;
  };
  const [first] = await eventually(async () => ((await messages()).length ? messages() : undefined));
  return { path: new URL(first!.link).pathname, contractNumber: c.contractNumber };
}

/** The environment for a child process: without the test runner's own variables (a child that
 * inherits NODE_TEST_CONTEXT behaves as a test file and never exits on its own). */
export function childEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  return env;
}
