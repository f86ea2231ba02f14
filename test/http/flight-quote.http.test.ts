import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fastJsonStringify from 'fast-json-stringify';
import { DateTime } from 'luxon';
import { QuoteResponse } from '../../src/flight/schemas.ts';
import { createApiKey } from '../../src/partners/api-keys.ts';
import { revokeApiKey } from '../../src/partners/api-keys.ts';
import {
  buildTestApp,
  createTestPartner,
  daysAhead,
  FLIGHT,
  post,
  trip,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

describe('Flight Delay API — quotes', () => {
  let t: TestApp;
  let partner: TestPartner;
  before(async () => {
    t = await buildTestApp();
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  it('quotes a return trip for two passengers with the partner configuration', async () => {
    const res = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      trip(30, { returnTrip: true, additionalPassengers: 1 }),
      partner.auth,
    );
    assert.equal(res.status, 200);
    const q = res.body;
    assert.match(q.quoteReference, /^q3\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{16}$/);
    assert.equal(q.formula, 'delay_and_cancellation');
    assert.equal(q.passengers, 2);
    assert.equal(q.legs.length, 2);
    assert.equal(q.legs[1].departureAirport, 'JFK');
    assert.equal(q.premium.total.amount, q.premium.net.amount + q.premium.tax.amount);
    assert.ok(q.premium.commission.amount > 0 && q.premium.commission.amount < q.premium.net.amount);
    for (const part of ['total', 'net', 'tax', 'commission']) assert.equal(q.premium[part].currency, 'EUR');
    assert.deepEqual(q.compensation, {
      delay: [
        { minDelayMinutes: 120, amount: { amount: 5000, currency: 'EUR' } },
        { minDelayMinutes: 180, amount: { amount: 10000, currency: 'EUR' } },
      ],
      cancellation: { amount: 15000, currency: 'EUR' },
    });
    assert.equal(q.configurationVersion, 1);
    const expires = new Date(q.expiresAt).getTime();
    assert.ok(expires > Date.now() && expires <= Date.now() + 24 * 3600_000 + 1000, 'expires within 24 h');
  });

  it('answers every field of the quote, the same bytes for each quote of a trip but its reference', async () => {
    // the body is served from the trip's cached serialisation (quote-body.ts): it must stay the
    // schema's full answer, and the quotes after the first must differ from it only by their id
    const request = trip(31, { returnTrip: true, additionalPassengers: 1 });
    const inject = () =>
      t.app.inject({
        method: 'POST',
        url: `${FLIGHT}/getPrice`,
        payload: request,
        headers: { 'content-type': 'application/json', ...partner.auth },
      });
    // the route schema's own serializer (fast-json-stringify, as Fastify compiles it): a cached body
    // must be exactly what it writes for the data the body holds
    const serialize = fastJsonStringify(QuoteResponse);
    const [first, second, third] = [await inject(), await inject(), await inject()];
    for (const [index, res] of [first, second, third].entries()) {
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      const body = JSON.parse(res.body) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), Object.keys(QuoteResponse.properties));
      assert.equal(serialize(body), res.body, `answer ${index + 1}: the schema serializer's output for its own data`);
      for (const [key, value] of Object.entries(body)) assert.notEqual(value, undefined, key);
    }
    const parsed = [first, second, third].map(
      (r) => JSON.parse(r.body) as { quoteReference: string; expiresAt: string },
    );
    assert.notEqual(parsed[0]!.quoteReference, parsed[1]!.quoteReference);
    const withoutReference = (text: string, q: { quoteReference: string; expiresAt: string }) =>
      text.replace(q.quoteReference, '').replace(q.expiresAt, '');
    assert.equal(withoutReference(second.body, parsed[1]!), withoutReference(first.body, parsed[0]!));
    assert.equal(withoutReference(third.body, parsed[2]!), withoutReference(first.body, parsed[0]!));
  });

  it('reads departure times as local time at the departure airport', async () => {
    const res = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...trip(), departureDateTime: '2027-07-01T10:30' },
      partner.auth,
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.legs[0].departureAt, '2027-07-01T08:30:00.000Z'); // Paris is UTC+2 in summer
    const withOffset = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...trip(), departureDateTime: '2027-07-01T08:30Z' },
      partner.auth,
    );
    assert.equal(withOffset.body.legs[0].departureDateTime, '2027-07-01T10:30');
  });

  /**
   * A return trip's legs are in order when the return departs at least an hour after the outbound in
   * UTC, each local time read in its own airport's zone, whatever the two wall clocks say.
   */
  it('orders a return from another time zone by instants: east-bound and west-bound, to the minute', async () => {
    const zones: Record<string, string> = { CDG: 'Europe/Paris', JFK: 'America/New_York' };
    const quote = (from: string, to: string, out: string, back: string) =>
      post(
        t.app,
        `${FLIGHT}/getPrice`,
        {
          departureAirport: from,
          arrivalAirport: to,
          airline: 'AF',
          departureDateTime: out,
          returnDepartureDateTime: back,
        },
        partner.auth,
      );
    /** The local time at `airport` that is `minutes` after `out` (local at `from`). */
    const later = (out: string, from: string, airport: string, minutes: number) =>
      DateTime.fromISO(out, { zone: zones[from] })
        .plus({ minutes })
        .setZone(zones[airport]!)
        .toFormat("yyyy-MM-dd'T'HH:mm");
    const refused = (res: Awaited<ReturnType<typeof quote>>) => {
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.code, 'validation_failed');
      assert.deepEqual(
        res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['/returnDepartureDateTime', 'out_of_range']],
      );
    };
    for (const [from, to] of [
      ['JFK', 'CDG'], // east-bound return: its clock reads five or six hours ahead of the outbound's
      ['CDG', 'JFK'], // west-bound return: its clock reads five or six hours behind
    ] as const) {
      const out = daysAhead(40, '10:00');
      const exactly = await quote(from, to, out, later(out, from, to, 60));
      assert.equal(exactly.status, 200, `${from}: ${JSON.stringify(exactly.body)}`);
      const gap =
        new Date(exactly.body.legs[1].departureAt).getTime() - new Date(exactly.body.legs[0].departureAt).getTime();
      assert.equal(gap, 60 * 60_000);
      refused(await quote(from, to, out, later(out, from, to, 59)));
    }
    // east-bound, the return's clock two hours after the outbound's: four hours before it in UTC
    const out = daysAhead(40, '10:00');
    refused(await quote('JFK', 'CDG', out, `${out.slice(0, 10)}T12:00`));
    // west-bound, the return's clock four hours before the outbound's: one or two hours after it in UTC
    // (Paris and New York are five or six hours apart as their clocks change) — insured
    const west = await quote('CDG', 'JFK', out, `${out.slice(0, 10)}T06:00`);
    assert.equal(west.status, 200, JSON.stringify(west.body));
  });

  it('never lets a quote outlive departure minus the safety margin', async () => {
    const soon = new Date(Date.now() + 5 * 3600_000);
    const local = soon.toLocaleString('sv-SE', { timeZone: 'Europe/Paris' }).slice(0, 16).replace(' ', 'T');
    const res = await post(t.app, `${FLIGHT}/getPrice`, { ...trip(), departureDateTime: local }, partner.auth);
    assert.equal(res.status, 200);
    const expiresIn = new Date(res.body.expiresAt).getTime() - Date.now();
    assert.ok(expiresIn < 3.1 * 3600_000, `expires ${expiresIn} ms from now`);
  });

  it('answers 422 naming the field for unknown airports and airlines', async () => {
    const airport = await post(t.app, `${FLIGHT}/getPrice`, { ...trip(), arrivalAirport: 'QQQ' }, partner.auth);
    assert.equal(airport.status, 422);
    assert.equal(airport.body.code, 'unknown_airport');
    assert.deepEqual(
      airport.body.errors.map((e: { field: string }) => e.field),
      ['/arrivalAirport'],
    );
    const airline = await post(t.app, `${FLIGHT}/getPrice`, { ...trip(), airline: '9Z' }, partner.auth);
    assert.equal(airline.status, 422);
    assert.equal(airline.body.code, 'unknown_airline');
    assert.equal(airline.body.errors[0].field, '/airline');
  });

  it('refuses past, too-near and too-far departures, and local times that do not exist', async () => {
    const past = await post(t.app, `${FLIGHT}/getPrice`, { ...trip(), departureDateTime: daysAhead(-1) }, partner.auth);
    assert.equal(past.status, 422);
    assert.equal(past.body.code, 'departure_too_soon');
    const far = await post(t.app, `${FLIGHT}/getPrice`, { ...trip(), departureDateTime: daysAhead(400) }, partner.auth);
    assert.equal(far.body.code, 'departure_too_far');
    const gap = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...trip(), departureDateTime: '2027-03-28T02:30' },
      partner.auth,
    );
    assert.equal(gap.status, 422);
    assert.equal(gap.body.code, 'invalid_departure_time');
    const returnBefore = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...trip(30), returnDepartureDateTime: daysAhead(29) },
      partner.auth,
    );
    assert.equal(returnBefore.status, 422);
    assert.equal(returnBefore.body.errors[0].field, '/returnDepartureDateTime');
  });

  it('validates the body with RFC 9457 problems listing every field', async () => {
    const res = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { departureAirport: 'PARIS', additionalPassengers: 12, extra: true },
      partner.auth,
    );
    assert.equal(res.status, 422);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.equal(res.body.code, 'validation_failed');
    assert.equal(res.body.type, 'urn:parasol:problem:validation_failed');
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    for (const f of [
      '/additionalPassengers',
      '/airline',
      '/arrivalAirport',
      '/departureAirport',
      '/departureDateTime',
      '/extra',
    ])
      assert.ok(fields.includes(f), `${f} in ${fields}`);
    const malformed = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/getPrice`,
      payload: '{"departureAirport":',
      headers: { ...partner.auth, 'content-type': 'application/json' },
    });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().code, 'malformed_request');
  });

  it('simulates a premium with caller terms, by the same pricing as a quote', async () => {
    const base = trip(30);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, base, partner.auth);
    const sim = await post(
      t.app,
      `${FLIGHT}/getPrice/simulate`,
      {
        ...base,
        formula: 'delay_and_cancellation',
        compensation: {
          delay: [
            { minDelayMinutes: 120, amount: { amount: 5000, currency: 'EUR' } },
            { minDelayMinutes: 180, amount: { amount: 10000, currency: 'EUR' } },
          ],
          cancellation: { amount: 15000, currency: 'EUR' },
        },
        commissionRate: 0.2,
      },
      partner.auth,
    );
    assert.equal(sim.status, 200);
    assert.equal(sim.body.quoteReference, undefined, 'a simulation cannot be subscribed');
    assert.deepEqual(sim.body.premium, quote.body.premium, 'same terms, same premium');
    const richer = await post(
      t.app,
      `${FLIGHT}/getPrice/simulate`,
      {
        ...base,
        formula: 'cancellation',
        compensation: { cancellation: { amount: 30000, currency: 'EUR' } },
        commissionRate: 0.25,
      },
      partner.auth,
    );
    assert.equal(richer.status, 200);
    assert.deepEqual(richer.body.compensation.delay, []);
  });

  it('refuses simulations outside the agreement', async () => {
    const res = await post(
      t.app,
      `${FLIGHT}/getPrice/simulate`,
      {
        ...trip(),
        formula: 'delay',
        compensation: { delay: [{ minDelayMinutes: 120, amount: { amount: 999_999, currency: 'EUR' } }] },
        commissionRate: 0.5,
      },
      partner.auth,
    );
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'configuration_out_of_bounds');
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    assert.ok(fields.includes('/commissionRate'));
    assert.ok(fields.includes('/compensation/delay/0/amount'));
    const restricted = await createTestPartner(t.db, {
      agreement: { allowedFormulas: ['delay'] },
      configuration: { formula: 'delay' },
    });
    const formula = await post(
      t.app,
      `${FLIGHT}/getPrice/simulate`,
      {
        ...trip(),
        formula: 'cancellation',
        compensation: { cancellation: { amount: 10000, currency: 'EUR' } },
        commissionRate: 0.1,
      },
      restricted.auth,
    );
    assert.equal(formula.status, 422);
    assert.equal(formula.body.code, 'formula_not_allowed');
    const quote = await post(t.app, `${FLIGHT}/getPrice`, trip(), restricted.auth);
    assert.equal(quote.body.formula, 'delay', 'only allowed formulas are offered');
    assert.equal(quote.body.compensation.cancellation, null);
  });

  it('answers 401 without a valid key, 403 when not subscribed or not signed', async () => {
    const none = await post(t.app, `${FLIGHT}/getPrice`, trip());
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'unauthenticated');
    // RFC 6750 §3.1: no credential, no error in the challenge
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="parasol"');
    const basic = await post(t.app, `${FLIGHT}/getPrice`, trip(), { authorization: 'Basic dXNlcjpwYXNz' });
    assert.equal(basic.status, 401);
    assert.equal(basic.headers['www-authenticate'], 'Bearer realm="parasol"');
    // the scheme without a key is no credential (§3.1): no error either
    for (const authorization of ['Bearer', 'Bearer   ', 'bearer']) {
      const empty = await post(t.app, `${FLIGHT}/getPrice`, trip(), { authorization });
      assert.equal(empty.status, 401, authorization);
      assert.equal(empty.headers['www-authenticate'], 'Bearer realm="parasol"', authorization);
    }
    const wrong = await post(t.app, `${FLIGHT}/getPrice`, trip(), {
      authorization: 'Bearer psl_sbx_notakeynotakeynotakey',
    });
    assert.equal(wrong.status, 401);
    assert.equal(
      wrong.headers['www-authenticate'],
      'Bearer realm="parasol", error="invalid_token", error_description="This API key is unknown or revoked."',
    );
    const malformed = await post(t.app, `${FLIGHT}/getPrice`, trip(), { authorization: 'Bearer short' });
    assert.equal(malformed.status, 401);
    assert.match(
      String(malformed.headers['www-authenticate']),
      /^Bearer realm="parasol", error="invalid_token", error_description="[^"\\]+"$/,
    );

    const demoOnly = await createTestPartner(t.db, { apis: ['demo'] });
    const unsubscribed = await post(t.app, `${FLIGHT}/getPrice`, trip(), demoOnly.auth);
    assert.equal(unsubscribed.status, 403);
    assert.equal(unsubscribed.body.code, 'api_not_subscribed');
    assert.equal(
      unsubscribed.headers['www-authenticate'],
      'Bearer realm="parasol", error="insufficient_scope", error_description="Your organisation is not subscribed to the flight-delay API.", scope="flight-delay"',
    );

    const revoked = await createTestPartner(t.db);
    const keyId = (
      await t.db.selectFrom('api_keys').select('id').where('partner_id', '=', revoked.id).executeTakeFirstOrThrow()
    ).id;
    await revokeApiKey(t.db, 'operator:test', revoked.id, keyId);
    const refused = await post(t.app, `${FLIGHT}/getPrice`, trip(), revoked.auth);
    assert.equal(refused.status, 401);
    assert.match(String(refused.headers['www-authenticate']), /error="invalid_token"/);
  });

  it('lets sandbox keys quote on a draft agreement, but not preproduction or production', async () => {
    const draft = await createTestPartner(t.db, { signed: false });
    assert.equal((await post(t.app, `${FLIGHT}/getPrice`, trip(), draft.auth)).status, 200);
    await assert.rejects(
      createApiKey(t.db, 'operator:test', { partnerId: draft.id, environment: 'production' }),
      /signed agreement/,
    );
    const signed = await createTestPartner(t.db, { environment: 'production' });
    assert.equal((await post(t.app, `${FLIGHT}/getPrice`, trip(), signed.auth)).status, 200);
    // a production key whose agreement is not signed (e.g. edited in the database) is refused
    await t.db
      .updateTable('agreements')
      .set({ status: 'draft', signed_at: null })
      .where('partner_id', '=', signed.id)
      .execute();
    const refused = await post(t.app, `${FLIGHT}/getPrice`, trip(), signed.auth);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'agreement_not_signed');
    // RFC 6750 §3: a challenge, the realm only (not a matter of the key's scope: no other key of the partner would pass)
    assert.equal(refused.headers['www-authenticate'], 'Bearer realm="parasol"');
  });

  it('answers 409 partner_not_configured when the partner has no configuration', async () => {
    const bare = await createTestPartner(t.db, { configuration: null });
    const res = await post(t.app, `${FLIGHT}/getPrice`, trip(), bare.auth);
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'partner_not_configured');
  });
});
