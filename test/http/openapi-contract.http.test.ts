import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenApiContract } from '../openapi-contract.ts';
import { Receiver } from '../webhooks/receiver.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  subscribeTrip,
  subscription,
  trip,
  type TestApp,
  type TestPartner,
  POLICY_ADMIN,
} from '../helper.ts';

/**
 * The OpenAPI documents against the server's live answers: every operation of the three APIs (and
 * the Flight Delay API's webhook operations and events) is called, its successes and its usual
 * problems, and each answer is checked by Ajv against the documented status, content type, schema
 * and headers. Every example of every document validates against its own schema.
 */

const DEMO = '/demo/v1';
const PREFIXES = [FLIGHT, DEMO, POLICY_ADMIN];
/** What the flight lifecycle of the events test sends: every event but the claim's later steps (claims tests). */
const EVENTS_SENT = ['contract.created', 'contract.changed', 'claim.opened', 'contract.cancelled'];

describe('OpenAPI contract against live answers', () => {
  let t: TestApp;
  let contract: OpenApiContract;
  let partner: TestPartner;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on', PARASOL_JOB_POLL_SECONDS: '1' } });
    contract = new OpenApiContract(t.app);
    for (const prefix of PREFIXES) await contract.load(prefix);
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  /** Calls `prefix + url` and checks the answer against the document of `prefix`. */
  async function callApi(
    prefix: string,
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = partner.auth,
  ) {
    const response = await t.app.inject({
      method: method as 'GET',
      url: `${prefix}${url}`,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : (body as object) }),
    });
    contract.check(prefix, method, `${prefix}${url}`, response);
    return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined };
  }
  const call = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
    callApi(FLIGHT, method, url, body, headers);

  it('every example validates against its schema', () => {
    for (const prefix of PREFIXES) assert.ok(contract.checkExamples(prefix) > 0, `${prefix} has examples`);
  });

  it("every success answer of the Flight Delay API's and the Demo API's operations shows an example (checked against its schema above)", () => {
    for (const [prefix, least] of [
      [FLIGHT, 25],
      [DEMO, 3],
    ] as const) {
      const doc = contract.document(prefix);
      const missing: string[] = [];
      let successes = 0;
      for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>))
        for (const [method, op] of Object.entries(ops))
          for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
            if (Number(status) >= 300) continue;
            successes++;
            const media = response.content?.['application/json'];
            if (!media || (media.example === undefined && Object.keys(media.examples ?? {}).length === 0))
              missing.push(`${method.toUpperCase()} ${path} ${status}`);
          }
      assert.ok(successes >= least, `${prefix}: ${successes} success answers`);
      assert.deepEqual(missing, [], `${prefix}: success answers without an example`);
    }
  });

  it('the flight lifecycle and its problems answer as documented', async () => {
    const body = trip(40);
    const quote = await call('POST', '/getPrice', body);
    assert.equal(quote.status, 200);
    const doc = contract.document(FLIGHT);
    const content = doc.paths['/getPrice/simulate'].post.requestBody.content['application/json'];
    const example = content.example ?? Object.values(content.examples as Record<string, { value: object }>)[0]!.value;
    // the example's terms on today's trip (its own dates are fixed: its return may precede today's outbound)
    const { returnDepartureDateTime: _r, returnFlightNumber: _f, ...terms } = example as Record<string, unknown>;
    const simulated = await call('POST', '/getPrice/simulate', { ...terms, ...body });
    assert.equal(simulated.status, 200, JSON.stringify(simulated.body));
    const subscribeBody = subscription(quote.body.quoteReference, body);
    const key = { ...partner.auth, 'idempotency-key': `contract-${process.pid}-${Date.now()}` };
    const subscribed = await call('POST', '/subscribe', subscribeBody, key);
    assert.equal(subscribed.status, 201);
    assert.equal((await call('POST', '/subscribe', subscribeBody, key)).status, 201); // replay
    const claims = await call('POST', '/getclaims', {
      fromDate: new Date().toISOString().slice(0, 10),
      toDate: new Date().toISOString().slice(0, 10),
    });
    assert.equal(claims.status, 200);
    const sameDay = new Date().toISOString().slice(0, 10);
    assert.equal((await call('POST', '/getClaims', { fromDate: sameDay, toDate: sameDay })).status, 200);
    const event = await call('POST', '/claims', {
      flightNumber: 'AF006',
      departureDate: body.departureDateTime.slice(0, 10),
      status: 'cancelled',
    });
    assert.equal(event.status, 200);
    const messages = await call('GET', `/sandbox/messages?contractNumber=${subscribed.body.contractNumber}`);
    assert.equal(messages.status, 200);
    const number = subscribed.body.contractNumber as string;
    const read = await call('GET', `/contracts/${number}`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(read.body.claims.length, 1);
    assert.equal((await call('GET', `/claims/${read.body.claims[0].claimNumber}`)).status, 200);
    assert.equal((await call('GET', '/claims/CLM-99999999')).status, 404);
    assert.equal((await call('GET', '/contracts?status=active&bookingReference=ABC123&limit=5')).status, 200);
    assert.equal((await call('GET', '/contracts?limit=x')).status, 422);
    assert.equal((await call('PATCH', `/contracts/${number}/customer`, { language: 'en' })).status, 200);
    assert.equal((await call('GET', '/contracts/FD-0000-0000')).status, 404);
    assert.equal((await call('POST', '/getclaims', { contractNumber: number, status: ['opened'] })).status, 200);
    const other = await subscribeTrip(t.app, partner, trip(60, { returnTrip: true, additionalPassengers: 1 }));
    assert.equal(other.status, 201);
    // a flight change: previewed, confirmed, then the contract read with its versions
    const otherNumber = other.body.contractNumber as string;
    const preview = await call('POST', `/contracts/${otherNumber}/flight-change/preview`, {
      flights: [
        {
          leg: 0,
          flightNumber: 'AF010',
          departureAirport: 'CDG',
          arrivalAirport: 'JFK',
          departureDateTime: `${trip(60).departureDateTime.slice(0, 10)}T15:45`,
        },
      ],
    });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    const changeKey = { ...partner.auth, 'idempotency-key': `change-${process.pid}-${Date.now()}` };
    const changed = await call(
      'POST',
      `/contracts/${otherNumber}/flight-change`,
      { changeReference: preview.body.changeReference },
      changeKey,
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const changedRead = await call('GET', `/contracts/${otherNumber}`);
    assert.equal(changedRead.body.versions.length, 2);
    assert.equal(
      (await call('POST', `/contracts/${otherNumber}/flight-change`, { changeReference: 'fc1.nope.nope' })).status,
      422,
    );
    const part = `/contracts/${other.body.contractNumber}/partial-cancellation`;
    assert.equal((await call('POST', `${part}/preview`, { leg: 1, reason: 'customer_request' })).status, 200);
    assert.equal((await call('POST', part, { passengers: 1, reason: 'customer_request' })).status, 200);
    assert.equal((await call('POST', part, { passengers: 1, reason: 'customer_request' })).status, 422);
    const cancelled = await call('POST', '/cancel', {
      contractNumber: other.body.contractNumber,
      reason: 'customer_request',
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));

    // problems: 401, 404, 405, 413, 415, 422
    assert.equal((await call('POST', '/getPrice', body, { authorization: 'Bearer psl_sbx_nope' })).status, 401);
    assert.equal(
      (await call('POST', '/cancel', { contractNumber: 'FD-0000-0000', reason: 'customer_request' })).status,
      404,
    );
    assert.equal((await call('GET', '/getPrice')).status, 405);
    assert.equal((await call('POST', '/getPrice', { ...body, pad: 'x'.repeat(70_000) })).status, 413);
    const text = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/getPrice`,
      headers: { ...partner.auth, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    contract.check(FLIGHT, 'POST', `${FLIGHT}/getPrice`, text);
    assert.equal(text.statusCode, 415);
    assert.equal((await call('POST', '/getPrice', { departureAirport: 'CDG' })).status, 422);
  });

  it('the webhook operations answer as documented', async () => {
    const created = await call('POST', '/webhooks/endpoints', { url: 'http://127.0.0.1:9/hooks' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.endpoint.id as string;
    assert.equal((await call('GET', '/webhooks/endpoints')).status, 200);
    assert.equal((await call('GET', `/webhooks/endpoints/${id}`)).status, 200);
    assert.equal((await call('PATCH', `/webhooks/endpoints/${id}`, { description: 'ops' })).status, 200);
    assert.equal((await call('POST', `/webhooks/endpoints/${id}/rotate-secret`)).status, 200);
    const tested = await call('POST', `/webhooks/endpoints/${id}/test`);
    assert.equal(tested.status, 202);
    assert.equal((await call('GET', '/webhooks/deliveries?limit=5')).status, 200);
    assert.equal((await call('POST', `/webhooks/deliveries/${tested.body.deliveryId}/redeliver`)).status, 409);
    // a delivery that ended is sent again
    const receiver = await Receiver.start();
    try {
      const hooked = await call('POST', '/webhooks/endpoints', { url: receiver.url('/contract') });
      const sent = await call('POST', `/webhooks/endpoints/${hooked.body.endpoint.id}/test`);
      assert.equal((await subscribeTrip(t.app, partner, trip(70))).status, 201);
      // each delivered body matches the document's webhooks section
      const received = await receiver.waitFor('/contract', 2);
      assert.deepEqual(received.map((r) => contract.checkWebhook(FLIGHT, r.body)).sort(), [
        'contract.created',
        'webhook.test',
      ]);
      await eventually(async () => {
        const log = await call('GET', `/webhooks/deliveries?endpointId=${hooked.body.endpoint.id}&status=succeeded`);
        return log.body.deliveries.some((d: { id: string }) => d.id === sent.body.deliveryId) ? true : undefined;
      });
      const again = await call('POST', `/webhooks/deliveries/${sent.body.deliveryId}/redeliver`);
      assert.equal(again.status, 202);
      contract.checkWebhook(FLIGHT, (await receiver.waitFor('/contract', 3))[2]!.body);
      assert.equal((await call('DELETE', `/webhooks/endpoints/${hooked.body.endpoint.id}`)).status, 200);
    } finally {
      await receiver.close();
    }
    assert.equal((await call('DELETE', `/webhooks/endpoints/${id}`)).status, 200);
    assert.equal((await call('GET', `/webhooks/endpoints/${id}`)).status, 404);
  });

  it('refusals of a key and of a state answer as documented (403, 409)', async () => {
    const demoOnly = await createTestPartner(t.db, { apis: ['demo'] });
    const refused = await call('POST', '/getPrice', trip(40), demoOnly.auth);
    assert.deepEqual([refused.status, refused.body.code], [403, 'api_not_subscribed']);
    const policiesOnly = await createTestPartner(t.db, { apis: ['policy-admin'] });
    const demoRefused = await callApi(DEMO, 'POST', '/getCityByZipCode', { zipCode: '75007' }, policiesOnly.auth);
    assert.deepEqual([demoRefused.status, demoRefused.body.code], [403, 'api_not_subscribed']);
    const body = trip(45);
    const quote = await call('POST', '/getPrice', body);
    assert.equal((await call('POST', '/subscribe', subscription(quote.body.quoteReference, body))).status, 201);
    const again = await call('POST', '/subscribe', subscription(quote.body.quoteReference, body));
    assert.deepEqual([again.status, again.body.code], [409, 'quote_already_used']);
  });

  it('every event the Flight Delay API sends matches its documented webhook', async () => {
    const receiver = await Receiver.start();
    try {
      const hooked = await call('POST', '/webhooks/endpoints', { url: receiver.url('/every') });
      assert.equal(hooked.status, 201);
      const insured = await insureFlight(t.app, partner, { flightNumber: 'AF7301', returnFlight: 'AF7302', days: 20 });
      const part = `/contracts/${insured.contractNumber}/partial-cancellation`;
      assert.equal((await call('POST', part, { leg: 1, reason: 'customer_request' })).status, 200);
      const event = await call('POST', '/claims', {
        flightNumber: 'AF7301',
        departureDate: insured.departureDate,
        status: 'delayed',
        delayMinutes: 200,
      });
      assert.equal(event.status, 200, JSON.stringify(event.body));
      const other = await subscribeTrip(t.app, partner, trip(80));
      const cancelled = await call('POST', '/cancel', {
        contractNumber: other.body.contractNumber,
        reason: 'customer_request',
      });
      assert.equal(cancelled.status, 200);
      const received = await receiver.waitFor('/every', 5, 60_000);
      assert.deepEqual(new Set(received.map((r) => contract.checkWebhook(FLIGHT, r.body))), new Set(EVENTS_SENT));
      assert.equal((await call('DELETE', `/webhooks/endpoints/${hooked.body.endpoint.id}`)).status, 200);
    } finally {
      await receiver.close();
    }
  });

  it('every operation of every document declares 503 as a problem (the live answer: contract-edges, shutting down)', () => {
    for (const prefix of PREFIXES) {
      const doc = contract.document(prefix);
      for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>))
        for (const [method, op] of Object.entries(ops)) {
          const unavailable = op.responses['503'];
          assert.ok(unavailable, `${prefix} ${method.toUpperCase()} ${path} documents 503`);
          assert.deepEqual(unavailable['x-problem-codes'], ['service_unavailable']);
          assert.ok(
            unavailable.content['application/problem+json'],
            `${prefix} ${method.toUpperCase()} ${path}: 503 is a problem+json`,
          );
        }
    }
  });

  it('the Demo API answers as documented', async () => {
    const demo = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
      callApi(DEMO, method, url, body, headers);
    assert.equal((await demo('POST', '/getCityByZipCode', { zipCode: '75007' })).status, 200);
    assert.equal((await demo('POST', '/getCityByZipCode', { zipCode: '00000' })).status, 404);
    assert.equal((await demo('POST', '/getCityByZipCode', { zipCode: 'abc' })).status, 422);
    assert.equal((await demo('POST', '/getCityByZipCode', '{"zipCode":')).status, 400);
    assert.equal((await demo('POST', '/getCityByZipCode', { zipCode: '75007' }, {})).status, 401);
    assert.equal((await demo('GET', '/getCityByZipCode')).status, 405);
    assert.equal((await demo('POST', '/getCityByZipCode', { zipCode: '75007', pad: 'x'.repeat(70_000) })).status, 413);
    const home = {
      zipCode: '75007',
      city: 'PARIS',
      housingType: 'apartment',
      occupancy: 'tenant',
      rooms: 3,
      livingArea: 62,
    };
    assert.equal((await demo('POST', '/getPrice', home)).status, 200);
    assert.equal((await demo('POST', '/getprice', home)).status, 200);
    assert.equal((await demo('POST', '/getPrice', { ...home, city: 'LYON' })).status, 422);
    assert.equal((await demo('POST', '/getPrice', { ...home, zipCode: '00000' })).status, 422);
    const text = await t.app.inject({
      method: 'POST',
      url: `${DEMO}/getPrice`,
      headers: { ...partner.auth, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    contract.check(DEMO, 'POST', `${DEMO}/getPrice`, text);
    assert.equal(text.statusCode, 415);
  });

  it('the API to manage policies answers as documented', async () => {
    const admin = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
      callApi(POLICY_ADMIN, method, url, body, headers);
    const today = new Date().toISOString().slice(0, 10);
    const policy = (externalReference: string) => ({
      product: 'motor',
      externalReference,
      policyholder: {
        firstName: 'Zoë',
        lastName: 'Ødegård-李',
        birthDate: '1990-04-12',
        email: 'zoe@example.com',
        phone: '+33612345678',
        address: { line1: '12 rue Cler', postalCode: '75007', city: 'Paris', country: 'FR' },
      },
      effectiveDate: today,
      expiryDate: new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10),
      premium: { amount: 4_500, currency: 'EUR', frequency: 'monthly' },
      risk: {
        vehicleRegistration: 'AB-123-CD',
        make: 'Renault',
        model: 'Clio',
        firstRegistrationDate: '2021-03-15',
        usage: 'private',
      },
    });
    const reference = `CONTRACT-${process.pid}-${Date.now()}`;
    const key = { ...partner.auth, 'idempotency-key': `policy-${reference}` };
    const created = await admin('POST', '/policies', policy(reference), key);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await admin('POST', '/policies', policy(reference), key)).status, 201); // replay
    assert.equal((await admin('POST', '/policies', policy(`${reference}-2`), key)).status, 422); // reused key
    assert.equal((await admin('POST', '/policies', policy(reference))).status, 409);
    const number = created.body.policyNumber as string;
    assert.equal((await admin('GET', `/policies/${number}`)).status, 200);
    assert.equal((await admin('GET', '/policies/PA-0000-0000')).status, 404);
    assert.equal((await admin('GET', `/policies?externalReference=${reference}&limit=1`)).status, 200);
    assert.equal((await admin('GET', '/policies?cursor=nope')).status, 422);
    assert.equal((await admin('GET', '/policies', undefined, { authorization: 'Bearer psl_sbx_nope' })).status, 401);
    assert.equal((await admin('DELETE', `/policies/${number}`)).status, 405);
    const cancel = { reason: 'customer_request', effectiveDate: today };
    assert.equal((await admin('POST', `/policies/${number}/cancel`, cancel)).status, 200);
    assert.equal((await admin('POST', '/policies/PA-0000-0000/cancel', cancel)).status, 404);
    assert.equal((await admin('POST', `/policies/${number}/cancel`, { reason: 'nope' })).status, 422);
    const contact = { phone: '+33698765432' };
    assert.equal((await admin('PATCH', `/policies/${number}/policyholder`, contact)).status, 409); // cancelled
    assert.equal((await admin('PATCH', '/policies/PA-0000-0000/policyholder', contact)).status, 404);
    assert.equal((await admin('PATCH', `/policies/${number}/policyholder`, {})).status, 422);
    const activation = { reason: 'payment_received' };
    assert.equal((await admin('POST', `/policies/${number}/activate`, activation)).status, 409); // cancelled
    const pending = await admin('POST', '/policies', { ...policy(`${reference}-3`), status: 'pending' });
    assert.equal(pending.status, 201, JSON.stringify(pending.body));
    assert.equal((await admin('POST', `/policies/${pending.body.policyNumber}/activate`, activation)).status, 200);
    assert.equal((await admin('POST', '/policies/PA-0000-0000/activate', activation)).status, 404);
    const changed = await admin('PATCH', `/policies/${pending.body.policyNumber}/policyholder`, contact);
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal((await admin('POST', `/policies/${number}/activate`, {})).status, 422);
    const renewal = {
      externalReference: `${reference}-4`,
      premium: { amount: 4_700, currency: 'EUR', frequency: 'monthly' },
    };
    const renewed = await admin('POST', `/policies/${pending.body.policyNumber}/renew`, renewal);
    assert.equal(renewed.status, 201, JSON.stringify(renewed.body));
    assert.equal((await admin('POST', `/policies/${pending.body.policyNumber}/renew`, renewal)).status, 409);
    assert.equal((await admin('POST', '/policies/PA-0000-0000/renew', renewal)).status, 404);
    assert.equal((await admin('POST', `/policies/${number}/renew`, {})).status, 422);
    const unregistered = await admin('POST', '/policies', {
      ...policy(`${reference}-5`),
      risk: { vin: 'VF1RJA00168123456', make: 'Renault', model: 'Clio', usage: 'private' },
    });
    assert.equal(unregistered.status, 201, JSON.stringify(unregistered.body));
    const registration = { vehicleRegistration: 'GH-456-JK', firstRegistrationDate: today };
    const vehicle = `/policies/${unregistered.body.policyNumber}/vehicle`;
    assert.equal((await admin('PATCH', vehicle, registration)).status, 200);
    assert.equal((await admin('PATCH', vehicle, { ...registration, vehicleRegistration: 'ZZ-1' })).status, 409);
    assert.equal((await admin('PATCH', '/policies/PA-0000-0000/vehicle', registration)).status, 404);
    assert.equal((await admin('PATCH', vehicle, {})).status, 422);
  });

  it('every operation of every API was checked with a success', () => {
    for (const prefix of PREFIXES) {
      const doc = contract.document(prefix);
      for (const [path, ops] of Object.entries(doc.paths as Record<string, object>))
        for (const method of Object.keys(ops)) {
          const success = `${method.toUpperCase()} ${path} 2`;
          assert.ok(
            [...contract.seen].some((s) => s.startsWith(success)),
            `${prefix} ${method.toUpperCase()} ${path} exercised with a success`,
          );
        }
    }
  });
});
