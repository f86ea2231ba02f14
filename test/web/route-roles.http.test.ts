import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { can, type Permission } from '../../src/partners/roles.ts';
import type { UserRole } from '../../src/partners/model.ts';
import { createUser } from '../../src/partners/users.ts';
import { t as words } from '../../src/i18n/index.ts';
import { Browser, csrfOf } from './inject-browser.ts';
import { buildTestApp, createTestPartner, uniqueSlug, type TestApp, type TestPartner } from '../helper.ts';

/**
 * Every route of the portal and the partner console, by the role it needs (docs/portal.md, "Users and
 * roles"), checked over the app's own route list: a route added without its line here fails, so
 * none is forgotten. Each role lacking the permission gets the 403 page and nothing is written
 * (every refused request, for every role: the partner's rows compared before and after it);
 * each role holding it gets past the check. Without a session a page sends to the sign-in page and a
 * POST is a 401; a partner session opens no operator page. The operator console's routes have their
 * own table (OPERATOR_ROUTES): an operator session, any operator, gets past each; without one a page
 * sends to the operator sign-in page and a POST is a 401.
 */

/** What a route needs: a permission, any signed-in partner user (`session`), or nothing (`public`). */
type Need = Permission | 'session' | 'public';

const ROUTES: Record<string, Need> = {
  'GET /portal': 'session',
  'GET /portal/login': 'public',
  'POST /portal/login': 'public',
  'POST /portal/logout': 'session',
  'GET /portal/forgot': 'public',
  'POST /portal/forgot': 'public',
  'GET /portal/password/:token': 'public',
  'POST /portal/password/:token': 'public',
  'GET /portal/apis/:api': 'session',
  'GET /portal/apis/:api/reference': 'session',
  'GET /portal/apis/:api/openapi.json': 'session',
  'GET /portal/keys': 'session',
  'POST /portal/keys': 'keys',
  'POST /portal/keys/:id/revoke': 'keys',
  'GET /console': 'session',
  'POST /console': 'configuration',
  'POST /console/brand': 'configuration',
  'POST /console/preview': 'session', // changes nothing: open to every role
  'GET /console/contracts/:number': 'session',
  'GET /console/claims': 'session',
  'GET /console/dashboard': 'session',
  'GET /console/webhooks': 'session',
  'POST /console/webhooks': 'webhooks',
  'POST /console/webhooks/deliveries/:id/redeliver': 'webhooks',
  'POST /console/webhooks/:id/test': 'webhooks',
  'POST /console/webhooks/:id/rotate': 'webhooks',
  'POST /console/webhooks/:id/resume': 'webhooks',
  'POST /console/webhooks/:id/remove': 'webhooks',
  'POST /console/webhooks/:id/pause': 'webhooks',
  'GET /console/reports': 'session',
  'GET /console/reports/statement': 'session',
  'GET /console/reports/export': 'session',
  'GET /console/users': 'users', // the Users page is the admins', reading included
  'POST /console/users': 'users',
  'POST /console/users/:id/role': 'users',
  'POST /console/users/:id/resend': 'users',
  'POST /console/users/:id/remove': 'users',
};

/**
 * Every route of the operator console: an operator session (any operator: operators have no roles),
 * or nothing (`public`). A partner session opens none of them, whatever its role (below).
 */
