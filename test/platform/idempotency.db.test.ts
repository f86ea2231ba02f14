import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { writeTogether } from '../../src/platform/db.ts';
import { deriveKeyring, encrypt, sha256Hex } from '../../src/platform/crypto.ts';
import { DomainError } from '../../src/platform/errors.ts';
import { canonicalJson, KEY_TTL_HOURS, runIdempotent, type IdempotencyScope } from '../../src/platform/idempotency.ts';
import { createTestPartner, openTestDatabase, usingPostgres } from '../helper.ts';

const keys = deriveKeyring(Buffer.alloc(32, 7));
const serialize = (_status: number, body: unknown) => JSON.stringify(body);

/** A write of the operation itself, so a test can see whether its transaction committed. */
async function writeMarker(trx: Parameters<Parameters<typeof runIdempotent>[5]>[0], marker: string) {
  await trx
    .insertInto('audit_log')
    .values({ actor: 'test', entity: 'marker', entity_id: marker, action: 'run', data: '{}' })
    .execute();
}

/** The marker's write, built and not sent (for writeTogether, with a handed response). */
function markerWrite(trx: Parameters<Parameters<typeof runIdempotent>[5]>[0], marker: string) {
  return trx
    .insertInto('audit_log')
    .values({ actor: 'test', entity: 'marker', entity_id: marker, action: 'run', data: '{}' });
}

async function markers(db: Awaited<ReturnType<typeof openTestDatabase>>['db'], marker: string): Promise<number> {
  const rows = await db.selectFrom('audit_log').select('id').where('entity_id', '=', marker).execute();
  return rows.length;
}

/**
 * Another process's request with the same key (and body `{ x: 1 }` of operation test.op) commits its
 * response `{"theirs":true}` meanwhile, through another connection.
 */
async function storeTheirs(db: Awaited<ReturnType<typeof openTestDatabase>>['db'], partnerId: string, key: string) {
  await db
    .insertInto('idempotency_keys')
    .values({
      partner_id: partnerId,
      environment: 'sandbox',
      key,
      operation: 'test.op',
      request_hash: sha256Hex(`test.op\n${canonicalJson({ x: 1 })}`),
      status: 'completed',
      locked_until: sql<Date>`now()`,
      response_status: 201,
      response_enc: encrypt(keys.encryption, '{"theirs":true}'),
      expires_at: sql<Date>`now() + make_interval(hours => ${KEY_TTL_HOURS})`,
    })
    .execute();
}

