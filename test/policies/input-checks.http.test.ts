import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exampleHome } from '../../src/home/index.ts';
import { decrypt, encrypt } from '../../src/platform/crypto.ts';
import {
  buildTestApp,
  createTestPartner,
  HOLDER,
  post,
  POLICY_ADMIN,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

const POLICIES = `${POLICY_ADMIN}/policies`;

/**
 * What a partner's policy-administration system sends that reads as a value but is none: a name of
 * a dash or an invisible character alone, a line break inside a name or an address line (each would
 * break the documents and exports printing it), a plate with a trailing space or doubled dashes (no
 * plate reads like that: the registration sent right later would be refused as another car). And
 * the same plate written with or without its dashes is the same registration. A country code that
 * names no country (UK for GB) is refused rather than stored.
 */
describe('the policyholder and the plate, as a policy-administration system sends them', () => {
  let t: TestApp;
  let partner: TestPartner;
  const clock = new Date('2026-03-10T09:00:00.000Z');
  before(async () => {
    t = await buildTestApp({ now: () => clock });
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  let counter = 0;
  const CAR = { make: 'Renault', model: 'Clio', usage: 'private' };
  const motor = (overrides: Record<string, unknown> = {}) => ({
    product: 'motor',
    externalReference: `INPUT-${process.pid}-${++counter}`,
    policyholder: HOLDER,
    effectiveDate: '2026-03-10',
    expiryDate: '2027-03-10',
    premium: { amount: 4_500, currency: 'EUR', frequency: 'monthly' },
    risk: { ...CAR, vehicleRegistration: 'AB-123-CD', firstRegistrationDate: '2021-03-15' },
    ...overrides,
  });
  const create = (body: unknown) => post(t.app, POLICIES, body, partner.auth);
  const patch = async (url: string, body: unknown) => {
    const res = await t.app.inject({ method: 'PATCH', url, payload: body as object, headers: partner.auth });
    return { status: res.statusCode, body: res.json() };
  };
  const fieldsOf = (body: { errors?: { field: string; code: string }[] }) =>
    (body.errors ?? []).map((e) => `${e.field} ${e.code}`).sort();

  it('refuses a name without a letter, and a control or invisible character in a name or an address line', async () => {
    const res = await create(
      motor({
        policyholder: {
          ...HOLDER,
          firstName: '\u200b',
          lastName: 'Mar\ntin',
          address: { ...HOLDER.address, line1: '12\true Cler', line2: 'Bât.\rB', city: 'Pa\u2028ris' },
        },
      }),
    );
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.deepEqual(fieldsOf(res.body), [
      '/policyholder/address/city invalid_format',
      '/policyholder/address/line1 invalid_format',
      '/policyholder/address/line2 invalid_format',
      '/policyholder/firstName invalid_format',
      '/policyholder/lastName invalid_format',
    ]);
    const dash = await create(motor({ policyholder: { ...HOLDER, lastName: '-' } }));
    assert.deepEqual(fieldsOf(dash.body), ['/policyholder/lastName invalid'], JSON.stringify(dash.body));

    const fine = await create(motor({ policyholder: { ...HOLDER, firstName: 'Jean-Luc', lastName: "O'Brien 李" } }));
    assert.equal(fine.status, 201, JSON.stringify(fine.body));
    assert.deepEqual([fine.body.policyholder.firstName, fine.body.policyholder.lastName], ['Jean-Luc', "O'Brien 李"]);
  });

  it('refuses what reorders or hides a name (a right-to-left override, a Hangul filler), not the joiners Persian and Indic names write', async () => {
    // the variation selectors too (U+FE0F, U+E0100): invisible, as the bank-details page's rule has always said
    for (const hidden of [
      'Mar\u202etin',
      '\u3164',
      'Mar\u3164tin',
      'Mar\u2029tin',
      'Mar\u034ftin',
      'Martin\ufe0f',
      'Mar\u{e0100}tin',
    ]) {
      const res = await create(motor({ policyholder: { ...HOLDER, lastName: hidden } }));
      assert.deepEqual(fieldsOf(res.body), ['/policyholder/lastName invalid_format'], JSON.stringify(hidden));
      assert.equal(
        res.body.errors[0].message,
        'must not contain a control or invisible character (a line break, a tab, a direction mark)',
      );
    }
    // Persian: the zero-width non-joiner inside a name (مهر‌آوا), Devanagari: the zero-width joiner
    const persian = { firstName: 'مهر\u200cآوا', lastName: 'क्\u200dष' };
    const fine = await create(motor({ policyholder: { ...HOLDER, ...persian } }));
    assert.equal(fine.status, 201, JSON.stringify(fine.body));
    assert.deepEqual([fine.body.policyholder.firstName, fine.body.policyholder.lastName], Object.values(persian));
    // a joiner that joins no two letters of a script that writes it shows nothing: hidden, as in a Latin name
    const joinerAlone = await create(
      motor({ policyholder: { ...HOLDER, firstName: '\u200d', lastName: 'Mar\u200ctin' } }),
    );
    assert.deepEqual(
      fieldsOf(joinerAlone.body),
      ['/policyholder/firstName invalid_format', '/policyholder/lastName invalid_format'],
      'a joiner alone, a joiner in a Latin name',
    );
  });

  it('checks names and address lines as stored, trimmed: a line break sent last is trimmed away; a blank one is one error', async () => {
    const trailing = await create(
      motor({
        policyholder: {
          ...HOLDER,
          firstName: 'Jean\n',
          address: { ...HOLDER.address, line2: 'Bât. B\r\n', city: 'Paris\n' },
        },
        risk: { ...CAR, make: 'Renault\n', vin: 'VF1RJA00168123458' },
      }),
    );
    assert.equal(trailing.status, 201, JSON.stringify(trailing.body));
    assert.equal(trailing.body.policyholder.firstName, 'Jean');
    assert.deepEqual(trailing.body.policyholder.address, { ...HOLDER.address, line2: 'Bât. B' });
    assert.equal(trailing.body.risk.make, 'Renault', 'the make stored trimmed, as checked');

    const blank = await create(
      motor({ policyholder: { ...HOLDER, address: { ...HOLDER.address, line1: '\n', city: '\t' } } }),
    );
    assert.equal(blank.status, 422, JSON.stringify(blank.body));
    assert.deepEqual(fieldsOf(blank.body), [
      '/policyholder/address/city required',
      '/policyholder/address/line1 required',
    ]);
  });

  it('checks a change of the policyholder the same way, and changes nothing', async () => {
    const created = await create(motor());
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const url = `${POLICIES}/${created.body.policyNumber}/policyholder`;
    const name = await patch(url, { firstName: 'Ca\nmille', lastName: '.', reason: 'typo' });
    assert.equal(name.status, 422, JSON.stringify(name.body));
    assert.deepEqual(fieldsOf(name.body), ['/firstName invalid_format', '/lastName invalid']);
    const moved = await patch(url, { address: { ...HOLDER.address, line1: '3 place\nBellecour' } });
    assert.equal(moved.status, 422, JSON.stringify(moved.body));
    assert.deepEqual(fieldsOf(moved.body), ['/address/line1 invalid_format']);

    const read = await t.app.inject({
      method: 'GET',
      url: `${POLICIES}/${created.body.policyNumber}`,
      headers: partner.auth,
    });
    assert.deepEqual(read.json().policyholder, HOLDER, 'nothing changed');
  });

  it('refuses a country code that names no country (UK for GB, EU), in an address and as a destination', async () => {
    const uk = await create(motor({ policyholder: { ...HOLDER, address: { ...HOLDER.address, country: 'UK' } } }));
    assert.equal(uk.status, 422, JSON.stringify(uk.body));
    assert.deepEqual(fieldsOf(uk.body), ['/policyholder/address/country invalid']);
    assert.equal(uk.body.errors[0].message, 'is not an ISO 3166-1 country code (the United Kingdom is GB)');
    const trip = {
      product: 'travel',
      expiryDate: '2026-09-10',
      risk: { destinationCountry: 'EU', departureDate: '2026-08-01', returnDate: '2026-08-20', travellers: 2 },
    };
    const eu = await create(motor(trip));
    assert.equal(eu.status, 422, JSON.stringify(eu.body));
    assert.deepEqual(fieldsOf(eu.body), ['/risk/destinationCountry invalid']);

    const london = { line1: '10 Downing Street', postalCode: 'SW1A 2AA', city: 'London', country: 'GB' };
    const gb = await create(motor({ policyholder: { ...HOLDER, address: london } }));
    assert.equal(gb.status, 201, JSON.stringify(gb.body));
    const kosovo = await create(motor({ ...trip, risk: { ...trip.risk, destinationCountry: 'XK' } }));
    assert.equal(kosovo.status, 201, `XK, Kosovo, is accepted: ${JSON.stringify(kosovo.body)}`);
    const canaries = await create(motor({ ...trip, risk: { ...trip.risk, destinationCountry: 'IC' } }));
    assert.deepEqual(fieldsOf(canaries.body), ['/risk/destinationCountry invalid'], 'the Canary Islands are ES');
    const japan = await create(motor({ ...trip, risk: { ...trip.risk, destinationCountry: 'JP' } }));
    assert.equal(japan.status, 201, JSON.stringify(japan.body));
    const moved = await patch(`${POLICIES}/${gb.body.policyNumber}/policyholder`, {
      address: { ...london, country: 'ZZ' },
    });
    assert.equal(moved.status, 422, JSON.stringify(moved.body));
    assert.deepEqual(fieldsOf(moved.body), ['/address/country invalid']);
    const antarctica = await patch(`${POLICIES}/${gb.body.policyNumber}/policyholder`, {
      address: { line1: 'Dumont d’Urville Station', postalCode: '98400', city: 'Terre Adélie', country: 'AQ' },
    });
    assert.equal(
      antarctica.status,
      200,
      `a territory without a phone plan is a country: ${JSON.stringify(antarctica.body)}`,
    );
  });

  it('refuses a plate with a space or dash first, last or doubled, at creation and at registration, and a control character in a make or model', async () => {
    for (const plate of ['AB-123-CD ', 'A--------', 'AB--123', '-AB123']) {
      const res = await create(
        motor({ risk: { ...CAR, vehicleRegistration: plate, firstRegistrationDate: '2021-03-15' } }),
      );
      assert.equal(res.status, 422, `${JSON.stringify(plate)}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(fieldsOf(res.body), ['/risk/vehicleRegistration invalid_format'], JSON.stringify(plate));
    }
    for (const plate of ['ab-123-cd', 'LÖ-AB 123']) {
      const res = await create(
        motor({ risk: { ...CAR, vehicleRegistration: plate, firstRegistrationDate: '2021-03-15' } }),
      );
      assert.deepEqual(fieldsOf(res.body), ['/risk/vehicleRegistration invalid_format'], plate);
      assert.match(res.body.errors[0].message, /capitals A to Z and digits only .*umlaut as its vowel and E/, plate);
    }
    const make = await create(
      motor({ risk: { ...CAR, make: 'Ren\nault', model: 'Cl\u202eio', vin: 'VF1RJA00168123456' } }),
    );
    assert.deepEqual(
      fieldsOf(make.body),
      ['/risk/make invalid_format', '/risk/model invalid_format'],
      JSON.stringify(make.body),
    );
    const unregistered = await create(motor({ risk: { ...CAR, vin: 'VF1RJA00168123456' } }));
    assert.equal(unregistered.status, 201, JSON.stringify(unregistered.body));
    const url = `${POLICIES}/${unregistered.body.policyNumber}/vehicle`;
    const spaced = await patch(url, { vehicleRegistration: 'GH-456-JK ', firstRegistrationDate: '2026-03-01' });
    assert.equal(spaced.status, 422, JSON.stringify(spaced.body));
    assert.deepEqual(fieldsOf(spaced.body), ['/vehicleRegistration invalid_format']);
  });

  it('answers the same plate written with or without its dashes as the same registration, another one a 409', async () => {
    const unregistered = await create(motor({ risk: { ...CAR, vin: 'VF1RJA00168123457' } }));
    assert.equal(unregistered.status, 201, JSON.stringify(unregistered.body));
    const url = `${POLICIES}/${unregistered.body.policyNumber}/vehicle`;
    const first = await patch(url, { vehicleRegistration: 'GH-456-JK', firstRegistrationDate: '2026-03-01' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    for (const plate of ['GH456JK', 'GH 456 JK']) {
      const again = await patch(url, { vehicleRegistration: plate, firstRegistrationDate: '2026-03-01' });
      assert.equal(again.status, 200, `${plate}: ${JSON.stringify(again.body)}`);
      assert.equal(again.body.risk.vehicleRegistration, 'GH-456-JK', 'the plate as registered first');
      assert.equal(again.body.updatedAt, first.body.updatedAt, 'unchanged');
    }
    const other = await patch(url, { vehicleRegistration: 'GH-456-JL', firstRegistrationDate: '2026-03-01' });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, 'policy_not_changeable');
    const otherDate = await patch(url, { vehicleRegistration: 'GH456JK', firstRegistrationDate: '2026-03-02' });
    assert.equal(otherDate.status, 409, JSON.stringify(otherDate.body));
  });

  it('keeps where a plate splits its groups: MA-B 123 (Mannheim) on a car registered M-AB 123 (Munich) is a 409', async () => {
    const unregistered = await create(motor({ risk: { ...CAR, vin: 'WVWZZZ1JZXW000001' } }));
    assert.equal(unregistered.status, 201, JSON.stringify(unregistered.body));
    const url = `${POLICIES}/${unregistered.body.policyNumber}/vehicle`;
    const munich = await patch(url, { vehicleRegistration: 'M-AB 123', firstRegistrationDate: '2026-03-01' });
    assert.equal(munich.status, 200, JSON.stringify(munich.body));
    const same = await patch(url, { vehicleRegistration: 'M AB-123', firstRegistrationDate: '2026-03-01' });
    assert.equal(same.status, 200, `a dash or a space, one separator: ${JSON.stringify(same.body)}`);
    const mannheim = await patch(url, { vehicleRegistration: 'MA-B 123', firstRegistrationDate: '2026-03-01' });
    assert.deepEqual(
      [mannheim.status, mannheim.body.code],
      [409, 'policy_not_changeable'],
      JSON.stringify(mannheim.body),
    );
  });

  it('answers the same Idempotency-Key with the plate spelt otherwise idempotency_key_reused', async () => {
    const unregistered = await create(motor({ risk: { ...CAR, vin: 'WVWZZZ1JZXW000002' } }));
    assert.equal(unregistered.status, 201, JSON.stringify(unregistered.body));
    const url = `${POLICIES}/${unregistered.body.policyNumber}/vehicle`;
    const send = (vehicleRegistration: string) =>
      t.app.inject({
        method: 'PATCH',
        url,
        payload: { vehicleRegistration, firstRegistrationDate: '2026-03-01' },
        headers: { ...partner.auth, 'idempotency-key': `plate-${process.pid}` },
      });
    assert.equal((await send('GH-456-JK')).statusCode, 200);
    const respelt = await send('GH456JK');
    assert.deepEqual([respelt.statusCode, respelt.json().code], [422, 'idempotency_key_reused'], respelt.body);
  });

  it('renews a policy stored before the make and model rule with a control character in them; a name stored so is corrected first', async () => {
    const created = await create(motor({ risk: { ...CAR, vin: 'VF1RJA00168123459' } }));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { policyNumber } = created.body;
    // a row as stored before these rules: a tab in the make, a line break in the first name
    const key = t.app.parasol.keys.encryption;
    await t.db
      .updateTable('policies')
      .set({
        risk_enc: encrypt(key, JSON.stringify({ ...CAR, make: 'Renault\tSport', vin: 'VF1RJA00168123459' })),
        holder_first_name_enc: encrypt(key, 'Ca\nmille'),
      })
      .where('policy_number', '=', policyNumber)
      .execute();
    const renew = () =>
      post(
        t.app,
        `${POLICIES}/${policyNumber}/renew`,
        {
          externalReference: `RENEWAL-${process.pid}-${++counter}`,
          premium: { amount: 4_800, currency: 'EUR', frequency: 'monthly' },
        },
        partner.auth,
      );
    const refused = await renew();
    assert.deepEqual([refused.status, refused.body.code], [409, 'policy_not_renewable'], JSON.stringify(refused.body));
    assert.equal(
      refused.body.detail,
      `Policy ${policyNumber} cannot be renewed as stored, for a term from 2027-03-10: /policyholder/firstName must not contain a control or invisible character (a line break, a tab, a direction mark) (correct it first, or record a new policy).`,
      'only the name, which PATCH …/policyholder corrects; the make is no longer checked',
    );
    const corrected = await patch(`${POLICIES}/${policyNumber}/policyholder`, { firstName: 'Camille', reason: 'typo' });
    assert.equal(corrected.status, 200, JSON.stringify(corrected.body));
    const renewed = await renew();
    assert.equal(renewed.status, 201, JSON.stringify(renewed.body));
    assert.equal(renewed.body.risk.make, 'Renault\tSport', 'the risk as stored: no call changes a make');
  });

  it('does not renew a home policy stored at a postal code of an overseas collectivity, outside the home tariff', async () => {
    const home = { ...exampleHome };
    const created = await create(motor({ product: 'home', risk: home }));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { policyNumber } = created.body;
    // a row as stored before the overseas collectivities were refused: Saint-Pierre-et-Miquelon
    const key = t.app.parasol.keys.encryption;
    const row = await t.db
      .selectFrom('policies')
      .select('risk_enc')
      .where('policy_number', '=', policyNumber)
      .executeTakeFirstOrThrow();
    const stored = JSON.parse(decrypt(key, row.risk_enc!)) as Record<string, unknown>;
    await t.db
      .updateTable('policies')
      .set({ risk_enc: encrypt(key, JSON.stringify({ ...stored, zipCode: '97500', city: 'SAINT PIERRE' })) })
      .where('policy_number', '=', policyNumber)
      .execute();
    const refused = await post(
      t.app,
      `${POLICIES}/${policyNumber}/renew`,
      {
        externalReference: `RENEWAL-${process.pid}-${++counter}`,
        premium: { amount: 4_800, currency: 'EUR', frequency: 'monthly' },
      },
      partner.auth,
    );
    assert.deepEqual([refused.status, refused.body.code], [409, 'policy_not_renewable'], JSON.stringify(refused.body));
    assert.equal(
      refused.body.detail,
      `Policy ${policyNumber} cannot be renewed as stored, for a term from 2027-03-10: /risk/zipCode is a postal code of Saint Pierre and Miquelon, outside the home tariff (no call changes a home risk: record a new policy).`,
    );
  });

  it('renews a home policy whose stored risk breaks a rule of a quote added later, recording it as a finding', async () => {
    const created = await create(motor({ product: 'home', risk: { ...exampleHome } }));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { policyNumber } = created.body;
    const key = t.app.parasol.keys.encryption;
    const row = await t.db
      .selectFrom('policies')
      .select('risk_enc')
      .where('policy_number', '=', policyNumber)
      .executeTakeFirstOrThrow();
    const stored = JSON.parse(decrypt(key, row.risk_enc!)) as Record<string, unknown>;
    // a row as stored before the rooms-against-area rule: no call changes a home risk
    await t.db
      .updateTable('policies')
      .set({ risk_enc: encrypt(key, JSON.stringify({ ...stored, rooms: 12, livingArea: 15 })) })
      .where('policy_number', '=', policyNumber)
      .execute();
    const renewed = await post(
      t.app,
      `${POLICIES}/${policyNumber}/renew`,
      {
        externalReference: `RENEWAL-${process.pid}-${++counter}`,
        premium: { amount: 4_800, currency: 'EUR', frequency: 'monthly' },
      },
      partner.auth,
    );
    assert.equal(renewed.status, 201, JSON.stringify(renewed.body));
    assert.deepEqual(
      [renewed.body.risk.rooms, renewed.body.risk.livingArea],
      [12, 15],
      'renewed as stored: tacit renewal, a wrong declaration raised at a claim',
    );
    const audit = await t.db
      .selectFrom('audit_log')
      .select('data')
      .where('entity', '=', 'policy')
      .where('entity_id', '=', policyNumber)
      .where('action', '=', 'renewed')
      .executeTakeFirstOrThrow();
    assert.deepEqual((audit.data as Record<string, unknown>).storedRiskFindings, [
      {
        field: '/risk/livingArea',
        code: 'out_of_range',
        message: 'must be between 7 and 300 m² per main room: 84 to 1000 m² for 12 rooms',
      },
    ]);
  });
});
