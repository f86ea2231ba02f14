import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { readEmails, type EmailView } from '../../src/notify/index.ts';
import { createUser } from '../../src/partners/users.ts';
import { deriveKeyring } from '../../src/platform/crypto.ts';
import { INVITATION_RULES, RESET_RULES } from '../../src/web/sessions.ts';
import { Browser, csrfOf } from './inject-browser.ts';
import { buildTestApp, createTestPartner, eventually, testConfig, uniqueSlug, type TestApp } from '../helper.ts';

/**
 * Partner users end to end (issue 14 §2): invitations by email, roles enforced on every write,
 * removal, password reset through single-use links, no account enumeration.
 */

const PASSWORD = 'admin password 1234';
const keys = deriveKeyring(testConfig().masterKey!);
const LINK = /\/portal\/password\/([A-Za-z0-9_-]{43})/;

describe('partner users', () => {
  let t: TestApp;
  let clock = Date.now();
  before(async () => {
    t = await buildTestApp({ now: () => new Date(clock) });
  });
  after(() => t.close());

  /** A partner with one active admin, signed in. */
  async function adminOfNewPartner() {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('admin')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
    return { partner, email, browser };
  }

  /** The email sent to `to` of `kind` once the send job has put it in the outbox. */
  const outboxEmail = (to: string, kind: string) =>
    eventually(async () => {
      const emails = await readEmails(t.db, keys, { kind, limit: 500 });
      return emails.find((e) => e.to === to && e.status === 'sent' && e.provider === 'outbox');
    });
  const emailsTo = async (to: string) => (await readEmails(t.db, keys, { limit: 500 })).filter((e) => e.to === to);
  const linkOf = (email: EmailView) => {
    const token = LINK.exec(email.text ?? '')?.[1];
    assert.ok(token, 'the email carries a password link');
    return `/portal/password/${token}`;
  };

  /** The data of every users_password_reset job queued so far ("forgot password"). */
  const resetJobs = async () =>
    (
      await sql<{
        data: unknown;
      }>`SELECT data FROM pgboss.job WHERE name = 'users_password_reset' ORDER BY created_on, id`.execute(t.db)
    ).rows.map((r) => JSON.stringify(r.data));

  async function invite(admin: Browser, email: string, role: string) {
    const csrf = csrfOf((await admin.get('/console/users')).body)!;
    return admin.post('/console/users', { _csrf: csrf, email, role });
  }

  /** Follows a link in a fresh browser and sets the password. */
  async function setPassword(path: string, password: string) {
    const browser = new Browser(t.app);
    const form = await browser.get(path);
    assert.equal(form.statusCode, 200);
    return browser.post(path, { _csrf: browser.cookies.get('psl_login')!, password, confirm: password });
  }

  async function inviteAndActivate(admin: Browser, role: string) {
    const email = `${uniqueSlug(role)}@example.com`;
    assert.equal((await invite(admin, email, role)).statusCode, 200);
    const done = await setPassword(linkOf(await outboxEmail(email, 'user_invitation')), 'a new password 42');
    assert.equal(done.statusCode, 200);
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, 'a new password 42')).statusCode, 303);
    return { email, browser };
  }

  test('invite → email in the outbox → link → password → signed in with the role', async () => {
    const { partner, browser: admin } = await adminOfNewPartner();
    const email = `${uniqueSlug('dev')}@example.com`;
    const invited = await invite(admin, email, 'developer');
    assert.equal(invited.statusCode, 200);
    assert.match(invited.body, /Invitation sent/);
    // read whole, its length checked before its pattern (slow on "a@a.a.a.…@"): refused too_long
    const huge = await invite(admin, `a@${'a.'.repeat(8000)}@`, 'developer');
    assert.equal(huge.statusCode, 422);
    assert.match(huge.body, /at most 320 characters/);
    assert.doesNotMatch(huge.body, /id="invite-email"[^>]*maxlength=/, 'nor cut by the browser: no maxlength');
    const user = await t.db
      .selectFrom('users')
      .select(['role', 'activated_at', 'password_hash'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    assert.deepEqual(user, { role: 'developer', activated_at: null, password_hash: null });
    // invited, not yet able to sign in
    assert.equal((await new Browser(t.app).signIn(email, 'anything at all')).statusCode, 401);

    const mail = await outboxEmail(email, 'user_invitation');
    assert.equal(mail.partner, partner.slug);
    assert.match(mail.subject, /Test Partner/);
    assert.match(mail.text!, /as Developer/);
    // the database holds the link's hash only, and no clear address or body
    const token = LINK.exec(mail.text!)![1]!;
    const raw = await t.db.selectFrom('emails').selectAll().where('id', '=', mail.id).executeTakeFirstOrThrow();
    assert.doesNotMatch(JSON.stringify(raw), new RegExp(`${token}|${email}`));
    assert.equal(
      (await t.db.selectFrom('user_tokens').select('token_hash').where('token_hash', '=', token).execute()).length,
      0,
    );

    const path = linkOf(mail);
    const mismatch = await new Browser(t.app).get(path).then(async (r) => {
      assert.match(r.body, new RegExp(email.replace(/\./g, '\\.')));
      const b = new Browser(t.app);
      await b.get(path);
      return b.post(path, { _csrf: b.cookies.get('psl_login')!, password: 'a new password 42', confirm: 'other' });
    });
    assert.equal(mismatch.statusCode, 422);
    // read whole, never cut: 1025 characters are refused (and said so), not saved as their first 1024
    const long = await setPassword(path, 'a'.repeat(1025));
    assert.equal(long.statusCode, 422);
    assert.match(long.body, /at most 1024 characters/);
    assert.equal((await setPassword(path, 'a new password 42')).statusCode, 200);
    // single use: the same link again opens nothing
    assert.equal((await new Browser(t.app).get(path)).statusCode, 404);

    const dev = new Browser(t.app);
    assert.equal((await dev.signIn(email, 'a new password 42')).statusCode, 303);
    const keysPage = await dev.get('/portal/keys');
    assert.equal(keysPage.statusCode, 200);
    assert.equal(
      (await dev.post('/portal/keys', { _csrf: csrfOf(keysPage.body)!, environment: 'sandbox' })).statusCode,
      201,
    );
    const listed = await admin.get('/console/users');
    assert.match(
      listed.body,
      new RegExp(`${email.replace(/\./g, '\\.')}</td>\\s*<td>Developer</td>\\s*<td>Active</td>`),
    );
  });

  test('an address with an account at another partner is invited like any other: the invitee learns it, not the partner', async () => {
    const { partner: a, email: taken } = await adminOfNewPartner();
    const { browser: b } = await adminOfNewPartner();
    const fresh = `${uniqueSlug('fresh')}@example.com`;
    const notice = (body: string, email: string) =>
      /<p class="notice"[^>]*>([^<]*)<\/p>/.exec(body)?.[1]?.replace(email, '<email>');
    const row = (body: string, email: string) =>
      new RegExp(`${email.replace(/\./g, '\\.')}</td>\\s*<td>Viewer</td>\\s*<td>([^<]*)</td>`).exec(body)?.[1];
    const toFresh = await invite(b, fresh, 'viewer');
    const toTaken = await invite(b, taken, 'viewer');
    // the same answer, and the same listing: partner B cannot tell that A has this address
    assert.deepEqual(
      [toTaken.statusCode, notice(toTaken.body, taken), row(toTaken.body, taken)],
      [toFresh.statusCode, notice(toFresh.body, fresh), row(toFresh.body, fresh)],
    );
    assert.deepEqual([toFresh.statusCode, row(toFresh.body, fresh)], [200, 'Invited']);

    // the invitee follows the link: the address has an account already, nothing is written
    const path = linkOf(await outboxEmail(taken, 'user_invitation'));
    const opened = await new Browser(t.app).get(path);
    assert.equal(opened.statusCode, 409);
    assert.match(opened.body, /already has a Parasol account/);
    const browser = new Browser(t.app);
    await browser.get('/portal/login');
    const posted = await browser.post(path, {
      _csrf: browser.cookies.get('psl_login')!,
      password: 'another password 1',
      confirm: 'another password 1',
    });
    assert.equal(posted.statusCode, 409);
    assert.equal((await new Browser(t.app).signIn(taken, 'another password 1')).statusCode, 401);
    const own = new Browser(t.app);
    assert.equal((await own.signIn(taken, PASSWORD)).statusCode, 303);
    // still A's admin: A's users page, where the address is the signed-in user's own row
    const ownPage = (await own.get('/console/users')).body;
    assert.match(ownPage, new RegExp(`${taken.replace(/\./g, '\\.')} <span class="muted">\\(you\\)</span>`));
    assert.equal(
      (
        await t.db
          .selectFrom('users')
          .select('partner_id')
          .where('email', '=', taken)
          .where('password_hash', 'is not', null)
          .executeTakeFirstOrThrow()
      ).partner_id,
      a.id,
    );

    // two partners invite the same new address: the first accepted wins, the other link says so
    const { browser: c } = await adminOfNewPartner();
    const both = `${uniqueSlug('both')}@example.com`;
    assert.equal((await invite(b, both, 'viewer')).statusCode, 200);
    assert.equal((await invite(c, both, 'developer')).statusCode, 200);
    const links = await eventually(async () => {
      const sent = (await emailsTo(both)).filter((e) => e.kind === 'user_invitation' && e.status === 'sent');
      return sent.length === 2 ? sent.map(linkOf) : undefined;
    });
    assert.equal((await setPassword(links[0]!, 'first password 12')).statusCode, 200);
    assert.equal((await new Browser(t.app).get(links[1]!)).statusCode, 409);
    assert.equal((await new Browser(t.app).signIn(both, 'first password 12')).statusCode, 303);
  });

  test('an operator sees every partner: an address that signs in anywhere is a 409, one only invited elsewhere is not', async () => {
    const { email: active } = await adminOfNewPartner();
    const { browser: b } = await adminOfNewPartner();
    const other = await createTestPartner(t.db);
    await assert.rejects(
      createUser(t.db, 'operator:test', { partnerId: other.id, email: active, password: PASSWORD }),
      (error: Error & { code?: string }) => error.code === 'conflict',
    );
    const invited = `${uniqueSlug('invited')}@example.com`;
    assert.equal((await invite(b, invited, 'viewer')).statusCode, 200);
    await createUser(t.db, 'operator:test', { partnerId: other.id, email: invited, password: PASSWORD });
    // the invitation at B now meets an address that signs in: its link says so
    assert.equal((await new Browser(t.app).get(linkOf(await outboxEmail(invited, 'user_invitation')))).statusCode, 409);
    assert.equal((await new Browser(t.app).signIn(invited, PASSWORD)).statusCode, 303);
  });

  test('an expired invitation is sent again from the Users page: a new link, the old one dead, audited, limited', async () => {
    const { browser: admin, email: adminEmail } = await adminOfNewPartner();
    const email = `${uniqueSlug('late')}@example.com`;
    assert.equal((await invite(admin, email, 'developer')).statusCode, 200);
    const firstPath = linkOf(await outboxEmail(email, 'user_invitation'));
    const user = await t.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const row = (body: string) =>
      new RegExp(`${email.replace(/\./g, '\\.')}</td>\\s*<td>Developer</td>\\s*<td>([^<]*)</td>`).exec(body)?.[1];
    const resend = async () => {
      const page = await admin.get('/console/users');
      return admin.post(`/console/users/${user.id}/resend`, { _csrf: csrfOf(page.body)! });
    };

    clock += (72 * 60 + 1) * 60_000;
    let secondPath: string;
    try {
      // three days later: the admin signs in again
      assert.equal((await admin.signIn(adminEmail, PASSWORD)).statusCode, 303);
      const page = await admin.get('/console/users');
      assert.equal(row(page.body), 'Invited (link expired)');
      assert.match(page.body, new RegExp(`action="/console/users/${user.id}/resend"`));
      assert.equal((await new Browser(t.app).get(firstPath)).statusCode, 404);
      const resent = await resend();
      assert.equal(resent.statusCode, 200);
      assert.match(resent.body, /A new invitation was sent to/);
      assert.equal(row(resent.body), 'Invited');
      secondPath = await eventually(async () => {
        const sent = (await emailsTo(email)).filter((e) => e.kind === 'user_invitation' && e.status === 'sent');
        return sent.length === 2 ? sent.map(linkOf).find((p) => p !== firstPath) : undefined;
      });
      // a second resend replaces that link too; the limit per user allows INVITATION_RULES.user.threshold
      const statuses = [];
      for (let i = 1; i < INVITATION_RULES.user.threshold + 1; i += 1) statuses.push((await resend()).statusCode);
      const limited = await resend();
      assert.deepEqual(statuses, [...Array(INVITATION_RULES.user.threshold - 1).fill(200), 429]);
      assert.equal(limited.statusCode, 429);
      assert.match(limited.body, /Too many invitations sent/);
      assert.ok(Number(limited.headers['retry-after']) > 0);
      const sent = await eventually(async () => {
        const all = (await emailsTo(email)).filter((e) => e.kind === 'user_invitation');
        return all.length === 1 + INVITATION_RULES.user.threshold ? all : undefined;
      });
      assert.equal(sent.length, 1 + INVITATION_RULES.user.threshold);
      const last = await eventually(async () => {
        const all = (await emailsTo(email)).filter((e) => e.kind === 'user_invitation' && e.status === 'sent');
        return all.length === 1 + INVITATION_RULES.user.threshold ? all[0] : undefined;
      });
      // only the newest link works
      assert.equal((await new Browser(t.app).get(secondPath)).statusCode, 404);
      assert.equal((await setPassword(linkOf(last), 'accepted password 7')).statusCode, 200);
    } finally {
      clock = Date.now();
    }
    // accepted: no button; an active user has nothing to resend (409: the admin's own row)
    const after = await admin.get('/console/users');
    assert.doesNotMatch(after.body, new RegExp(`action="/console/users/${user.id}/resend"`));
    const self = await t.db.selectFrom('users').select('id').where('email', '=', adminEmail).executeTakeFirstOrThrow();
    const again = await admin.post(`/console/users/${self.id}/resend`, { _csrf: csrfOf(after.body)! });
    assert.equal(again.statusCode, 409);
    // the form's own words, not the code's generic "conflict" sentence
    assert.match(again.body, /has accepted its invitation already/);
    const audited = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('entity', '=', 'user')
      .where('entity_id', '=', user.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audited.map((a) => a.action),
      ['invited', ...Array(INVITATION_RULES.user.threshold).fill('invitation_resent'), 'invitation_accepted'],
    );

    // another partner's invited user is no such user
    const { browser: other } = await adminOfNewPartner();
    const pending = `${uniqueSlug('pending')}@example.com`;
    assert.equal((await invite(admin, pending, 'viewer')).statusCode, 200);
    const pendingId = (
      await t.db.selectFrom('users').select('id').where('email', '=', pending).executeTakeFirstOrThrow()
    ).id;
    const otherPage = await other.get('/console/users');
    assert.equal(
      (await other.post(`/console/users/${pendingId}/resend`, { _csrf: csrfOf(otherPage.body)! })).statusCode,
      404,
    );
  });

  test('a partner sends at most INVITATION_RULES.partner.threshold invitations a quarter of an hour', async () => {
    const { browser: admin } = await adminOfNewPartner();
    const statuses = [];
    for (let i = 0; i <= INVITATION_RULES.partner.threshold; i += 1)
      statuses.push((await invite(admin, `${uniqueSlug(`many${i}`)}@example.com`, 'viewer')).statusCode);
    assert.deepEqual(statuses, [...Array(INVITATION_RULES.partner.threshold).fill(200), 429]);
  });

  test('a refused invitation spends no slot of the limit: a bad address, a bad role, an address already a user, a resend to an active user', async () => {
    const { partner, email: adminEmail, browser: admin } = await adminOfNewPartner();
    const counted = async () =>
      (
        await t.db
          .selectFrom('login_throttle')
          .select('attempts')
          .where('key', '=', `invite:partner:${partner.id}`)
          .executeTakeFirst()
      )?.attempts ?? 0;
    assert.equal((await invite(admin, 'not an address', 'viewer')).statusCode, 422);
    assert.equal((await invite(admin, `${uniqueSlug('role')}@example.com`, 'owner')).statusCode, 422);
    assert.equal((await invite(admin, adminEmail.toUpperCase(), 'viewer')).statusCode, 409);
    assert.equal(await counted(), 0, 'none of the three counted');
    assert.equal((await invite(admin, `${uniqueSlug('counted')}@example.com`, 'viewer')).statusCode, 200);
    assert.equal(await counted(), 1, 'the invitation sent counts');
    // a resend refused (the user active: it accepted meanwhile) counts neither for the partner nor for the user
    const active = await t.db
      .selectFrom('users')
      .select('id')
      .where('partner_id', '=', partner.id)
      .where('email', '=', adminEmail.toLowerCase())
      .executeTakeFirstOrThrow();
    for (let i = 0; i <= INVITATION_RULES.user.threshold; i += 1) {
      const page = await admin.get('/console/users');
      const refused = await admin.post(`/console/users/${active.id}/resend`, { _csrf: csrfOf(page.body)! });
      assert.equal(refused.statusCode, 409, 'an active user is sent no invitation, and no 429 past the limit');
    }
    assert.equal(await counted(), 1, 'the refused resends spent no slot');
    const userCounter = await t.db
      .selectFrom('login_throttle')
      .select('attempts')
      .where('key', '=', `invite:user:${partner.id}:${active.id}`)
      .executeTakeFirst();
    assert.equal(userCounter, undefined, "nor the user's");
  });

  test('a viewer reads but every write is refused: keys, configuration, webhooks, users', async () => {
    const { partner, browser: admin } = await adminOfNewPartner();
    const { browser: viewer } = await inviteAndActivate(admin, 'viewer');
    const keysPage = (await viewer.get('/portal/keys')).body;
    const csrf = csrfOf(keysPage)!;
    // what the server refuses is not offered either
    assert.doesNotMatch(keysPage, /action="\/portal\/keys"|\/revoke"/);
    const configuration = await viewer.get('/console');
    assert.equal(configuration.statusCode, 200);
    assert.match(configuration.body, /Your role does not allow this/);
    assert.doesNotMatch(
      (await viewer.get('/console/webhooks')).body,
      /<form method="post" action="\/console\/webhooks">/,
    );
    const keysBefore = await t.db.selectFrom('api_keys').select('id').where('partner_id', '=', partner.id).execute();
    const configurationsBefore = await t.db
      .selectFrom('partner_configurations')
      .select('id')
      .where('partner_id', '=', partner.id)
      .execute();

    const keyCreate = await viewer.post('/portal/keys', { _csrf: csrf, environment: 'sandbox' });
    assert.equal(keyCreate.statusCode, 403);
    const keyRevoke = await viewer.post(`/portal/keys/${keysBefore[0]!.id}/revoke`, { _csrf: csrf });
    assert.equal(keyRevoke.statusCode, 403);
    assert.equal((await viewer.post('/console', { _csrf: csrf, formula: 'delay' })).statusCode, 403);
    const webhook = await viewer.post('/console/webhooks', { _csrf: csrf, url: 'https://example.com/hook' });
    assert.equal(webhook.statusCode, 403);
    assert.equal((await viewer.get('/console/users')).statusCode, 403);
    assert.equal(
      (await viewer.post('/console/users', { _csrf: csrf, email: 'x@example.com', role: 'admin' })).statusCode,
      403,
    );

    const keysAfter = await t.db
      .selectFrom('api_keys')
      .select(['id', 'revoked_at'])
      .where('partner_id', '=', partner.id)
      .execute();
    assert.equal(keysAfter.length, keysBefore.length);
    assert.ok(keysAfter.every((k) => k.revoked_at === null));
    const configurationsAfter = await t.db
      .selectFrom('partner_configurations')
      .select('id')
      .where('partner_id', '=', partner.id)
      .execute();
    assert.equal(configurationsAfter.length, configurationsBefore.length);
    assert.equal(
      (await t.db.selectFrom('webhook_endpoints').select('id').where('partner_id', '=', partner.id).execute()).length,
      0,
    );
  });

  test('a developer is refused the configuration and the users', async () => {
    const { partner, browser: admin } = await adminOfNewPartner();
    const { browser: dev } = await inviteAndActivate(admin, 'developer');
    const csrf = csrfOf((await dev.get('/console')).body)!;
    assert.equal((await dev.post('/console', { _csrf: csrf, formula: 'delay' })).statusCode, 403);
    assert.equal((await dev.get('/console/users')).statusCode, 403);
    const users = await t.db.selectFrom('users').select(['id', 'role']).where('partner_id', '=', partner.id).execute();
    const adminRow = users.find((u) => u.role === 'admin')!;
    assert.equal(
      (await dev.post('/console/users', { _csrf: csrf, email: 'y@example.com', role: 'admin' })).statusCode,
      403,
    );
    assert.equal(
      (await dev.post(`/console/users/${adminRow.id}/role`, { _csrf: csrf, role: 'viewer' })).statusCode,
      403,
    );
    assert.equal((await dev.post(`/console/users/${adminRow.id}/remove`, { _csrf: csrf })).statusCode, 403);
    const after = await t.db.selectFrom('users').select(['id', 'role']).where('partner_id', '=', partner.id).execute();
    assert.deepEqual(
      after.sort((a, b) => a.id.localeCompare(b.id)),
      users.sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  test('removing a user ends its sessions; a role change applies at once; the last admin stays', async () => {
    const { partner, browser: admin } = await adminOfNewPartner();
    const { email, browser: dev } = await inviteAndActivate(admin, 'developer');
    const ids = Object.fromEntries(
      (await t.db.selectFrom('users').select(['id', 'email']).where('partner_id', '=', partner.id).execute()).map(
        (u) => [u.email, u.id],
      ),
    );
    const adminId = Object.entries(ids).find(([e]) => e !== email)![1];
    const csrf = csrfOf((await admin.get('/console/users')).body)!;

    // the last admin can be neither demoted nor removed
    const demote = await admin.post(`/console/users/${adminId}/role`, { _csrf: csrf, role: 'viewer' });
    assert.equal(demote.statusCode, 409);
    assert.match(demote.body, /last admin/);
    assert.equal((await admin.post(`/console/users/${adminId}/remove`, { _csrf: csrf })).statusCode, 409);

    // a role change is seen by the user's next request
    const devCsrf = csrfOf((await dev.get('/portal/keys')).body)!;
    assert.equal(
      (await admin.post(`/console/users/${ids[email]}/role`, { _csrf: csrf, role: 'viewer' })).statusCode,
      200,
    );
    assert.equal((await dev.post('/portal/keys', { _csrf: devCsrf, environment: 'sandbox' })).statusCode, 403);

    const removed = await admin.post(`/console/users/${ids[email]}/remove`, { _csrf: csrf });
    assert.equal(removed.statusCode, 200);
    assert.equal((await dev.get('/portal/keys')).statusCode, 303, 'the removed user is signed out');
    assert.equal(
      (await t.db.selectFrom('web_sessions').select('token_hash').where('user_id', '=', ids[email]!).execute()).length,
      0,
    );
    assert.equal((await new Browser(t.app).signIn(email, 'a new password 42')).statusCode, 401);
    const audited = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('entity', '=', 'user')
      .where('entity_id', '=', ids[email]!)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audited.map((a) => a.action),
      ['invited', 'invitation_accepted', 'role_changed', 'removed'],
    );
  });

  test('password reset: one email, a single-use link valid one hour, the other sessions ended', async () => {
    const { email, browser: old } = await adminOfNewPartner();
    const forgot = new Browser(t.app);
    await forgot.get('/portal/forgot');
    const asked = await forgot.post('/portal/forgot', { _csrf: forgot.cookies.get('psl_login')!, email });
    assert.equal(asked.statusCode, 200);
    const mail = await outboxEmail(email, 'password_reset');
    const path = linkOf(mail);
    assert.equal((await setPassword(path, 'reset password 5678')).statusCode, 200);
    // the session opened with the old password has ended; the old password no longer works
    assert.equal((await old.get('/console')).statusCode, 303);
    assert.equal((await new Browser(t.app).signIn(email, PASSWORD)).statusCode, 401);
    assert.equal((await new Browser(t.app).signIn(email, 'reset password 5678')).statusCode, 303);
    // reuse refused
    const reuse = new Browser(t.app);
    assert.equal((await reuse.get(path)).statusCode, 404);
    assert.equal(
      (
        await reuse.post(path, {
          _csrf: reuse.cookies.get('psl_login') ?? 'x',
          password: 'third password 9',
          confirm: 'third password 9',
        })
      ).statusCode,
      404,
    );

    // an expired link is refused
    await forgot.post('/portal/forgot', { _csrf: forgot.cookies.get('psl_login')!, email });
    const second = await eventually(async () => {
      const all = (await emailsTo(email)).filter((e) => e.kind === 'password_reset' && e.text !== null);
      return all.length === 2 ? all[0] : undefined;
    });
    const expiredPath = linkOf(second);
    assert.notEqual(expiredPath, path);
    clock += 61 * 60_000;
    try {
      const expired = new Browser(t.app);
      assert.equal((await expired.get(expiredPath)).statusCode, 404);
      const b = new Browser(t.app);
      await b.get('/portal/forgot');
      const refused = await b.post(expiredPath, {
        _csrf: b.cookies.get('psl_login')!,
        password: 'late password 99',
        confirm: 'late password 99',
      });
      assert.equal(refused.statusCode, 404);
      assert.equal((await new Browser(t.app).signIn(email, 'late password 99')).statusCode, 401);
    } finally {
      clock = Date.now();
    }
  });

  test('forgot password answers the same for an unknown address, and emails only the known one', async () => {
    const { email } = await adminOfNewPartner();
    const unknown = `${uniqueSlug('nobody')}@example.com`;
    const answer = async (address: string) => {
      const b = new Browser(t.app);
      await b.get('/portal/forgot');
      const r = await b.post('/portal/forgot', { _csrf: b.cookies.get('psl_login')!, email: address });
      return { status: r.statusCode, body: r.body.replace(/name="_csrf" value="[^"]+"/, '') };
    };
    // the same work by construction: each request queues one users_password_reset job, whose data
    // holds the address sealed; the job alone looks the address up
    const before = (await resetJobs()).length;
    const known = await answer(email);
    const afterKnown = await resetJobs();
    const missing = await answer(unknown);
    const afterMissing = await resetJobs();
    assert.deepEqual([afterKnown.length, afterMissing.length], [before + 1, before + 2]);
    for (const data of afterMissing.slice(before)) {
      assert.deepEqual(Object.keys(JSON.parse(data) as object).sort(), ['client', 'email']);
      assert.doesNotMatch(data, new RegExp(`${email}|${unknown}|127\\.0\\.0\\.1`));
    }
    assert.deepEqual(missing, known);
    assert.match(known.body, /If an account exists for this address/);
    await outboxEmail(email, 'password_reset');
    assert.deepEqual(await emailsTo(unknown), []);
    // the audit row says who asked: someone without a session, from this address (its keyed hash and
    // network, never the address in clear) — not the user
    const user = await t.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const asked = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'user')
      .where('entity_id', '=', user.id)
      .where('action', '=', 'password_reset_requested')
      .execute();
    assert.deepEqual(
      asked.map((a) => ({ ...a, data: { ...(a.data as object), addressHmac: '…' } })),
      [{ actor: 'anonymous', data: { addressHmac: '…', network: '127.0.0.0/24' } }],
    );
    assert.match((asked[0]!.data as { addressHmac: string }).addressHmac, /^[A-Za-z0-9_-]{43}$/);
    assert.equal((await t.db.selectFrom('users').select('id').where('email', '=', unknown).execute()).length, 0);
  });

  test('reset emails are limited per address asked for, and the page still says the same', async () => {
    const { email } = await adminOfNewPartner();
    const before = (await resetJobs()).length;
    const answers = [];
    for (let i = 0; i < RESET_RULES.account.threshold + 1; i += 1) {
      const b = new Browser(t.app);
      await b.get('/portal/forgot');
      const r = await b.post('/portal/forgot', { _csrf: b.cookies.get('psl_login')!, email });
      answers.push([r.statusCode, /If an account exists/.test(r.body)]);
    }
    assert.deepEqual(answers, Array(RESET_RULES.account.threshold + 1).fill([200, true]));
    // past the limit nothing is queued: as many jobs as emails allowed, and as many emails
    assert.equal((await resetJobs()).length, before + RESET_RULES.account.threshold);
    const written = await eventually(async () => {
      const all = (await emailsTo(email)).filter((e) => e.kind === 'password_reset');
      return all.length === RESET_RULES.account.threshold ? all : undefined;
    });
    assert.equal(written.length, RESET_RULES.account.threshold);
  });

  test('the sign-in page links to "forgot password"; the French invitation is in French', async () => {
    assert.match((await new Browser(t.app).get('/portal/login')).body, /href="\/portal\/forgot"/);
    const { browser: admin } = await adminOfNewPartner();
    admin.cookies.set('psl_lang', 'fr');
    const email = `${uniqueSlug('fr')}@example.com`;
    assert.equal((await invite(admin, email, 'viewer')).statusCode, 200);
    const mail = await outboxEmail(email, 'user_invitation');
    assert.match(mail.subject, /Vous êtes invité/);
    assert.match(mail.text!, /en tant que Lecteur/);
  });
});
