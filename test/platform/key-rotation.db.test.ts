import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  decrypt,
  deriveKeyring,
  encrypt,
  loadMasterKeys,
  openKeyring,
  sealedKeyId,
} from '../../src/platform/crypto.ts';
import type { Db } from '../../src/platform/db.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import { rotateSealed, sealedStatus } from '../../src/platform/key-rotation.ts';
import { SEALED_COLUMNS } from '../../src/platform/sealed-columns-repo.ts';
import { payloadText } from '../../src/webhooks/webhook-delivery.ts';
import { addEndpoint } from '../../src/webhooks/webhooks.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  HOLDER,
  openTestDatabase,
  post,
  runCliOn,
  subscribeTrip,
  testConfig,
  trip,
  type TestPartner,
  usingPostgres,
  POLICY_ADMIN,
} from '../helper.ts';

const keyOf = (name: string) => crypto.createHash('sha256').update(name).digest();
const A = keyOf('master key A');
const B = keyOf('master key B');
const CONTRACT_COLUMNS = [
  'customer_first_name_enc',
  'customer_last_name_enc',
  'customer_email_enc',
  'customer_phone_enc',
  'booking_reference_enc',
] as const;

/** The format written before key ids existed: `v1.<iv>.<ciphertext+tag>`. */
function sealV1(key: Buffer, plaintext: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/** The audit rows of master key changes, oldest first. */
const keyAudit = (db: Db) =>
  db
    .selectFrom('audit_log')
    .select(['actor', 'entity_id', 'action', 'data'])
    .where('entity', '=', 'master_key')
    .orderBy('id')
    .execute();

/** The contracts `GET /contracts?bookingReference=abc123` finds, with master key `keys[0]` and the others previous. */
async function contractsFound(
  database: Awaited<ReturnType<typeof openTestDatabase>>,
  partner: TestPartner,
  keys: ('A' | 'B')[],
): Promise<number> {
  const named = { A, B };
  const app = await buildTestApp({
    database,
    env: {
      PARASOL_MASTER_KEY: named[keys[0]!].toString('base64'),
      PARASOL_MASTER_KEYS_PREVIOUS: keys
        .slice(1)
        .map((k) => named[k].toString('base64'))
        .join(','),
    },
  });
  try {
    const res = await app.app.inject({
      method: 'GET',
      url: `${FLIGHT}/contracts?bookingReference=abc123`,
      headers: partner.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    const found = JSON.parse(res.body) as { contracts: { booking: { reference: string } }[] };
    for (const c of found.contracts) assert.equal(c.booking.reference, 'ABC123');
    return found.contracts.length;
  } finally {
    await app.close();
  }
}

/** The first line of a data directory's key file: the current master key, in base64. */
const file0 = (dir: string) => fs.readFileSync(path.join(dir, 'master.key'), 'utf8').split('\n')[0]!;

describe('master key rotation', () => {
  it('seals under the current key, names it, and opens with any known key (v1 values too)', () => {
    const onlyA = deriveKeyring(A).encryption;
    const both = deriveKeyring(B, [A]).encryption;
    const sealedA = encrypt(onlyA, 'Ada');
    assert.equal(sealedKeyId(sealedA), onlyA.current.id);
    assert.notEqual(onlyA.current.id, both.current.id);
    assert.equal(decrypt(both, sealedA), 'Ada');
    assert.equal(sealedKeyId(encrypt(both, 'Ada')), both.current.id);
    assert.equal(decrypt(both, sealV1(onlyA.current.key, 'Lovelace')), 'Lovelace');
    assert.throws(() => decrypt(deriveKeyring(B).encryption, sealedA), /unknown master key/);
  });

  it('reads the key file: one key a line, the first current; PARASOL_MASTER_KEYS_PREVIOUS needs PARASOL_MASTER_KEY', (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-keys-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'master.key'), `${B.toString('base64')}\n${A.toString('base64')}\n`, {
      mode: 0o600,
    });
    const keys = loadMasterKeys(undefined, [], dir);
    assert.deepEqual([keys.current, ...keys.previous], [B, A]);
    assert.deepEqual(
      testConfig({ PARASOL_MASTER_KEY: B.toString('base64'), PARASOL_MASTER_KEYS_PREVIOUS: A.toString('base64') })
        .previousMasterKeys,
      [A],
    );
    assert.throws(() => testConfig({ PARASOL_MASTER_KEYS_PREVIOUS: 'c2hvcnQ=' }), /PARASOL_MASTER_KEYS_PREVIOUS/);
  });

  it('master-key add, with the key file: a new current key first in the file, the old one still opens', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-keys-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const config = testConfig({ PARASOL_MASTER_KEY: '', PARASOL_DATA_DIR: dir });
    const keys = openKeyring(config);
    const before = keys.encryption.current.id;
    const sealed = encrypt(keys.encryption, 'Ada');
    const { db } = await openTestDatabase(t, { empty: true });
    const services = { actor: 'operator:night-shift', config, keys, jobs: {} as JobQueue };
    const added = await runCliOn({ db }, ['master-key', 'add'], services);
    assert.equal(added.code, 0, added.err);
    assert.notEqual(keys.encryption.current.id, before, 'this process seals with the new key at once');
    // who added which key, and when: the key's id only, never the key
    assert.deepEqual(await keyAudit(db), [
      {
        actor: 'operator:night-shift',
        entity_id: keys.encryption.current.id,
        action: 'added',
        data: { previousKeyId: before },
      },
    ]);
    assert.doesNotMatch(
      JSON.stringify(await db.selectFrom('audit_log').selectAll().execute()),
      new RegExp(file0(dir).slice(0, 20).replace(/[+/]/g, '.')),
    );
    assert.equal(sealedKeyId(encrypt(keys.encryption, 'x')), keys.encryption.current.id);
    const file = fs.readFileSync(path.join(dir, 'master.key'), 'utf8').trim().split('\n');
    assert.equal(file.length, 2);
    assert.equal(fs.statSync(path.join(dir, 'master.key')).mode & 0o777, 0o600);
    // a process started afterwards reads both, the new one current
    const reopened = openKeyring(config).encryption;
    assert.equal(reopened.current.id, keys.encryption.current.id);
    assert.equal(decrypt(reopened, sealed), 'Ada');
    // with PARASOL_MASTER_KEY the command says what to do instead
    const refused = await runCliOn({ db }, ['master-key', 'add'], { ...services, config: testConfig() });
    assert.equal(refused.code, 1);
    assert.match(`${refused.out}\n${refused.err}`, /PARASOL_MASTER_KEYS_PREVIOUS/);
    assert.equal((await keyAudit(db)).length, 1, 'a refused add changes nothing and audits nothing');
  });

  it('lists every encrypted column of the schema', async (t) => {
    const handle = await openTestDatabase(t);
    const rows = (
      await sql<{
        table_name: string;
        column_name: string;
      }>`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name LIKE '%\_enc' ORDER BY 1, 2`.execute(
        handle.db,
      )
    ).rows;
    const listed = SEALED_COLUMNS.flatMap((table) => table.columns.map((column) => `${table.table}.${column}`)).sort();
    assert.deepEqual(rows.map((r) => `${r.table_name}.${r.column_name}`).sort(), listed);
  });

  it('re-seals every row under key A with key B, resumes after a crash, and leaves nothing on A', async (t) => {
    const database = await openTestDatabase(t, { empty: true });
    const appA = await buildTestApp({ database, env: { PARASOL_MASTER_KEY: A.toString('base64') } });
    const partner = await createTestPartner(appA.db);
    for (let i = 0; i < 3; i++) assert.equal((await subscribeTrip(appA.app, partner, trip(30 + i))).status, 201);
    await appA.close();
    const db = database.db;
    // one value as written before key ids existed
    const legacy = await db.selectFrom('contracts').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
    await db
      .updateTable('contracts')
      .set({ customer_email_enc: sealV1(deriveKeyring(A).encryption.current.key, 'legacy@example.com') })
      .where('id', '=', legacy.id)
      .execute();
    const before = await db
      .selectFrom('contracts')
      .select(['id', ...CONTRACT_COLUMNS])
      .orderBy('id')
      .execute();
    const plain = before.map((row) => CONTRACT_COLUMNS.map((c) => decrypt(deriveKeyring(A).encryption, row[c]!)));
    assert.equal(plain[0]![2], 'legacy@example.com');
    assert.deepEqual(
      plain.map((p) => p[4]),
      ['ABC123', 'ABC123', 'ABC123'],
    );

    const keysB = deriveKeyring(B, [A]);
    const remaining = async (table: string) =>
      (await sealedStatus(db, keysB.encryption)).filter((c) => c.table === table).reduce((n, c) => n + c.remaining, 0);
    const initial = await remaining('contracts');
    assert.equal(initial, 3 * CONTRACT_COLUMNS.length);

    // a crash after the first batch (one row) committed
    await assert.rejects(
      rotateSealed(db, keysB.encryption, {
        batchSize: 1,
        onBatch: () => {
          throw new Error('crash');
        },
      }),
      /crash/,
    );
    assert.equal(await remaining('contracts'), initial - CONTRACT_COLUMNS.length);
    // mid-rotation (one row under B, two under A) a search by booking reference still finds all three
    assert.equal(await contractsFound(database, partner, ['B', 'A']), 3);

    // the next run goes on with what is left, through the CLI
    const services = { actor: 'operator:ops', config: testConfig(), keys: keysB, jobs: {} as JobQueue };
    const rotation = await runCliOn({ db }, ['master-key', 'rotate', '--batch-size', '2'], services);
    assert.equal(rotation.code, 0, rotation.err);
    // the run is audited: who re-sealed how many values under which key (the crashed run wrote nothing)
    const rotated = await keyAudit(db);
    assert.equal(rotated.length, 1);
    assert.equal(rotated[0]!.actor, 'operator:ops');
    assert.equal(rotated[0]!.entity_id, keysB.encryption.current.id);
    assert.equal(rotated[0]!.action, 'rotated');
    assert.ok((rotated[0]!.data as { rows: number }).rows > 0);
    assert.equal((rotated[0]!.data as { failed: number }).failed, 0);
    assert.match(
      rotation.out,
      new RegExp(`Re-sealed \\d+ row\\(s\\) under key ${keysB.encryption.current.id.replace(/[-]/g, '\\-')}`),
    );
    const shown = await runCliOn({ db }, ['--json', 'master-key', 'status'], services);
    assert.equal(shown.code, 0, shown.err);
    const status = JSON.parse(shown.out) as {
      remaining: number;
      columns: { table: string; sealed: number; remaining: number }[];
    };
    assert.equal(status.remaining, 0);
    assert.equal(status.columns.find((c) => c.table === 'contracts' && c.sealed === 3)?.remaining, 0);

    // key B alone opens everything, every value names B, and nothing changed
    const onlyB = deriveKeyring(B).encryption;
    const after = await db
      .selectFrom('contracts')
      .select(['id', ...CONTRACT_COLUMNS])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      after.map((row) => CONTRACT_COLUMNS.map((c) => decrypt(onlyB, row[c]!))),
      plain,
    );
    for (const row of after) for (const c of CONTRACT_COLUMNS) assert.equal(sealedKeyId(row[c]!), onlyB.current.id);
    // the booking reference's keyed hash was re-hashed with its value: key B alone finds them
    assert.equal(await contractsFound(database, partner, ['B']), 3);
    for (const row of await db.selectFrom('idempotency_keys').select('response_enc').execute())
      if (row.response_enc) decrypt(onlyB, row.response_enc);

    // a value no known key opens: reported, the command fails, the others are done
    const C = deriveKeyring(keyOf('master key C')).encryption;
    await db
      .updateTable('contracts')
      .set({ customer_phone_enc: encrypt(C, '+33600000000') })
      .where('id', '=', legacy.id)
      .execute();
    const partial = await runCliOn({ db }, ['master-key', 'rotate'], services);
    assert.equal(partial.code, 1);
    assert.match(`${partial.out}\n${partial.err}`, /1 row\(s\) could not be opened with any known key/);
    const failedRun = (await keyAudit(db))[1];
    assert.equal(failedRun?.action, 'rotated', 'a run that left rows behind is audited too');
    assert.equal((failedRun?.data as { failed: number }).failed, 1);
  });

  it('re-seals the stored webhook payloads carrying personal data: the delivery sends the same text under key B', async (t) => {
    const database = await openTestDatabase(t, { empty: true });
    const appA = await buildTestApp({
      database,
      env: { PARASOL_MASTER_KEY: A.toString('base64'), PARASOL_WORKERS: 'off' },
    });
    const partner = await createTestPartner(appA.db);
    const { db, jobs, keys } = appA.app.parasol;
    await addEndpoint(
      { db, jobs, keys, allowPrivate: true, now: () => new Date() },
      { actor: 'operator:test', partnerId: partner.id, environment: 'sandbox' },
      { url: 'http://127.0.0.1:9/hooks', eventTypes: ['contract.created'] },
    );
    assert.equal((await subscribeTrip(appA.app, partner, trip(33))).status, 201);
    await appA.close();
    const event = await database.db
      .selectFrom('webhook_events')
      .select(['id', 'payload', 'payload_enc'])
      .where('partner_id', '=', partner.id)
      .executeTakeFirstOrThrow();
    const keysA = deriveKeyring(A).encryption;
    assert.equal(sealedKeyId(event.payload_enc!), keysA.current.id);
    const text = payloadText(keysA, event);
    assert.match(
      text,
      /^\{"type":"contract.created","timestamp":"[^"]+","data":\{.*"booking":\{"reference":"ABC123"\}/,
    );

    const keysB = deriveKeyring(B, [A]).encryption;
    const status = async () => (await sealedStatus(database.db, keysB)).find((c) => c.table === 'webhook_events')!;
    assert.equal((await status()).remaining, 1, 'master-key status counts it');
    await rotateSealed(database.db, keysB);
    assert.equal((await status()).remaining, 0);
    const rotated = await database.db
      .selectFrom('webhook_events')
      .select(['payload', 'payload_enc'])
      .where('id', '=', event.id)
      .executeTakeFirstOrThrow();
    const onlyB = deriveKeyring(B).encryption;
    assert.equal(sealedKeyId(rotated.payload_enc!), onlyB.current.id);
    assert.equal(payloadText(onlyB, rotated), text, 'the same bytes, so the same signature');
  });

  it('re-seals the values before and after of a policyholder correction, counted by status', async (t) => {
    const database = await openTestDatabase(t, { empty: true });
    const appA = await buildTestApp({ database, env: { PARASOL_MASTER_KEY: A.toString('base64') } });
    const partner = await createTestPartner(appA.db);
    const today = new Date().toISOString().slice(0, 10);
    const policy = await post(
      appA.app,
      `${POLICY_ADMIN}/policies`,
      {
        product: 'other',
        externalReference: 'ROTATE-CORRECTION',
        policyholder: HOLDER,
        effectiveDate: today,
        expiryDate: new Date(Date.now() + 200 * 86_400_000).toISOString().slice(0, 10),
        premium: { amount: 1_000, currency: 'EUR', frequency: 'annual' },
        risk: {},
      },
      partner.auth,
    );
    assert.equal(policy.status, 201, JSON.stringify(policy.body));
    const corrected = await appA.app.inject({
      method: 'PATCH',
      url: `${POLICY_ADMIN}/policies/${policy.body.policyNumber}/policyholder`,
      headers: partner.auth,
      payload: { lastName: 'Martins', reason: 'typo' },
    });
    assert.equal(corrected.statusCode, 200, corrected.body);
    await appA.close();
    const db = database.db;

    const keysB = deriveKeyring(B, [A]);
    const remaining = async () =>
      (await sealedStatus(db, keysB.encryption))
        .filter((c) => c.table === 'policy_corrections')
        .reduce((n, c) => n + c.remaining, 0);
    assert.equal(await remaining(), 2, 'the values before and after, under key A');
    await rotateSealed(db, keysB.encryption);
    assert.equal(await remaining(), 0);
    const onlyB = deriveKeyring(B).encryption;
    const row = await db.selectFrom('policy_corrections').selectAll().executeTakeFirstOrThrow();
    assert.deepEqual(
      [JSON.parse(decrypt(onlyB, row.before_enc)), JSON.parse(decrypt(onlyB, row.after_enc))],
      [{ lastName: HOLDER.lastName }, { lastName: 'Martins' }],
    );
  });

  it(
    'skips a row another transaction holds locked, never waits for it holding others, and re-seals it once released (PostgreSQL)',
    { skip: !usingPostgres && 'PGlite has one connection: no concurrent transaction' },
    async (t) => {
      const database = await openTestDatabase(t, { empty: true });
      const appA = await buildTestApp({ database, env: { PARASOL_MASTER_KEY: A.toString('base64') } });
      const partner = await createTestPartner(appA.db);
      for (let i = 0; i < 3; i++)
        assert.equal((await subscribeTrip(appA.app, partner, trip(30 + i))).status, 201, 'a contract sealed under A');
      await appA.close();
      const db = database.db;
      const keysB = deriveKeyring(B, [A]).encryption;
      const remaining = async () =>
        (await sealedStatus(db, keysB)).filter((c) => c.table === 'contracts').reduce((n, c) => n + c.remaining, 0);
      const first = await db.selectFrom('contracts').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();

      // a service transaction holds the first contract in key order locked (as a walk locking a policy
      // then its renewals would), while the rotation runs one row a batch
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holder = db.transaction().execute(async (trx) => {
        await sql`SELECT id FROM contracts WHERE id = ${first.id} FOR UPDATE`.execute(trx);
        locked();
        await released;
      });
      await isLocked;
      let finished = false;
      const rotation = rotateSealed(db, keysB, { batchSize: 1 }).finally(() => (finished = true));
      // the rows after it are re-sealed meanwhile: the locked one skipped, not waited for
      await eventually(async () => ((await remaining()) === CONTRACT_COLUMNS.length ? true : undefined), 60_000);
      const held = await db
        .selectFrom('contracts')
        .select('customer_email_enc')
        .where('id', '=', first.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(sealedKeyId(held.customer_email_enc!), keysB.current.id, 'the locked row is still under A');
      assert.equal(finished, false, 'the run does not end with a row left on A that a known key opens');

      release();
      await holder;
      const reports = await rotation;
      assert.equal(await remaining(), 0, 'the row skipped is re-sealed once its lock is released');
      assert.deepEqual(
        reports.filter((r) => r.table === 'contracts'),
        [{ table: 'contracts', rows: 3, failed: 0 }],
        'each contract re-sealed once, none failed',
      );
      const onlyB = deriveKeyring(B).encryption;
      for (const row of await db.selectFrom('contracts').select(CONTRACT_COLUMNS).execute())
        for (const c of CONTRACT_COLUMNS)
          assert.equal(sealedKeyId(row[c]!), onlyB.current.id, `${c} under B after the run`);
    },
  );
});
