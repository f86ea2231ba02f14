import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { decrypt, encrypt } from '../../src/platform/crypto.ts';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db.ts';
import { sealPersonalData } from '../../src/platform/seal-personal-data.ts';
import { addEndpoint } from '../../src/webhooks/webhooks.ts';
import {
  allClaims,
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  openTestDatabase,
  post,
  trip,
  subscribeTrip,
  usingPostgres,
  type TestApp,
  type TestPartner,
  consent,
  POLICY_ADMIN,
} from '../helper.ts';
import { Browser } from '../web/inject-browser.ts';

/**
 * Personal data at rest: after a claim is driven to paid and a policy created and cancelled (with
 * Idempotency-Keys, so replays are stored), no plaintext value — names, email, phone, address, birth
 * date, IBAN, account holder, booking reference, and the bank-details link's token the sandbox outbox
 * kept — is anywhere in the database, the partner's webhook events included (its endpoint gets
 * contract.created, which carries the booking reference: stored sealed, migration 0056): in every file of an embedded (PGlite) data directory, and in
 * a `pg_dump` of its PostgreSQL database (a copy made for the test). Replays are the bytes of the first
 * answer. The embedded data directory is readable by its owner only.
 */

const POLICIES = `${POLICY_ADMIN}/policies`;
const letters = (n: number) => Array.from(crypto.randomBytes(n), (b) => String.fromCharCode(97 + (b % 26))).join('');
const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);
const digits = (n: number) => Array.from(crypto.randomBytes(n), (b) => String(b % 10)).join('');

/** A valid German IBAN nobody else uses (ISO 13616 check digits). */
function uniqueIban(): string {
  const bban = `37040044${digits(10)}`;
  const numeric = `${bban}131400`; // D=13, E=14, then 00
  const mod = [...numeric].reduce((acc, d) => (acc * 10 + Number(d)) % 97, 0);
  return `DE${String(98 - mod).padStart(2, '0')}${bban}`;
}

/** Personal values of one run, unlike anything else in the database. */
function personalValues() {
  const customer = {
    firstName: capital(letters(9)),
    lastName: capital(letters(10)),
    email: `${letters(10)}@example.org`,
    phone: `+336${digits(8)}`,
  };
  const holder = {
    firstName: capital(letters(9)),
    lastName: capital(letters(10)),
    birthDate: `195${digits(1)}-0${1 + crypto.randomInt(9)}-1${crypto.randomInt(10)}`,
    email: `${letters(10)}@example.net`,
    phone: `+337${digits(8)}`,
    address: {
      line1: `${crypto.randomInt(10, 99)} rue ${capital(letters(11))}`,
      postalCode: '75007',
      city: 'Paris',
      country: 'FR',
    },
  };
  const accountHolder = `${capital(letters(8))} ${capital(letters(9))}`;
  const iban = uniqueIban();
  // a motor policy's risk names the vehicle: its plate is personal data too
  const registration = `${letters(3).toUpperCase()}-${digits(4)}-${letters(3).toUpperCase()}`;
  // the airline's booking reference (PNR) opens the booking: sealed, found by its keyed hash (0054)
  const bookingReference = `${letters(4)}${digits(2)}`.toUpperCase();
  const plaintexts = [
    customer.firstName,
    customer.lastName,
    customer.email,
    customer.phone,
    holder.firstName,
    holder.lastName,
    holder.birthDate,
    holder.email,
    holder.phone,
    holder.address.line1,
    accountHolder,
    iban,
    registration,
    bookingReference,
  ];
  return { customer, holder, accountHolder, iban, registration, bookingReference, plaintexts };
}

type Values = ReturnType<typeof personalValues>;

async function inject(
  app: FastifyInstance,
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  payload?: object,
) {
  return app.inject({
    method,
    url,
    headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(payload ? { payload } : {}),
  });
}

