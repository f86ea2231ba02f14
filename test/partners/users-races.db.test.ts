import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { createApiKey, revokeApiKey } from '../../src/partners/api-keys.ts';
import { setBrandName } from '../../src/partners/brand.ts';
import { setConfiguration } from '../../src/partners/configuration.ts';
import type { UserRole } from '../../src/partners/model.ts';
import { createPartner, setAgreement } from '../../src/partners/partners.ts';
import * as usersRepo from '../../src/partners/users-repo.ts';
import {
  createUser,
  inviteUser,
  removeUser,
  resendInvitation,
  setUserRole,
  usePasswordLink,
  type UserCaller,
  type UserDeps,
} from '../../src/partners/users.ts';
import { deriveKeyring, randomToken, sha256Hex } from '../../src/platform/crypto.ts';
import { DomainError } from '../../src/platform/errors.ts';
import { endUserSessions } from '../../src/web/sessions.ts';
import type { Db } from '../../src/platform/db.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import { addEndpoint, redeliver, rotateSecret, type WebhookDeps } from '../../src/webhooks/index.ts';
import { DEFAULT_AGREEMENT, eventually, openTestDatabase, testConfig, uniqueSlug, usingPostgres } from '../helper.ts';

/**
 * Partner users written by two transactions at once (PostgreSQL: a second connection holds a lock or
 * an uncommitted row, so each interleaving is the one named, not a matter of timing): every path
 * locks the users before their links, so an acceptance and an admin's resend or removal never
 * deadlock; an address inserted by another transaction since the check is the documented 409 (or
 * `address_taken` for the acceptance), never a unique violation's 500.
 */

const keys = deriveKeyring(testConfig().masterKey!);
const jobs = { send: async () => 'job', sendMany: async () => undefined } as unknown as JobQueue;
const PASSWORD = 'correct horse battery';

async function setup(t: TestContext) {
  const handle = await openTestDatabase(); // closed below, after the connections that use it
  const db = handle.db;
  const deps: UserDeps = { db, jobs, keys, publicUrl: 'https://parasol.test', now: () => new Date() };
  const partner = await createPartner(db, 'operator:test', { slug: uniqueSlug(), name: 'Race Partner' });
  const admin = await createUser(db, 'operator:test', {
    partnerId: partner.id,
    email: `${uniqueSlug('admin')}@example.com`,
    password: PASSWORD,
  });
  const caller: UserCaller = {
    actor: `user:${admin.id}`,
    partnerId: partner.id,
    userId: admin.id,
    role: 'admin',
    lang: 'en',
  };
  const held = new pg.Client({ connectionString: handle.url });
  await held.connect();
  // a connection of its own: pg_stat_activity is a snapshot per transaction, and `held` stays in one
  const watch = new pg.Client({ connectionString: handle.url });
  await watch.connect();
  t.after(async () => {
    await held.query('ROLLBACK').catch(() => undefined);
    await held.end();
    await watch.end();
    await handle.close();
  });
  /** How many of this database's sessions wait for a lock. */
  const waiting = async (n: number) => {
    const { rows } = await watch.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return rows[0]!.n >= n ? true : undefined;
  };
  /** An invited user of the partner, with a link whose token the test knows. */
  const invited = async (partnerCaller = caller, email = `${uniqueSlug('invitee')}@example.com`) => {
    const user = await inviteUser(deps, partnerCaller, { email, role: 'viewer' });
    const token = randomToken(32);
    const now = new Date();
    await usersRepo.insertUserToken(db, {
      tokenHash: sha256Hex(token),
      userId: user.id,
      purpose: 'invitation',
      now,
      expiresAt: new Date(now.getTime() + 3_600_000),
    });
    return { ...user, token };
  };
  return { db, deps, caller, held, waiting, invited, partner };
}

const isCode = (code: string) => (e: unknown) => e instanceof DomainError && e.code === code;

const AT = new Date('2026-11-27T10:00:00Z');

/**
 * Writes of the portal and console other than users', each made by the partner user `userId` (its right
 * checked again in the write's transaction, partners' `requireActingUser`), with the role that grants
 * it and what it writes (nothing, when refused).
 */
