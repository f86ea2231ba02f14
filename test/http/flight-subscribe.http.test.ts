import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decrypt } from '../../src/platform/crypto.ts';
import { sealJson } from '../../src/platform/signed-token.ts';
import { setConfiguration } from '../../src/partners/configuration.ts';
import {
  buildTestApp,
  consent,
  CUSTOMER,
  createTestPartner,
  DEFAULT_CONFIGURATION,
  FLIGHT,
  post,
  subscription,
  trip,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

describe('Flight Delay API — subscription', () => {
  let t: TestApp;
  let partner: TestPartner;
  let clock = new Date();
  before(async () => {
    t = await buildTestApp({ now: () => clock });
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  async function quote(body = trip(), who = partner, at = new Date()) {
    clock = at;
    const res = await post(t.app, `${FLIGHT}/getPrice`, body, who.auth);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  }

  it('creates an active contract binding exactly the quoted premium, coverage and configuration version', async () => {
    const body = trip(20, { returnTrip: true, additionalPassengers: 2 });
    const q = await quote(body);
    const res = await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), partner.auth);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const c = res.body;
    assert.match(c.contractNumber, /^FD-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    assert.equal(c.status, 'active');
    assert.deepEqual(c.premium, q.premium);
    assert.deepEqual(c.compensation, q.compensation);
    assert.equal(c.passengers, 3);
    assert.equal(c.configurationVersion, q.configurationVersion);
    assert.deepEqual(
      c.flights.map((f: { flightNumber: string }) => f.flightNumber),
      ['AF006', 'AF007'],
    );

    const row = await t.db
      .selectFrom('contracts')
      .selectAll()
      .where('contract_number', '=', c.contractNumber)
      .executeTakeFirstOrThrow();
    assert.equal(row.environment, 'sandbox');
    assert.equal(row.premium_total, q.premium.total.amount);
    assert.notEqual(row.customer_phone_enc, CUSTOMER.phone, 'phone encrypted at rest');
    assert.equal(decrypt(t.app.parasol.keys.encryption, row.customer_phone_enc), CUSTOMER.phone);
    assert.equal(decrypt(t.app.parasol.keys.encryption, row.customer_email_enc), CUSTOMER.email);
    const legs = await t.db
      .selectFrom('contract_legs')
      .selectAll()
      .where('contract_id', '=', row.id)
      .orderBy('leg_index')
      .execute();
    assert.equal(legs.length, 2);
    // each leg's share of the premium per passenger is its own quoted net, and the shares add back up
    assert.deepEqual(
      legs.map((l) => Number(l.share_net)),
      q.breakdown.map((b: { premium: { amount: number } }) => b.premium.amount),
    );
    for (const column of ['net', 'tax', 'commission'] as const) {
      const sum = legs.reduce((s, l) => s + Number(l[`share_${column}`]) * 3, 0);
      assert.equal(sum, Number(row[`premium_${column}`]), `shares of ${column} × passengers = the premium's`);
    }
    const audit = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('entity', '=', 'contract')
      .where('entity_id', '=', c.contractNumber)
      .execute();
    assert.equal(audit.length, 1);
  });

  it('keeps the quoted terms when the configuration changes after the quote', async (ctx) => {
    const body = trip(21);
    const q = await quote(body);
    ctx.after(() => setConfiguration(t.db, 'operator:test', partner.id, DEFAULT_CONFIGURATION)); // the suite's partner, for the next tests
    await setConfiguration(t.db, 'operator:test', partner.id, {
      ...DEFAULT_CONFIGURATION,
      cancellationAmount: 40_000,
      commissionRate: '0.3',
    });
    const fresh = await quote(body);
    assert.notDeepEqual(fresh.premium, q.premium, 'a new version prices differently');
    const res = await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), partner.auth);
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.premium, q.premium);
    assert.equal(res.body.compensation.cancellation.amount, 15_000);
    assert.equal(res.body.configurationVersion, q.configurationVersion);
    assert.equal(fresh.configurationVersion, q.configurationVersion + 1);
  });

  it('subscribes a quote once: 409 quote_already_used after', async () => {
    const body = trip(22);
    const q = await quote(body);
    assert.equal(
      (await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), partner.auth)).status,
      201,
    );
    const again = await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), partner.auth);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'quote_already_used');
  });

  it('when a quote has expired, subscribe answers 422 quote_expired', async (ctx) => {
    const body = trip(23);
    const q = await quote(body);
    ctx.after(() => (clock = new Date()));
    clock = new Date(new Date(q.expiresAt).getTime() + 1000);
    const res = await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), partner.auth);
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'quote_expired');
  });

  it('subscribes until 2 h before the first departure, not after, whatever the quote’s 24 h', async (ctx) => {
    ctx.after(() => (clock = new Date()));
    const body = trip(26);
    const departure = new Date((await quote(body)).legs[0].departureAt).getTime();
    // quoted 4 h before departure: the quote lives until 2 h before it, not 24 h
    const late = await quote(body, partner, new Date(departure - 4 * 3600_000));
    assert.equal(new Date(late.expiresAt).getTime(), departure - 2 * 3600_000);
    const accepted = { consent: consent(1, new Date(departure - 4 * 3600_000)) };
    clock = new Date(departure - 2 * 3600_000 - 1000);
    const inTime = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(late.quoteReference, body, accepted),
      partner.auth,
    );
    assert.equal(inTime.status, 201, JSON.stringify(inTime.body));
    const tooLate = await quote(body, partner, new Date(departure - 4 * 3600_000));
    clock = new Date(departure - 2 * 3600_000);
    const res = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(tooLate.quoteReference, body, accepted),
      partner.auth,
    );
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'quote_expired');
  });

  it('refuses altered, foreign and other-environment quote references', async () => {
    const body = trip(24);
    const q = await quote(body);
    const [prefix, payload, signature, id] = q.quoteReference.split('.');
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    decoded[6][3] = 1; // a cheaper total
    const forged = `${prefix}.${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${signature}.${id}`;
    const res = await post(t.app, `${FLIGHT}/subscribe`, subscription(forged, body), partner.auth);
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'quote_invalid');
    const other = await createTestPartner(t.db);
    const foreign = await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), other.auth);
    assert.equal(foreign.status, 422);
    assert.equal(foreign.body.code, 'quote_invalid');
    const production = await createTestPartner(t.db, { environment: 'production' });
    const pq = await quote(body, production);
    const sandboxKey = await createTestPartner(t.db);
    assert.equal(
      (await post(t.app, `${FLIGHT}/subscribe`, subscription(pq.quoteReference, body), sandboxKey.auth)).body.code,
      'quote_invalid',
    );
  });

  it('quotes of a trip within a minute share their signed terms; each has its own id, and subscribes once', async () => {
    const body = trip(27);
    const now = new Date(); // both quotes in the same instant: the same minute whatever the machine's speed
    const [a, b] = [await quote(body, partner, now), await quote(body, partner, now)];
    const [prefixA, termsA, tagA, idA] = a.quoteReference.split('.');
    const [, termsB, tagB, idB] = b.quoteReference.split('.');
    assert.equal(prefixA, 'q3');
    assert.equal(a.expiresAt, b.expiresAt);
    assert.equal(termsA, termsB, 'same trip, same minute: the same signed terms');
    assert.equal(tagA, tagB, 'same minute, same signature');
    assert.notEqual(idA, idB, 'each quote has its own id');
    assert.match(idA!, /^[A-Za-z0-9_-]{16}$/);

    assert.equal(
      (await post(t.app, `${FLIGHT}/subscribe`, subscription(a.quoteReference, body), partner.auth)).status,
      201,
    );
    assert.equal(
      (await post(t.app, `${FLIGHT}/subscribe`, subscription(a.quoteReference, body), partner.auth)).body.code,
      'quote_already_used',
    );
    // the id is not signed: another id is another quote on the same signed terms — what /getPrice gives anyway
    assert.equal(
      (await post(t.app, `${FLIGHT}/subscribe`, subscription(b.quoteReference, body), partner.auth)).status,
      201,
    );
    // a malformed id, or a later expiry, is refused
    const badId = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(`${prefixA}.${termsA}.${tagA}.x`, body),
      partner.auth,
    );
    assert.equal(badId.body.code, 'quote_invalid');
    const decoded = JSON.parse(Buffer.from(termsA!, 'base64url').toString());
    decoded[decoded.length - 2] += 86_400; // issued a day later
    const later = `${prefixA}.${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${tagA}.${idA}`;
    assert.equal(
      (await post(t.app, `${FLIGHT}/subscribe`, subscription(later, body), partner.auth)).body.code,
      'quote_invalid',
    );
  });

  it('still takes q3 references signed before the legs’ nets were (their shares priced again)', async () => {
    const body = trip(29, { returnTrip: true });
    const q = await quote(body);
    const [, terms, , id] = q.quoteReference.split('.');
    const signed = JSON.parse(Buffer.from(terms!, 'base64url').toString());
    assert.equal(signed.length, 14);
    const nets = signed.splice(11, 1)[0];
    signed.splice(10, 1); // nor the agreement version: the format of main before 2026-11-25
    assert.equal(nets.length, 2, 'one net per leg');
    const current = await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), partner.auth);
    assert.equal(current.status, 201, JSON.stringify(current.body));
    const shares = await t.db
      .selectFrom('contract_legs')
      .innerJoin('contracts', 'contracts.id', 'contract_legs.contract_id')
      .select('contract_legs.share_net')
      .where('contracts.contract_number', '=', current.body.contractNumber)
      .orderBy('contract_legs.leg_index')
      .execute();
    assert.deepEqual(
      shares.map((l) => Number(l.share_net)),
      nets,
      'each leg’s share is its net as the quote priced it',
    );
    const before = `${sealJson(t.app.parasol.keys.quoteSigning, 'q3', JSON.stringify(signed))}.${id}`;
    const res = await post(t.app, `${FLIGHT}/subscribe`, subscription(before, body), partner.auth);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const legs = await t.db
      .selectFrom('contract_legs')
      .innerJoin('contracts', 'contracts.id', 'contract_legs.contract_id')
      .select('contract_legs.share_net')
      .where('contracts.contract_number', '=', res.body.contractNumber)
      .execute();
    assert.equal(legs.length, 2);
    assert.equal(
      legs.reduce((sum, l) => sum + Number(l.share_net), 0),
      q.premium.net.amount,
      'the shares add up to the net premium (one passenger)',
    );
  });

  it('still takes q1 references (id and times signed), issued before the q2 format', async () => {
    const body = trip(28);
    const q = await quote(body);
    const [, terms] = q.quoteReference.split('.');
    const signed = JSON.parse(Buffer.from(terms!, 'base64url').toString());
    const [partnerId, environment, configurationId, formula, passengers, currency, premium, legs] = signed;
    const [iat, exp] = signed.slice(-2); // the q3 terms end with the issue and expiry
    const legacy = sealJson(
      t.app.parasol.keys.quoteSigning,
      'q1',
      JSON.stringify([
        `legacy${Date.now().toString(36)}${process.pid}`,
        iat,
        exp,
        partnerId,
        environment,
        configurationId,
        formula,
        passengers,
        currency,
        premium,
        legs,
      ]),
    );
    const res = await post(t.app, `${FLIGHT}/subscribe`, subscription(legacy, body), partner.auth);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(
      (await post(t.app, `${FLIGHT}/subscribe`, subscription(legacy, body), partner.auth)).body.code,
      'quote_already_used',
    );
  });

  it('requires the flights of the quote, flown by the quoted airline', async () => {
    const body = trip(25, { returnTrip: true });
    const q = await quote(body);
    const oneWay = subscription(q.quoteReference, body);
    const missingReturn = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      { ...oneWay, flights: oneWay.flights.slice(0, 1) },
      partner.auth,
    );
    assert.equal(missingReturn.status, 422);
    assert.equal(missingReturn.body.code, 'flights_mismatch');
    const flights = structuredClone(oneWay.flights);
    flights[0]!.flightNumber = 'BA117';
    flights[1]!.departureDateTime = body.departureDateTime;
    const wrong = await post(t.app, `${FLIGHT}/subscribe`, { ...oneWay, flights }, partner.auth);
    assert.equal(wrong.status, 422);
    assert.deepEqual(wrong.body.errors.map((e: { field: string }) => e.field).sort(), [
      '/flights/0/flightNumber',
      '/flights/1/departureDateTime',
    ]);
  });

  it('validates the customer: names, email, E.164 phone, language', async () => {
    const body = trip(26);
    const q = await quote(body);
    const res = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(q.quoteReference, body, {
        customer: { firstName: '', lastName: 'M', email: 'not-an-email', phone: '0612345678', language: 'sv' },
      }),
      partner.auth,
    );
    assert.equal(res.status, 422);
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['/customer/email', '/customer/firstName', '/customer/language', '/customer/phone']);
    const invalidNumber = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(q.quoteReference, body, { customer: { ...CUSTOMER, phone: '+33012345678' } }),
      partner.auth,
    );
    assert.equal(invalidNumber.status, 422);
    assert.equal(invalidNumber.body.errors[0].field, '/customer/phone');
    // a landline (Paris, London, Berlin) cannot get the claim SMS: refused by its own code
    for (const landline of ['+33123456789', '+442071838750', '+4930123456']) {
      const fixed = await post(
        t.app,
        `${FLIGHT}/subscribe`,
        subscription(q.quoteReference, body, { customer: { ...CUSTOMER, phone: landline } }),
        partner.auth,
      );
      assert.equal(fixed.status, 422, landline);
      assert.equal(fixed.body.code, 'phone_not_mobile', landline);
      assert.deepEqual(
        fixed.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['/customer/phone', 'not_allowed']],
      );
    }
    // with another error too: validation_failed, the landline among its errors
    const both = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(q.quoteReference, body, { customer: { ...CUSTOMER, firstName: '123', phone: '+33123456789' } }),
      partner.auth,
    );
    assert.equal(both.body.code, 'validation_failed');
    assert.deepEqual(both.body.errors.map((e: { field: string }) => e.field).sort(), [
      '/customer/firstName',
      '/customer/phone',
    ]);
    const booking = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(q.quoteReference, body, { booking: { reference: 'A B' } }),
      partner.auth,
    );
    assert.equal(booking.body.errors[0].field, '/booking/reference');
  });

  it('checks the customer’s names by the person-name rule of the policies: blank, hidden characters, no letter', async () => {
    const body = trip(26);
    const q = await quote(body);
    const named = (firstName: string, lastName: string) =>
      post(
        t.app,
        `${FLIGHT}/subscribe`,
        subscription(q.quoteReference, body, { customer: { ...CUSTOMER, firstName, lastName } }),
        partner.auth,
      );
    const errorsOf = (res: { body: { errors: { field: string; code: string }[] } }) =>
      res.body.errors.map((e) => `${e.field} ${e.code}`).sort();
    const hidden = await named('Ca\u202emille', 'Martin\ufe0f');
    assert.equal(hidden.status, 422, JSON.stringify(hidden.body));
    assert.equal(hidden.body.code, 'validation_failed');
    assert.deepEqual(errorsOf(hidden), ['/customer/firstName invalid_format', '/customer/lastName invalid_format']);
    const noLetter = await named('  ', '-');
    assert.equal(noLetter.status, 422, JSON.stringify(noLetter.body));
    assert.deepEqual(errorsOf(noLetter), ['/customer/firstName required', '/customer/lastName invalid']);
    // a blank name answered `invalid` before the shared rule: the change is said where partners read the field
    const spec = JSON.stringify((await t.app.inject({ url: `${FLIGHT}/openapi.json` })).json());
    assert.match(
      spec,
      /a name of spaces only was answered `invalid` \(\\"must not be blank\\"\); it is now `required`/,
    );
    // the joiners of Persian and Indic names are taken, and the names kept trimmed
    const fine = await named('مهر\u200cآوا ', 'क्\u200dष');
    assert.equal(fine.status, 201, JSON.stringify(fine.body));
    const row = await t.db
      .selectFrom('contracts')
      .selectAll()
      .where('contract_number', '=', fine.body.contractNumber)
      .executeTakeFirstOrThrow();
    const key = t.app.parasol.keys.encryption;
    assert.deepEqual(
      [decrypt(key, row.customer_first_name_enc!), decrypt(key, row.customer_last_name_enc!)],
      ['مهر\u200cآوا', 'क्\u200dष'],
    );
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for a retry, with Idempotent-Replayed', async () => {
      const body = trip(27);
      const q = await quote(body);
      const headers = { ...partner.auth, 'idempotency-key': `sub-${Date.now()}` };
      const first = await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), headers);
      const retry = await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), headers);
      assert.equal(first.status, 201);
      assert.equal(retry.status, 201);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.deepEqual(retry.body, first.body);
      assert.equal(first.headers.location, `${FLIGHT}/contracts/${first.body.contractNumber}`, 'where it is read');
      assert.equal(retry.headers.location, first.headers.location, 'a replay says where too');
      const read = await t.app.inject({ method: 'GET', url: first.headers.location as string, headers: partner.auth });
      assert.equal(read.json().contractNumber, first.body.contractNumber);
    });

    it('answers 422 for the same key with a different body', async () => {
      const body = trip(28);
      const q = await quote(body);
      const headers = { ...partner.auth, 'idempotency-key': `diff-${Date.now()}` };
      assert.equal(
        (await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), headers)).status,
        201,
      );
      const other = await post(
        t.app,
        `${FLIGHT}/subscribe`,
        subscription(q.quoteReference, body, { booking: { reference: 'XYZ999' } }),
        headers,
      );
      assert.equal(other.status, 422);
      assert.equal(other.body.code, 'idempotency_key_reused');
    });

    it('scopes keys per partner', async () => {
      const other = await createTestPartner(t.db);
      const key = `shared-${Date.now()}`;
      const body = trip(29);
      const mine = await quote(body);
      const theirs = await quote(body, other);
      assert.equal(
        (
          await post(t.app, `${FLIGHT}/subscribe`, subscription(mine.quoteReference, body), {
            ...partner.auth,
            'idempotency-key': key,
          })
        ).status,
        201,
      );
      const res = await post(t.app, `${FLIGHT}/subscribe`, subscription(theirs.quoteReference, body), {
        ...other.auth,
        'idempotency-key': key,
      });
      assert.equal(res.status, 201);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    });

    it('lets a corrected request run again after an error', async () => {
      const body = trip(30);
      const q = await quote(body);
      const headers = { ...partner.auth, 'idempotency-key': `fix-${Date.now()}` };
      const bad = await post(
        t.app,
        `${FLIGHT}/subscribe`,
        subscription(q.quoteReference, body, { customer: { ...CUSTOMER, phone: '+33012345678' } }),
        headers,
      );
      assert.equal(bad.status, 422);
      // same key, same (bad) body would be refused again by validation; the corrected body is a new request
      const good = await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), {
        ...partner.auth,
        'idempotency-key': `fix2-${Date.now()}`,
      });
      assert.equal(good.status, 201);
      const retrySame = await post(
        t.app,
        `${FLIGHT}/subscribe`,
        subscription(q.quoteReference, body, { customer: { ...CUSTOMER, phone: '+33012345678' } }),
        headers,
      );
      assert.equal(retrySame.status, 422, 'an error is not stored: the retry is evaluated again');
    });

    it('20 concurrent subscribes with one key create exactly one contract', async () => {
      const body = trip(31);
      const q = await quote(body);
      const headers = { ...partner.auth, 'idempotency-key': `race-${Date.now()}` };
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), headers),
        ),
      );
      const created = replies.filter((r) => r.status === 201);
      const others = replies.filter((r) => r.status !== 201);
      assert.ok(created.length >= 1);
      for (const r of others) {
        assert.equal(r.status, 409, JSON.stringify(r.body));
        assert.equal(r.body.code, 'idempotency_request_in_progress');
      }
      const numbers = new Set(created.map((r) => r.body.contractNumber));
      assert.equal(numbers.size, 1, 'every 201 is the same contract (replays)');
      const [, , tag, id] = q.quoteReference.split('.');
      const quoteId = `${tag}.${id}`;
      const rows = await t.db
        .selectFrom('contracts')
        .select('contract_number')
        .where('quote_id', '=', quoteId)
        .execute();
      assert.equal(rows.length, 1);
      const replay = await post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), headers);
      assert.equal(replay.status, 201);
      assert.equal(replay.body.contractNumber, rows[0]!.contract_number);
    });

    it('20 concurrent subscribes of one quote without a key create exactly one contract', async () => {
      const body = trip(32);
      const q = await quote(body);
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          post(t.app, `${FLIGHT}/subscribe`, subscription(q.quoteReference, body), partner.auth),
        ),
      );
      assert.equal(replies.filter((r) => r.status === 201).length, 1);
      for (const r of replies.filter((r) => r.status !== 201)) assert.equal(r.body.code, 'quote_already_used');
    });
  });
});