/** Subscribe (with an Idempotency-Key), a cancelled flight, the SMS link, bank details, paid; a policy created and cancelled. */
async function driveEverything(
  app: FastifyInstance,
  partner: TestPartner,
  v: Values,
): Promise<{ contractNumber: string; policyNumber: string; linkToken: string }> {
  const flightNumber = `AF${crypto.randomInt(1000, 9999)}`;
  // the partner listens to every event: contract.created carries the booking reference
  const { db, jobs, keys } = app.parasol;
  const hook = await addEndpoint(
    { db, jobs, keys, allowPrivate: true, now: () => new Date() },
    { actor: 'operator:test', partnerId: partner.id, environment: 'sandbox' },
    // never reached: the app refuses private addresses at delivery (the event is stored all the same)
    { url: 'http://127.0.0.1:9/parasol-hooks' },
  );
  const t = trip(10);
  const quote = await post(app, `${FLIGHT}/getPrice`, t, partner.auth);
  assert.equal(quote.status, 200, JSON.stringify(quote.body));
  const subscribeBody = {
    quoteReference: quote.body.quoteReference,
    customer: { ...v.customer, language: 'en' },
    booking: { reference: v.bookingReference.toLowerCase() },
    consent: consent(),
    flights: [{ flightNumber, departureAirport: 'CDG', arrivalAirport: 'JFK', departureDateTime: t.departureDateTime }],
  };
  const key = { ...partner.auth, 'idempotency-key': crypto.randomUUID() };
  const subscribed = await inject(app, 'POST', `${FLIGHT}/subscribe`, key, subscribeBody);
  assert.equal(subscribed.statusCode, 201, subscribed.body);
  const replayed = await inject(app, 'POST', `${FLIGHT}/subscribe`, key, subscribeBody);
  assert.equal(replayed.headers['idempotent-replayed'], 'true');
  assert.equal(replayed.body, subscribed.body, 'a replay is the bytes of the first answer');
  const contractNumber = JSON.parse(subscribed.body).contractNumber as string;
  assert.equal(JSON.parse(subscribed.body).booking.reference, v.bookingReference);
  const events = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .select(['ev.type', 'ev.payload', 'ev.payload_enc'])
    .where('d.endpoint_id', '=', hook.endpoint.id)
    .execute();
  const createdEvent = events.find((e) => e.type === 'contract.created');
  assert.ok(createdEvent?.payload_enc, 'the endpoint has its contract.created event, sealed');
  assert.equal(createdEvent.payload, null);
  assert.equal(
    (JSON.parse(decrypt(keys.encryption, createdEvent.payload_enc)) as { data: { booking: { reference: string } } })
      .data.booking.reference,
    v.bookingReference,
  );
  // the partner still finds the contract by its booking reference, written either way
  const found = await inject(app, 'GET', `${FLIGHT}/contracts?bookingReference=${v.bookingReference}`, partner.auth);
  assert.deepEqual(
    (JSON.parse(found.body) as { contracts: { contractNumber: string }[] }).contracts.map((c) => c.contractNumber),
    [contractNumber],
  );

  const opened = await post(
    app,
    `${FLIGHT}/claims`,
    { flightNumber, departureDate: t.departureDateTime.slice(0, 10), status: 'cancelled' },
    partner.auth,
  );
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const link = await eventually(async () => {
    const res = await inject(app, 'GET', `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`, partner.auth);
    return (JSON.parse(res.body) as { messages: { link: string }[] }).messages[0]?.link;
  });
  const form = new URL(link).pathname;
  const linkToken = form.slice('/c/'.length);
  const sent = await app.inject({
    method: 'POST',
    url: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ accountHolder: v.accountHolder, iban: v.iban, bic: '' }).toString(),
  });
  assert.equal(sent.statusCode, 200, sent.body);
  await eventually(async () => {
    const today = new Date().toISOString().slice(0, 10);
    const claims = await allClaims(app, partner, { fromDate: today, toDate: today, contractNumber });
    return claims[0]?.status === 'paid' ? true : undefined;
  });

  const today = new Date().toISOString().slice(0, 10);
  const policyBody = {
    product: 'motor',
    externalReference: `H9-${crypto.randomUUID()}`,
    policyholder: v.holder,
    effectiveDate: today,
    expiryDate: new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10),
    premium: { amount: 4_500, currency: 'EUR', frequency: 'monthly' },
    risk: {
      vehicleRegistration: v.registration,
      make: 'Renault',
      model: 'Clio',
      firstRegistrationDate: '2021-03-15',
      usage: 'private',
    },
  };
  const policyKey = { ...partner.auth, 'idempotency-key': crypto.randomUUID() };
  const created = await inject(app, 'POST', POLICIES, policyKey, policyBody);
  assert.equal(created.statusCode, 201, created.body);
  const again = await inject(app, 'POST', POLICIES, policyKey, policyBody);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body, created.body, 'a replay is the bytes of the first answer, the risk’s key order included');
  const policyNumber = JSON.parse(created.body).policyNumber as string;
  const cancelKey = { ...partner.auth, 'idempotency-key': crypto.randomUUID() };
  const cancelBody = { reason: 'customer_request', effectiveDate: today };
  const cancelled = await inject(app, 'POST', `${POLICIES}/${policyNumber}/cancel`, cancelKey, cancelBody);
  assert.equal(cancelled.statusCode, 200, cancelled.body);
  assert.equal(
    (await inject(app, 'POST', `${POLICIES}/${policyNumber}/cancel`, cancelKey, cancelBody)).body,
    cancelled.body,
  );
  // what is stored still reads back: the policy and the console's view of the customer
  const read = await inject(app, 'GET', `${POLICIES}/${policyNumber}`, partner.auth);
  assert.equal(JSON.parse(read.body).policyholder.lastName, v.holder.lastName);
  return { contractNumber, policyNumber, linkToken };
}

