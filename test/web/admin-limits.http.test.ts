import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { highestExposures, listCaps, readExposureFilter } from '../../src/limits/index.ts';
import { addExposure } from '../../src/limits/limits-repo.ts';
import { createUser } from '../../src/partners/users.ts';
import { buildTestApp, createTestPartner, FLIGHT, post, subscription, uniqueSlug, type TestApp } from '../helper.ts';
import { Browser, csrfOf } from './inject-browser.ts';

/**
 * The operator console's limits page: caps, the most exposed flights with their share of the cap,
 * stop-sales — forms with CSRF, for operators only. Production in SEK: a pair no other test uses.
 */

const ADMIN = { email: 'ops-limits-tests@parasol.test', password: 'operator password 43' };

describe('operator console — limits', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password } });
  });
  after(() => t.close());

  function uniqueTrip() {
    const at = new Date(Date.now() + (60 + crypto.randomInt(240)) * 86_400_000);
    at.setUTCHours(crypto.randomInt(8, 20), crypto.randomInt(60), 0, 0);
    return {
      departureAirport: 'ARN',
      arrivalAirport: 'CPH',
      airline: 'SK',
      departureDateTime: at.toISOString().slice(0, 16),
      additionalPassengers: 8,
    };
  }

  test('sets a cap, shows the flight’s share of it, suspends and resumes sales — each change applied to quotes at once', async () => {
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const csrf = csrfOf((await operator.get('/admin/limits')).body)!;

    assert.equal(
      (await operator.post('/admin/limits/caps', { environment: 'production', currency: 'SEK', amount: '6000.00' }))
        .statusCode,
      403,
      'no CSRF token, no change',
    );
    const badCap = await operator.post('/admin/limits/caps', {
      _csrf: csrf,
      environment: 'production',
      currency: 'SEK',
      amount: '-5',
    });
    assert.equal(badCap.statusCode, 422);
    assert.match(badCap.body, /amount: /);
    assert.equal(
      (
        await operator.post('/admin/limits/caps', {
          _csrf: csrf,
          environment: 'production',
          currency: 'SEK',
          amount: '6000.00',
        })
      ).statusCode,
      303,
    );

    const partner = await createTestPartner(t.db, {
      environment: 'production',
      agreement: { currency: 'SEK' },
      configuration: { cancellationAmount: 50_000 },
    });
    const trip = uniqueTrip();
    const q = await post(t.app, `${FLIGHT}/getPrice`, trip, partner.auth);
    assert.equal(q.status, 200, JSON.stringify(q.body));
    const body = {
      ...subscription(q.body.quoteReference, trip as never),
      flights: [
        {
          flightNumber: 'SK1401',
          departureAirport: 'ARN',
          arrivalAirport: 'CPH',
          departureDateTime: trip.departureDateTime,
        },
      ],
    };
    assert.equal((await post(t.app, `${FLIGHT}/subscribe`, body, partner.auth)).status, 201);

    const page = await operator.get('/admin/limits?env=production');
    assert.equal(page.statusCode, 200);
    const row = new RegExp(
      `<tr><td>production</td><td>SK ARN→CPH</td><td>${trip.departureDateTime}</td><td>1</td><td>[^<]*4[\\s\\u202f\\u00a0,.]?500[.,]00[^<]*</td><td>[^<]*6[\\s\\u202f\\u00a0,.]?000[.,]00[^<]*</td><td><meter[^>]*value="0\\.7500"`,
    );
    assert.match(page.body, row);
    assert.match(page.body, /<td>production<\/td><td>SEK<\/td>/);
    // the top list's filter: by currency, airline and local departure date; a wrong one is said, not ignored
    const day = trip.departureDateTime.slice(0, 10);
    const filtered = await operator.get(`/admin/limits?env=production&currency=sek&airline=SK&from=${day}&to=${day}`);
    assert.equal(filtered.statusCode, 200);
    assert.match(filtered.body, row);
    assert.match(filtered.body, /<input id="f-currency" name="currency" value="SEK"/);
    assert.doesNotMatch((await operator.get('/admin/limits?env=production&currency=EUR')).body, row);
    const wrong = await operator.get('/admin/limits?after=not-a-page');
    assert.equal(wrong.statusCode, 422);
    assert.match(wrong.body, /after: is not the next page of this list/);
    // a crafted cursor of this list (its hash right) whose instant Date.parse reads and PostgreSQL cannot:
    // refused as every cursor is (platform/cursor.ts cursorInstant), 422, not a 500 from SQL
    const list = crypto.hash('sha256', JSON.stringify([null, null, null, null, null]), 'buffer');
    for (const at of ['-271821-04-20T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', 'Tue, 1 Jan 2030', '2030-01-01']) {
      const crafted = Buffer.from(
        JSON.stringify([
          '1',
          at,
          'production',
          'SK',
          'ARN',
          'CPH',
          '2030-01-01T10:00',
          list.subarray(0, 6).toString('base64url'),
        ]),
      ).toString('base64url');
      const far = await operator.get(`/admin/limits?after=${crafted}`);
      assert.equal(far.statusCode, 422, at);
      assert.match(far.body, /after: is not the next page of this list/, at);
    }
    assert.equal((await operator.get('/admin/limits?stops=past')).statusCode, 200);
    // the filter form sent as it comes, every field empty (environment: all)
    const blank = await operator.get('/admin/limits?env=&currency=&airline=&from=&to=');
    assert.equal(blank.statusCode, 200);
    assert.match(blank.body, row);

    const single = { ...trip, additionalPassengers: 0 };
    assert.equal((await post(t.app, `${FLIGHT}/getPrice`, single, partner.auth)).status, 200, '1 × 500 SEK still fits');
    const from = new Date(new Date(q.body.legs[0].departureAt).getTime() - 3_600_000).toISOString();
    const until = new Date(new Date(q.body.legs[0].departureAt).getTime() + 3_600_000).toISOString();
    const badStop = await operator.post('/admin/limits/stop-sales', {
      _csrf: csrf,
      environment: 'production',
      startsAt: from,
      endsAt: until,
      reason: 'x',
    });
    assert.equal(badStop.statusCode, 422);
    assert.match(badStop.body, /name an airline, an airport, a route or a flight/);
    const icaoTypo = await operator.post('/admin/limits/stop-sales', {
      _csrf: csrf,
      environment: 'production',
      airport: 'ESSAX',
      startsAt: from,
      endsAt: until,
      reason: 'x',
    });
    assert.equal(icaoTypo.statusCode, 422, 'a code too long is refused, not cut to ESSA');
    assert.match(icaoTypo.body, /airport: /);
    // a reason is read whole, its length checked before it is masked (the masks are slow on 16,000 letters)
    const longReason = await operator.post('/admin/limits/stop-sales', {
      _csrf: csrf,
      environment: 'production',
      airport: 'ARN',
      startsAt: from,
      endsAt: until,
      reason: 'a'.repeat(16_000),
    });
    assert.equal(longReason.statusCode, 422);
    assert.match(longReason.body, /must be at most 500 characters/);
    assert.doesNotMatch(longReason.body, /id="s-reason"[^>]*maxlength=/, 'nor cut by the browser: no maxlength');
    // 501 to 2,000 characters (read, masked, too long to keep): the same words as past 2,000, one refusal
    for (const reason of ['a'.repeat(501), 'a'.repeat(2000)]) {
      const tooLong = await operator.post('/admin/limits/stop-sales', {
        _csrf: csrf,
        environment: 'production',
        airport: 'ARN',
        startsAt: from,
        endsAt: until,
        reason,
      });
      assert.equal(tooLong.statusCode, 422, `${reason.length} characters`);
      assert.match(tooLong.body, /must be at most 500 characters/, `${reason.length} characters`);
      assert.doesNotMatch(tooLong.body, /1 to 500/, `${reason.length} characters`);
    }
    const stopForm = {
      _csrf: csrf,
      environment: 'production',
      airport: 'ARN',
      airline: 'SK',
      startsAt: from,
      endsAt: until,
      reason: 'Snow at <ARN>, ops +46 8 797 60 00 ops@airport.example',
    };
    const suspended = await operator.post('/admin/limits/stop-sales', stopForm);
    assert.equal(suspended.statusCode, 303);
    assert.equal(suspended.headers.location, '/admin/limits?done=1');
    // the form sent again: the stop-sale in force, said so
    const again = await operator.post('/admin/limits/stop-sales', stopForm);
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, '/admin/limits?done=already');
    assert.match(
      (await operator.get('/admin/limits?done=already')).body,
      /Already suspended: a stop-sale with this scope/,
    );
    const refused = await post(t.app, `${FLIGHT}/getPrice`, single, partner.auth);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'sales_suspended');
    // the reason is shown to partners: the contact it quoted is kept masked
    assert.match(refused.body.detail, /Snow at <ARN>, ops \[phone\] \[email\]/);

    const listed = await operator.get('/admin/limits');
    assert.match(listed.body, /airline SK, airport ARN/);
    assert.match(listed.body, /Snow at &lt;ARN&gt;/, 'escaped');
    const id = new RegExp(
      `/admin/limits/stop-sales/([0-9a-f-]{36})/resume" data-confirm="Resume sales for airline SK, airport ARN\\?"`,
    ).exec(listed.body)?.[1];
    assert.ok(id);
    assert.equal((await operator.post(`/admin/limits/stop-sales/${id}/resume`, { _csrf: csrf })).statusCode, 303);
    assert.equal((await post(t.app, `${FLIGHT}/getPrice`, single, partner.auth)).status, 200);
    assert.equal(
      (await operator.post(`/admin/limits/stop-sales/${crypto.randomUUID()}/resume`, { _csrf: csrf })).statusCode,
      404,
    );
  });

  test('a cap typed with a decimal comma, as a French operator does, is read in major units (parseMajorAmount)', async () => {
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const csrf = csrfOf((await operator.get('/admin/limits')).body)!;
    const cap = (amount: string) =>
      operator.post('/admin/limits/caps', { _csrf: csrf, environment: 'preproduction', currency: 'KWD', amount });
    assert.equal((await cap('1,5005')).statusCode, 422, 'KWD has 3 decimals');
    const ambiguous = await cap('1,500');
    assert.equal(ambiguous.statusCode, 422, '1.5 or 1500 KWD: refused, not guessed');
    assert.match(ambiguous.body, /amount: is ambiguous in KWD/);
    const tooLong = await cap('1'.padStart(31, '0'));
    assert.equal(tooLong.statusCode, 422, 'past 30 characters: refused, not cut');
    assert.match(tooLong.body, /amount: must be at most 30 characters/);
    // nor cut by the browser: a pasted '0'.repeat(27) + '1500' cut at 30 would be 150
    assert.doesNotMatch(tooLong.body, /id="c-amount"[^>]*maxlength=/, 'no maxlength on the amount');
    // read whole: cut to 20 characters, this was 00000000000000000015, 0.015 KWD saved for 1500 KWD
    assert.equal((await cap('0000000000000000001500000')).statusCode, 303);
    assert.equal(
      (await listCaps(t.db)).find((c) => c.environment === 'preproduction' && c.currency === 'KWD')?.amount,
      1_500_000_000,
    );
    assert.equal((await cap('1,50')).statusCode, 303);
    const typo = await operator.post('/admin/limits/caps', {
      _csrf: csrf,
      environment: 'preproduction',
      currency: 'KWDX',
      amount: '9',
    });
    assert.equal(typo.statusCode, 422, 'a code longer than 3 letters is refused, not cut to KWD');
    assert.match(typo.body, /currency: must be an ISO 4217 currency code/, 'the problem is the currency');
    assert.doesNotMatch(typo.body, /amount: /, 'not the amount, which is fine');
    const notIso = await operator.post('/admin/limits/caps', {
      _csrf: csrf,
      environment: 'preproduction',
      currency: 'ERU',
      amount: '9',
    });
    assert.equal(notIso.statusCode, 422, 'three letters that are no ISO 4217 code');
    assert.match(notIso.body, /currency: must be an ISO 4217 currency code/);
    // ISO codes no new agreement can be in (the agreement's rule, platform/money.ts currencyError), none in force in one
    for (const currency of ['HRK', 'XDR']) {
      const unusable = await operator.post('/admin/limits/caps', {
        _csrf: csrf,
        environment: 'preproduction',
        currency,
        amount: '9',
      });
      assert.equal(unusable.statusCode, 422, currency);
      assert.match(
        unusable.body,
        new RegExp(`currency: must be an ISO 4217 currency code such as EUR \\(${currency}: `),
      );
    }
    assert.ok(!(await listCaps(t.db)).some((c) => c.currency === 'HRK' || c.currency === 'XDR'), 'none saved');
    const saved = (await listCaps(t.db)).find((c) => c.environment === 'preproduction' && c.currency === 'KWD');
    assert.equal(saved?.amount, 1500);
  });

  test('a cap in a withdrawn currency existing agreements are still in can be set: their flights stay insured', async () => {
    const partner = await createTestPartner(t.db);
    // an agreement signed in BGN before the lev was withdrawn (no new one can be: currencyError)
    await t.db.updateTable('agreements').set({ currency: 'BGN' }).where('partner_id', '=', partner.id).execute();
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const csrf = csrfOf((await operator.get('/admin/limits')).body)!;
    const lowered = await operator.post('/admin/limits/caps', {
      _csrf: csrf,
      environment: 'production',
      currency: 'bgn',
      amount: '1000',
    });
    assert.equal(lowered.statusCode, 303, lowered.body);
    const cap = (await listCaps(t.db)).find((c) => c.environment === 'production' && c.currency === 'BGN');
    assert.deepEqual([cap?.amount, cap?.set], [100000, true]);
    // a withdrawn code no agreement is in stays refused
    const none = await operator.post('/admin/limits/caps', {
      _csrf: csrf,
      environment: 'production',
      currency: 'SLL',
      amount: '1000',
    });
    assert.equal(none.statusCode, 422);
    assert.match(none.body, /currency: must be an ISO 4217 currency code such as EUR \(SLL: /);
  });

  test('a page link continues its own list only; the filters carry over between the forms and the links', async () => {
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    // two flights of the filter below, so that its first page of one has a next
    for (let i = 0; i < 2; i++) {
      const trip = uniqueTrip();
      const key = {
        environment: 'production' as const,
        currency: 'SEK',
        airline: 'SK',
        departureAirport: 'ARN',
        arrivalAirport: 'OSL',
        departureLocal: trip.departureDateTime,
      };
      await addExposure(t.db, key, new Date(`${trip.departureDateTime}:00Z`), 10_000, 600_000);
    }
    const input = { env: 'production', currency: 'SEK', airline: 'SK' };
    const { next } = await highestExposures(t.db, {
      now: new Date(),
      environment: 'production',
      limit: 1,
      filter: readExposureFilter(input, t.app.parasol.keys.lookup),
      key: t.app.parasol.keys.lookup,
    });
    assert.ok(next);
    const query = (extra: Record<string, string>) => new URLSearchParams({ ...input, ...extra }).toString();
    const paged = await operator.get(`/admin/limits?${query({ after: next, stops: 'past' })}`);
    assert.equal(paged.statusCode, 200);
    const others: Record<string, string>[] = [
      { currency: 'EUR' },
      { env: '' },
      { airline: 'LH' },
      { from: '2030-01-01' },
    ];
    for (const other of others) {
      const refused = await operator.get(`/admin/limits?${query({ ...other, after: next })}`);
      assert.equal(refused.statusCode, 422, JSON.stringify(other));
      assert.match(refused.body, /after: is the next page of a list with other filters/);
    }
    // the exposure filter keeps the stop-sales shown; its page links keep both
    const exposureForm =
      /<form method="get" action="\/admin\/limits" class="row" id="exposure-filter">[\s\S]*?<\/form>/.exec(
        paged.body,
      )![0];
    assert.match(exposureForm, /<input type="hidden" name="stops" value="past">/);
    assert.doesNotMatch(exposureForm, /name="after"/, 'a new filter starts from the first page');
    assert.match(paged.body, /href="\/admin\/limits\?env=production&amp;currency=SEK&amp;airline=SK&amp;stops=past">/);
    // the stop-sales filter keeps the top list's filter and page
    const stopsForm =
      /<form method="get" action="\/admin\/limits" class="row" id="stop-sales-filter">[\s\S]*?<\/form>/.exec(
        paged.body,
      )![0];
    for (const [name, value] of Object.entries({ ...input, after: next }))
      assert.match(stopsForm, new RegExp(`<input type="hidden" name="${name}" value="${value}">`), name);
  });

  test('suspends until sales are resumed only when the box says so; an end and the box together are refused', async () => {
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const csrf = csrfOf((await operator.get('/admin/limits')).body)!;
    assert.match(
      (await operator.get('/admin/limits')).body,
      /<input type="checkbox" name="untilResumed" value="1"> until sales are resumed/,
    );
    // beyond what can be quoted (365 days): no other test's flight is covered
    const startsAt = new Date(Date.now() + 400 * 86_400_000).toISOString();
    const form = { _csrf: csrf, environment: 'production', airport: 'GOT', startsAt, reason: 'embargo on GOT' };
    const forgotten = await operator.post('/admin/limits/stop-sales', form);
    assert.equal(forgotten.statusCode, 422, 'an end left empty is not read as no end');
    assert.match(forgotten.body, /endsAt: is required .*or say until sales are resumed/);
    const both = await operator.post('/admin/limits/stop-sales', {
      ...form,
      endsAt: new Date(Date.now() + 401 * 86_400_000).toISOString(),
      untilResumed: '1',
    });
    assert.equal(both.statusCode, 422);
    assert.match(both.body, /untilResumed: an end or until sales are resumed, not both/);
    const open = await operator.post('/admin/limits/stop-sales', { ...form, untilResumed: '1' });
    assert.equal(open.statusCode, 303, open.body);
    const listed = (await operator.get('/admin/limits')).body;
    const row = /<tr><td>production<\/td><td>airport GOT<\/td>.*?<\/tr>/.exec(listed)?.[0];
    assert.ok(row);
    assert.match(row, /<td>until resumed<\/td><td>covering later departures<\/td><td>embargo on GOT<\/td>/);
    const id = /stop-sales\/([0-9a-f-]{36})\/resume/.exec(row)![1];
    assert.equal((await operator.post(`/admin/limits/stop-sales/${id}/resume`, { _csrf: csrf })).statusCode, 303);
  });

  test('partner users never reach it', async () => {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('limits')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: 'console test password' });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, 'console test password')).statusCode, 303);
    assert.equal((await browser.get('/admin/limits')).statusCode, 403);
  });
});
