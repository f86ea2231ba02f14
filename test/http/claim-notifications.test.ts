import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildTestApp, createTestPartner, FLIGHT, post, trip, type TestApp, type TestPartner } from '../helper.ts';

/** Polls until `check` returns a value (jobs run asynchronously); fails after `ms`. */
async function eventually<T>(check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(200);
  }
}

describe('claim notifications: link, status and SMS, through the job queue', () => {
  let t: TestApp;
  let a: TestPartner;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' } });
    a = await createTestPartner(t.db);
  });
  after(() => t.close());

  let seq = 7000;
  async function contract(who: TestPartner, language: 'fr' | 'en') {
    const flightNumber = `AF${seq++}`;
    const body = trip(12);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, body, who.auth);
    const res = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: { firstName: 'Camille', lastName: 'Martin', email: 'camille@example.com', phone: '+33612345678', language },
        booking: { reference: 'PNR456' },
        flights: [{ flightNumber, departureAirport: 'CDG', arrivalAirport: 'JFK', departureDateTime: body.departureDateTime }],
      },
      who.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return { contractNumber: res.body.contractNumber as string, flightNumber, departureDate: body.departureDateTime.slice(0, 10) };
  }

  const messages = async (who: TestPartner, contractNumber: string) => {
    const res = await t.app.inject({ method: 'GET', url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`, headers: who.auth });
    return { status: res.statusCode, body: res.json() };
  };

  it('texts the customer a bank-details link in their language, once, and awaits bank details', async () => {
    const c = await contract(a, 'fr');
    const reported = await post(t.app, `${FLIGHT}/claims`, { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' }, a.auth);
    assert.equal(reported.body.claimsOpened.length, 1);
    // a duplicate event opens nothing and sends nothing more
    await post(t.app, `${FLIGHT}/claims`, { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' }, a.auth);

    const sent = await eventually(async () => {
      const m = await messages(a, c.contractNumber);
      return m.body.messages.length > 0 ? m.body.messages : undefined;
    });
    await sleep(1500);
    const all = (await messages(a, c.contractNumber)).body.messages;
    assert.equal(all.length, 1, 'one message per claim');
    const [message] = sent;
    assert.equal(message.to, '+33612345678');
    assert.match(message.link, /^https:\/\/claims\.parasol\.test\/c\/[A-Za-z0-9_-]{43}$/);
    assert.ok(message.body.includes(message.link));
    assert.ok(message.body.includes(c.flightNumber));
    assert.match(message.body, /annul/i, 'French, naming the event');

    const today = new Date().toISOString().slice(0, 10);
    const listed = await post(t.app, `${FLIGHT}/getclaims`, { fromDate: today, toDate: today, contractNumber: c.contractNumber }, a.auth);
    assert.equal(listed.body.claims[0].status, 'awaiting_bank_details');
    const token = message.link.split('/c/')[1];
    const stored = await t.db.selectFrom('claim_tokens').selectAll().execute();
    assert.ok(stored.every((row) => row.token_hash !== token), 'the token is stored hashed');
    const outbox = await t.db.selectFrom('sms_outbox').select('to_enc').execute();
    assert.ok(outbox.every((row) => !row.to_enc.includes('33612345678')), 'the phone number is encrypted at rest');
  });

  it('writes in English for an English-speaking customer, with the delay', async () => {
    const c = await contract(a, 'en');
    await post(t.app, `${FLIGHT}/claims`, { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'delayed', arrivalDelayMinutes: 185 }, a.auth);
    const [message] = await eventually(async () => {
      const m = await messages(a, c.contractNumber);
      return m.body.messages.length > 0 ? m.body.messages : undefined;
    });
    assert.match(message.body, /late/i);
    assert.match(message.body, /3\s?h/);
  });

  it("shows no other partner's messages, and none in production", async () => {
    const c = await contract(a, 'fr');
    const b = await createTestPartner(t.db);
    const foreign = await messages(b, c.contractNumber);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'contract_not_found');
    const prod = await createTestPartner(t.db, { environment: 'production' });
    const res = await messages(prod, c.contractNumber);
    assert.equal(res.status, 404);
    const missing = await t.app.inject({ method: 'GET', url: `${FLIGHT}/sandbox/messages`, headers: a.auth });
    assert.equal(missing.statusCode, 422);
  });
});