describe('Idempotency-Key (runIdempotent)', () => {
  it('runs once, replays the same bytes, refuses another body, and stores nothing on an error', async (t) => {
    const { db } = await openTestDatabase(t);
    const partner = await createTestPartner(db);
    const scope: IdempotencyScope = { partnerId: partner.id, environment: 'sandbox', operation: 'test.op' };
    const deps = { db, encryptionKey: keys.encryption };
    let runs = 0;
    const op = async (trx: Parameters<Parameters<typeof runIdempotent>[5]>[0]) => {
      runs++;
      await writeMarker(trx, 'replay-marker');
      return { status: 201, body: { n: runs } };
    };
    const first = await runIdempotent(deps, scope, 'k-1', { a: 1 }, serialize, op);
    assert.deepEqual(first, { status: 201, payload: '{"n":1}', replayed: false });
    const again = await runIdempotent(deps, scope, 'k-1', { a: 1 }, serialize, op);
    assert.deepEqual(again, { status: 201, payload: '{"n":1}', replayed: true });
    assert.equal(runs, 1);
    assert.equal(await markers(db, 'replay-marker'), 1);
    await assert.rejects(
      runIdempotent(deps, scope, 'k-1', { a: 2 }, serialize, op),
      (e: unknown) => e instanceof DomainError && e.code === 'idempotency_key_reused',
    );
    // another operation's key space is its own
    const other = await runIdempotent(deps, { ...scope, operation: 'test.other' }, 'k-2', { a: 1 }, serialize, op);
    assert.equal(other.replayed, false);

    let failures = 0;
    const failing = async (trx: Parameters<Parameters<typeof runIdempotent>[5]>[0]) => {
      await writeMarker(trx, 'failed-marker');
      if (failures++ === 0) throw new DomainError('validation_failed', 'first try fails');
      return { status: 200, body: { ok: true } };
    };
    await assert.rejects(runIdempotent(deps, scope, 'k-3', {}, serialize, failing));
    assert.equal(await markers(db, 'failed-marker'), 0, 'the failed run rolled back');
    const retried = await runIdempotent(deps, scope, 'k-3', {}, serialize, failing);
    assert.deepEqual(retried, { status: 200, payload: '{"ok":true}', replayed: false });
    assert.equal(await markers(db, 'failed-marker'), 1);
  });

  it('honours an in-flight claim committed by an earlier version until its lock passes', async (t) => {
    const { db } = await openTestDatabase(t);
    const partner = await createTestPartner(db);
    const scope: IdempotencyScope = { partnerId: partner.id, environment: 'sandbox', operation: 'test.op' };
    const deps = { db, encryptionKey: keys.encryption };
    const claim = (lockedFor: number) =>
      db
        .insertInto('idempotency_keys')
        .values({
          partner_id: partner.id,
          environment: 'sandbox',
          key: `legacy-${lockedFor}`,
          operation: 'test.op',
          request_hash: sha256Hex(`test.op\n${canonicalJson({})}`),
          status: 'in_flight',
          locked_until: sql<Date>`now() + make_interval(secs => ${lockedFor})`,
          response_status: null,
          response_enc: null,
          expires_at: sql<Date>`now() + make_interval(hours => ${KEY_TTL_HOURS})`,
        })
        .execute();
    await claim(60);
    await claim(-1);
    const op = async () => ({ status: 200, body: { ok: true } });
    await assert.rejects(
      runIdempotent(deps, scope, 'legacy-60', {}, serialize, op),
      (e: unknown) => e instanceof DomainError && e.code === 'idempotency_request_in_progress',
    );
    const takenOver = await runIdempotent(deps, scope, 'legacy--1', {}, serialize, op);
    assert.deepEqual(takenOver, { status: 200, payload: '{"ok":true}', replayed: false });
  });

  it("stores a handed response with the operation's own last statement, and answers it", async (t) => {
    const { db } = await openTestDatabase(t);
    const partner = await createTestPartner(db);
    const scope: IdempotencyScope = { partnerId: partner.id, environment: 'sandbox', operation: 'test.handed' };
    const deps = { db, encryptionKey: keys.encryption };
    let runs = 0;
    const op = async (
      trx: Parameters<Parameters<typeof runIdempotent>[5]>[0],
      storeResponse: Parameters<Parameters<typeof runIdempotent>[5]>[1],
    ) => {
      runs++;
      const body = { n: runs };
      const handed = storeResponse(201, body);
      assert.ok(handed, 'a request with a key gets its response write');
      await writeTogether(trx, [markerWrite(trx, 'handed-marker'), handed]);
      return { status: 201, body };
    };
    const first = await runIdempotent(deps, scope, 'k-handed', { a: 1 }, serialize, op);
    assert.deepEqual(first, { status: 201, payload: '{"n":1}', replayed: false });
    const again = await runIdempotent(deps, scope, 'k-handed', { a: 1 }, serialize, op);
    assert.deepEqual(again, { status: 201, payload: '{"n":1}', replayed: true });
    assert.equal(runs, 1);
    assert.equal(await markers(db, 'handed-marker'), 1);
    const row = await db
      .selectFrom('idempotency_keys')
      .select(['status', 'response_status', 'operation'])
      .where('key', '=', 'k-handed')
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'completed', response_status: 201, operation: 'test.handed' });

    // without a key there is nothing to store: seal gives no write and the operation runs as is
    const unkeyed = await runIdempotent(deps, scope, undefined, { a: 1 }, serialize, async (trx, storeResponse) => {
      assert.equal(storeResponse(200, {}), undefined);
      await writeTogether(trx, [markerWrite(trx, 'unkeyed-marker'), storeResponse(200, {})]);
      return { status: 200, body: { unkeyed: true } };
    });
    assert.deepEqual(unkeyed, { status: 200, payload: '{"unkeyed":true}', replayed: false });

    // handing one status and returning another is a programming error: refused, nothing committed
    await assert.rejects(
      runIdempotent(deps, scope, 'k-mismatch', {}, serialize, async (trx, storeResponse) => {
        await writeTogether(trx, [markerWrite(trx, 'mismatch-marker'), storeResponse(201, { a: 1 })]);
        return { status: 200, body: { a: 1 } };
      }),
      /stored a 201 response and returned 200/,
    );
    assert.equal(await markers(db, 'mismatch-marker'), 0);
    const stored = await db.selectFrom('idempotency_keys').select('key').where('key', '=', 'k-mismatch').execute();
    assert.equal(stored.length, 0);

    // handing the response twice, or handing it and not sending its write, is refused at once (no retry loop)
    let turns = 0;
    await assert.rejects(
      runIdempotent(deps, scope, 'k-twice', {}, serialize, async (trx, storeResponse) => {
        turns++;
        await writeTogether(trx, [storeResponse(201, { a: 1 })]);
        await writeTogether(trx, [storeResponse(201, { a: 1 })]);
        return { status: 201, body: { a: 1 } };
      }),
      /handed its response to store twice/,
    );
    await assert.rejects(
      runIdempotent(deps, scope, 'k-unsent', {}, serialize, async (trx, storeResponse) => {
        turns++;
        storeResponse(201, { a: 1 });
        await writeMarker(trx, 'unsent-marker');
        return { status: 201, body: { a: 1 } };
      }),
      /was handed its response's write and did not send it/,
    );
    assert.equal(turns, 2, 'each ran once');
    assert.equal(await markers(db, 'unsent-marker'), 0);
  });

  describe(
    'concurrent requests (PostgreSQL: several connections)',
    { skip: usingPostgres ? false : 'TEST_DATABASE_URL is not set' },
    () => {
      it('a second request while the first runs is 409, at once', async (t) => {
        const { db } = await openTestDatabase(t);
        const partner = await createTestPartner(db);
        const scope: IdempotencyScope = { partnerId: partner.id, environment: 'sandbox', operation: 'test.op' };
        const deps = { db, encryptionKey: keys.encryption };
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        const first = runIdempotent(deps, scope, 'busy', {}, serialize, async (trx) => {
          await writeMarker(trx, 'busy-marker');
          started();
          await held;
          return { status: 201, body: { first: true } };
        });
        await running;
        await assert.rejects(
          runIdempotent(deps, scope, 'busy', {}, serialize, async () => ({ status: 201, body: { second: true } })),
          (e: unknown) => e instanceof DomainError && e.code === 'idempotency_request_in_progress',
        );
        release();
        assert.equal((await first).replayed, false);
        const replay = await runIdempotent(deps, scope, 'busy', {}, serialize, async () => ({ status: 201, body: {} }));
        assert.deepEqual(replay, { status: 201, payload: '{"first":true}', replayed: true });
      });

      for (const handing of [false, true])
        it(`a request whose key was stored by another since its lookup rolls back and replays the other${handing ? ' (response handed to its last statement)' : ''}`, async (t) => {
          const { db } = await openTestDatabase(t);
          const partner = await createTestPartner(db);
          const scope: IdempotencyScope = { partnerId: partner.id, environment: 'sandbox', operation: 'test.op' };
          const deps = { db, encryptionKey: keys.encryption };
          let runs = 0;
          const outcome = await runIdempotent(deps, scope, 'raced', { x: 1 }, serialize, async (trx, storeResponse) => {
            runs++;
            if (!handing) await writeMarker(trx, 'raced-marker');
            if (runs === 1) {
              await storeTheirs(db, partner.id, 'raced');
            }
            if (handing)
              await writeTogether(trx, [markerWrite(trx, 'raced-marker'), storeResponse(201, { ours: true })]);
            return { status: 201, body: { ours: true } };
          });
          assert.deepEqual(outcome, { status: 201, payload: '{"theirs":true}', replayed: true });
          assert.equal(runs, 1, 'the retry found the stored response and did not run again');
          assert.equal(await markers(db, 'raced-marker'), 0, 'our run rolled back: one effect, theirs');
        });

      it("a refusal by the statement that found the key taken still answers the other request's response", async (t) => {
        const { db } = await openTestDatabase(t);
        const partner = await createTestPartner(db);
        const scope: IdempotencyScope = { partnerId: partner.id, environment: 'sandbox', operation: 'test.op' };
        const deps = { db, encryptionKey: keys.encryption };
        let runs = 0;
        const outcome = await runIdempotent(deps, scope, 'refused', { x: 1 }, serialize, async (trx, storeResponse) => {
          runs++;
          await storeTheirs(db, partner.id, 'refused');
          await writeTogether(trx, [markerWrite(trx, 'refused-marker'), storeResponse(201, { ours: true })]);
          // the statement's own result refuses (as the reservation refuses a full flight)
          throw new DomainError('capacity_exceeded', 'full');
        });
        assert.deepEqual(outcome, { status: 201, payload: '{"theirs":true}', replayed: true });
        assert.equal(runs, 1);
        assert.equal(await markers(db, 'refused-marker'), 0);
      });
    },
  );
});