const OPERATOR_ROUTES: Record<string, 'operator' | 'public'> = {
  'GET /admin/login': 'public',
  'POST /admin/login': 'public',
  'POST /admin/logout': 'operator',
  'GET /admin': 'operator',
  'POST /admin/partners': 'operator',
  'GET /admin/partners/:slug': 'operator',
  'POST /admin/partners/:slug/agreement': 'operator',
  'POST /admin/partners/:slug/amend': 'operator',
  'POST /admin/partners/:slug/documents': 'operator',
  'POST /admin/partners/:slug/sign': 'operator',
  'POST /admin/partners/:slug/subscriptions': 'operator',
  'POST /admin/partners/:slug/keys': 'operator',
  'POST /admin/partners/:slug/keys/:id/revoke': 'operator',
  'POST /admin/partners/:slug/users': 'operator',
  'GET /admin/partners/:slug/webhooks': 'operator',
  'POST /admin/partners/:slug/webhooks/:id/resume': 'operator',
  'POST /admin/partners/:slug/webhooks/:id/pause': 'operator',
  'POST /admin/partners/:slug/webhooks/:id/test': 'operator',
  'POST /admin/partners/:slug/webhooks/deliveries/:id/redeliver': 'operator',
  'GET /admin/flights': 'operator',
  'GET /admin/claims': 'operator',
  'GET /admin/outbox': 'operator',
  'GET /admin/emails': 'operator',
  'GET /admin/payouts': 'operator',
  'GET /admin/claims/:claimNumber': 'operator',
  'POST /admin/claims/:claimNumber/resend-link': 'operator',
  'POST /admin/claims/:claimNumber/phone': 'operator',
  'POST /admin/claims/:claimNumber/review': 'operator',
  'POST /admin/claims/:claimNumber/approve': 'operator',
  'POST /admin/claims/:claimNumber/amount': 'operator',
  'POST /admin/claims/:claimNumber/void': 'operator',
  'POST /admin/claims/:claimNumber/void-cause': 'operator',
  'POST /admin/claims/:claimNumber/bic': 'operator',
  'GET /admin/risk': 'operator',
  'POST /admin/risk/activate': 'operator',
  'POST /admin/risk/refit': 'operator',
  'GET /admin/limits': 'operator',
  'POST /admin/limits/caps': 'operator',
  'POST /admin/limits/stop-sales': 'operator',
  'POST /admin/limits/stop-sales/:id/resume': 'operator',
  'GET /admin/reports': 'operator',
  'GET /admin/reports/download': 'operator',
  'GET /admin/reports/export': 'operator',
};

const OPERATOR = { email: 'ops-route-roles@parasol.test', password: 'operator password 61' };

const ROLES: readonly UserRole[] = ['viewer', 'developer', 'admin'];
const PASSWORD = 'correct horse battery';

/** The query strings a page requires (its schema answers 400 without them, before any session check). */
const QUERIES: Record<string, string> = {
  '/console/reports/statement': '?env=sandbox&month=2026-10&format=csv',
  '/console/reports/export': '?env=sandbox&from=2026-10-01&to=2026-10-31&kind=contracts',
};

/** A URL of the route: its parameters filled with values of the right form (a random id: not found). */
function urlOf(route: string): string {
  const path = route
    .replace(':api', 'demo')
    .replace(':number', 'FD-7K3M-9QXT')
    .replace(':token', 'A'.repeat(43))
    .replace(':id', crypto.randomUUID());
  return path + (QUERIES[route] ?? '');
}

const partnerArea = (route: string) => / \/(portal|console)(\/|$)/.test(route);

