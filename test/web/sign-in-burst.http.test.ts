import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createUser } from '../../src/partners/users.ts';
import { addressCounterKey, emailCounterKey, SESSION_RULES } from '../../src/web/sessions.ts';
import { buildTestApp, createTestPartner, runCliOn, uniqueSlug, type TestApp } from '../helper.ts';

/**
 * Sign-in lockout under concurrency: attempts sent at once are each counted before their password is
 * checked, so a burst checks at most the allowed number of passwords, and the right password sent
 * after the allowance is refused. Portal and partner console share /portal/login; operators sign in
 * at /admin/login. On PGlite and on the PostgreSQL of TEST_DATABASE_URL.
 */

const PASSWORD = 'correct horse battery';
const ADMIN = { email: `${uniqueSlug('ops-burst')}@parasol.test`, password: 'operator password 42' };

/** A client address of its own for each test: the address counter of one test never locks another's. */
const newAddress = () => `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;

interface Attempt {
  email: string;
  password: string;
}

/** Sends every attempt at once from one browser (one login cookie) and one address; the statuses, in order. */
async function burst(
  app: FastifyInstance,
  area: 'portal' | 'admin',
  attempts: Attempt[],
  address = newAddress(),
): Promise<number[]> {
  const form = await app.inject({ method: 'GET', url: `/${area}/login`, remoteAddress: address });
  const login = (form.cookies as { name: string; value: string }[]).find((c) => c.name === 'psl_login')!.value;
  const responses = await Promise.all(
    attempts.map((a) =>
      app.inject({
        method: 'POST',
        url: `/${area}/login`,
        remoteAddress: address,
        headers: { cookie: `psl_login=${login}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: login, email: a.email, password: a.password }).toString(),
      }),
    ),
  );
  return responses.map((r) => r.statusCode);
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;
const wrong = (email: string, n: number): Attempt[] =>
  Array.from({ length: n }, (_, i) => ({ email, password: `wrong password ${i}` }));

describe('sign-in lockout under concurrency', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password } });
  });
  after(() => t.close());

  async function partnerUser() {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('burst')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    return email;
  }

  test('portal and console: 100 wrong passwords at once check only the allowance; the rest are refused', async () => {
    const email = await partnerUser();
    const statuses = await burst(t.app, 'portal', wrong(email, 100));
    assert.equal(count(statuses, 401), SESSION_RULES.account.threshold);
    assert.equal(count(statuses, 429), 100 - SESSION_RULES.account.threshold);
    // the right password, even from another address, is refused while the account is locked
    const right = await burst(t.app, 'portal', [{ email, password: PASSWORD }]);
    assert.deepEqual(right, [429]);
  });

  test('portal and console: the right password inside a burst past the allowance is refused and opens no session', async () => {
    const email = await partnerUser();
    const first = await burst(t.app, 'portal', wrong(email, SESSION_RULES.account.threshold));
    assert.equal(count(first, 401), SESSION_RULES.account.threshold);
    const attempts = [...wrong(email, 50), { email, password: PASSWORD }, ...wrong(email, 49)];
    const statuses = await burst(t.app, 'portal', attempts);
    assert.deepEqual(new Set(statuses), new Set([429]));
    const sessions = await t.db
      .selectFrom('web_sessions')
      .innerJoin('users', 'users.id', 'web_sessions.user_id')
      .select('web_sessions.token_hash')
      .where('users.email', '=', email)
      .execute();
    assert.deepEqual(sessions, []);
  });

  test('a burst that holds the right password checks at most the allowance, whatever the order', async () => {
    const email = await partnerUser();
    const attempts = [...wrong(email, 60), { email, password: PASSWORD }, ...wrong(email, 39)];
    const statuses = await burst(t.app, 'portal', attempts);
    // the right password signs in only if it came within the allowance; either way, no more passwords are checked
    assert.ok(count(statuses, 303) <= 1);
    assert.equal(count(statuses, 401) + count(statuses, 303), SESSION_RULES.account.threshold);
    assert.equal(count(statuses, 429), 100 - SESSION_RULES.account.threshold);
  });

  test('operator console: 100 wrong passwords at once check only the allowance; the right one after is refused', async () => {
    const statuses = await burst(t.app, 'admin', wrong(ADMIN.email, 100));
    assert.equal(count(statuses, 401), SESSION_RULES.account.threshold);
    assert.equal(count(statuses, 429), 100 - SESSION_RULES.account.threshold);
    assert.deepEqual(await burst(t.app, 'admin', [{ email: ADMIN.email, password: ADMIN.password }]), [429]);
    assert.deepEqual(
      await burst(t.app, 'admin', [...wrong(ADMIN.email, 10), ADMIN, ...wrong(ADMIN.email, 10)]).then(
        (s) => new Set(s),
      ),
      new Set([429]),
    );
    // an operator ends the lock now (audited): the right password signs in again
    const unlocked = await runCliOn(t, ['users', 'unlock', ADMIN.email.toUpperCase(), '--operator']);
    assert.equal(unlocked.code, 0, unlocked.err);
    assert.match(unlocked.out, /unlocked/);
    assert.deepEqual(await burst(t.app, 'admin', [ADMIN]), [303]);
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'entity_id'])
      .where('action', '=', 'sign_in_unlocked')
      .execute();
    assert.deepEqual(
      audited.map((r) => r.actor),
      ['operator:test'],
    );
    assert.ok(!audited[0]!.entity_id.includes('@'), 'the account named by its id, not its address');
  });

  test('one address trying many accounts at once checks at most the address allowance', async () => {
    const attempts = Array.from({ length: 40 }, (_, i) => ({
      email: `${uniqueSlug(`nobody-${i}`)}@example.com`,
      password: 'guess',
    }));
    const statuses = await burst(t.app, 'portal', attempts);
    assert.equal(count(statuses, 401), SESSION_RULES.address.threshold);
    assert.equal(count(statuses, 429), 40 - SESSION_RULES.address.threshold);
  });

  test('a successful sign-in forgives the account’s attempts and gives its own back to the address', async () => {
    const email = await partnerUser();
    const address = newAddress();
    assert.deepEqual(await burst(t.app, 'portal', wrong(email, 2), address), [401, 401]);
    assert.deepEqual(await burst(t.app, 'portal', [{ email, password: PASSWORD }], address), [303]);
    const accountKey = emailCounterKey(t.app.parasol, 'partner:account', email);
    const addressKey = addressCounterKey(t.app.parasol, 'partner', address);
    const rows = await t.db
      .selectFrom('login_throttle')
      .select(['key', 'attempts'])
      .where('key', 'in', [accountKey, addressKey])
      .execute();
    const attempts = Object.fromEntries(rows.map((r) => [r.key, r.attempts]));
    assert.deepEqual(attempts, { [accountKey]: 0, [addressKey]: 2 });
    // the counters name no address in clear: their keys are keyed hashes of the email and of the IP address
    for (const held of [email, address]) {
      const clear = await t.db.selectFrom('login_throttle').select('key').where('key', 'like', `%${held}%`).execute();
      assert.deepEqual(clear, [], held);
    }
  });
});
