import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { amendAgreement, listConfigurations } from '../../src/partners/index.ts';
import { createUser } from '../../src/partners/users.ts';
import { encodeCursor, UNBOUND_CURSORS_BEFORE } from '../../src/platform/cursor.ts';
import { formatMoney } from '../../src/platform/money.ts';
import { asset } from '../../src/web/layout.ts';
import { claimsByStatus } from '../../src/web/views-repo.ts';
import {
  buildTestApp,
  cancelledFlightClaim,
  consoleClaimRows,
  createTestPartner,
  DEFAULT_AGREEMENT,
  eventually,
  FLIGHT,
  post,
  subscribeTrip,
  trip,
  uniqueSlug,
  type TestApp,
} from '../helper.ts';
import { Browser, csrfOf } from './inject-browser.ts';

/** The console's dashboard, claims table, contract page and webhooks; the operator's watch pages. */

const PASSWORD = 'console test password';
const ADMIN = { email: 'ops-console-tests@parasol.test', password: 'operator password 42' };

describe('console and operator pages', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      env: {
        PARASOL_ADMIN_EMAIL: ADMIN.email,
        PARASOL_ADMIN_PASSWORD: ADMIN.password,
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on',
      },
    });
  });
  after(() => t.close());

  const tokenOf = (body: string) => /name="actionToken" value="([A-Za-z0-9_-]+)"/.exec(body)?.[1];
  const deliveriesTo = (endpointId: string) =>
    t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpointId).execute();

  async function signedInPartner() {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('console')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
    return { partner, browser };
  }

  test('the dashboard counts the partner’s own quotes, contracts, cancellations and claims, and the conversion', async () => {
    const { partner, browser } = await signedInPartner();
    const other = await createTestPartner(t.db);
    await subscribeTrip(t.app, other);
    const first = trip(20);
    const contract = await subscribeTrip(t.app, partner, first);
    assert.equal(contract.status, 201);
    await subscribeTrip(t.app, partner, trip(21));
    for (let i = 0; i < 3; i++)
      assert.equal((await post(t.app, `${FLIGHT}/getPrice`, trip(22), partner.auth)).status, 200);
    await t.app.parasol.quoteCounter.flush(t.db);
    const cancelled = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: contract.body.contractNumber, reason: 'customer_request' },
      partner.auth,
    );
    assert.equal(cancelled.status, 200);

    const page = await browser.get('/console/dashboard');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<strong id="total-subscriptions">2<\/strong>/);
    assert.match(
      page.body,
      /<strong id="total-quotes">5<\/strong>/,
      'two quotes subscribed, three more: the other partner’s not counted',
    );
    assert.match(page.body, /<strong id="conversion-rate">40\.0 %<\/strong>/);
    assert.match(page.body, /quotes are counted per hour/);
    assert.match(page.body, /50\.0 %/); // one cancellation for two subscriptions
    assert.match(page.body, /<canvas data-chart="chart-activity"/);
    assert.ok(page.body.includes(`src="${asset('chart.umd.min.js')}"`), 'the chart script, versioned');
    const chart = await t.app.inject({ method: 'GET', url: '/assets/chart.umd.min.js' });
    assert.equal(chart.statusCode, 200);
    assert.match(String(chart.headers['content-type']), /javascript/);
  });

  test('claims by status: counted over every currency, their compensation never added across currencies', async () => {
    const { partner, browser } = await signedInPartner();
    const eur = await cancelledFlightClaim(t, partner, partner.auth, { flightNumber: 'AF7101' });
    const usd = await cancelledFlightClaim(t, partner, partner.auth, { flightNumber: 'AF7102' });
    // the same status, one claim in another currency (as a partner whose currency changed would have)
    await t.db.updateTable('claims').set({ currency: 'USD' }).where('claim_number', '=', usd.claimNumber).execute();
    // both in one status: once their first message is sent (a job), awaiting bank details
    const status = 'awaiting_bank_details';
    const claims = await eventually(async () => {
      const rows = await t.db
        .selectFrom('claims')
        .select(['claim_number', 'status', 'compensation_amount'])
        .where('claim_number', 'in', [eur.claimNumber, usd.claimNumber])
        .execute();
      return rows.every((r) => r.status === status) ? rows : undefined;
    });
    const amountOf = (n: string) => Number(claims.find((c) => c.claim_number === n)!.compensation_amount);

    const counts = await claimsByStatus(t.db, { partnerId: partner.id, environment: 'sandbox' });
    assert.deepEqual(counts, [
      {
        status,
        count: 2,
        amounts: [
          { currency: 'EUR', amount: amountOf(eur.claimNumber) },
          { currency: 'USD', amount: amountOf(usd.claimNumber) },
        ],
      },
    ]);

    const page = await browser.get('/console/dashboard?env=sandbox');
    assert.equal(page.statusCode, 200);
    const table = /<table id="claims-by-status">[\s\S]*?<\/table>/.exec(page.body)?.[0] ?? '';
    const row = /<tbody><tr>([\s\S]*?)<\/tr>/.exec(table)?.[1] ?? '';
    const cells = [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1]);
    assert.equal(cells[1], '2');
    const money = (minor: number, currency: string) => formatMoney(minor, currency, 'en');
    assert.equal(
      cells[2],
      `${money(amountOf(eur.claimNumber), 'EUR')}<br>${money(amountOf(usd.claimNumber), 'USD')}`,
      table,
    );
  });

  test('the contract page lists the versions of a changed contract', async () => {
    const { partner, browser } = await signedInPartner();
    const flight = trip(14);
    const contract = await subscribeTrip(t.app, partner, flight);
    assert.equal(contract.status, 201);
    const number = contract.body.contractNumber as string;
    const unchanged = await browser.get(`/console/contracts/${number}`);
    assert.doesNotMatch(unchanged.body, /id="contract-versions"/);
    // the booking reference, stored sealed, is opened for the partner's page
    assert.match(unchanged.body, /<dd>ABC123<\/dd>/);
    const sold = await t.db
      .selectFrom('contracts')
      .select(['version', 'configuration_version'])
      .where('contract_number', '=', number)
      .executeTakeFirstOrThrow();
    assert.match(unchanged.body, /<dt>Version<\/dt><dd id="contract-version">1<\/dd>/, 'the contract as sold');
    assert.match(
      unchanged.body,
      new RegExp(
        `<dt>Configuration version</dt><dd id="contract-configuration-version">${sold.configuration_version}</dd>`,
      ),
      'the configuration version under its own label',
    );
    assert.match(unchanged.body, /No claims on this contract\./, 'a contract has no period');
    assert.doesNotMatch(unchanged.body, /in this period/, 'not the listing’s words');
    const preview = await post(
      t.app,
      `${FLIGHT}/contracts/${number}/flight-change/preview`,
      {
        flights: [
          {
            leg: 0,
            flightNumber: 'AF1234',
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: `${flight.departureDateTime.slice(0, 10)}T17:20`,
          },
        ],
      },
      partner.auth,
    );
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    const changed = await post(
      t.app,
      `${FLIGHT}/contracts/${number}/flight-change`,
      { changeReference: preview.body.changeReference },
      partner.auth,
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const page = await browser.get(`/console/contracts/${number}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /id="contract-versions"/);
    assert.match(page.body, /<td>2<\/td>/);
    // the zone said once, in the column's header, as in the claims table; not in every cell
    assert.match(
      page.body,
      /<table id="contract-versions"><thead><tr><th scope="col">#<\/th><th scope="col">Created \(UTC\)<\/th>/,
    );
    // the time to the minute as the page's language writes it ('2 Mar 2026, 09:30'), the ISO instant for machines
    const at =
      /<td><time datetime="(\d{4}-\d\d-\d\dT\d\d:\d\d):\d\d\.\d{3}Z">([^<]*)<\/time><\/td><td>Flight changed/.exec(
        page.body,
      );
    assert.ok(at, 'a version’s time, its zone in the header');
    const [day, time] = at[1]!.split('T') as [string, string];
    const written = new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });
    assert.equal(at[2], `${written}, ${time}`);
    assert.doesNotMatch(page.body, /\d\d:\d\d UTC<\/td>|<td>\d{4}-\d\d-\d\d \d\d:\d\d<\/td>/);
    assert.match(page.body, /<dd id="contract-version">2<\/dd>/, 'the API’s version after one change');
    assert.match(
      page.body,
      new RegExp(`<dd id="contract-configuration-version">${sold.configuration_version}</dd>`),
      'a change keeps the configuration it was sold under',
    );
    assert.match(page.body, /AF1234 CDG/);
    assert.match(page.body, /AF006 CDG/);

    // the same page in French: its own words for the two versions and for no claim on a contract
    assert.equal((await browser.get(`/lang/fr?next=/console/contracts/${number}`)).statusCode, 303);
    const fr = await browser.get(`/console/contracts/${number}`);
    assert.match(fr.body, /<html lang="fr">/, 'French after the switch');
    assert.match(fr.body, /<dt>Version<\/dt><dd id="contract-version">2<\/dd>/, 'Version, in French too');
    assert.match(
      fr.body,
      new RegExp(
        `<dt>Version de la configuration</dt><dd id="contract-configuration-version">${sold.configuration_version}</dd>`,
      ),
      'the configuration version, in French',
    );
    assert.match(fr.body, /Aucun sinistre sur ce contrat\./, 'no claim on this contract, in French');
    assert.doesNotMatch(fr.body, /sur cette période/, 'not the listing’s words of a period');
    await browser.get(`/lang/en?next=/console`);
  });

  test('the claims table lists the partner’s claims with the /getclaims filters; a bad range is a message', async () => {
    const { partner, browser } = await signedInPartner();
    const flight = trip(12);
    const contract = await subscribeTrip(t.app, partner, flight);
    const reported = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF006', departureDate: flight.departureDateTime.slice(0, 10), status: 'cancelled' },
      partner.auth,
    );
    assert.equal(reported.status, 200, JSON.stringify(reported.body));
    const claimNumber = reported.body.claimsOpened[0].claimNumber as string;

    const listed = await consoleClaimRows(browser, '/console/claims');
    assert.equal(listed.filter((row) => row.includes(claimNumber)).length, 1, `${claimNumber} listed once`);
    const filtered = await consoleClaimRows(browser, `/console/claims?contract=${contract.body.contractNumber}`);
    assert.equal(filtered.length, 1, 'the contract’s one claim');
    assert.ok(filtered[0]!.includes(claimNumber), filtered[0]);
    const wrongRange = await browser.get('/console/claims?from=2026-05-01&to=2026-04-01');
    assert.equal(wrongRange.statusCode, 422);
    // each filter named by its label, as the partner reads it, not by the API's name (toDate, fromDate)
    assert.match(wrongRange.body, /Opened until: must be on or after “Opened from”/);
    assert.doesNotMatch(wrongRange.body, /toDate|fromDate/);
    // the API's problem keeps its pointer and words
    const api = await post(
      t.app,
      `${FLIGHT}/getclaims`,
      { fromDate: '2026-05-01', toDate: '2026-04-01' },
      partner.auth,
    );
    assert.equal(api.status, 422);
    assert.deepEqual(
      (api.body.errors as { field: string; message: string }[]).map((e) => [e.field, e.message]),
      [['/toDate', 'must be on or after fromDate']],
    );
    // and next to its field, tied to it, with the focus there
    assert.match(
      wrongRange.body,
      /<input id="c-to" name="to" type="date" value="2026-04-01" aria-invalid="true" aria-describedby="c-to-error" autofocus><p class="error" id="c-to-error">must be on or after “Opened from”<\/p>/,
    );
    assert.doesNotMatch(wrongRange.body, /id="c-from-error"/);
    for (const query of ['env=nowhere', 'from=yesterday', `cursor=${'x'.repeat(501)}`]) {
      const refused = await browser.get(`/console/claims?${query}`);
      assert.equal(refused.statusCode, 400, query);
      assert.match(refused.body, /does not accept/);
    }

    const detail = await browser.get(`/console/contracts/${contract.body.contractNumber}`);
    assert.equal(detail.statusCode, 200);
    assert.ok(detail.body.includes(claimNumber), 'the contract page lists its claim');
    const { browser: stranger } = await signedInPartner();
    assert.equal((await stranger.get(`/console/contracts/${contract.body.contractNumber}`)).statusCode, 404);
    assert.deepEqual(await consoleClaimRows(stranger, '/console/claims'), [], 'another partner lists no claim');
  });

  test('webhook endpoints: add (secret shown once), test-send once per page, rotate, remove; another partner’s endpoint is 404, its token refused', async () => {
    const { browser } = await signedInPartner();
    const csrf = csrfOf((await browser.get('/console/webhooks')).body)!;
    const added = await browser.post('/console/webhooks', {
      _csrf: csrf,
      env: 'sandbox',
      url: 'http://127.0.0.1:9/hooks',
      description: 'mine',
    });
    assert.equal(added.statusCode, 201, added.body.slice(0, 500));
    assert.match(added.body, /whsec_[A-Za-z0-9+/=]+/);
    const id = /action="\/console\/webhooks\/([0-9a-f-]{36})\/test"/.exec(added.body)![1]!;

    // "Send a test event" is done once per page shown: the same form posted twice queues one delivery
    const token = tokenOf(added.body)!;
    assert.match(added.body, new RegExp(`action="/console/webhooks/${id}/test">[^]*?name="actionToken"`));
    const form = { _csrf: csrf, env: 'sandbox', actionToken: token };
    const tested = await browser.post(`/console/webhooks/${id}/test`, form);
    assert.equal(tested.statusCode, 200);
    assert.match(tested.body, /Test event queued/);
    assert.match(tested.body, /webhook\.test/);
    assert.notEqual(tokenOf(tested.body), token, 'the page answered carries a fresh token');
    const again = await browser.post(`/console/webhooks/${id}/test`, form);
    assert.equal(again.statusCode, 200);
    assert.match(again.body, /This form was sent already: nothing was queued again/);
    assert.doesNotMatch(again.body, /Test event queued/);
    assert.equal((await deliveriesTo(id)).length, 1, 'one delivery for the two posts');
    const stale = await browser.post(`/console/webhooks/${id}/test`, { _csrf: csrf, env: 'sandbox' });
    assert.equal(stale.statusCode, 422, 'a form without its token is stale');
    assert.match(stale.body, /This form is stale: open the page again\./);
    assert.doesNotMatch(stale.body, /actionToken:/, 'the token is no field of the form: its own sentence');
    assert.equal((await deliveriesTo(id)).length, 1);
    // "Rotate the secret" too: a double click rotates once, and its second answer (the one the browser
    // shows) shows the same secret again
    const secretOf = async () =>
      (await t.db.selectFrom('webhook_endpoints').select('secret_enc').where('id', '=', id).executeTakeFirstOrThrow())
        .secret_enc;
    const shownSecret = (body: string) => /id="new-secret">(whsec_[^<]+)</.exec(body)?.[1];
    const rotations = async () =>
      (
        await t.db
          .selectFrom('audit_log')
          .select('id')
          .where('entity_id', '=', id)
          .where('action', '=', 'secret_rotated')
          .execute()
      ).length;
    const rotateForm = { _csrf: csrf, env: 'sandbox', actionToken: tokenOf(stale.body)! };
    const rotated = await browser.post(`/console/webhooks/${id}/rotate`, rotateForm);
    assert.equal(rotated.statusCode, 201);
    const firstSecret = shownSecret(rotated.body);
    assert.ok(firstSecret, 'the new secret shown');
    const rotatedSecret = await secretOf();
    const rotatedTwice = await browser.post(`/console/webhooks/${id}/rotate`, rotateForm);
    assert.equal(rotatedTwice.statusCode, 201);
    assert.equal(shownSecret(rotatedTwice.body), firstSecret, 'the same secret shown again');
    assert.match(rotatedTwice.body, /the secret was rotated once, and the one below is still in force/);
    assert.equal(await secretOf(), rotatedSecret, 'not rotated again');
    assert.equal(await rotations(), 1, 'one rotation for the two posts');
    assert.match(rotatedTwice.body, /it is shown again only within 10 minutes of the rotation/);
    assert.doesNotMatch(rotatedTwice.body, /it is shown only once/);
    // the previous secret's end no longer the rotation's instant plus 24 h to the millisecond (an instant
    // stored at a coarser precision, cut): the rotation is still the one in force, shown again
    const moveEnd = (ms: number) =>
      t.db
        .updateTable('webhook_endpoints')
        .set({ previous_secret_expires_at: sql`previous_secret_expires_at + make_interval(secs => ${ms / 1000})` })
        .where('id', '=', id)
        .execute();
    await moveEnd(-1);
    const rotatedThrice = await browser.post(`/console/webhooks/${id}/rotate`, rotateForm);
    assert.equal(rotatedThrice.statusCode, 201);
    assert.equal(shownSecret(rotatedThrice.body), firstSecret, 'the link, not instants compared');
    // a later rotation by the previous version during a rolling update (the API: the link left as it was,
    // the previous secret's end a minute later): no secret
    await moveEnd(60_000);
    const afterOldRotation = await browser.post(`/console/webhooks/${id}/rotate`, rotateForm);
    assert.equal(afterOldRotation.statusCode, 200);
    assert.doesNotMatch(afterOldRotation.body, /whsec_/, 'a rotation since, though the link still names this one');
    await moveEnd(-60_000 + 1);
    // more than 10 minutes after that rotation (the clock moved back instead: the row's instants), no secret
    const shift = async (ms: number) => {
      await t.db
        .updateTable('webhook_operator_actions')
        .set({ created_at: sql`created_at + make_interval(secs => ${ms / 1000})` })
        .where('action_token', '=', rotateForm.actionToken)
        .execute();
      await t.db
        .updateTable('webhook_endpoints')
        .set({ previous_secret_expires_at: sql`previous_secret_expires_at + make_interval(secs => ${ms / 1000})` })
        .where('id', '=', id)
        .execute();
    };
    await shift(-11 * 60_000);
    const tooLate = await browser.post(`/console/webhooks/${id}/rotate`, rotateForm);
    assert.equal(tooLate.statusCode, 200);
    assert.match(tooLate.body, /which is not shown again/);
    assert.doesNotMatch(tooLate.body, /whsec_/, 'no secret shown 11 minutes later');
    assert.equal(await rotations(), 1, 'still one rotation');
    await shift(11 * 60_000);
    // once a later rotation (another page's) replaced it, the first page's form shows no secret
    const later = await browser.post(`/console/webhooks/${id}/rotate`, {
      ...rotateForm,
      actionToken: tokenOf(rotatedTwice.body)!,
    });
    assert.equal(later.statusCode, 201);
    assert.notEqual(shownSecret(later.body), firstSecret);
    const superseded = await browser.post(`/console/webhooks/${id}/rotate`, rotateForm);
    assert.equal(superseded.statusCode, 200);
    assert.match(
      superseded.body,
      /This form already rotated the secret, which is not shown again \(a later rotation replaced it/,
    );
    assert.doesNotMatch(superseded.body, /whsec_/, 'no secret shown');
    assert.equal(await rotations(), 2);
    const staleRotation = await browser.post(`/console/webhooks/${id}/rotate`, { _csrf: csrf, env: 'sandbox' });
    assert.equal(staleRotation.statusCode, 422, 'a rotation form without its token is stale');

    const { browser: stranger } = await signedInPartner();
    const strangerCsrf = csrfOf((await stranger.get('/console/webhooks')).body)!;
    assert.equal(
      (await stranger.post(`/console/webhooks/${id}/remove`, { _csrf: strangerCsrf, env: 'sandbox' })).statusCode,
      404,
    );
    // another partner's token: refused on the stranger's own endpoint, and on ours not found
    const own = await stranger.post('/console/webhooks', {
      _csrf: strangerCsrf,
      env: 'sandbox',
      url: 'http://127.0.0.1:9/stranger-hooks',
    });
    assert.equal(own.statusCode, 201, own.body.slice(0, 500));
    const ownId = /action="\/console\/webhooks\/([0-9a-f-]{36})\/test"/.exec(own.body)![1]!;
    const borrowed = { _csrf: strangerCsrf, env: 'sandbox', actionToken: token };
    const foreign = await stranger.post(`/console/webhooks/${ownId}/test`, borrowed);
    assert.equal(foreign.statusCode, 422);
    assert.match(foreign.body, /This form is stale: open the page again\./);
    assert.deepEqual(await deliveriesTo(ownId), [], 'nothing queued with another partner’s token');
    // in French, the same sentence in its own words (not "actionToken : n'a pas le format attendu")
    await stranger.get('/lang/fr?next=/console/webhooks');
    const foreignFr = await stranger.post(`/console/webhooks/${ownId}/test`, borrowed);
    assert.equal(foreignFr.statusCode, 422);
    assert.match(foreignFr.body, /Ce formulaire n’est plus valable\u202f: rouvrez la page\./);
    assert.doesNotMatch(foreignFr.body, /actionToken\s*:/);
    await stranger.get('/lang/en?next=/console/webhooks');
    assert.equal((await stranger.post(`/console/webhooks/${id}/test`, borrowed)).statusCode, 404);
    assert.equal((await deliveriesTo(id)).length, 1);
    // with a token of its own page, the stranger's test is queued
    const mine = { ...borrowed, actionToken: tokenOf(foreign.body)! };
    assert.match((await stranger.post(`/console/webhooks/${ownId}/test`, mine)).body, /Test event queued/);
    assert.equal((await deliveriesTo(ownId)).length, 1);
    // and "Send again" of the stranger's own delivery (ended, so it could be sent again) with our token
    const [ended] = await deliveriesTo(ownId);
    await t.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', ended!.id).execute();
    const resent = await stranger.post(`/console/webhooks/deliveries/${ended!.id}/redeliver`, borrowed);
    assert.equal(resent.statusCode, 422);
    assert.match(resent.body, /This form is stale: open the page again\./);
    const resends = await t.db
      .selectFrom('audit_log')
      .select('id')
      .where('entity_id', '=', ownId)
      .where('action', '=', 'redelivery_requested')
      .execute();
    assert.deepEqual(resends, [], 'not sent again with another partner’s token');
    // a token used only to rotate (its row has no delivery: its partner is its endpoint's) is ours too
    const strangerSecret = async () =>
      (
        await t.db
          .selectFrom('webhook_endpoints')
          .select('secret_enc')
          .where('id', '=', ownId)
          .executeTakeFirstOrThrow()
      ).secret_enc;
    const before = await strangerSecret();
    const rotateBorrowed = { ...borrowed, actionToken: rotateForm.actionToken };
    const foreignRotation = await stranger.post(`/console/webhooks/${ownId}/rotate`, rotateBorrowed);
    assert.equal(foreignRotation.statusCode, 422);
    assert.match(foreignRotation.body, /This form is stale: open the page again\./);
    assert.doesNotMatch(foreignRotation.body, /whsec_/);
    assert.equal(await strangerSecret(), before, 'not rotated with another partner’s token');

    const refused = await browser.post('/console/webhooks', { _csrf: csrf, env: 'sandbox', url: 'not a url' });
    assert.equal(refused.statusCode, 422);
    const removed = await browser.post(`/console/webhooks/${id}/remove`, { _csrf: csrf, env: 'sandbox' });
    assert.equal(removed.statusCode, 200);
    assert.doesNotMatch(removed.body, new RegExp(`/console/webhooks/${id}/test`));
  });

  test('the operator’s watch pages open for operators only', async () => {
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const { browser: partnerUser } = await signedInPartner();
    for (const url of [
      '/admin/flights',
      '/admin/claims',
      '/admin/outbox',
      '/admin/payouts',
      // an unbound cursor (as printed before cursors were bound) reads while its instant is before the cutoff
      `/admin/claims?status=opened&cursor=${encodeCursor(new Date(UNBOUND_CURSORS_BEFORE.getTime() - 86_400_000), '00000000-0000-0000-0000-000000000000')}`,
    ]) {
      assert.equal((await operator.get(url)).statusCode, 200, url);
      assert.equal((await partnerUser.get(url)).statusCode, 403, url);
    }
    for (const url of [
      '/admin/claims?status=lost',
      `/admin/payouts?cursor=${'x'.repeat(501)}`,
      '/admin/flights?offset=ten',
    ])
      assert.equal((await operator.get(url)).statusCode, 400, url);
    assert.equal((await operator.get('/admin/claims?cursor=bm90IG91cnM')).statusCode, 422, 'a cursor not ours');
    assert.equal(
      (await operator.get('/admin/payouts?cursor=bm90IG91cnM')).statusCode,
      422,
      'a payouts cursor not ours',
    );
  });

  test('the operator console runs the CLI’s use cases: partner, agreement draft → signed, subscription, key, user', async () => {
    const operator = new Browser(t.app);
    await operator.signIn(ADMIN.email, ADMIN.password, 'admin');
    const csrf = csrfOf((await operator.get('/admin')).body)!;
    const slug = uniqueSlug('admin');
    const created = await operator.post('/admin/partners', { _csrf: csrf, slug, name: 'Admin Made' });
    assert.equal(created.statusCode, 303);
    const invalid = await operator.post('/admin/partners', { _csrf: csrf, slug: 'Not A Slug', name: 'x' });
    assert.equal(invalid.statusCode, 422);
    assert.match(invalid.body, /slug: must be 2-63 lowercase letters/);
    const base = `/admin/partners/${slug}`;
    const agreement = {
      _csrf: csrf,
      revision: /name="revision" value="([^"]+)"/.exec((await operator.get(base)).body)![1]!,
      currency: 'EUR',
      taxRate: '0.09',
      commissionMin: '0',
      commissionMax: '0.25',
      // the bounds in major units of the currency, as the CLI takes them
      compensationMin: '10.00',
      compensationMax: '400',
    };
    const withFormulas = new URLSearchParams({ ...agreement });
    withFormulas.append('allowedFormulas', 'delay');
    withFormulas.append('allowedFormulas', 'cancellation');
    const set = await t.app.inject({
      method: 'POST',
      url: `${base}/agreement`,
      payload: withFormulas.toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `psl_admin=${operator.cookies.get('psl_admin')}`,
      },
    });
    assert.equal(set.statusCode, 303);
    const production = await operator.post(`${base}/keys`, { _csrf: csrf, environment: 'production' });
    assert.equal(production.statusCode, 422, 'no production key before signing');
    assert.match(production.body, /signed agreement/);
    const drafted = (await operator.get(base)).body;
    const signForm = /action="[^"]+\/sign"[^>]*>.*?name="revision" value="([^"]+)"/.exec(drafted)![1]!;
    assert.equal((await operator.post(`${base}/sign`, { _csrf: csrf, revision: signForm })).statusCode, 303);
    const page = await operator.get(base);
    assert.match(page.body, /<strong id="agreement-status">signed<\/strong>/);
    // the summary says the bounds as amounts of the currency, as the CLI does (10.00 EUR – 400.00 EUR), not minor units
    assert.match(page.body, /· compensation €10\.00–€400\.00<\/p>/);
    assert.equal(
      (await operator.post(`${base}/subscriptions`, { _csrf: csrf, api: 'demo', subscribed: 'true' })).statusCode,
      303,
    );
    const key = await operator.post(`${base}/keys`, { _csrf: csrf, environment: 'production', label: 'live' });
    assert.equal(key.statusCode, 201);
    const plaintext = /psl_live_[A-Za-z0-9_-]{32}/.exec(key.body)![0];
    const call = await post(
      t.app,
      '/demo/v1/getCityByZipCode',
      { zipCode: '75007' },
      { authorization: `Bearer ${plaintext}` },
    );
    assert.equal(call.status, 200);
    const email = `${uniqueSlug('made')}@example.com`;
    assert.equal(
      (await operator.post(`${base}/users`, { _csrf: csrf, email, password: 'a fine password' })).statusCode,
      303,
    );
    const user = new Browser(t.app);
    assert.equal((await user.signIn(email, 'a fine password')).statusCode, 303);
    const catalog = await user.get('/portal');
    assert.deepEqual(
      [...catalog.body.matchAll(/data-api="([^"]+)"/g)].map((m) => m[1]),
      ['demo'],
    );
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('entity', '=', 'agreement')
      .where('action', '=', 'signed')
      .where('actor', '=', `operator:${ADMIN.email}`)
      .execute();
    assert.ok(audit.length >= 1, 'the signature is audited with the operator as actor');
  });

  test('the configuration form: one keyboard per field (minutes numeric), and a value it cannot read is told its bounds', async () => {
    const { browser } = await signedInPartner();
    const form = (await browser.get('/console')).body;
    const inputs = form.match(/<input id="f-(tier_|cancellation|commission)[^>]*>/g) ?? [];
    assert.equal(inputs.length, 12);
    for (const input of inputs) assert.equal(input.match(/inputmode=/g)?.length, 1, input);
    assert.match(form, /<input id="f-tier_minutes_0"[^>]*inputmode="numeric"/);
    assert.match(form, /<input id="f-tier_amount_0"[^>]*inputmode="decimal"/);
    // amounts are read whole and refused past 30 characters with a message: no maxlength, which cuts a paste short
    assert.doesNotMatch(form, /<input id="f-[^"]*"[^>]*maxlength=/);
    // "-1" and "100" are numbers: "Enter a number." told the partner nothing to fix
    const refused = await browser.post('/console', {
      _csrf: csrfOf(form)!,
      version: /name="version" value="(\d+)"/.exec(form)![1]!,
      formula: 'delay_and_cancellation',
      tier_minutes_0: '120',
      tier_amount_0: '50',
      cancellation: '-1',
      commission: '100',
    });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /id="f-cancellation-error">Enter an amount between €10\.00 and €500\.00\.</);
    assert.match(refused.body, /id="f-commission-error">Enter a rate between 0 % and 30 %\.</);
    assert.doesNotMatch(refused.body, /Enter a number/);
    assert.match(refused.body, /id="f-cancellation" name="cancellation" value="-1"/);
    assert.match(refused.body, /id="f-commission" name="commission" value="100"/);
  });

  test('a delay tier half filled: an error on its empty field, what was typed kept, nothing saved', async () => {
    const { partner, browser } = await signedInPartner();
    const form = (await browser.get('/console')).body;
    const version = /name="version" value="(\d+)"/.exec(form)![1]!;
    const before = (await listConfigurations(t.db, partner.id)).length;
    const refused = await browser.post('/console', {
      _csrf: csrfOf(form)!,
      version,
      formula: 'delay',
      tier_minutes_0: '120',
      tier_amount_0: '50',
      tier_minutes_1: '180',
      tier_amount_2: '80',
      commission: '10',
    });
    assert.equal(refused.statusCode, 422);
    assert.match(
      refused.body,
      /id="f-tier_amount_1-error">This tier has minutes but no compensation: enter its amount, or clear its minutes\.</,
    );
    assert.match(
      refused.body,
      /id="f-tier_minutes_2-error">This tier has a compensation amount but no minutes: enter its delay in minutes, or clear its amount\.</,
    );
    assert.match(refused.body, /id="f-tier_minutes_1" name="tier_minutes_1" value="180"/);
    assert.match(refused.body, /id="f-tier_amount_2" name="tier_amount_2" value="80"/);
    assert.match(refused.body, /id="f-tier_amount_0" name="tier_amount_0" value="50"/);
    assert.equal((await listConfigurations(t.db, partner.id)).length, before, 'nothing saved');
  });

  test('a refused configuration: a summary at the top, focused without script, each error a link to its field', async () => {
    const { browser } = await signedInPartner();
    const form = (await browser.get('/console')).body;
    assert.doesNotMatch(form, /id="error-summary"/, 'no summary on a form opened as saved');
    const refused = await browser.post('/console', {
      _csrf: csrfOf(form)!,
      version: /name="version" value="(\d+)"/.exec(form)![1]!,
      formula: 'delay_and_cancellation',
      tier_minutes_0: '120',
      tier_amount_0: '50',
      tier_minutes_1: '180',
      tier_amount_1: 'x',
      cancellation: '-1',
      commission: '100',
    });
    assert.equal(refused.statusCode, 422);
    const summary = /<div class="alert" role="alert" id="error-summary" tabindex="-1" autofocus>([\s\S]*?)<\/div>/.exec(
      refused.body,
    )?.[1];
    assert.ok(summary, 'a focused summary of the refused fields');
    const links = [...summary.matchAll(/<li><a href="#(f-[a-z_0-9]+)">([^<]+)<\/a><\/li>/g)].map((m) => [m[1], m[2]]);
    // in the form's order, each named by its label: five tiers share their messages
    assert.deepEqual(links, [
      ['f-tier_amount_1', 'Tier 2 — Compensation (EUR): Enter an amount between €10.00 and €500.00.'],
      ['f-cancellation', 'Cancellation compensation (EUR): Enter an amount between €10.00 and €500.00.'],
      ['f-commission', 'Commission rate (%): Enter a rate between 0 % and 30 %.'],
    ]);
    // each link's target exists, tied to its label, and describes its error
    for (const [id] of links) {
      assert.match(refused.body, new RegExp(`<label for="${id}">`));
      assert.match(
        refused.body,
        new RegExp(`<input id="${id}"[^>]*aria-invalid="true" aria-describedby="${id}-error"`),
      );
      assert.match(refused.body, new RegExp(`<p class="error" id="${id}-error">`));
    }
    assert.equal(refused.body.match(/autofocus/g)?.length, 1, 'one element has the focus');
  });

  test('pages speak French after the language switch', async () => {
    const { browser } = await signedInPartner();
    const switched = await browser.get('/lang/fr?next=/console');
    assert.equal(switched.statusCode, 303);
    assert.equal(switched.headers.location, '/console');
    const page = await browser.get('/console');
    assert.match(page.body, /<html lang="fr">/);
    assert.match(page.body, /Aperçu de la prime/);
    assert.match(page.body, /Se déconnecter/);
    assert.equal((await browser.get('/lang/en?next=//evil.example')).headers.location, '/portal');
  });

  test('a French page translates the domain’s errors by their code, never in English', async () => {
    const { browser } = await signedInPartner();
    await browser.get('/lang/fr?next=/console');
    const wrongRange = await browser.get('/console/claims?from=2026-05-01&to=2026-04-01');
    assert.equal(wrongRange.statusCode, 422);
    assert.match(wrongRange.body, /Ouverts jusqu’au\u202f: est hors des limites permises/);
    assert.doesNotMatch(wrongRange.body, /toDate/);
    assert.doesNotMatch(wrongRange.body, /must be on or after/);
    // a range past the claims list's maximum (367 days both included): out of range, not the export's count
    const tooLong = await browser.get('/console/claims?from=2026-01-01&to=2027-01-03');
    assert.equal(tooLong.statusCode, 422);
    assert.match(tooLong.body, /Ouverts jusqu’au\u202f: est hors des limites permises/);
    assert.doesNotMatch(tooLong.body, /toDate|les deux inclus|at most/);
    const csrf = csrfOf((await browser.get('/console/webhooks')).body)!;
    const refused = await browser.post('/console/webhooks', { _csrf: csrf, env: 'sandbox', url: 'not a url' });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /URL \(https\)\u202f: n’est pas valide/, 'named by its label');
    assert.doesNotMatch(refused.body, /must be an absolute URL/);
  });

  test('every string a partner or its operator typed is escaped on the console: brand, webhook description, key label, email, amendment reason', async () => {
    const { partner, browser } = await signedInPartner();
    // one marker per field: a page that shows another field's escaped cannot pass for this one's
    const evil = (what: string) => `<script>alert('${what}')</script>`;
    const escaped = (what: string) => `&lt;script&gt;alert(&#39;${what}&#39;)&lt;/script&gt;`;
    const csrf = csrfOf((await browser.get('/console')).body)!;
    const pages: [string, string][] = [];
    await browser.post('/console/brand', { _csrf: csrf, brandName: evil('brand') });
    pages.push(['brand', (await browser.get('/console')).body]);
    pages.push([
      'webhook',
      (
        await browser.post('/console/webhooks', {
          _csrf: csrf,
          env: 'sandbox',
          url: 'http://127.0.0.1:9/escaped',
          description: evil('webhook'),
        })
      ).body,
    ]);
    pages.push([
      'key',
      (await browser.post('/portal/keys', { _csrf: csrf, environment: 'sandbox', label: evil('key') })).body,
    ]);
    pages.push([
      'email',
      (await browser.post('/console/users', { _csrf: csrf, email: `${evil('email')}@example.com`, role: 'viewer' }))
        .body,
    ]);
    await amendAgreement(t.db, 'operator:test', partner.id, {
      ...DEFAULT_AGREEMENT,
      effectiveAt: new Date('2099-01-01T00:00:00Z'),
      reason: evil('reason'),
    });
    // the reason is looked for in the agreement's history only, where the console shows it
    const history = /<table id="agreement-history"[^]*?<\/table>/.exec((await browser.get('/console')).body)?.[0] ?? '';
    pages.push(['reason', history]);
    for (const [what, body] of pages) {
      assert.ok(body.includes(escaped(what)), `${what}: shown escaped`);
      assert.doesNotMatch(body, /<script>alert/, `${what}: never as markup`);
    }
  });

  test('in French: the preview written the French way, the Users page’s and keys page’s refusals in French', async () => {
    const { partner, browser } = await signedInPartner();
    browser.cookies.set('psl_lang', 'fr');
    const consolePage = (await browser.get('/console')).body;
    const breakdown = /<div class="breakdown"[^]*?<\/div>/.exec(consolePage)?.[0] ?? '';
    assert.match(breakdown, /\d,\d\d\u202f% × \d,\d\d \([^)]*courrier/, 'French numbers and factor names');
    assert.doesNotMatch(breakdown, /-haul|\(hour |\d\.\d\d %/, 'no English factor or number');
    // the agreement's commission bounds, the French way (no '0.1 %' nor '10 %' with an English space)
    assert.match(consolePage, /Commission \d+(,\d+)?\u202f% – \d+(,\d+)?\u202f%/, 'French rates');
    assert.doesNotMatch(consolePage, /\d %/, 'no English-style percentage');
    const csrf = csrfOf(consolePage)!;
    const email = `${uniqueSlug('fr-twice')}@example.com`;
    assert.equal((await browser.post('/console/users', { _csrf: csrf, email, role: 'viewer' })).statusCode, 200);
    const twice = await browser.post('/console/users', { _csrf: csrf, email, role: 'viewer' });
    assert.equal(twice.statusCode, 409);
    assert.match(twice.body, new RegExp(`${email} est déjà un utilisateur\\.`));
    assert.doesNotMatch(twice.body, /Conflit avec l’état actuel/, 'not the code’s generic sentence');
    // the keys form: an environment not offered (a forged form) is a field error, by its label, in French
    const keysBefore = await t.db.selectFrom('api_keys').select('id').where('partner_id', '=', partner.id).execute();
    const badEnvironment = await browser.post('/portal/keys', { _csrf: csrf, environment: 'nowhere', label: 'x' });
    assert.equal(badEnvironment.statusCode, 422);
    assert.match(badEnvironment.body, /Environnement\u202f: n’est pas permis/);
    assert.doesNotMatch(badEnvironment.body, /Choose an environment|must be one of/);
    // none chosen: required, as on the operator's key form (one check, partners' parseEnvironment)
    const noEnvironment = await browser.post('/portal/keys', { _csrf: csrf, label: 'x' });
    assert.equal(noEnvironment.statusCode, 422);
    assert.match(noEnvironment.body, /Environnement\u202f: est obligatoire/);
    const keysAfter = await t.db.selectFrom('api_keys').select('id').where('partner_id', '=', partner.id).execute();
    assert.equal(keysAfter.length, keysBefore.length, 'no key written');
  });
});
