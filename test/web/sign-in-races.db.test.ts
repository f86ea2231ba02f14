import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPartner } from '../../src/partners/partners.ts';
import * as usersRepo from '../../src/partners/users-repo.ts';
import { createUser, removeUser, usePasswordLink } from '../../src/partners/users.ts';
import { deriveKeyring, randomToken, sha256Hex } from '../../src/platform/crypto.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { endUserSessions, signIn } from '../../src/web/sessions.ts';
import { openTestDatabase, testConfig, uniqueSlug } from '../helper.ts';
import { holdingNextRead } from '../holding-read.ts';

/**
 * A sign-in whose password was checked just before the account changed: the password reset (or the
 * removal) commits between the check and the session. The sign-in's read of the account is held
 * until the change has committed, so the interleaving is the one named, not a matter of timing. On
 * PGlite and on the PostgreSQL of TEST_DATABASE_URL.
 */

const keys = deriveKeyring(testConfig().masterKey!);
const PASSWORD = 'correct horse battery';

describe('a sign-in racing a change of its account', () => {
  let handle: DatabaseHandle;
  before(async () => (handle = await openTestDatabase()));
  after(() => handle.close());

  async function twoAdmins() {
    const partner = await createPartner(handle.db, 'operator:test', { slug: uniqueSlug(), name: 'Race Partner' });
    const [first, second] = await Promise.all(
      ['first', 'second'].map((name) =>
        createUser(handle.db, 'operator:test', {
          partnerId: partner.id,
          email: `${uniqueSlug(name)}@example.com`,
          password: PASSWORD,
        }),
      ),
    );
    return { partner, first: first!, second: second! };
  }

  const sessionsOf = async (userId: string) =>
    (await handle.db.selectFrom('web_sessions').select('token_hash').where('user_id', '=', userId).execute()).length;

  async function resetLink(userId: string) {
    const token = randomToken(32);
    const now = new Date();
    await usersRepo.insertUserToken(handle.db, {
      tokenHash: sha256Hex(token),
      userId,
      purpose: 'password_reset',
      now,
      expiresAt: new Date(now.getTime() + 3_600_000),
    });
    return token;
  }

  const signedIn = async (email: string, address: string) =>
    assert.equal(
      (
        await signIn(
          { db: handle.db, now: () => new Date(), keys },
          { kind: 'partner', email, password: PASSWORD, address },
        )
      ).kind,
      'signed_in',
    );

  it('the old password checked before a reset commits opens no session after it', async () => {
    const { first } = await twoAdmins();
    const held = holdingNextRead(handle.db, 'users');
    const signing = signIn(
      { db: held.db, now: () => new Date(), keys },
      { kind: 'partner', email: first.email, password: PASSWORD, address: '10.9.8.7' },
    );
    await held.held; // the account and its old password's hash are read
    // the owner resets the password meanwhile, as /portal/password/<token> does
    const token = await resetLink(first.id);
    const used = await usePasswordLink(
      { db: handle.db, now: () => new Date() },
      token,
      'a brand new password',
      endUserSessions,
    );
    assert.equal(typeof used === 'object' && used.userId, first.id);
    held.release();
    assert.equal((await signing).kind, 'invalid', 'the password checked is no longer the account’s');
    assert.equal(await sessionsOf(first.id), 0, 'no session survives the reset');
  });

  it('a user removed while its password is checked is not signed in (nor a 500)', async () => {
    const { partner, first, second } = await twoAdmins();
    const held = holdingNextRead(handle.db, 'users');
    const signing = signIn(
      { db: held.db, now: () => new Date(), keys },
      { kind: 'partner', email: first.email, password: PASSWORD, address: '10.9.8.6' },
    );
    await held.held;
    await removeUser(
      { db: handle.db },
      { actor: `user:${second.id}`, partnerId: partner.id, userId: second.id, role: 'admin', lang: 'en' },
      first.id,
    );
    held.release();
    assert.equal((await signing).kind, 'invalid');
    assert.equal(await sessionsOf(first.id), 0);
  });

  it('a reset ends the sessions in the transaction that sets the password: nothing is left to do after it', async () => {
    const { first } = await twoAdmins();
    await signedIn(first.email, '10.9.8.4');
    await signedIn(first.email, '10.9.8.4');
    assert.equal(await sessionsOf(first.id), 2);
    const token = await resetLink(first.id);
    // the process stops right after this call (as if it crashed): no old session is left alive
    const used = await usePasswordLink(
      { db: handle.db, now: () => new Date() },
      token,
      'another new password',
      endUserSessions,
    );
    assert.equal(typeof used === 'object' && used.userId, first.id);
    assert.equal(await sessionsOf(first.id), 0, 'the sessions ended with the reset’s commit');
  });

  it('sessions that cannot be ended leave the password and the link as they were', async () => {
    const { first } = await twoAdmins();
    await signedIn(first.email, '10.9.8.3');
    const token = await resetLink(first.id);
    await assert.rejects(
      usePasswordLink({ db: handle.db, now: () => new Date() }, token, 'another new password', async (trx, userId) => {
        await endUserSessions(trx, userId);
        throw new Error('the sessions could not be ended');
      }),
      /could not be ended/,
    );
    assert.equal(await sessionsOf(first.id), 1, 'the session stays: the reset did not happen');
    await signedIn(first.email, '10.9.8.3'); // the old password still signs in
    assert.equal(
      typeof (await usePasswordLink(
        { db: handle.db, now: () => new Date() },
        token,
        'another new password',
        endUserSessions,
      )),
      'object',
      'the link still works',
    );
    assert.equal(await sessionsOf(first.id), 0);
  });

  it('without a change in between, the same sign-in opens its session', async () => {
    const { first } = await twoAdmins();
    const outcome = await signIn(
      { db: handle.db, now: () => new Date(), keys },
      { kind: 'partner', email: first.email, password: PASSWORD, address: '10.9.8.5' },
    );
    assert.equal(outcome.kind, 'signed_in');
    assert.equal(await sessionsOf(first.id), 1);
  });
});