function assertNoneIn(haystack: Buffer, plaintexts: string[], where: string) {
  for (const value of plaintexts)
    assert.equal(haystack.indexOf(Buffer.from(value, 'utf8')), -1, `${JSON.stringify(value)} is in clear in ${where}`);
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : [],
    );
}

describe('personal data at rest', () => {
  describe('in the files of the embedded database (PGlite)', () => {
    let dir: string;
    let database: DatabaseHandle;
    let t: TestApp;
    let closed = false;
    const closeAll = async () => {
      if (closed) return;
      closed = true;
      await t.close();
      await database.close();
    };
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-at-rest-'));
      database = await openDatabase({ dataDir: dir });
      await database.migrate();
      t = await buildTestApp({
        database,
        env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
      });
    });
    after(async () => {
      await closeAll();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('holds no plaintext value once a claim is paid and a policy created and cancelled', async () => {
      const v = personalValues();
      const partner = await createTestPartner(t.db);
      const { linkToken } = await driveEverything(t.app, partner, v);
      await sql`CHECKPOINT`.execute(t.db);
      await closeAll();
      const files = filesUnder(dir);
      assert.ok(files.length > 100, `the data directory holds the database (${files.length} files)`);
      const canary = Buffer.from('Test Partner'); // stored in clear on purpose: proves the search reads the data
      assert.ok(
        files.some((f) => fs.readFileSync(f).includes(canary)),
        'the partner’s name is found in the files',
      );
      // the link's token is a bearer secret: claim_tokens keeps its SHA-256 only, the outbox seals its SMS
      for (const file of files)
        assertNoneIn(fs.readFileSync(file), [...v.plaintexts, linkToken], path.relative(dir, file));
    });

    it('is readable by its owner only: directories 0700, files 0600', () => {
      for (const file of filesUnder(dir))
        assert.equal(
          fs.statSync(file).mode & 0o077,
          0,
          `${path.relative(dir, file)} is ${(fs.statSync(file).mode & 0o777).toString(8)}`,
        );
      const dirs = (d: string): string[] => [
        d,
        ...fs
          .readdirSync(d, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .flatMap((e) => dirs(path.join(d, e.name))),
      ];
      for (const d of dirs(dir)) assert.equal(fs.statSync(d).mode & 0o777, 0o700, d);
    });
  });

  it('a data directory left open to others by an older version is closed when the database opens', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-perms-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.chmodSync(dir, 0o755);
    fs.mkdirSync(path.join(dir, 'pglite'), { mode: 0o755 });
    fs.chmodSync(path.join(dir, 'pglite'), 0o755);
    fs.writeFileSync(path.join(dir, 'leftover.txt'), 'x', { mode: 0o644 });
    fs.chmodSync(path.join(dir, 'leftover.txt'), 0o644);
    const handle = await openDatabase({ dataDir: dir });
    await handle.close();
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(dir, 'pglite')).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(dir, 'leftover.txt')).mode & 0o777, 0o600);
  });

  describe('in a pg_dump of PostgreSQL', { skip: usingPostgres ? false : 'TEST_DATABASE_URL is not set' }, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp({
        env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
      });
    });
    after(() => t?.close());

    it('holds no plaintext value once a claim is paid and a policy created and cancelled', async () => {
      const v = personalValues();
      const partner = await createTestPartner(t.db);
      const { linkToken } = await driveEverything(t.app, partner, v);
      const { stdout } = await promisify(execFile)('pg_dump', ['--no-owner', '--dbname', t.database.url!], {
        maxBuffer: 1 << 30,
        encoding: 'buffer',
      });
      assert.ok(stdout.includes(Buffer.from(partner.slug)), 'the dump holds the data (the partner’s slug is there)');
      assertNoneIn(stdout, [...v.plaintexts, linkToken], 'the dump');
    });
  });

  it('rows written in clear before migration 0010 read and replay as before, then are sealed (as at start) exactly once', async (t) => {
    const handle = await openTestDatabase();
    const app = await buildTestApp({ database: handle });
    t.after(async () => {
      await app.close();
      await handle.close();
    });
    const encryptionKey = app.app.parasol.keys.encryption;
    const v = personalValues();
    const partner = await createTestPartner(app.db);
    const policyBody = {
      product: 'motor',
      externalReference: `H9-${crypto.randomUUID()}`,
      policyholder: v.holder,
      effectiveDate: new Date().toISOString().slice(0, 10),
      expiryDate: new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10),
      premium: { amount: 4_500, currency: 'EUR', frequency: 'monthly' },
      risk: {
        vehicleRegistration: v.registration,
        make: 'Renault',
        model: 'Clio',
        firstRegistrationDate: '2021-03-15',
        usage: 'private',
      },
    };
    const legacyKey = { ...partner.auth, 'idempotency-key': 'legacy-1' };
    const policy = await post(app.app, POLICIES, policyBody, legacyKey);
    assert.equal(policy.status, 201);
    // as an older version wrote them: names and the risk in clear, the replay as jsonb
    await app.db
      .updateTable('policies')
      .set({
        holder_first_name: v.holder.firstName,
        holder_last_name: v.holder.lastName,
        holder_first_name_enc: null,
        holder_last_name_enc: null,
        risk: JSON.stringify(policyBody.risk),
        risk_enc: null,
      })
      .where('policy_number', '=', policy.body.policyNumber)
      .execute();
    await app.db
      .updateTable('idempotency_keys')
      .set({ response_body: JSON.stringify(policy.body), response_enc: null })
      .where('partner_id', '=', partner.id)
      .where('key', '=', 'legacy-1')
      .execute();
    // readers take the plaintext of a row not sealed yet, and such a replay still answers
    const unsealed = JSON.parse(
      (await inject(app.app, 'GET', `${POLICIES}/${policy.body.policyNumber}`, partner.auth)).body,
    );
    assert.equal(unsealed.policyholder.lastName, v.holder.lastName);
    assert.equal(unsealed.risk.vehicleRegistration, v.registration);
    const legacyReplay = await post(app.app, POLICIES, policyBody, legacyKey);
    assert.equal(legacyReplay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(legacyReplay.body, policy.body);

    assert.ok(
      (await sealPersonalData(app.db, encryptionKey)) >= 2,
      'the policy and its stored replay written in clear are sealed',
    );
    const row = await app.db
      .selectFrom('policies')
      .selectAll()
      .where('policy_number', '=', policy.body.policyNumber)
      .executeTakeFirstOrThrow();
    assert.equal(row.holder_first_name, null);
    assert.equal(row.holder_last_name, null);
    assert.equal(decrypt(encryptionKey, row.holder_last_name_enc!), v.holder.lastName);
    assert.equal(row.risk, null);
    assert.deepEqual(JSON.parse(decrypt(encryptionKey, row.risk_enc!)), policyBody.risk);
    const stored = await app.db
      .selectFrom('idempotency_keys')
      .select(['response_body', 'response_enc'])
      .where('partner_id', '=', partner.id)
      .where('key', '=', 'legacy-1')
      .executeTakeFirstOrThrow();
    assert.equal(stored.response_body, null);
    assert.deepEqual(JSON.parse(decrypt(encryptionKey, stored.response_enc!)), policy.body);
    const read = await inject(app.app, 'GET', `${POLICIES}/${policy.body.policyNumber}`, partner.auth);
    assert.equal(JSON.parse(read.body).policyholder.firstName, v.holder.firstName);
    assert.deepEqual(JSON.parse(read.body).risk, policyBody.risk);
    assert.equal(await sealPersonalData(app.db, encryptionKey), 0, 'a second run finds nothing to seal');
  });

  it('migration 0054 moves booking references out of contracts; the start seals each exactly once, then they are found and shown', async (t) => {
    const handle = await openTestDatabase(t);
    const before = await buildTestApp({ database: handle });
    const partner = await createTestPartner(before.db);
    const subscribed = await subscribeTrip(before.app, partner);
    assert.equal(subscribed.status, 201, JSON.stringify(subscribed.body));
    const key = before.app.parasol.keys.encryption;
    await before.close();
    const contractNumber = subscribed.body.contractNumber as string;
    const reference = `${letters(3)}${digits(3)}`.toUpperCase();
    // the schema and the contract as they were before 0054: the reference in clear, searched as such
    await sql
      .raw(
        `DELETE FROM schema_migrations WHERE name = '0054_booking_reference_sealed.sql';
         DROP TABLE contracts_booking_references_unsealed;
         DROP INDEX contracts_booking_reference_hmac;
         ALTER TABLE contracts DROP CONSTRAINT contracts_booking_reference_sealed;
         ALTER TABLE contracts DROP COLUMN booking_reference_enc, DROP COLUMN booking_reference_hmac;
         ALTER TABLE contracts ADD COLUMN booking_reference text;
         UPDATE contracts SET booking_reference = '${reference}' WHERE contract_number = '${contractNumber}';
         UPDATE contracts SET booking_reference = 'ABC123' WHERE booking_reference IS NULL;
         ALTER TABLE contracts ALTER COLUMN booking_reference SET NOT NULL;
         CREATE INDEX contracts_booking_reference ON contracts (partner_id, environment, booking_reference);`,
      )
      .execute(handle.db);

    assert.deepEqual(await handle.migrate(), ['0054_booking_reference_sealed.sql']);
    const moved = await handle.db
      .selectFrom('contracts_booking_references_unsealed as u')
      .innerJoin('contracts as c', 'c.id', 'u.contract_id')
      .select(['u.booking_reference', 'c.booking_reference_enc'])
      .where('c.contract_number', '=', contractNumber)
      .executeTakeFirstOrThrow();
    assert.deepEqual(moved, { booking_reference: reference, booking_reference_enc: null });
    // two processes starting together seal each moved reference once, and count only what each sealed
    const unsealed = (
      await handle.db.selectFrom('contracts_booking_references_unsealed').select('contract_id').execute()
    ).length;
    const counts = await Promise.all([sealPersonalData(handle.db, key), sealPersonalData(handle.db, key)]);
    assert.equal(counts[0] + counts[1], unsealed);

    // the start seals it (buildApp's prepare) before the app serves
    const app = await buildTestApp({ database: handle });
    t.after(() => app.close());
    const encryptionKey = app.app.parasol.keys.encryption;
    const row = await app.db
      .selectFrom('contracts')
      .select(['booking_reference_enc', 'booking_reference_hmac'])
      .where('contract_number', '=', contractNumber)
      .executeTakeFirstOrThrow();
    assert.equal(decrypt(encryptionKey, row.booking_reference_enc!), reference);
    assert.ok(row.booking_reference_hmac, 'the booking reference has its HMAC');
    assert.equal(
      (await app.db.selectFrom('contracts_booking_references_unsealed').select('contract_id').execute()).length,
      0,
      'every moved reference is gone once sealed',
    );
    const found = await inject(
      app.app,
      'GET',
      `${FLIGHT}/contracts?bookingReference=${reference.toLowerCase()}`,
      partner.auth,
    );
    assert.deepEqual(
      (
        JSON.parse(found.body) as { contracts: { contractNumber: string; booking: { reference: string } }[] }
      ).contracts.map((c) => [c.contractNumber, c.booking.reference]),
      [[contractNumber, reference]],
    );
    assert.equal(await sealPersonalData(app.db, encryptionKey), 0, 'a second run finds nothing to seal');
  });

  it('two processes sealing the same rows in clear together count what each sealed: the total is the rows (PostgreSQL)', async (t) => {
    if (!usingPostgres) return t.skip('one connection on PGlite: no concurrent transaction');
    const handle = await openTestDatabase(t);
    const key = crypto.randomBytes(32);
    const partner = await createTestPartner(handle.db);
    const rows = 23; // batches of 5: four full ones and a short one, per table
    await handle.db
      .insertInto('sepa_batches')
      .values(
        Array.from({ length: rows }, (_, i) => ({
          message_id: `PSL-OLD-${crypto.randomUUID()}`,
          created_by: 'operator:old',
          execution_date: '2026-01-05',
          payouts_count: 1,
          control_sum: 100 + i,
          xml: `<Document>${i}</Document>`,
        })),
      )
      .execute();
    await handle.db
      .insertInto('idempotency_keys')
      .values(
        Array.from({ length: rows }, (_, i) => ({
          partner_id: partner.id,
          environment: 'sandbox' as const,
          key: `old-${i}`,
          operation: 'POST /old',
          request_hash: 'x',
          status: 'completed' as const,
          locked_until: new Date(),
          response_status: 200,
          response_body: JSON.stringify({ i }),
          expires_at: new Date(Date.now() + 86_400_000),
        })),
      )
      .execute();
    const counts = await Promise.all([sealPersonalData(handle.db, key, 5), sealPersonalData(handle.db, key, 5)]);
    assert.equal(counts[0] + counts[1], 2 * rows, `each row counted once: ${counts.join(' + ')}`);
    const left = await sql<{ n: number }>`
      SELECT (SELECT count(*) FROM sepa_batches WHERE xml IS NOT NULL)
           + (SELECT count(*) FROM idempotency_keys WHERE response_body IS NOT NULL) AS n`.execute(handle.db);
    assert.equal(Number(left.rows[0]!.n), 0);
    assert.equal(await sealPersonalData(handle.db, key, 5), 0, 'a third run finds nothing to seal');
  });

  it('a correction of a name committed while the sealing runs is not overwritten by the old name (PostgreSQL)', async (t) => {
    if (!usingPostgres) return t.skip('one connection on PGlite: no concurrent transaction');
    const handle = await openTestDatabase();
    const app = await buildTestApp({ database: handle });
    t.after(async () => {
      await app.close();
      await handle.close();
    });
    const key = app.app.parasol.keys.encryption;
    const v = personalValues();
    const partner = await createTestPartner(app.db);
    const policy = await post(
      app.app,
      POLICIES,
      {
        product: 'other',
        externalReference: `RACE-${crypto.randomUUID()}`,
        policyholder: v.holder,
        effectiveDate: new Date().toISOString().slice(0, 10),
        expiryDate: new Date(Date.now() + 200 * 86_400_000).toISOString().slice(0, 10),
        premium: { amount: 1_000, currency: 'EUR', frequency: 'annual' },
        risk: {},
      },
      partner.auth,
    );
    assert.equal(policy.status, 201, JSON.stringify(policy.body));
    const number = policy.body.policyNumber as string;
    // both names in clear, as written before migration 0010
    await app.db
      .updateTable('policies')
      .set({
        holder_first_name: v.holder.firstName,
        holder_last_name: v.holder.lastName,
        holder_first_name_enc: null,
        holder_last_name_enc: null,
      })
      .where('policy_number', '=', number)
      .execute();
    // a correction of the first name holds the row while the sealing starts, then commits
    let sealing: Promise<number> | undefined;
    await app.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('policies')
        .set({ holder_first_name_enc: encrypt(key, 'Corrected'), holder_first_name: null })
        .where('policy_number', '=', number)
        .execute();
      sealing = sealPersonalData(app.db, key);
      await new Promise((resolve) => setTimeout(resolve, 500));
    });
    assert.ok((await sealing!) >= 1, 'the sealing sealed the policy it waited for');
    const row = await app.db
      .selectFrom('policies')
      .select(['holder_first_name', 'holder_last_name', 'holder_first_name_enc', 'holder_last_name_enc'])
      .where('policy_number', '=', number)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [
        row.holder_first_name,
        row.holder_last_name,
        decrypt(key, row.holder_first_name_enc!),
        decrypt(key, row.holder_last_name_enc!),
      ],
      [null, null, 'Corrected', v.holder.lastName],
    );
  });

  it('an outbox SMS written in clear before migration 0042 reads as before, then is sealed (as at start) exactly once', async (t) => {
    const admin = { email: 'ops-at-rest@parasol.test', password: 'operator password 0042' };
    const app = await buildTestApp({
      env: { PARASOL_ADMIN_EMAIL: admin.email, PARASOL_ADMIN_PASSWORD: admin.password },
    });
    t.after(() => app.close());
    const operator = new Browser(app.app);
    assert.equal((await operator.signIn(admin.email, admin.password, 'admin')).statusCode, 303);
    const encryptionKey = app.app.parasol.keys.encryption;
    const partner = await createTestPartner(app.db);
    const subscribed = await subscribeTrip(app.app, partner);
    assert.equal(subscribed.status, 201, JSON.stringify(subscribed.body));
    const contractNumber = subscribed.body.contractNumber as string;
    const contract = await app.db
      .selectFrom('contracts')
      .select('id')
      .where('contract_number', '=', contractNumber)
      .executeTakeFirstOrThrow();
    const link = `https://claims.parasol.test/c/${letters(43)}`;
    const body = `Your flight was cancelled. Enter your bank details: ${link}`;
    // as an older version wrote it: the phone sealed, the body and the link in clear
    await app.db
      .insertInto('sms_outbox')
      .values({
        id: `OB${crypto.randomUUID().replaceAll('-', '')}`,
        idempotency_key: `legacy:${crypto.randomUUID()}`,
        partner_id: partner.id,
        environment: 'sandbox',
        contract_id: contract.id,
        claim_id: null,
        to_enc: encrypt(encryptionKey, '+33612345678'),
        body,
        link,
        body_enc: null,
        link_enc: null,
        sent_at: new Date(),
      })
      .execute();
    // the partner's sandbox messages and the operator's outbox page read the body, sealed or not
    const read = async () => {
      const outbox = await operator.get('/admin/outbox');
      assert.equal(outbox.statusCode, 200);
      assert.ok(outbox.body.includes(link), 'the operator’s outbox shows the message');
      return JSON.parse(
        (await inject(app.app, 'GET', `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`, partner.auth))
          .body,
      ).messages as { to: string; body: string; link: string }[];
    };
    assert.deepEqual(
      (await read()).map((m) => [m.to, m.body, m.link]),
      [['+33612345678', body, link]],
    );

    assert.ok((await sealPersonalData(app.db, encryptionKey)) >= 1, 'the message written in clear is sealed');
    const row = await app.db
      .selectFrom('sms_outbox')
      .selectAll()
      .where('contract_id', '=', contract.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.body, null);
    assert.equal(row.link, null);
    assert.equal(decrypt(encryptionKey, row.body_enc!), body);
    assert.equal(decrypt(encryptionKey, row.link_enc!), link);
    assert.deepEqual(
      (await read()).map((m) => [m.to, m.body, m.link]),
      [['+33612345678', body, link]],
    );
    assert.equal(await sealPersonalData(app.db, encryptionKey), 0, 'a second run finds nothing to seal');
  });
});
