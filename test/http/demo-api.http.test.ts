import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, createTestPartner, post, type TestApp, type TestPartner } from '../helper.ts';

const DEMO = '/demo/v1';

/** The worked example of docs/home-pricing.md. */
const PARIS_FLAT = {
  zipCode: '75007',
  city: 'PARIS',
  housingType: 'apartment',
  occupancy: 'tenant',
  rooms: 3,
  livingArea: 62,
  floor: 2,
  constructionYear: 1930,
  contentsValue: { amount: 2_000_000, currency: 'EUR' },
  coverageLevel: 'comfort',
  options: ['theft', 'glass_breakage'],
};

const fieldsOf = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field).sort();

describe('Demo API', () => {
  let t: TestApp;
  let partner: TestPartner;
  const clock = new Date('2026-03-10T09:00:00.000Z');
  before(async () => {
    t = await buildTestApp({ now: () => clock });
    partner = await createTestPartner(t.db, { apis: ['demo'] });
  });
  after(() => t.close());

  describe('POST /getCityByZipCode', () => {
    const cities = (zipCode: unknown, who = partner) => post(t.app, `${DEMO}/getCityByZipCode`, { zipCode }, who.auth);

    it('answers the La Poste city of a zip code', async () => {
      for (const [zipCode, city] of [
        ['75007', 'PARIS'],
        ['13001', 'MARSEILLE'],
        ['97400', 'SAINT DENIS'],
      ]) {
        const res = await cities(zipCode);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(res.body, { postalCode: zipCode, zipCode, cities: [city] });
      }
    });

    it('answers a CEDEX code 404: 83998 whose only label is CANJUERS CEDEX, and 75700 the data leaves out', async () => {
      const camp = await cities('83998');
      assert.deepEqual([camp.status, camp.body.code], [404, 'zip_code_not_found'], JSON.stringify(camp.body));
      assert.match(camp.body.detail, /^83998 is a CEDEX code \(CANJUERS CEDEX\).*no home stands there/);
      const leftOut = await cities('75700');
      assert.deepEqual([leftOut.status, leftOut.body.code], [404, 'zip_code_not_found'], JSON.stringify(leftOut.body));
      assert.match(leftOut.body.detail, /^75700 is not the postal code of a French commune.*a CEDEX code/);
    });

    it('takes postalCode or zipCode, the name of the public contract — either, or both alike', async () => {
      const res = await post(t.app, `${DEMO}/getCityByZipCode`, { postalCode: '75007' }, partner.auth);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, { postalCode: '75007', zipCode: '75007', cities: ['PARIS'] });
      const both = await post(
        t.app,
        `${DEMO}/getCityByZipCode`,
        { postalCode: '75007', zipCode: '75007' },
        partner.auth,
      );
      assert.equal(both.status, 200, 'both alike: the answer sent back');
      const differ = await post(
        t.app,
        `${DEMO}/getCityByZipCode`,
        { postalCode: '75007', zipCode: '75008' },
        partner.auth,
      );
      assert.equal(differ.status, 422);
      assert.deepEqual(differ.body.errors, [
        { field: '/zipCode', code: 'invalid', message: 'must equal postalCode (the same field)' },
      ]);
      const none = await post(t.app, `${DEMO}/getCityByZipCode`, {}, partner.auth);
      assert.equal(none.status, 422);
      assert.deepEqual(fieldsOf(none.body), ['/postalCode']);
      const { zipCode: _former, ...flat } = PARIS_FLAT;
      const [byNew, byFormer] = await Promise.all([
        post(t.app, `${DEMO}/getPrice`, { ...flat, postalCode: '75007' }, partner.auth),
        post(t.app, `${DEMO}/getPrice`, PARIS_FLAT, partner.auth),
      ]);
      assert.equal(byNew.status, 200, JSON.stringify(byNew.body));
      assert.deepEqual(byNew.body.annualPremium, byFormer.body.annualPremium, 'one home, one price, whatever the name');
      assert.deepEqual(byNew.body.risk, byFormer.body.risk, 'answered under both names');
      assert.equal(byNew.body.risk.postalCode, '75007');
      assert.equal(byNew.body.risk.zipCode, '75007');
      const again = await post(t.app, `${DEMO}/getPrice`, byNew.body.risk, partner.auth);
      assert.equal(again.status, 200, 'the risk answered is a valid request');
      assert.deepEqual(again.body.annualPremium, byNew.body.annualPremium);
      const unknown = await post(t.app, `${DEMO}/getPrice`, { ...flat, postalCode: '00000' }, partner.auth);
      assert.deepEqual(fieldsOf(unknown.body), ['/postalCode']);
    });

    it('lists every city of a zip code serving several, distinct and sorted', async () => {
      const ajaccio = await cities('20000');
      assert.deepEqual(ajaccio.body, { postalCode: '20000', zipCode: '20000', cities: ['AJACCIO', 'LECCI'] });
      const rural = await cities('10200');
      assert.equal(rural.status, 200);
      assert.ok(rural.body.cities.length > 20, 'a rural zip code serves many communes');
      assert.ok(rural.body.cities.includes('BAR SUR AUBE'));
      assert.deepEqual(rural.body.cities, [...new Set(rural.body.cities)].sort());
    });

    it('answers 422 for a malformed zip code and 404 zip_code_not_found for an unknown one', async () => {
      for (const malformed of ['7500', '750071', '75O07', ' 75007', 75007]) {
        const res = await cities(malformed);
        assert.equal(res.status, 422, `${JSON.stringify(malformed)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.deepEqual(fieldsOf(res.body), ['/zipCode']);
      }
      const zeroLost = await cities('1000');
      assert.match(
        zeroLost.body.errors[0].message,
        /^is not in the expected form: French postal code: a string of 5 digits, its leading zero kept \(01000, not 1000\)/,
        'a zip code whose leading zero a spreadsheet dropped is told so',
      );
      const bourg = await cities('01000');
      assert.equal(bourg.status, 200, 'the leading zero kept');
      assert.deepEqual(bourg.body.cities, ['BOURG-EN-BRESSE', 'SAINT-DENIS-LES-BOURG']);
      const unknown = await cities('00000');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'zip_code_not_found');
      assert.match(String(unknown.headers['content-type']), /^application\/problem\+json/);
    });
  });

  describe('POST /getPrice', () => {
    const price = (body: unknown, path = '/getPrice', who = partner) => post(t.app, `${DEMO}${path}`, body, who.auth);

    it('prices the worked example of docs/home-pricing.md and lists the coverages with their limits', async () => {
      const res = await price(PARIS_FLAT);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const q = res.body;
      assert.match(q.quoteReference, /^h1\./);
      assert.deepEqual(q.annualPremium, { amount: 31_201, currency: 'EUR' });
      assert.deepEqual(q.monthlyPremium, { amount: 2_600, currency: 'EUR' });
      assert.deepEqual(q.annualTax, { amount: 2_576, currency: 'EUR' });
      assert.equal(q.taxRate, 0.09);
      assert.equal(q.zone, 'D');
      assert.equal(q.department, '75');
      assert.equal(q.tariffVersion, 'home-1');
      assert.equal(q.expiresAt, '2026-04-09T09:00:00.000Z', 'valid 30 days');
      assert.deepEqual(
        q.coverages.map((c: { code: string }) => c.code),
        ['tenant_liability', 'contents', 'natural_disasters', 'civil_liability', 'theft', 'glass_breakage'],
      );
      const contents = q.coverages.find((c: { code: string }) => c.code === 'contents');
      assert.deepEqual(contents.limit, { amount: 2_000_000, currency: 'EUR' });
      assert.deepEqual(contents.deductible, { amount: 15_000, currency: 'EUR' });
      assert.equal(q.coverages.find((c: { code: string }) => c.code === 'natural_disasters').limit, null);
      assert.deepEqual(
        q.risk,
        { postalCode: '75007', ...PARIS_FLAT, options: ['glass_breakage', 'theft'] },
        'the risk as priced, options sorted',
      );
    });

    it('answers exactly alike at /getprice', async () => {
      const upper = await price(PARIS_FLAT, '/getPrice');
      const lower = await price(PARIS_FLAT, '/getprice');
      assert.equal(lower.status, 200);
      const { quoteReference: a, ...restUpper } = upper.body;
      const { quoteReference: b, ...restLower } = lower.body;
      assert.match(b, /^h1\./);
      assert.notEqual(a, b, 'each quote has its own id');
      assert.deepEqual(restLower, restUpper);
      const errorUpper = await price({ ...PARIS_FLAT, rooms: 0 }, '/getPrice');
      const errorLower = await price({ ...PARIS_FLAT, rooms: 0 }, '/getprice');
      assert.equal(errorLower.status, 422);
      assert.deepEqual(
        { ...errorLower.body, instance: undefined, requestId: undefined },
        { ...errorUpper.body, instance: undefined, requestId: undefined },
      );
    });

    it('applies the defaults: comfort level, €5,000 of contents per room, no option', async () => {
      const res = await price({
        zipCode: '13001',
        city: 'MARSEILLE',
        housingType: 'house',
        occupancy: 'owner',
        rooms: 4,
        livingArea: 95,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.risk, {
        postalCode: '13001',
        zipCode: '13001',
        city: 'MARSEILLE',
        housingType: 'house',
        occupancy: 'owner',
        rooms: 4,
        livingArea: 95,
        contentsValue: { amount: 2_000_000, currency: 'EUR' },
        coverageLevel: 'comfort',
        options: [],
      });
      assert.equal(res.body.zone, 'C');
      assert.equal(res.body.coverages[0].code, 'building');
      assert.equal(res.body.coverages[0].limit, null, 'the building is rebuilt at cost');
      assert.equal(res.body.monthlyPremium.amount, Math.round(res.body.annualPremium.amount / 12));
    });

    it('reads the city without case, accents, hyphens or abbreviations, and answers it as La Poste spells it', async () => {
      const res = await price({ ...PARIS_FLAT, zipCode: '97400', city: 'Saint-Denis' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.risk.city, 'SAINT DENIS');
      assert.equal(res.body.department, '974');
      assert.equal(res.body.zone, 'E');
      const abbreviated = await price({ ...PARIS_FLAT, zipCode: '13210', city: 'Saint-Rémy-de-Provence' });
      assert.equal(abbreviated.status, 200, JSON.stringify(abbreviated.body));
      assert.equal(abbreviated.body.risk.city, 'ST REMY DE PROVENCE', 'Saint as La Poste abbreviates it');
      const arrondissement = await price({ ...PARIS_FLAT, zipCode: '69007', city: 'Lyon 7e' });
      assert.equal(arrondissement.status, 200, JSON.stringify(arrondissement.body));
      assert.equal(arrondissement.body.risk.city, 'LYON');
      const again = await price(arrondissement.body.risk);
      assert.equal(again.status, 200, 'the city answered is sent back as is');
      assert.deepEqual(again.body.annualPremium, arrondissement.body.annualPremium);
    });

    it("refuses at 75015 Issy-les-Moulineaux, whose corner La Poste routes as PARIS: it would be zoned in Paris's 75", async () => {
      const res = await price({ ...PARIS_FLAT, zipCode: '75015', city: 'Issy-les-Moulineaux' });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.code, 'city_mismatch');
      assert.deepEqual(res.body.acceptedValues, ['PARIS']);
      const issy = await price({ ...PARIS_FLAT, zipCode: '92130', city: 'Issy-les-Moulineaux' });
      assert.equal(issy.status, 200, JSON.stringify(issy.body));
      assert.deepEqual([issy.body.risk.city, issy.body.department], ['ISSY LES MOULINEAUX', '92']);
    });

    it("zones a home by its commune's département, not by the zip code's digits: Corsica, a zip code across two", async () => {
      for (const [zipCode, city, department, zone] of [
        ['20000', 'AJACCIO', '2A', 'B'],
        ['20200', 'BASTIA', '2B', 'B'],
        ['13780', 'CUGES LES PINS', '13', 'C'],
        ['13780', 'RIBOUX', '83', 'B'],
        ['97600', 'MAMOUDZOU', '976', 'E'],
      ]) {
        const res = await price({ ...PARIS_FLAT, zipCode, city });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual([res.body.department, res.body.zone], [department, zone], `${zipCode} ${city}`);
      }
    });

    it('refuses a postal code of an overseas territory outside the départements on /getPrice, 422 zip_code_not_covered naming it', async () => {
      for (const [zipCode, territory, status] of [
        ['97133', 'Saint Barthélemy', 'an overseas collectivity'],
        ['97150', 'Saint Martin', 'an overseas collectivity'],
        ['97500', 'Saint Pierre and Miquelon', 'an overseas collectivity'],
        ['98413', 'the French Southern and Antarctic Lands', 'an overseas territory'],
        ['98600', 'Wallis and Futuna', 'an overseas collectivity'],
        ['98714', 'French Polynesia', 'an overseas collectivity'],
        ['98800', 'New Caledonia', 'a collectivity sui generis'],
      ]) {
        const res = await price({ ...PARIS_FLAT, zipCode, city: 'SAINT PIERRE' });
        assert.equal(res.status, 422, `${zipCode}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'zip_code_not_covered', `${zipCode}: not unknown, and never priced in zone E`);
        assert.equal(
          res.body.detail,
          `${zipCode} is a postal code of ${territory}, ${status}: the home tariff covers metropolitan France and the overseas départements (Guadeloupe, Martinique, French Guiana, Réunion, Mayotte) only.`,
        );
        assert.deepEqual(res.body.errors, [
          {
            field: '/zipCode',
            code: 'not_allowed',
            message: `is a postal code of ${territory}, outside the home tariff`,
          },
        ]);
      }
      // the overseas départements around them are priced, Guadeloupe's codes next to Saint-Barthélemy's
      // and Saint-Martin's included: the refusal is of those two codes exactly, not of a prefix of 971
      for (const [zipCode, city] of [
        ['97100', 'BASSE TERRE'],
        ['97134', 'ST LOUIS'],
        ['97180', 'ST ANNE'],
        ['97600', 'MAMOUDZOU'],
      ]) {
        const res = await price({ ...PARIS_FLAT, zipCode, city });
        assert.equal(res.status, 200, `${zipCode}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.zone, 'E', zipCode);
      }
    });

    it("answers /getCityByZipCode from La Poste's data whatever the tariff covers: 97500's cities, a 404 naming the territory for a code the data leaves out", async () => {
      const miquelon = await post(t.app, `${DEMO}/getCityByZipCode`, { postalCode: '97500' }, partner.auth);
      assert.equal(miquelon.status, 200, JSON.stringify(miquelon.body));
      assert.deepEqual(miquelon.body.cities, ['MIQUELON LANGLADE', 'SAINT PIERRE']);
      for (const [zipCode, territory, status] of [
        ['97133', 'Saint Barthélemy', 'an overseas collectivity'],
        ['97150', 'Saint Martin', 'an overseas collectivity'],
        ['98413', 'the French Southern and Antarctic Lands', 'an overseas territory'],
        ['98600', 'Wallis and Futuna', 'an overseas collectivity'],
        ['98714', 'French Polynesia', 'an overseas collectivity'],
        ['98800', 'New Caledonia', 'a collectivity sui generis'],
      ]) {
        const res = await post(t.app, `${DEMO}/getCityByZipCode`, { postalCode: zipCode }, partner.auth);
        assert.equal(res.status, 404, `${zipCode}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'zip_code_not_found');
        assert.equal(
          res.body.detail,
          `${zipCode} is a postal code of ${territory}, ${status}, which La Poste's data leaves out.`,
        );
      }
    });

    it('answers 422 city_mismatch listing the accepted values when the zip code does not serve the city, 422 validation_failed for a blank one', async () => {
      const res = await price({ ...PARIS_FLAT, zipCode: '20000', city: 'BASTIA' });
      assert.equal(res.status, 422);
      assert.equal(res.body.code, 'city_mismatch');
      assert.deepEqual(res.body.acceptedValues, ['AJACCIO', 'LECCI']);
      assert.deepEqual(fieldsOf(res.body), ['/city']);
      const blank = await price({ ...PARIS_FLAT, city: '  ' });
      assert.equal(blank.status, 422);
      assert.equal(blank.body.code, 'validation_failed', 'a blank city is missing, not a city 75007 does not serve');
      assert.deepEqual(blank.body.errors, [{ field: '/city', code: 'required', message: 'must not be blank' }]);
      // pasted from a page: a zero-width space, a soft hyphen, a direction mark read as PARIS but are not it
      for (const city of ['PA\u200bRIS', 'Pa\u00adris', '\u200fPARIS', 'PARIS\u2060', 'PA\tRIS']) {
        const hidden = await price({ ...PARIS_FLAT, city });
        assert.equal(hidden.status, 422, JSON.stringify(city));
        assert.equal(hidden.body.code, 'validation_failed', `${JSON.stringify(city)}: not a city 75007 does not serve`);
        assert.deepEqual(hidden.body.errors, [
          {
            field: '/city',
            code: 'invalid_format',
            message: 'must not contain a control or invisible character (a line break, a tab, a direction mark)',
          },
        ]);
      }
      assert.equal(
        (await price({ ...PARIS_FLAT, city: ' Paris\t' })).status,
        200,
        'spaces and tabs around are trimmed',
      );
      const unknown = await price({ ...PARIS_FLAT, zipCode: '00000' });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.code, 'unknown_zip_code');
      assert.deepEqual(fieldsOf(unknown.body), ['/zipCode']);
    });

    it('validates bounds and enums, naming every field', async () => {
      const res = await price({
        zipCode: '7500',
        housingType: 'castle',
        occupancy: 'squatter',
        rooms: 21,
        livingArea: 5,
        floor: -1,
        constructionYear: 1200,
        contentsValue: { amount: 50, currency: 'USD' },
        coverageLevel: 'gold',
        options: ['pool', 'theft', 'theft'],
        extra: 1,
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.code, 'validation_failed');
      const fields = fieldsOf(res.body);
      for (const f of [
        '/zipCode',
        '/city',
        '/housingType',
        '/occupancy',
        '/rooms',
        '/livingArea',
        '/floor',
        '/constructionYear',
        '/contentsValue/amount',
        '/contentsValue/currency',
        '/coverageLevel',
        '/options',
        '/options/0',
        '/extra',
      ]) {
        assert.ok(fields.includes(f), `${f} in ${fields}`);
      }
      const housing = res.body.errors.find((e: { field: string }) => e.field === '/housingType');
      assert.equal(housing.message, 'must be one of house, apartment');
      for (const rooms of [0, 21, 2.5])
        assert.deepEqual(fieldsOf((await price({ ...PARIS_FLAT, rooms })).body), ['/rooms']);
      for (const livingArea of [8, 1001])
        assert.deepEqual(fieldsOf((await price({ ...PARIS_FLAT, livingArea })).body), ['/livingArea']);
    });

    it('refuses a floor for a house and a construction year more than 2 years after the quote', async () => {
      const house = await price({ ...PARIS_FLAT, housingType: 'house', floor: 1 });
      assert.equal(house.status, 422);
      assert.deepEqual(fieldsOf(house.body), ['/floor']);
      const future = await price({ ...PARIS_FLAT, constructionYear: 2029 }); // quoted in 2026
      assert.deepEqual(fieldsOf(future.body), ['/constructionYear']);
      assert.equal((await price({ ...PARIS_FLAT, constructionYear: 2028 })).status, 200);
    });

    it('takes a living area to the hundredth, refuses one its rooms cannot have, and a CEDEX code', async () => {
      const carrez = await price({ ...PARIS_FLAT, livingArea: 72.35 });
      assert.equal(carrez.status, 200);
      assert.equal(carrez.body.risk.livingArea, 72.35);
      const third = await price({ ...PARIS_FLAT, livingArea: 72.355 });
      assert.equal(third.status, 422);
      assert.deepEqual(third.body.errors, [
        {
          field: '/livingArea',
          code: 'invalid',
          message: 'must have at most 2 decimals (m² to the hundredth), got 72.355',
        },
      ]);
      // float noise of a partner's arithmetic: read as the hundredth, priced and answered so
      const noisy = await price({ ...PARIS_FLAT, livingArea: 36.2 + 0.1 });
      assert.equal(noisy.status, 200, JSON.stringify(noisy.body));
      assert.equal(noisy.body.risk.livingArea, 36.3);
      assert.deepEqual(noisy.body.annualPremium, (await price({ ...PARIS_FLAT, livingArea: 36.3 })).body.annualPremium);
      const crammed = await price({ ...PARIS_FLAT, rooms: 12, livingArea: 15 });
      assert.equal(crammed.status, 422);
      assert.equal(crammed.body.code, 'validation_failed');
      assert.deepEqual(fieldsOf(crammed.body), ['/livingArea']);
      const cedex = await price({ ...PARIS_FLAT, zipCode: '75700' });
      assert.equal(cedex.status, 422);
      assert.equal(cedex.body.code, 'unknown_zip_code');
      assert.match(cedex.body.detail, /CEDEX/);
    });

    it('writes nothing to the database', async () => {
      const count = async () =>
        Number(
          (
            await t.db
              .selectFrom('audit_log')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      for (let i = 0; i < 3; i++) assert.equal((await price(PARIS_FLAT)).status, 200);
      assert.equal(await count(), before);
      assert.equal(
        Number(
          (
            await t.db
              .selectFrom('idempotency_keys')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('partner_id', '=', partner.id)
              .executeTakeFirstOrThrow()
          ).n,
        ),
        0,
      );
    });
  });

  it('answers 401 without a key and 403 api_not_subscribed to a partner not subscribed to the Demo API', async () => {
    const none = await post(t.app, `${DEMO}/getCityByZipCode`, { zipCode: '75007' });
    assert.equal(none.status, 401);
    const flightOnly = await createTestPartner(t.db, { apis: ['flight-delay'] });
    for (const path of ['/getCityByZipCode', '/getPrice', '/getprice']) {
      const res = await post(
        t.app,
        `${DEMO}${path}`,
        path === '/getCityByZipCode' ? { zipCode: '75007' } : PARIS_FLAT,
        flightOnly.auth,
      );
      assert.equal(res.status, 403, path);
      assert.equal(res.body.code, 'api_not_subscribed');
    }
  });

  it('documents every request field with its type, bounds and enumerated values', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: `${DEMO}/openapi.json` })).json();
    assert.equal(doc.info.title, 'Demo API');
    const zip = doc.paths['/getCityByZipCode'].post.requestBody.content['application/json'].schema;
    assert.equal(zip.properties.zipCode.pattern, '^[0-9]{5}$');
    for (const path of ['/getPrice', '/getprice']) {
      const body = doc.paths[path].post.requestBody.content['application/json'];
      assert.ok(body.example ?? body.examples, `${path} example`);
      const p = body.schema.properties;
      assert.deepEqual(p.housingType.enum, ['house', 'apartment']);
      assert.deepEqual(p.occupancy.enum, ['owner', 'tenant']);
      assert.deepEqual([p.rooms.minimum, p.rooms.maximum], [1, 20]);
      assert.deepEqual([p.livingArea.minimum, p.livingArea.maximum], [9, 1000]);
      assert.deepEqual([p.floor.minimum, p.floor.maximum], [0, 60]);
      assert.deepEqual(p.coverageLevel.enum, ['essential', 'comfort', 'premium']);
      assert.deepEqual(p.options.items.enum, ['theft', 'glass_breakage', 'electrical_damage', 'legal_protection']);
      assert.equal(p.contentsValue.properties.amount.maximum, 30_000_000);
      assert.deepEqual(body.schema.required.sort(), ['city', 'housingType', 'livingArea', 'occupancy', 'rooms']);
      assert.equal(p.postalCode.pattern, '^[0-9]{5}$', 'postalCode or zipCode: one is required');
      assert.equal(p.zipCode.pattern, '^[0-9]{5}$');
      assert.equal(p.zipCode.deprecated, undefined, 'zipCode is the name of the public contract (API.md)');
      const quote = doc.paths[path].post.responses['200'].content['application/json'].schema;
      assert.ok(
        ['postalCode', 'zipCode', 'city', 'contentsValue', 'coverageLevel', 'options'].every((f) =>
          quote.properties.risk.required.includes(f),
        ),
        `the risk answered always has both postal code names and the defaults: ${quote.properties.risk.required}`,
      );
      assert.deepEqual([quote.properties.taxRate.minimum, quote.properties.taxRate.maximum], [0, 1]);
      for (const f of ['postalCode', 'zipCode', 'city', 'contentsValue', 'coverageLevel', 'options']) {
        const said = quote.properties.risk.properties[f].description;
        assert.notEqual(said, p[f].description, `the risk answered describes ${f} as answered, not as requested`);
        assert.doesNotMatch(said, /give either|Omitted|compared without/, `${path} risk ${f}: ${said}`);
      }
    }
  });
});
