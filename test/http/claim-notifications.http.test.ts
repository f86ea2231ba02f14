import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  allClaims,
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  post,
  trip,
  type TestApp,
  type TestPartner,
  consent,
} from '../helper.ts';

describe('claim notifications: link, status and SMS, through the job queue', () => {
  let t: TestApp;
  let a: TestPartner;
  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
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
        customer: {
          firstName: 'Camille',
          lastName: 'Martin',
          email: 'camille@example.com',
          phone: '+33612345678',
          language,
        },
        booking: { reference: 'PNR456' },
        consent: consent(),
        flights: [
          { flightNumber, departureAirport: 'CDG', arrivalAirport: 'JFK', departureDateTime: body.departureDateTime },
        ],
      },
      who.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return {
      contractNumber: res.body.contractNumber as string,
      flightNumber,
      departureDate: body.departureDateTime.slice(0, 10),
    };
  }

  const messages = async (who: TestPartner, contractNumber: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
      headers: who.auth,
    });
    return { status: res.statusCode, body: res.json() };
  };

  it('texts the customer a bank-details link in their language, once, and awaits bank details', async () => {
    const c = await contract(a, 'fr');
    const reported = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(reported.body.claimsOpened.length, 1);
    // a duplicate event opens nothing and sends nothing more
    await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      a.auth,
    );

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
    assert.ok(message.body.includes(message.link), message.body);
    assert.ok(message.body.includes(c.flightNumber), message.body);
    assert.match(message.body, /annul/i, 'French, naming the event');

    const today = new Date().toISOString().slice(0, 10);
    const listed = await allClaims(t.app, a, { fromDate: today, toDate: today, contractNumber: c.contractNumber });
    assert.deepEqual(
      listed.map((x) => x.status),
      ['awaiting_bank_details'],
    );
    const token = message.link.split('/c/')[1];
    const stored = await t.db.selectFrom('claim_tokens').selectAll().execute();
    assert.ok(
      stored.every((row) => row.token_hash !== token),
      'the token is stored hashed',
    );
    const outbox = await t.db.selectFrom('sms_outbox').select('to_enc').execute();
    assert.ok(
      outbox.every((row) => !row.to_enc.includes('33612345678')),
      'the phone number is encrypted at rest',
    );
  });

  it('writes in English for an English-speaking customer, with the delay', async () => {
    const c = await contract(a, 'en');
    await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'delayed', arrivalDelayMinutes: 185 },
      a.auth,
    );
    const [message] = await eventually(async () => {
      const m = await messages(a, c.contractNumber);
      return m.body.messages.length > 0 ? m.body.messages : undefined;
    });
    assert.match(message.body, /late/i);
    assert.match(message.body, /3\s?h/);
  });

  it('takes bank details through the link: errors next to the field, then payment pending, then the link is used up', async () => {
    const c = await contract(a, 'en');
    await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      a.auth,
    );
    const [message] = await eventually(async () => {
      const m = await messages(a, c.contractNumber);
      return m.body.messages.length > 0 ? m.body.messages : undefined;
    });
    const path = new URL(message.link).pathname;

    const page = await t.app.inject({ method: 'GET', url: path });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(page.body, /<html lang="en">/);
    assert.ok(page.body.includes(c.flightNumber), 'the page names the flight');
    assert.ok(page.body.includes('€150.00'), 'the amount');
    assert.match(page.body, /<label for="f-iban">IBAN<\/label>/);

    const form = (fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: path,
        payload: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const wrong = await form({
      accountHolder: 'Camille <b>Martin</b>',
      iban: 'FR76 3000 6000 0112 3456 7890 188',
      bic: '',
    });
    assert.equal(wrong.statusCode, 422);
    assert.match(wrong.body, /id="f-iban-error">This IBAN looks mistyped: its check digits do not match/);
    assert.match(wrong.body, /id="f-accountHolder-error">The account holder’s name may only contain letters, spaces/);
    assert.match(wrong.body, /aria-invalid="true" aria-describedby="f-iban-error"/);
    assert.ok(wrong.body.includes('value="FR76 3000 6000 0112 3456 7890 188"'), 'what was typed is kept');
    assert.ok(wrong.body.includes('Camille &lt;b&gt;Martin&lt;/b&gt;'), 'and escaped');

    // right IBAN check digits (06), wrong RIB key (188 for 189): a typo in the account number
    const wrongKey = await form({
      accountHolder: 'Camille Martin',
      iban: 'FR06 3000 6000 0112 3456 7890 188',
      bic: '',
    });
    assert.equal(wrongKey.statusCode, 422);
    assert.match(
      wrongKey.body,
      /id="f-iban-error">The account number’s check digits do not match \(the RIB key in France\)/,
    );

    const cyrillic = await form({ accountHolder: 'Иван Петров', iban: 'FR76 3000 6000 0112 3456 7890 189', bic: '' });
    assert.equal(cyrillic.statusCode, 422, 'a name a SEPA file cannot carry is asked again');
    assert.match(cyrillic.body, /id="f-accountHolder-error">Write the name in Latin letters/);

    const right = await form({ accountHolder: 'Camille Martin', iban: 'FR76 3000 6000 0112 3456 7890 189', bic: '' });
    assert.equal(right.statusCode, 200, right.body);
    assert.match(right.body, /account ending 0189/);
    const today = new Date().toISOString().slice(0, 10);
    const listed = await allClaims(t.app, a, { fromDate: today, toDate: today, contractNumber: c.contractNumber });
    assert.equal(listed.length, 1, JSON.stringify(listed));
    // the simulated bank may already have paid it (claims-lifecycle.http.test.ts follows it to paid)
    assert.ok(['payment_pending', 'paid'].includes(listed[0]!.status), listed[0]!.status);
    const stored = await t.db.selectFrom('claim_bank_details').selectAll().execute();
    assert.ok(stored.length >= 1, 'the bank details are stored');
    for (const row of stored)
      assert.ok(row.iban_enc && !row.iban_enc.includes('3000600001'), 'the IBAN is encrypted at rest');

    const again = await form({ accountHolder: 'Somebody Else', iban: 'DE89 3704 0044 0532 0130 00', bic: '' });
    assert.equal(again.statusCode, 410, 'single use once accepted');
    assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 410);
  });

  it('answers an unknown link with 404, never another claim', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/c/${'x'.repeat(43)}` });
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /Lien inconnu/);
    assert.match(res.body, /Unknown link/, 'without Accept-Language: French and English');
    // the browser's language when it is one of the customers' (weights honoured, "de-CH" is German)
    const asked = async (acceptLanguage: string) =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/c/${'x'.repeat(43)}`,
          headers: { 'accept-language': acceptLanguage },
        })
      ).body;
    const german = await asked('ja;q=1, de-CH;q=0.8, en;q=0.5');
    assert.match(german, /Unbekannter Link/);
    assert.match(german, /<html lang="de"/);
    assert.doesNotMatch(german, /Lien inconnu|Unknown link/);
    assert.match(await asked('pt-BR'), /Ligação desconhecida/);
    const none = await asked('ja, zh;q=0.9');
    assert.match(none, /Lien inconnu/);
    assert.match(none, /Unknown link/);
    const post404 = await t.app.inject({
      method: 'POST',
      url: `/c/${'y'.repeat(43)}`,
      payload: 'iban=DE89370400440532013000&accountHolder=X%20Y',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(post404.statusCode, 404);
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