function consoleWrites(db: Db, partnerId: string) {
  const webhooks: WebhookDeps = { db, jobs, keys, allowPrivate: true, now: () => AT };
  const count = (table: 'api_keys' | 'partner_configurations' | 'webhook_endpoints') => async () =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('partner_id', '=', partnerId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return [
    {
      name: 'an API key created',
      role: 'developer' as UserRole,
      write: (userId: string) => createApiKey(db, `user:${userId}`, { partnerId, environment: 'sandbox', userId }),
      written: count('api_keys'),
    },
    {
      name: 'a configuration saved',
      role: 'admin' as UserRole,
      write: (userId: string) =>
        setConfiguration(
          db,
          `user:${userId}`,
          partnerId,
          {
            formula: 'delay',
            delayTiers: [{ minDelayMinutes: 120, amount: 5000 }],
            cancellationAmount: 0,
            commissionRate: '0.10',
            userId,
          },
          AT,
        ),
      written: count('partner_configurations'),
    },
    {
      name: 'a webhook endpoint added',
      role: 'developer' as UserRole,
      write: (userId: string) =>
        addEndpoint(
          webhooks,
          { actor: `user:${userId}`, partnerId, environment: 'sandbox', userId },
          { url: 'http://127.0.0.1:9/hooks' },
        ),
      written: count('webhook_endpoints'),
    },
  ];
}

/** The outcome of work started now and awaited later (a rejection meanwhile is not unhandled). */
function started<T>(work: Promise<T>): Promise<PromiseSettledResult<T>> {
  return work.then(
    (value) => ({ status: 'fulfilled', value }),
    (reason: unknown) => ({ status: 'rejected', reason }),
  );
}

function rejection(outcome: PromiseSettledResult<unknown>): unknown {
  assert.equal(outcome.status, 'rejected', 'it failed');
  return (outcome as PromiseRejectedResult).reason;
}

function value<T>(outcome: PromiseSettledResult<T>): T {
  assert.equal(outcome.status, 'fulfilled', String((outcome as PromiseRejectedResult).reason));
  return (outcome as PromiseFulfilledResult<T>).value;
}

describe(
  'partner users, two transactions at once',
  { skip: usingPostgres ? false : 'TEST_DATABASE_URL is not set' },
  () => {
    it('an acceptance and a resend of the same invitation: the acceptance wins, the resend is 409', async (t) => {
      const { deps, caller, held, waiting, invited } = await setup(t);
      const user = await invited();
      // the link's row held: the acceptance waits on it first, the resend after it
      await held.query('BEGIN');
      await held.query('SELECT 1 FROM user_tokens WHERE token_hash = $1 FOR UPDATE', [sha256Hex(user.token)]);
      const accepting = started(usePasswordLink(deps, user.token, PASSWORD, endUserSessions));
      await eventually(() => waiting(1));
      const resending = started(resendInvitation(deps, caller, user.id));
      await eventually(() => waiting(2));
      await held.query('ROLLBACK');
      assert.deepEqual(value(await accepting), {
        userId: user.id,
        email: user.email,
        partnerId: caller.partnerId,
        purpose: 'invitation',
      });
      const refusal = rejection(await resending);
      assert.ok(isCode('conflict')(refusal), String(refusal));
    });

    it('an acceptance and a removal of the invited user: both complete, the user is gone', async (t) => {
      const { db, deps, caller, held, waiting, invited } = await setup(t);
      const user = await invited();
      await held.query('BEGIN');
      await held.query('SELECT 1 FROM user_tokens WHERE token_hash = $1 FOR UPDATE', [sha256Hex(user.token)]);
      const accepting = started(usePasswordLink(deps, user.token, PASSWORD, endUserSessions));
      await eventually(() => waiting(1));
      const removing = started(removeUser(deps, caller, user.id));
      await eventually(() => waiting(2));
      await held.query('ROLLBACK');
      const [accepted, removed] = await Promise.allSettled([accepting, removing]);
      assert.equal(accepted.status, 'fulfilled', String((accepted as PromiseRejectedResult).reason));
      assert.equal(removed.status, 'fulfilled', String((removed as PromiseRejectedResult).reason));
      const left = await db.selectFrom('users').select('id').where('id', '=', user.id).execute();
      assert.deepEqual(left, []);
    });

    it('two invitations of one address at one partner: the second is 409', async (t) => {
      const { deps, caller, held, waiting } = await setup(t);
      const email = `${uniqueSlug('twice')}@example.com`;
      // the other invitation, inserted and not yet committed: the second's check does not see it
      await held.query('BEGIN');
      await held.query(`INSERT INTO users (partner_id, email, role) VALUES ($1, $2, 'viewer')`, [
        caller.partnerId,
        email,
      ]);
      const inviting = started(inviteUser(deps, caller, { email, role: 'developer' }));
      await eventually(() => waiting(1));
      await held.query('COMMIT');
      const refusal = rejection(await inviting);
      assert.ok(isCode('conflict')(refusal), String(refusal));
    });

    it("an operator's user of an address whose invitation is being accepted elsewhere: 409", async (t) => {
      const { db, held, waiting, invited } = await setup(t);
      const other = await createPartner(db, 'operator:test', { slug: uniqueSlug(), name: 'Other Partner' });
      const email = `${uniqueSlug('accepting')}@example.com`;
      const user = await invited(undefined, email);
      // the acceptance, its password set and not yet committed
      await held.query('BEGIN');
      await held.query(`UPDATE users SET password_hash = 'x', activated_at = now() WHERE id = $1`, [user.id]);
      const creating = started(createUser(db, 'operator:test', { partnerId: other.id, email, password: PASSWORD }));
      await eventually(() => waiting(1));
      await held.query('COMMIT');
      const refusal = rejection(await creating);
      assert.ok(isCode('conflict')(refusal), String(refusal));
    });

    it('two revocations of one API key: one is written and audited, both answer the first time', async (t) => {
      const { db, caller, held, waiting } = await setup(t);
      const { key } = await createApiKey(db, 'operator:test', { partnerId: caller.partnerId, environment: 'sandbox' });
      // the other revocation, its row updated and not yet committed: this one read the key unrevoked
      await held.query('BEGIN');
      await held.query(`UPDATE api_keys SET revoked_at = '2026-11-27T10:00:00Z' WHERE id = $1`, [key.id]);
      const revoking = started(revokeApiKey(db, 'operator:second', caller.partnerId, key.id));
      await eventually(() => waiting(1));
      await held.query('COMMIT');
      assert.deepEqual(value(await revoking).revokedAt, new Date('2026-11-27T10:00:00Z'), 'the first time kept');
      const audited = await db
        .selectFrom('audit_log')
        .select('actor')
        .where('entity', '=', 'api_key')
        .where('entity_id', '=', key.id)
        .where('action', '=', 'revoked')
        .execute();
      assert.deepEqual(audited, [], 'no second revocation in the audit trail (the first one is held’s own)');
    });

    // the role re-check is under the users' lock: read before it, B would still be admin and its change written
    for (const [change, sql] of [
      ['demotes', `UPDATE users SET role = 'viewer' WHERE id = $1`],
      ['removes', `DELETE FROM users WHERE id = $1`],
    ] as const) {
      it(`an admin ${change} B while B promotes itself: B's change waits for the lock, then is forbidden`, async (t) => {
        const { db, deps, caller, held, waiting } = await setup(t);
        const b = await createUser(db, 'operator:test', {
          partnerId: caller.partnerId,
          email: `${uniqueSlug('b')}@example.com`,
          password: PASSWORD,
        });
        // B's session read B as an admin; A's change is written and not yet committed
        await held.query('BEGIN');
        await held.query(sql, [b.id]);
        const promoting = started(setUserRole(deps, { ...caller, actor: `user:${b.id}`, userId: b.id }, b.id, 'admin'));
        await eventually(() => waiting(1));
        await held.query('COMMIT');
        const refusal = rejection(await promoting);
        assert.ok(isCode('forbidden')(refusal), String(refusal));
        const left = await db.selectFrom('users').select('role').where('id', '=', b.id).executeTakeFirst();
        assert.deepEqual(left, change === 'demotes' ? { role: 'viewer' } : undefined, "A's change stands");
      });
    }

    // every other console write re-checks its caller the same way: read before the lock, B's right would still hold
    for (const [change, sql] of [
      ['demotes', `UPDATE users SET role = 'viewer' WHERE id = $1`],
      ['removes', `DELETE FROM users WHERE id = $1`],
    ] as const) {
      it(`an admin ${change} B while B's console writes are under way: each waits for the lock, then is forbidden`, async (t) => {
        const { db, caller, held, waiting } = await setup(t);
        for (const { name, role, write, written } of consoleWrites(db, caller.partnerId)) {
          const b = await createUser(db, 'operator:test', {
            partnerId: caller.partnerId,
            email: `${uniqueSlug('b')}@example.com`,
            password: PASSWORD,
            role,
          });
          // B's session read B's role when the request began; A's change is written and not yet committed
          await held.query('BEGIN');
          await held.query(sql, [b.id]);
          const writing = started<unknown>(write(b.id));
          await eventually(() => waiting(1));
          await held.query('COMMIT');
          const refusal = rejection(await writing);
          assert.ok(isCode('forbidden')(refusal), `${name}: ${String(refusal)}`);
          assert.equal(await written(), 0, `${name}: nothing written`);
        }
      });
    }

    it("an acceptance while an operator's user of the address commits: address_taken, the link left unused", async (t) => {
      const { db, deps, held, waiting, invited } = await setup(t);
      const other = await createPartner(db, 'operator:test', { slug: uniqueSlug(), name: 'Other Partner' });
      const email = `${uniqueSlug('created')}@example.com`;
      const user = await invited(undefined, email);
      await held.query('BEGIN');
      await held.query(
        `INSERT INTO users (partner_id, email, role, password_hash, activated_at) VALUES ($1, $2, 'admin', 'x', now())`,
        [other.id, email],
      );
      const accepting = started(usePasswordLink(deps, user.token, PASSWORD, endUserSessions));
      await eventually(() => waiting(1));
      await held.query('COMMIT');
      assert.equal(value(await accepting), 'address_taken');
      const link = await usersRepo.findLiveToken(db, sha256Hex(user.token), new Date());
      assert.equal(link?.user_id, user.id);
    });
  },
);

describe("a caller's right is read again under the users' lock", () => {
  it('console writes (API keys, brand name, configuration, webhook endpoints) of a user demoted or removed since: forbidden, nothing written', async (t) => {
    const handle = await openTestDatabase();
    t.after(() => handle.close());
    const db = handle.db;
    const partner = await createPartner(db, 'operator:test', { slug: uniqueSlug(), name: 'Stale Writes' });
    // an agreement: a configuration refused is refused for its caller's right, not for want of one
    await setAgreement(db, 'operator:test', partner.id, DEFAULT_AGREEMENT);
    const userOf = (role: UserRole) =>
      createUser(db, 'operator:test', {
        partnerId: partner.id,
        email: `${uniqueSlug(role)}@example.com`,
        password: PASSWORD,
        role,
      });
    const admin = await userOf('admin');
    const deps: UserDeps = { db, jobs, keys, publicUrl: 'https://parasol.test', now: () => AT };
    const adminCaller: UserCaller = {
      actor: `user:${admin.id}`,
      partnerId: partner.id,
      userId: admin.id,
      role: 'admin',
      lang: 'en',
    };
    const webhooks: WebhookDeps = { db, jobs, keys, allowPrivate: true, now: () => AT };
    const scopeOf = (userId: string) => ({
      actor: `user:${userId}`,
      partnerId: partner.id,
      environment: 'sandbox' as const,
      userId,
    });

    // the role still granting it, each write goes through (the check refuses no one allowed)
    const developer = await userOf('developer');
    const { key } = await createApiKey(db, `user:${developer.id}`, {
      partnerId: partner.id,
      environment: 'sandbox',
      userId: developer.id,
    });
    const { endpoint } = await addEndpoint(webhooks, scopeOf(developer.id), { url: 'http://127.0.0.1:9/hooks' });

    // demoted since its session was read: every write refused
    await setUserRole(deps, adminCaller, developer.id, 'viewer');
    for (const write of consoleWrites(db, partner.id).filter((w) => w.role === 'developer'))
      await assert.rejects(write.write(developer.id), isCode('forbidden'), write.name);
    await assert.rejects(
      revokeApiKey(db, `user:${developer.id}`, partner.id, key.id, developer.id),
      isCode('forbidden'),
    );
    await assert.rejects(rotateSecret(webhooks, scopeOf(developer.id), endpoint.id), isCode('forbidden'));
    await assert.rejects(
      redeliver(webhooks, scopeOf(developer.id), '00000000-0000-4000-8000-000000000000'),
      isCode('forbidden'),
    );

    // an admin removed since: neither the brand name nor the configuration
    const other = await userOf('admin');
    await removeUser(deps, adminCaller, other.id);
    await assert.rejects(
      setBrandName(db, `user:${other.id}`, partner.id, 'Stale Brand', other.id),
      isCode('forbidden'),
    );
    const [, configuration] = consoleWrites(db, partner.id);
    await assert.rejects(configuration!.write(other.id), isCode('forbidden'));

    // an admin demoted to developer since: neither the brand name nor the configuration, an API key still
    const demoted = await userOf('admin');
    await setUserRole(deps, adminCaller, demoted.id, 'developer');
    await assert.rejects(
      setBrandName(db, `user:${demoted.id}`, partner.id, 'Stale Brand', demoted.id),
      isCode('forbidden'),
    );
    await assert.rejects(configuration!.write(demoted.id), isCode('forbidden'));
    const { key: developerKey } = await createApiKey(db, `user:${demoted.id}`, {
      partnerId: partner.id,
      environment: 'sandbox',
      userId: demoted.id,
    });
    // the admin still one: its configuration saved (the only one)
    await configuration!.write(admin.id);

    const [keys_, endpoints, configurations] = await Promise.all([
      db.selectFrom('api_keys').select(['id', 'revoked_at']).where('partner_id', '=', partner.id).execute(),
      db.selectFrom('webhook_endpoints').select('secret_enc').where('partner_id', '=', partner.id).execute(),
      db.selectFrom('partner_configurations').select('id').where('partner_id', '=', partner.id).execute(),
    ]);
    assert.deepEqual(
      keys_.map((k) => k.id).sort(),
      [key.id, developerKey.id].sort(),
      'the developer’s key and the demoted admin’s',
    );
    assert.ok(
      keys_.every((k) => k.revoked_at === null),
      'none revoked',
    );
    assert.equal(endpoints.length, 1, 'one endpoint');
    assert.equal(configurations.length, 1, 'the admin’s configuration only');
    const brand = await db.selectFrom('partners').select('brand_name').where('id', '=', partner.id).executeTakeFirst();
    assert.equal(brand?.brand_name, null);
  });

  // the session's role was read when the request began; an admin's change committed since is the one that counts
  it('a demoted admin does not promote itself back, invite or remove; a removed one changes nothing', async (t) => {
    const handle = await openTestDatabase();
    t.after(() => handle.close());
    const db = handle.db;
    const deps: UserDeps = { db, jobs, keys, publicUrl: 'https://parasol.test', now: () => new Date() };
    const partner = await createPartner(db, 'operator:test', { slug: uniqueSlug(), name: 'Stale Partner' });
    const newAdmin = () =>
      createUser(db, 'operator:test', {
        partnerId: partner.id,
        email: `${uniqueSlug('admin')}@example.com`,
        password: PASSWORD,
      });
    const [a, b, c] = [await newAdmin(), await newAdmin(), await newAdmin()];
    const callerOf = (id: string): UserCaller => ({
      actor: `user:${id}`,
      partnerId: partner.id,
      userId: id,
      role: 'admin',
      lang: 'en',
    });
    const roleOf = async (id: string) =>
      (await db.selectFrom('users').select('role').where('id', '=', id).executeTakeFirst())?.role;

    // A demotes B; B's request, begun while B was admin, arrives after
    await setUserRole(deps, callerOf(a.id), b.id, 'viewer');
    const stale = callerOf(b.id);
    await assert.rejects(setUserRole(deps, stale, b.id, 'admin'), isCode('forbidden'));
    assert.equal(await roleOf(b.id), 'viewer', "A's demotion stands");
    await assert.rejects(removeUser(deps, stale, c.id), isCode('forbidden'));
    // refused under the users' lock before its invitation email is counted against the limit
    let counted = 0;
    const count = async () => void (counted += 1);
    await assert.rejects(
      inviteUser(deps, stale, { email: `${uniqueSlug('late')}@example.com`, role: 'admin' }, count),
      isCode('forbidden'),
    );
    await assert.rejects(resendInvitation(deps, stale, c.id, count), isCode('forbidden'));
    assert.equal(counted, 0, 'the demoted caller’s invitation and resend counted nothing');
    assert.equal(await roleOf(c.id), 'admin');

    // A removes C; C's request arriving after changes nothing
    await removeUser(deps, callerOf(a.id), c.id);
    await assert.rejects(setUserRole(deps, callerOf(c.id), a.id, 'viewer'), isCode('forbidden'));
    assert.equal(await roleOf(a.id), 'admin');
    const audited = await db
      .selectFrom('audit_log')
      .select('action')
      .where('partner_id', '=', partner.id)
      .where('entity', '=', 'user')
      .where('action', 'in', ['role_changed', 'removed', 'invited'])
      .execute();
    assert.deepEqual(audited.map((r) => r.action).sort(), ['removed', 'role_changed'], 'only A’s two changes');
  });
});
