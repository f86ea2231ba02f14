import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUser } from '../../src/partners/users.ts';
import { sha256Hex } from '../../src/platform/crypto.ts';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { SESSION_RULES } from '../../src/web/sessions.ts';
import { Browser, csrfOf } from './inject-browser.ts';
import { GETTING_STARTED_EXAMPLES } from '../../src/flight/index.ts';
import { buildTestApp, createTestPartner, uniqueSlug, type TestApp } from '../helper.ts';

/** HTTP tests of the portal's sessions: cookies, CSRF, lockout, sign-out, roles. */

const PASSWORD = 'correct horse battery';
const ADMIN = { email: 'ops-web-tests@parasol.test', password: 'operator password 42' };

async function partnerUser(t: TestApp, options: Parameters<typeof createTestPartner>[1] = {}) {
  const partner = await createTestPartner(t.db, options);
  const email = `${uniqueSlug('user')}@example.com`;
  const user = await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
  return { partner, email, userId: user!.id };
}

describe('portal sessions', () => {
  let t: TestApp;
  let clock = Date.now();
  before(async () => {
    t = await buildTestApp({
      now: () => new Date(clock),
      env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password },
    });
  });
  after(() => t.close());

  test('a page without a session sends the browser to the sign-in page', async () => {
    const response = await new Browser(t.app).get('/portal/keys');
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/portal/login?next=%2Fportal%2Fkeys');
  });

  test('sign-in sets an httpOnly SameSite=Lax session cookie whose token is stored only hashed', async () => {
    const { email } = await partnerUser(t);
    const browser = new Browser(t.app);
    const response = await browser.signIn(email, PASSWORD);
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/portal');
    const setCookie = [response.headers['set-cookie']].flat().find((c) => c?.startsWith('psl_portal='))!;
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Lax/);
    assert.match(setCookie, /Path=\//);
    assert.doesNotMatch(setCookie, /Secure/); // the public URL is http here
    const token = browser.cookies.get('psl_portal')!;
    const stored = await t.db
      .selectFrom('web_sessions')
      .select(['token_hash', 'kind'])
      .where('token_hash', 'in', [token, sha256Hex(token)])
      .execute();
    assert.deepEqual(stored, [{ token_hash: sha256Hex(token), kind: 'partner' }]);
    const page = await browser.get('/portal');
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.equal(page.headers['cache-control'], 'no-store');
  });

  test('a sign-in gives a new token and ends the session the browser held before (no fixation)', async () => {
    const first = await partnerUser(t);
    const second = await partnerUser(t);
    const browser = new Browser(t.app);
    await browser.signIn(first.email, PASSWORD);
    const before = browser.cookies.get('psl_portal')!;
    // the same browser signs in again, as someone else (or over a token planted in it)
    const csrf = browser.cookies.get('psl_login')!;
    const again = await browser.post('/portal/login', { _csrf: csrf, email: second.email, password: PASSWORD });
    assert.equal(again.statusCode, 303);
    const after = browser.cookies.get('psl_portal')!;
    assert.notEqual(after, before, 'a new token');
    const old = await t.app.inject({ method: 'GET', url: '/portal', headers: { cookie: `psl_portal=${before}` } });
    assert.equal(old.statusCode, 303, 'the earlier token opens nothing');
    const now = await t.app.inject({ method: 'GET', url: '/portal', headers: { cookie: `psl_portal=${after}` } });
    assert.equal(now.statusCode, 200);
    assert.match(now.body, new RegExp(second.email.replace(/[.]/g, '\\.')));
    // the session ended is audited as its holder's sign-out, like one by the Sign out button
    assert.deepEqual(await sessionEnds(sha256Hex(before)), [
      {
        actor: `user:${first.userId}`,
        partner_id: first.partner.id,
        data: { reason: 'replaced by a new sign-in' },
      },
    ]);
  });

  test('an operator signing in again in the same browser: the earlier session ends, audited', async () => {
    const browser = new Browser(t.app);
    await browser.signIn(ADMIN.email, ADMIN.password, 'admin');
    const before = browser.cookies.get('psl_admin')!;
    await browser.signIn(ADMIN.email, ADMIN.password, 'admin');
    assert.notEqual(browser.cookies.get('psl_admin'), before);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/admin', headers: { cookie: `psl_admin=${before}` } })).statusCode,
      303,
    );
    assert.deepEqual(await sessionEnds(sha256Hex(before)), [
      { actor: `operator:${ADMIN.email}`, partner_id: null, data: { reason: 'replaced by a new sign-in' } },
    ]);
  });

  /** The audit rows of a session's end. */
  const sessionEnds = (tokenHash: string) =>
    t.db
      .selectFrom('audit_log')
      .select(['actor', 'partner_id', 'data'])
      .where('entity', '=', 'session')
      .where('entity_id', '=', tokenHash.slice(0, 16))
      .where('action', '=', 'signed_out')
      .execute();

  test('the sign-in form is refused without its CSRF token', async () => {
    const { email } = await partnerUser(t);
    const browser = new Browser(t.app);
    await browser.get('/portal/login');
    const response = await browser.post('/portal/login', { email, password: PASSWORD });
    assert.equal(response.statusCode, 403);
    assert.equal(browser.cookies.has('psl_portal'), false);
  });

  test('every POST needs the session’s CSRF token: none or another session’s is 403 and changes nothing', async () => {
    const { partner, email } = await partnerUser(t);
    const browser = new Browser(t.app);
    await browser.signIn(email, PASSWORD);
    const other = new Browser(t.app);
    await other.signIn(email, PASSWORD);
    const otherToken = csrfOf((await other.get('/portal/keys')).body)!;
    const keysBefore = await t.db.selectFrom('api_keys').select('id').where('partner_id', '=', partner.id).execute();

    assert.equal((await browser.post('/portal/keys', { environment: 'sandbox' })).statusCode, 403);
    assert.equal((await browser.post('/portal/keys', { environment: 'sandbox', _csrf: otherToken })).statusCode, 403);
    assert.equal(
      (await browser.post('/portal/keys', { environment: 'sandbox' }, { 'x-csrf-token': 'forged' })).statusCode,
      403,
    );
    const keysAfter = await t.db.selectFrom('api_keys').select('id').where('partner_id', '=', partner.id).execute();
    assert.equal(keysAfter.length, keysBefore.length);

    const token = csrfOf((await browser.get('/portal/keys')).body)!;
    const created = await browser.post('/portal/keys', { environment: 'sandbox', _csrf: token });
    assert.equal(created.statusCode, 201);
    assert.match(created.body, /psl_sbx_[A-Za-z0-9_-]{32}/);
    const viaHeader = await browser.post('/portal/keys', { environment: 'sandbox' }, { 'x-csrf-token': token });
    assert.equal(viaHeader.statusCode, 201);
  });

  test('sign-out ends the session: the old cookie opens nothing', async () => {
    const { email } = await partnerUser(t);
    const browser = new Browser(t.app);
    await browser.signIn(email, PASSWORD);
    const token = browser.cookies.get('psl_portal')!;
    const csrf = csrfOf((await browser.get('/portal')).body)!;
    const out = await browser.post('/portal/logout', { _csrf: csrf });
    assert.equal(out.statusCode, 303);
    assert.equal(browser.cookies.has('psl_portal'), false);
    const replay = await t.app.inject({ method: 'GET', url: '/portal', headers: { cookie: `psl_portal=${token}` } });
    assert.equal(replay.statusCode, 303);
    assert.equal(
      (await t.db.selectFrom('web_sessions').select('kind').where('token_hash', '=', sha256Hex(token)).execute())
        .length,
      0,
    );
  });

  test('a session ends after its idle time', async () => {
    const { email } = await partnerUser(t);
    const browser = new Browser(t.app);
    await browser.signIn(email, PASSWORD);
    assert.equal((await browser.get('/portal')).statusCode, 200);
    clock += (SESSION_RULES.idleMinutes + 1) * 60_000;
    try {
      assert.equal((await browser.get('/portal')).statusCode, 303);
    } finally {
      clock = Date.now();
    }
  });

  test('repeated failures lock the account, even for the right password, until the lock ends', async () => {
    const { email } = await partnerUser(t);
    const browser = new Browser(t.app);
    for (let i = 0; i < SESSION_RULES.account.threshold; i += 1) {
      const response = await browser.signIn(email, 'wrong password!');
      assert.equal(response.statusCode, 401);
      assert.match(response.body, /Wrong email or password/);
    }
    const locked = await browser.signIn(email, PASSWORD);
    assert.equal(locked.statusCode, 429);
    assert.ok(Number(locked.headers['retry-after']) > 0);
    assert.equal(browser.cookies.has('psl_portal'), false);
    clock += (SESSION_RULES.account.lockMinutes + 1) * 60_000;
    try {
      assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
    } finally {
      clock = Date.now();
    }
  });

  test('what is typed as the email of a sign-in or a reset request is counted under a keyed hash, never stored in clear', async () => {
    const { email } = await partnerUser(t);
    const stranger = `${uniqueSlug('stranger')}@example.org`;
    const passwordInTheEmailField = `Pa55word ${uniqueSlug('typed')}`;
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(stranger, 'wrong password!')).statusCode, 401);
    assert.equal((await browser.signIn(passwordInTheEmailField, PASSWORD)).statusCode, 401);
    assert.equal((await browser.signIn(email.toUpperCase(), 'wrong password!')).statusCode, 401);
    assert.equal((await browser.signIn(stranger, 'wrong password!', 'admin')).statusCode, 401);
    await browser.get('/portal/forgot');
    const asked = await browser.post('/portal/forgot', { _csrf: browser.cookies.get('psl_login')!, email: stranger });
    assert.equal(asked.statusCode, 200);
    const keys = (await t.db.selectFrom('login_throttle').select('key').execute()).map((r) => r.key);
    assert.ok(keys.length >= 5, `the attempts are counted (${keys.length} counters)`);
    for (const typed of [stranger, passwordInTheEmailField, email, email.toUpperCase()]) {
      const held = keys.filter((k) => k.toLowerCase().includes(typed.toLowerCase()));
      assert.deepEqual(held, [], `${typed} is in clear in login_throttle`);
    }
  });

  test("the client's IP address is kept by its keyed hash and its network, never in clear", async () => {
    const { email } = await partnerUser(t);
    const browser = new Browser(t.app); // inject's client address: 127.0.0.1
    assert.equal((await browser.signIn(email, 'wrong password!')).statusCode, 401);
    assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
    const token = browser.cookies.get('psl_portal')!;
    const signedIn = await t.db
      .selectFrom('audit_log')
      .select('data')
      .where('entity', '=', 'session')
      .where('entity_id', '=', sha256Hex(token).slice(0, 16))
      .where('action', '=', 'signed_in')
      .executeTakeFirstOrThrow();
    const data = signedIn.data as { addressHmac: string; network: string };
    assert.deepEqual(Object.keys(data).sort(), ['addressHmac', 'network']);
    assert.equal(data.network, '127.0.0.0/24');
    assert.match(data.addressHmac, /^[A-Za-z0-9_-]{43}$/);
    // the address's sign-in counter is keyed by the same hash
    const keys = (await t.db.selectFrom('login_throttle').select('key').execute()).map((r) => r.key);
    assert.ok(keys.includes(`partner:address:${data.addressHmac}`), 'the address is counted under its hash');
    assert.deepEqual(
      keys.filter((k) => k.includes('127.0.0.1')),
      [],
      'no counter is keyed by the address in clear',
    );
  });

  test('a partner user never reaches the operator console; an operator session opens no portal page', async () => {
    const { email } = await partnerUser(t);
    const browser = new Browser(t.app);
    await browser.signIn(email, PASSWORD);
    for (const url of ['/admin', '/admin/login', '/admin/partners/demo-air']) {
      assert.equal((await browser.get(url)).statusCode, 403, url);
    }
    const operator = new Browser(t.app);
    const signedIn = await operator.signIn(ADMIN.email, ADMIN.password, 'admin');
    assert.equal(signedIn.statusCode, 303);
    assert.equal((await operator.get('/admin')).statusCode, 200);
    const portal = await t.app.inject({
      method: 'GET',
      url: '/portal',
      headers: { cookie: `psl_portal=${operator.cookies.get('psl_admin')}` },
    });
    assert.equal(portal.statusCode, 303);
  });

  test('the catalog lists exactly the subscribed APIs; others answer 404; the definition downloads', async () => {
    const { email } = await partnerUser(t, { apis: ['demo'] });
    const browser = new Browser(t.app);
    await browser.signIn(email, PASSWORD);
    const catalog = await browser.get('/portal');
    assert.deepEqual(
      [...catalog.body.matchAll(/data-api="([^"]+)"/g)].map((m) => m[1]),
      ['demo'],
    );
    assert.match(catalog.body, /Demo API/);
    assert.equal((await browser.get('/portal/apis/flight-delay')).statusCode, 404);
    assert.equal((await browser.get('/portal/apis/flight-delay/openapi.json')).statusCode, 404);
    assert.equal((await browser.get('/portal/apis/nope')).statusCode, 404);
    const definition = await browser.get('/portal/apis/demo/openapi.json');
    assert.equal(definition.statusCode, 200);
    assert.match(
      String(definition.headers['content-disposition']),
      /^attachment; filename="parasol-demo-openapi.json"$/,
    );
    const document = JSON.parse(definition.body);
    assert.match(document.openapi, /^3\./);
    assert.equal(document.info.title, 'Demo API');
    assert.equal(document.servers[0].url, 'http://127.0.0.1:3000/demo/v1');
  });

  test('the Flight Delay getting-started steps show the first quote, then the flight change calls', async () => {
    const { email } = await partnerUser(t, { apis: ['flight-delay'] });
    const browser = new Browser(t.app);
    await browser.signIn(email, PASSWORD);
    const page = await browser.get('/portal/apis/flight-delay');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /flight-delay\/v1\/getPrice/);
    assert.match(page.body, /flight-delay\/v1\/contracts\/FD-7K3M-9QXT\/flight-change\/preview/);
    assert.match(page.body, /flight-delay\/v1\/contracts\/FD-7K3M-9QXT\/flight-change \\/);
    assert.match(page.body, /flight-delay\/v1\/contracts\/FD-7K3M-9QXT\/partial-cancellation\/preview/);
    assert.match(page.body, /changeReference/);
    // the OpenAPI document's examples (one story, run against the API by openapi-examples.http.test.ts)
    assert.ok(
      page.body.includes(GETTING_STARTED_EXAMPLES.flightChange.changeReference),
      'the documented change reference',
    );
    assert.ok(page.body.includes(GETTING_STARTED_EXAMPLES.quote.departureDateTime), 'the documented quote');
  });

  test('the Demo API getting-started steps show the cities of a zip code, then a quote the API accepts', async () => {
    const { partner, email } = await partnerUser(t, { apis: ['demo'] });
    const browser = new Browser(t.app);
    await browser.signIn(email, PASSWORD);
    const page = await browser.get('/portal/apis/demo');
    assert.equal(page.statusCode, 200);
    // the page's curl commands, as a shell reads them once the HTML is decoded
    const text = page.body.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
    const calls = [...text.matchAll(/curl -X POST \S+(\/demo\/v1\/\w+)[^']*'([^']*)'/g)].map((m) => ({
      path: m[1]!,
      body: JSON.parse(m[2]!) as unknown,
    }));
    assert.deepEqual(
      calls.map((c) => c.path),
      ['/demo/v1/getCityByZipCode', '/demo/v1/getPrice'],
      'the first call, then a quote',
    );
    const quote = await t.app.inject({
      method: 'POST',
      url: calls[1]!.path,
      headers: { ...partner.auth, 'content-type': 'application/json' },
      payload: JSON.stringify(calls[1]!.body),
    });
    assert.equal(quote.statusCode, 200, quote.body);
    assert.deepEqual(quote.json().annualPremium, { amount: 31_201, currency: 'EUR' }, 'the worked example');
  });
});

describe('portal sessions behind https', () => {
  test('the session cookie is Secure when the public URL is https', async (ctx) => {
    const t = await buildTestApp({ env: { PARASOL_PUBLIC_URL: 'https://parasol.example' } });
    ctx.after(() => t.close());
    const { email } = await partnerUser(t);
    const response = await new Browser(t.app).signIn(email, PASSWORD);
    const setCookie = [response.headers['set-cookie']].flat().find((c) => c?.startsWith('psl_portal='))!;
    assert.match(setCookie, /; Secure/);
  });
});

describe('operator configuration', () => {
  test('PARASOL_ADMIN_EMAIL and PARASOL_ADMIN_PASSWORD go together, the password 12+ characters', () => {
    assert.deepEqual(
      loadConfig({ PARASOL_ADMIN_EMAIL: 'ops@parasol.test', PARASOL_ADMIN_PASSWORD: 'twelve chars' }).admin,
      { email: 'ops@parasol.test', password: 'twelve chars' },
    );
    assert.deepEqual(loadConfig({}).admin, { email: undefined, password: undefined });
    assert.throws(
      () => loadConfig({ PARASOL_ADMIN_EMAIL: 'ops@parasol.test' }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'PARASOL_ADMIN_PASSWORD',
    );
    assert.throws(
      () => loadConfig({ PARASOL_ADMIN_EMAIL: 'ops@parasol.test', PARASOL_ADMIN_PASSWORD: 'short' }),
      /at least 12 characters/,
    );
    assert.throws(
      () => loadConfig({ PARASOL_ADMIN_EMAIL: 'not-an-email', PARASOL_ADMIN_PASSWORD: 'long enough password' }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'PARASOL_ADMIN_EMAIL',
    );
  });
});
