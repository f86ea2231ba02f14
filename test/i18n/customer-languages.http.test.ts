import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../../src/partners/users.ts';
import { DEMO_INSURER } from '../../src/platform/config.ts';
import {
  buildTestApp,
  consent,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  trip,
  uniqueSlug,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';

/**
 * Issue 14 §3: the customer's language is one of seven, validated by the API; the partner's brand
 * name, set in its console, and the insurer name every message; the bank-details page and its legal
 * pages are in the customer's language.
 */
describe('customer languages and the partner brand', () => {
  let t: TestApp;
  let a: TestPartner;
  let base: string;
  let browser: Browser;
  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
    a = await createTestPartner(t.db);
    const email = `${uniqueSlug('brand')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: a.id, email, password: 'brand test password' });
    browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, 'brand test password')).statusCode, 303);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(() => t.close());

  it('the partner console sets the brand name: validated (length, control characters), audited', async () => {
    const csrf = csrfOf((await browser.get('/console')).body)!;
    const tooShort = await browser.post('/console/brand', { _csrf: csrf, brandName: 'S' });
    assert.equal(tooShort.statusCode, 422);
    assert.match(tooShort.body, /id="f-brandName-error">Too short\./);
    // the refused field takes the focus (no script): the brand form is below the configuration's
    assert.match(
      tooShort.body,
      /<input id="f-brandName" name="brandName" value="S"[^>]*aria-describedby="f-brandName-hint f-brandName-error" aria-invalid="true" autofocus>/,
    );
    const control = await browser.post('/console/brand', { _csrf: csrf, brandName: 'Sky\tFly' });
    assert.equal(control.statusCode, 422);
    assert.match(control.body, /No control or invisible characters/);
    // invisible characters that reorder or hide text: a right-to-left override, a zero-width space
    for (const hidden of ['Sky\u202eylF', 'Sky\u200bFly', '\u2067SkyFly\u2069', 'Sky\u{e0041}Fly', 'Sky\u3164Fly']) {
      const refused = await browser.post('/console/brand', { _csrf: csrf, brandName: hidden });
      assert.equal(refused.statusCode, 422, JSON.stringify(hidden));
    }
    // variation selectors, which the brand name's rule let through until it became the account holder's: an
    // emoji's VS16 (a phone or a PDF font may show it or not), U+E0100, and the joiners a name may hold
    for (const hidden of ['SkyFly \u2708\ufe0f', 'Sky\u{e0100}Fly', 'Sky\u200dFly']) {
      const refused = await browser.post('/console/brand', { _csrf: csrf, brandName: hidden });
      assert.equal(refused.statusCode, 422, JSON.stringify(hidden));
      assert.match(refused.body, /No control or invisible characters/);
      // the emoji's case named, with what to type instead
      assert.match(refused.body, /nor an emoji&#39;s colour selector: type \u2708 rather than \u2708\ufe0f\./);
      assert.match(refused.body, /id="f-brandName-hint">[^<]*type \u2708 rather than \u2708\ufe0f/);
    }
    const noCsrf = await browser.post('/console/brand', { brandName: 'SkyFly' });
    assert.equal(noCsrf.statusCode, 403);
    const saved = await browser.post('/console/brand', { _csrf: csrf, brandName: '  SkyFly ' });
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, '/console?brand=saved');
    const page = await browser.get('/console?brand=saved');
    assert.match(page.body, /id="f-brandName" name="brandName" value="SkyFly"/);
    assert.match(page.body, /Brand name saved/);
    const row = await t.db.selectFrom('partners').select('brand_name').where('id', '=', a.id).executeTakeFirstOrThrow();
    assert.equal(row.brand_name, 'SkyFly');
    const audited = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('entity', '=', 'partner')
      .where('entity_id', '=', a.id)
      .where('action', '=', 'brand_name_set')
      .execute();
    assert.equal(audited.length, 1);
  });

  it('subscribe in German: the claim SMS is German with the brand and the insurer; the page and its notices too', async () => {
    await t.db.updateTable('partners').set({ brand_name: 'SkyFly' }).where('id', '=', a.id).execute();
    const c = await insureFlight(t.app, a, { flightNumber: 'AF4711', language: 'de', passengers: 2 });
    const contract = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/contracts/${c.contractNumber}`,
      headers: a.auth,
    });
    assert.equal(contract.statusCode, 200, contract.body);
    assert.equal(JSON.parse(contract.body).customer.language, 'de');
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const [sms] = await eventually(async () => {
      const res = await fetch(`${base}${FLIGHT}/sandbox/messages?contractNumber=${c.contractNumber}`, {
        headers: a.auth,
      });
      const m = ((await res.json()) as { messages: { body: string; link: string | null }[] }).messages;
      return m.length ? m : undefined;
    });
    assert.match(
      sms!.body,
      /^SkyFly \(versichert durch Parasol\): Ihr Flug AF4711 vom \d{2}\.\d{2}\.\d{4} wurde annulliert\. Sie erhalten [\d.,]+ €\. Bankdaten eingeben: https:\/\/claims\.parasol\.test\/c\//,
    );

    const path = new URL(sms!.link!).pathname;
    const page = await t.app.inject({ method: 'GET', url: path });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<html lang="de">/);
    assert.match(page.body, /Ihre Entschädigung/);
    assert.match(page.body, /Für 2 Personen\./);
    assert.ok(page.body.includes(`SkyFly Flugverspätungsversicherung, versichert durch ${DEMO_INSURER.legalName}`));
    assert.ok(page.body.includes(`href="${path}/legal">Impressum</a>`));
    const privacy = await t.app.inject({ method: 'GET', url: `${path}/privacy` });
    assert.equal(privacy.statusCode, 200);
    assert.match(privacy.body, /<h1>Datenschutzhinweise<\/h1>/);
    assert.ok(privacy.body.includes(DEMO_INSURER.privacyEmail));
    const legal = await t.app.inject({ method: 'GET', url: `${path}/legal` });
    assert.equal(legal.statusCode, 200);
    assert.match(legal.body, /SkyFly vertreibt diese Flugverspätungsversicherung im Namen von/);
    const unknown = await t.app.inject({ method: 'GET', url: `/c/${'x'.repeat(43)}/privacy` });
    assert.equal(unknown.statusCode, 404);

    // the customer switches to Portuguese: accepted (one of seven)
    const changed = await t.app.inject({
      method: 'PATCH',
      url: `${FLIGHT}/contracts/${c.contractNumber}/customer`,
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: { language: 'pt' },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const portuguese = await t.app.inject({ method: 'GET', url: path });
    assert.match(portuguese.body, /<html lang="pt">/);
  });

  it('a language outside the seven: 422 with a field error code, at subscribe and at a contact change', async () => {
    const t1 = trip(15);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, t1, a.auth);
    assert.equal(quote.status, 200);
    const refused = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: {
          firstName: 'Ana',
          lastName: 'Silva',
          email: 'ana@example.com',
          phone: '+351912345678',
          language: 'sv',
        },
        booking: { reference: 'PNR123' },
        flights: [
          {
            flightNumber: 'AF440',
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: t1.departureDateTime,
          },
        ],
        consent: consent(quote.body.documents.version),
      },
      a.auth,
    );
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    const errors = refused.body.errors as { field: string; code: string }[];
    assert.ok(
      errors.some((e) => e.field === '/customer/language' && e.code.length > 0),
      JSON.stringify(errors),
    );

    const c = await insureFlight(t.app, a, { flightNumber: 'AF3401', language: 'es' });
    const change = await t.app.inject({
      method: 'PATCH',
      url: `${FLIGHT}/contracts/${c.contractNumber}/customer`,
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: { language: 'xx' },
    });
    assert.equal(change.statusCode, 422, change.body);
    assert.ok(
      (JSON.parse(change.body).errors as { field: string }[]).some((e) => e.field === '/language'),
      change.body,
    );
  });
});