describe('the role of every portal and console route', () => {
  let t: TestApp;
  let partner: TestPartner;
  const browsers = {} as Record<UserRole, Browser>;
  const ids = { viewer: '', key: '' };
  before(async () => {
    t = await buildTestApp({
      env: {
        PARASOL_ADMIN_EMAIL: OPERATOR.email,
        PARASOL_ADMIN_PASSWORD: OPERATOR.password,
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on', // another partner's endpoint on a local address (below)
      },
    });
    partner = await createTestPartner(t.db);
    for (const role of ROLES) {
      const email = `${uniqueSlug(role)}@example.com`;
      const user = await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD, role });
      if (role === 'viewer') ids.viewer = user!.id;
      browsers[role] = new Browser(t.app);
      assert.equal((await browsers[role].signIn(email, PASSWORD)).statusCode, 303, role);
    }
    ids.key = (
      await t.db.selectFrom('api_keys').select('id').where('partner_id', '=', partner.id).executeTakeFirstOrThrow()
    ).id;
  });
  after(() => t.close());

  const routes = () => t.app.parasol.routes.filter(partnerArea);
  /**
   * Everything of the partner's a route could write, as one fingerprint: the content of every row
   * of every table with a `partner_id` (audit rows, keys, configurations, users and their links,
   * webhooks, emails queued…), of its `partners` row, and of the sign-in counters (`login_throttle`,
   * which the invitation limits use). Sessions are left out: a request may touch its last_seen_at.
   * A row added, changed or deleted changes it.
   */
  const writes = async (partnerId = partner.id) => {
    const tables = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'partner_id' AND table_name <> 'web_sessions'
      ORDER BY table_name`.execute(t.db);
    const parts: string[] = [];
    const digest = async (table: string, where: ReturnType<typeof sql>) => {
      const { rows } = await sql<{ d: string | null }>`
        SELECT md5(string_agg(x::text, '|' ORDER BY x::text)) AS d FROM ${sql.table(table)} x ${where}`.execute(t.db);
      parts.push(`${table}:${rows[0]?.d ?? ''}`);
    };
    for (const { table_name } of tables.rows) await digest(table_name, sql`WHERE x.partner_id = ${partnerId}`);
    await digest('partners', sql`WHERE x.id = ${partnerId}`);
    await digest('webhook_deliveries', sql`WHERE x.partner_id = ${partnerId}`);
    await digest('login_throttle', sql``);
    return parts.join(' ');
  };

  test('the table names every route of the portal and the console, and only those', () => {
    assert.deepEqual([...routes()].sort(), Object.keys(ROUTES).sort());
  });

  /**
   * Asks for `route`. A refused one is asked as if to write: its ids those of rows that exist (the
   * viewer's user, the partner's key) and a form that each such route, were it allowed, would act on.
   */
  async function ask(browser: Browser, route: string, refused = false, csrfSent?: string | null) {
    const [method, path] = route.split(' ') as ['GET' | 'POST', string];
    let url = urlOf(path);
    if (refused && path.startsWith('/console/users/:id')) url = path.replace(':id', ids.viewer);
    if (refused && path.startsWith('/portal/keys/:id')) url = path.replace(':id', ids.key);
    if (method === 'GET') return browser.get(url);
    const csrf = csrfSent === undefined ? csrfOf((await browser.get('/portal/keys')).body)! : csrfSent;
    const form: Record<string, string> = refused
      ? {
          email: `${uniqueSlug('refused')}@example.com`,
          role: 'admin',
          environment: 'sandbox',
          env: 'sandbox',
          label: 'refused',
          url: 'https://hooks.example.com/refused',
          brandName: 'Refused Brand',
        }
      : {};
    return browser.post(url, { ...(csrf === null ? {} : { _csrf: csrf }), ...form });
  }

  /** Every POST of the portal and console behind a session (sign-out included). */
  const sessionPosts = () => routes().filter((r) => r.startsWith('POST ') && ROUTES[r] !== 'public');

  test('a POST without the CSRF token, or with another session’s, is the 403 page and writes nothing', async () => {
    // the developer's own token, valid for its session only; the admin may do everything: 403 is the token's
    const others = csrfOf((await browsers.developer.get('/portal/keys')).body)!;
    for (const route of sessionPosts())
      for (const csrf of [null, others, 'x'.repeat(others.length)]) {
        const before = await writes();
        const response = await ask(browsers.admin, route, true, csrf);
        assert.equal(response.statusCode, 403, `${route} with ${csrf === null ? 'no token' : 'a wrong token'}`);
        assert.match(response.body, new RegExp(words('en').formExpired.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), route);
        assert.equal(await writes(), before, `${route}: nothing written`);
      }
    assert.equal((await browsers.admin.get('/portal')).statusCode, 200, 'the session refused is still signed in');
  });

  test('an admin naming another partner’s key, user, endpoint or delivery: 404, nothing written at either partner', async () => {
    const other = await createTestPartner(t.db);
    const email = `${uniqueSlug('other-admin')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: other.id, email, password: PASSWORD, role: 'admin' });
    const theirs = new Browser(t.app);
    assert.equal((await theirs.signIn(email, PASSWORD)).statusCode, 303);
    const theirCsrf = csrfOf((await theirs.get('/console/webhooks')).body)!;
    const added = await theirs.post('/console/webhooks', {
      _csrf: theirCsrf,
      env: 'sandbox',
      url: 'http://127.0.0.1:9/other-hooks',
    });
    assert.equal(added.statusCode, 201, added.body.slice(0, 300));
    const endpoint = /action="\/console\/webhooks\/([0-9a-f-]{36})\/test"/.exec(added.body)![1]!;
    const actionToken = /name="actionToken" value="([A-Za-z0-9_-]+)"/.exec(added.body)![1]!;
    const tested = await theirs.post(`/console/webhooks/${endpoint}/test`, {
      _csrf: theirCsrf,
      env: 'sandbox',
      actionToken,
    });
    assert.equal(tested.statusCode, 200);
    const delivery = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpoint)
      .executeTakeFirstOrThrow();
    // ended, so that its own admin could send it again
    await t.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', delivery.id).execute();
    const user = await t.db
      .selectFrom('users')
      .select('id')
      .where('partner_id', '=', other.id)
      .executeTakeFirstOrThrow();
    const key = await t.db
      .selectFrom('api_keys')
      .select('id')
      .where('partner_id', '=', other.id)
      .executeTakeFirstOrThrow();
    const idOf = (path: string) =>
      path.startsWith('/portal/keys/')
        ? key.id
        : path.startsWith('/console/users/')
          ? user.id
          : path.startsWith('/console/webhooks/deliveries/')
            ? delivery.id
            : endpoint;
    const withIds = sessionPosts().filter((r) => r.includes(':id'));
    assert.equal(withIds.length, 10, withIds.join(', '));
    const csrf = csrfOf((await browsers.admin.get('/console/webhooks')).body)!;
    // a one-time token of the admin's own page (an endpoint of its own shows its forms): only the object is foreign
    const mine = await browsers.admin.post('/console/webhooks', {
      _csrf: csrf,
      env: 'sandbox',
      url: 'http://127.0.0.1:9/own-hooks',
    });
    assert.equal(mine.statusCode, 201, mine.body.slice(0, 300));
    const ownToken = /name="actionToken" value="([A-Za-z0-9_-]+)"/.exec(mine.body)![1]!;
    for (const route of withIds) {
      const path = route.split(' ')[1]!;
      const before = [await writes(), await writes(other.id)];
      const response = await browsers.admin.post(path.replace(':id', idOf(path)), {
        _csrf: csrf,
        env: 'sandbox',
        role: 'viewer',
        actionToken: ownToken,
      });
      assert.equal(response.statusCode, 404, `${route}: ${response.statusCode}`);
      assert.deepEqual([await writes(), await writes(other.id)], before, `${route}: nothing written`);
    }
  });

  for (const role of ROLES) {
    test(`${role}: refused exactly the routes its role lacks, and those write nothing`, async () => {
      for (const route of routes()) {
        const need = ROUTES[route];
        if (need === undefined || need === 'public' || route === 'POST /portal/logout') continue;
        if (need !== 'session' && !can(role, need)) {
          const before = await writes();
          assert.equal((await ask(browsers[role], route, true)).statusCode, 403, `${role} ${route}`);
          assert.equal(await writes(), before, `${role} ${route} is refused and writes nothing`);
          continue;
        }
        const response = await ask(browsers[role], route);
        assert.ok(
          // past the check: a page's query is valid (400 would be its schema); a POST may still be
          // a 400 of its own form (the configuration's, without the version it was opened from)
          response.statusCode !== 403 && (response.statusCode !== 400 || route.startsWith('POST')),
          `${role} ${route}: ${response.statusCode}`,
        );
      }
    });
  }

  test('without a session: a page sends to the sign-in page, a POST is a 401', async () => {
    const stranger = new Browser(t.app);
    await stranger.get('/portal/login'); // a login cookie, as a browser has
    for (const route of routes()) {
      if (ROUTES[route] === 'public') continue;
      const [method] = route.split(' ');
      const response =
        method === 'GET'
          ? await stranger.get(urlOf(route.split(' ')[1]!))
          : await stranger.post(urlOf(route.split(' ')[1]!), { _csrf: stranger.cookies.get('psl_login')! });
      assert.equal(response.statusCode, method === 'GET' ? 303 : 401, route);
      if (method === 'GET') assert.match(String(response.headers.location), /^\/portal\/login\?next=/, route);
    }
  });

  test('a partner session opens no operator route, whatever the role', async () => {
    assert.ok(operatorRoutes().length > 20, 'the operator console’s routes');
    for (const role of ROLES) {
      const csrf = csrfOf((await browsers[role].get('/portal/keys')).body)!;
      for (const route of operatorRoutes()) {
        const [method, path] = route.split(' ') as ['GET' | 'POST', string];
        const url = path.replace(':slug', partner.slug).replace(/:[a-zA-Z]+/g, crypto.randomUUID());
        const response =
          method === 'GET' ? await browsers[role].get(url) : await browsers[role].post(url, { _csrf: csrf });
        assert.equal(response.statusCode, 403, `${role} ${route}`);
      }
    }
  });

  const operatorRoutes = () => t.app.parasol.routes.filter((r) => / \/admin(\/|$)/.test(r));
  /** A URL of an operator route: the test partner's slug, a random id (not found), the queries a page requires. */
  const operatorUrl = (route: string) => {
    const path = route.split(' ')[1]!;
    const queries: Record<string, string> = {
      '/admin/reports/download': `?partner=${partner.slug}&env=sandbox&month=2026-10&report=statement&format=csv`,
      '/admin/reports/export': '?env=sandbox&from=2026-10-01&to=2026-10-31&kind=contracts',
    };
    return (
      path
        .replace(':slug', partner.slug)
        .replace(':claimNumber', 'CLM-00000000')
        .replace(/:[a-zA-Z]+/g, crypto.randomUUID()) + (queries[path] ?? '')
    );
  };

  test('the operator table names every route of the operator console, and only those', () => {
    assert.deepEqual([...operatorRoutes()].sort(), Object.keys(OPERATOR_ROUTES).sort());
  });

  test('an operator route without an operator session: a page sends to the sign-in page, a POST is a 401', async () => {
    const stranger = new Browser(t.app);
    await stranger.get('/admin/login'); // a login cookie, as a browser has
    for (const route of operatorRoutes()) {
      if (OPERATOR_ROUTES[route] === 'public') continue;
      const url = operatorUrl(route);
      const response = route.startsWith('GET')
        ? await stranger.get(url)
        : await stranger.post(url, { _csrf: stranger.cookies.get('psl_login')! });
      assert.equal(response.statusCode, route.startsWith('GET') ? 303 : 401, route);
      if (route.startsWith('GET')) assert.match(String(response.headers.location), /^\/admin\/login\?next=/, route);
    }
  });

  test('an operator session gets past the check of every operator route', async () => {
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(OPERATOR.email, OPERATOR.password, 'admin')).statusCode, 303);
    const csrf = csrfOf((await operator.get('/admin')).body)!;
    for (const route of operatorRoutes()) {
      if (OPERATOR_ROUTES[route] === 'public' || route === 'POST /admin/logout') continue;
      const url = operatorUrl(route);
      const response = route.startsWith('GET') ? await operator.get(url) : await operator.post(url, { _csrf: csrf });
      // past the check: not refused, not sent to the sign-in page; a page's query is valid (400 would be its schema)
      assert.ok(![401, 403].includes(response.statusCode), `${route}: ${response.statusCode}`);
      assert.doesNotMatch(String(response.headers.location ?? ''), /^\/admin\/login/, route);
      if (route.startsWith('GET')) assert.notEqual(response.statusCode, 400, route);
    }
  });

  test('a public route answers without a session: neither the sign-in redirect nor the session check’s 401/403', async () => {
    const publicRoutes = [
      ...routes().filter((r) => ROUTES[r] === 'public'),
      ...operatorRoutes().filter((r) => OPERATOR_ROUTES[r] === 'public'),
    ];
    assert.ok(publicRoutes.length >= 8, publicRoutes.join(', '));
    const expired = words('en').formExpired;
    for (const route of publicRoutes) {
      const stranger = new Browser(t.app);
      await stranger.get(route.includes('/admin/') ? '/admin/login' : '/portal/login'); // a login cookie
      const [method, path] = route.split(' ') as ['GET' | 'POST', string];
      const url = path.replace(':token', 'x'.repeat(43));
      const response =
        method === 'GET'
          ? await stranger.get(url)
          : await stranger.post(url, { _csrf: stranger.cookies.get('psl_login')!, email: 'nobody@example.com' });
      // a reset link's page answers for its token (here unknown: its own 404, the link invalid); any other page, 200
      if (path.includes(':token')) assert.ok(response.body.includes(words('en').partnerUsers.linkInvalid), route);
      else if (method === 'GET') assert.equal(response.statusCode, 200, route);
      assert.notEqual(response.statusCode, 403, route);
      // a POST may answer 401 of its own (wrong credentials, on its form), never the session check's
      assert.ok(!response.body.includes(expired), `${route}: ${response.statusCode}, the session check's answer`);
      assert.doesNotMatch(String(response.headers.location ?? ''), /\/login\?next=/, route);
    }
  });

  test('sign-out is the session’s own: it ends that session only', async () => {
    const viewer = browsers.viewer;
    const csrf = csrfOf((await viewer.get('/portal')).body)!;
    assert.equal((await viewer.post('/portal/logout', { _csrf: csrf })).statusCode, 303);
    assert.equal((await viewer.get('/portal')).statusCode, 303);
    assert.equal((await browsers.admin.get('/portal')).statusCode, 200);
  });
});
