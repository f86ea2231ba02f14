import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OpenApiContract } from '../openapi-contract.ts';
import {
  allPages,
  buildTestApp,
  createTestPartner,
  CUSTOMER,
  FLIGHT,
  insureFlight,
  post,
  subscription,
  trip,
  type TestApp,
  type TestPartner,
  POLICY_ADMIN,
} from '../helper.ts';

/**
 * The public contract (API.md and the OpenAPI documents) at its edges, as a partner's developer
 * meets them: identifiers written another way, departure times at the limits of what ISO 8601
 * allows, list errors pointing at the right parameter, and a server that is shutting down.
 */

describe('the public contract at its edges', () => {
  let t: TestApp;
  let partner: TestPartner;
  before(async () => {
    t = await buildTestApp();
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  const get = async (url: string) => {
    const response = await t.app.inject({ method: 'GET', url, headers: partner.auth });
    return { status: response.statusCode, body: response.json() };
  };

  it('reads a contract number the same way in every operation that takes one (any case, spaces around)', async () => {
    const insured = await insureFlight(t.app, partner, { flightNumber: 'AF9301' });
    for (const written of [insured.contractNumber.toLowerCase(), ` ${insured.contractNumber} `]) {
      const query = encodeURIComponent(written);
      assert.equal((await get(`${FLIGHT}/contracts/${query}`)).status, 200, `GET /contracts/{${written}}`);
      const claims = await post(t.app, `${FLIGHT}/getclaims`, { contractNumber: written }, partner.auth);
      assert.equal(claims.status, 200, `getclaims ${written}: ${JSON.stringify(claims.body)}`);
      const messages = await get(`${FLIGHT}/sandbox/messages?contractNumber=${query}`);
      assert.equal(messages.status, 200, `sandbox/messages ${written}: ${JSON.stringify(messages.body)}`);
    }
    const cancelled = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: insured.contractNumber.toLowerCase(), reason: 'customer_request' },
      partner.auth,
    );
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.contractNumber, insured.contractNumber);
  });

  it('refuses an offset no zone has, and 24:00, rather than insuring another departure', async () => {
    const local = trip(30).departureDateTime;
    for (const offset of ['+99:99', '+24:00', '+14:30', '-13:00', '+05:60']) {
      const res = await post(
        t.app,
        `${FLIGHT}/getPrice`,
        { ...trip(30), departureDateTime: local + offset },
        partner.auth,
      );
      assert.equal(res.status, 422, `${offset}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'invalid_departure_time');
      assert.deepEqual(
        res.body.errors.map((e: { field: string }) => e.field),
        ['/departureDateTime'],
      );
    }
    // the widest offsets in use are read as the instant they name
    for (const [offset, hours] of [
      ['+14:00', 14],
      ['-12:00', -12],
    ] as const) {
      const res = await post(
        t.app,
        `${FLIGHT}/getPrice`,
        { ...trip(30), departureDateTime: local + offset },
        partner.auth,
      );
      assert.equal(res.status, 200, `${offset}: ${JSON.stringify(res.body)}`);
      const expected = new Date(Date.parse(`${local}Z`) - hours * 3_600_000).toISOString();
      assert.equal(res.body.legs[0].departureAt, expected);
    }
    // what JavaScript's toISOString() writes (seconds, milliseconds, Z) is the same departure, to the minute
    const local0 = await post(t.app, `${FLIGHT}/getPrice`, { ...trip(30), departureDateTime: local }, partner.auth);
    assert.equal(local0.status, 200, JSON.stringify(local0.body));
    const iso = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...trip(30), departureDateTime: local0.body.legs[0].departureAt },
      partner.auth,
    );
    assert.equal(iso.status, 200, JSON.stringify(iso.body));
    assert.match(local0.body.legs[0].departureAt, /:00\.000Z$/);
    assert.deepEqual(
      [iso.body.legs[0].departureAt, iso.body.legs[0].departureDateTime],
      [local0.body.legs[0].departureAt, local0.body.legs[0].departureDateTime],
    );
    const midnight = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...trip(30), departureDateTime: `${local.slice(0, 10)}T24:00` },
      partner.auth,
    );
    assert.equal(midnight.status, 422);
    assert.equal(midnight.body.code, 'invalid_departure_time');
    assert.doesNotMatch(midnight.body.detail, /clocks go forward/, 'not a daylight-saving gap');
  });

  it('reads a local time that occurs twice (clocks go back) as its second occurrence, as documented', async () => {
    // New York leaves daylight saving time on the first Sunday of November: 01:30 is first EDT, then EST
    const day = nextUsFallBack(new Date());
    const departure = { ...trip(), departureAirport: 'JFK', arrivalAirport: 'CDG', departureDateTime: `${day}T01:30` };
    const res = await post(t.app, `${FLIGHT}/getPrice`, departure, partner.auth);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.legs[0].departureAt, `${day}T06:30:00.000Z`);
    const first = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...departure, departureDateTime: `${day}T01:30-04:00` },
      partner.auth,
    );
    assert.equal(first.body.legs[0].departureAt, `${day}T05:30:00.000Z`, 'an explicit offset names the first one');
    assert.equal(first.body.legs[0].departureDateTime, `${day}T01:30`);
    const doc = (await t.app.inject({ url: `${FLIGHT}/openapi.json` })).json();
    assert.match(
      JSON.stringify(doc.paths['/getPrice'].post.requestBody),
      /occurs twice/,
      'the document says which instant is insured',
    );
  });

  it('points a bad cursor of GET /webhooks/deliveries at its query parameter, like every other GET list', async () => {
    for (const url of [`${FLIGHT}/webhooks/deliveries?cursor=nope`, `${FLIGHT}/contracts?cursor=nope`]) {
      const res = await get(url);
      assert.equal(res.status, 422, url);
      assert.equal(res.body.code, 'invalid_cursor');
      assert.deepEqual(
        res.body.errors.map((e: { field: string }) => e.field),
        ['querystring:/cursor'],
        url,
      );
    }
  });

  it('documents the event types an endpoint may ask for as the enum the server checks', async () => {
    const doc = (await t.app.inject({ url: `${FLIGHT}/openapi.json` })).json();
    const create = doc.paths['/webhooks/endpoints'].post.requestBody.content['application/json'].schema;
    const update = doc.paths['/webhooks/endpoints/{id}'].patch.requestBody.content['application/json'].schema;
    const listed = create.properties.eventTypes.items.enum as string[];
    assert.ok(listed.includes('claim.paid') && listed.includes('contract.created'), JSON.stringify(listed));
    assert.ok(!listed.includes('webhook.test'), 'the test event is sent on demand, not subscribed to');
    const updateItems = update.properties.eventTypes.anyOf.find((s: { type?: string }) => s.type === 'array').items;
    assert.deepEqual(updateItems.enum, listed);
    const refused = await post(
      t.app,
      `${FLIGHT}/webhooks/endpoints`,
      { url: 'https://example.com/hooks', eventTypes: ['claim.lost'] },
      partner.auth,
    );
    assert.equal(refused.status, 422);
    assert.equal(refused.body.errors[0].field, '/eventTypes/0');
  });

  it('pages every list whole when items are added between two pages: no item twice, none of before missing', async () => {
    const who = await createTestPartner(t.db);
    const read = async (url: string) => {
      const response = await t.app.inject({ method: 'GET', url, headers: who.auth });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };
    const today = new Date().toISOString().slice(0, 10);
    // contracts, newest first: one subscribed after the first page is newer than it, on no later page
    const contracts: string[] = [];
    const subscribeOne = async (n: number) => {
      const insured = await insureFlight(t.app, who, { flightNumber: `AF94${n}0`, days: 20 + n });
      contracts.push(insured.contractNumber);
      return insured;
    };
    for (const n of [1, 2, 3]) await subscribeOne(n);
    const firstContracts = await read(`${FLIGHT}/contracts?limit=2`);
    const added = await subscribeOne(4);
    const secondContracts = await read(`${FLIGHT}/contracts?limit=2&cursor=${firstContracts.nextCursor}`);
    const numbers = (page: { contracts: { contractNumber: string }[] }) => page.contracts.map((c) => c.contractNumber);
    assert.deepEqual([...numbers(firstContracts), ...numbers(secondContracts)], contracts.slice(0, 3).reverse());
    assert.equal(secondContracts.nextCursor, null);
    // claims, oldest first: one opened after the first page comes after the others
    const claimsOf = async (cursor?: string) => {
      const res = await post(
        t.app,
        `${FLIGHT}/getclaims`,
        { fromDate: today, toDate: today, limit: 2, ...(cursor ? { cursor } : {}) },
        who.auth,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as { claims: { contractNumber: string }[]; nextCursor: string | null };
    };
    const flights = [1, 2, 3].map((n) => ({ flightNumber: `AF94${n}0`, days: 20 + n }));
    const openClaim = async (flightNumber: string, days: number) => {
      const departureDate = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
      const res = await post(t.app, `${FLIGHT}/claims`, { flightNumber, departureDate, status: 'cancelled' }, who.auth);
      assert.equal(res.body.claimsOpened?.length, 1, JSON.stringify(res.body));
    };
    for (const f of flights) await openClaim(f.flightNumber, f.days);
    // the first page may stop short at the commit horizon (a notification job's transaction open): the
    // rest, read from its cursor (as documented: following nextCursor until it is null), holds what it left
    const firstClaims = await claimsOf();
    assert.notEqual(firstClaims.nextCursor, null, 'three claims, pages of two: more to read');
    await openClaim(added.flightNumber, 24);
    const laterClaims = await allPages(
      'the rest of the claims',
      async (cursor) => {
        const page = await claimsOf(cursor);
        return { rows: page.claims, nextCursor: page.nextCursor };
      },
      { from: firstClaims.nextCursor! },
    );
    assert.deepEqual(
      [...firstClaims.claims, ...laterClaims].map((c) => c.contractNumber),
      contracts,
    );
    // policies, oldest first: one recorded after the first page comes after the others
    const policies: string[] = [];
    const record = async (n: number) => {
      const res = await post(
        t.app,
        `${POLICY_ADMIN}/policies`,
        {
          product: 'other',
          externalReference: `PAGE-${process.pid}-${n}`,
          policyholder: {
            firstName: 'Zoë',
            lastName: 'Ødegård',
            birthDate: '1990-04-12',
            email: 'zoe@example.com',
            phone: '+33612345678',
            address: { line1: '12 rue Cler', postalCode: '75007', city: 'Paris', country: 'FR' },
          },
          effectiveDate: today,
          expiryDate: new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10),
          premium: { amount: 1_000, currency: 'EUR', frequency: 'annual' },
          risk: { description: 'a bicycle' },
        },
        who.auth,
      );
      assert.equal(res.status, 201, JSON.stringify(res.body));
      policies.push(res.body.policyNumber);
    };
    for (const n of [1, 2, 3]) await record(n);
    const firstPolicies = await read(`${POLICY_ADMIN}/policies?limit=2`);
    await record(4);
    const policyNumbers = (page: { policies: { policyNumber: string }[] }) => page.policies.map((p) => p.policyNumber);
    assert.notEqual(firstPolicies.nextCursor, null, 'three policies, pages of two: more to read');
    const laterPolicies = await allPages(
      'the rest of the policies',
      async (cursor) => {
        const page = await read(`${POLICY_ADMIN}/policies?limit=2&cursor=${cursor}`);
        return { rows: policyNumbers(page), nextCursor: page.nextCursor };
      },
      { from: firstPolicies.nextCursor },
    );
    assert.deepEqual([...policyNumbers(firstPolicies), ...laterPolicies], policies);
  });

  it('takes JSON in UTF-8 only: another charset is a 415 and bytes that are not UTF-8 a 400, never letters replaced', async () => {
    const local = trip(30);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, local, partner.auth);
    const body = JSON.stringify(
      subscription(quote.body.quoteReference, local, {
        customer: { ...CUSTOMER, firstName: 'Zoë', lastName: 'Müller' },
      }),
    );
    const send = (payload: Buffer, contentType: string) =>
      t.app.inject({
        method: 'POST',
        url: `${FLIGHT}/subscribe`,
        headers: { ...partner.auth, 'content-type': contentType },
        payload,
      });
    const latin1 = await send(Buffer.from(body, 'latin1'), 'application/json; charset=iso-8859-1');
    assert.equal(latin1.statusCode, 415, latin1.body);
    assert.equal(latin1.json().code, 'unsupported_media_type');
    const undeclared = await send(Buffer.from(body, 'latin1'), 'application/json');
    assert.equal(undeclared.statusCode, 400, undeclared.body);
    assert.equal(undeclared.json().code, 'malformed_request');
    assert.match(undeclared.json().detail, /UTF-8/);
    const utf8 = await send(Buffer.from(`\ufeff${body}`, 'utf8'), 'application/json; charset="UTF-8"');
    assert.equal(utf8.statusCode, 201, utf8.body);
    const read = await get(`${FLIGHT}/contracts/${utf8.json().contractNumber}`);
    assert.deepEqual([read.body.customer.firstName, read.body.customer.lastName], ['Zoë', 'Müller']);
  });

  it('echoes an X-Request-Id of up to 128 characters, in the header and the problem, as the document allows', async () => {
    const contract = new OpenApiContract(t.app);
    await contract.load(FLIGHT);
    const url = `${FLIGHT}/contracts/FD-0000-0000`;
    const longest = `req-${'7'.repeat(124)}`;
    const echoed = await t.app.inject({ url, headers: { ...partner.auth, 'x-request-id': longest } });
    assert.equal(echoed.statusCode, 404);
    assert.equal(echoed.headers['x-request-id'], longest);
    assert.equal(echoed.json().requestId, longest);
    contract.check(FLIGHT, 'GET', url, echoed);
    const tooLong = await t.app.inject({ url, headers: { ...partner.auth, 'x-request-id': `${longest}7` } });
    assert.match(String(tooLong.headers['x-request-id']), /^[0-9a-f-]{36}$/, 'a longer one is replaced by a UUID');
    contract.check(FLIGHT, 'GET', url, tooLong);
  });

  it('opens the claims of a reported flight however its designator is spelled (AF006 ≡ AF6), as the monitoring does', async () => {
    const sold = [
      await insureFlight(t.app, partner, { flightNumber: 'AF97', days: 14 }),
      await insureFlight(t.app, partner, { flightNumber: 'AF0098', days: 14 }),
    ];
    for (const [reported, insured] of [
      ['AF097', sold[0]!],
      ['AF98', sold[1]!],
    ] as const) {
      const res = await post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber: reported, departureDate: insured.departureDate, status: 'cancelled' },
        partner.auth,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        res.body.claimsOpened.map((c: { contractNumber: string; flightNumber: string }) => [
          c.contractNumber,
          c.flightNumber,
        ]),
        [[insured.contractNumber, insured.flightNumber]],
        `${reported} is ${insured.flightNumber}`,
      );
    }
    const again = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF97', departureDate: sold[0]!.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.deepEqual(again.body.claimsOpened, [], 'one claim per insured flight, whatever the spelling');
  });

  it("refuses a policy's free-form risk nested deeper than 64 levels with a 422, not a 500", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const policy = (n: number, risk: string) =>
      `{"product":"other","externalReference":"DEEP-${process.pid}-${n}","policyholder":{"firstName":"A",` +
      `"lastName":"B","birthDate":"1990-04-12","email":"a@example.com","phone":"+33612345678","address":` +
      `{"line1":"1 rue Cler","postalCode":"75007","city":"Paris","country":"FR"}},"effectiveDate":"${today}",` +
      `"expiryDate":"${new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10)}",` +
      `"premium":{"amount":100,"currency":"EUR","frequency":"annual"},"risk":${risk}}`;
    const nested = (levels: number, leaf: string) => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;
    // thousands of levels overflowed JSON.stringify; a U+0000 below the 64 levels walked reached PostgreSQL
    for (const [n, risk] of [
      [1, nested(5_000, '1')],
      [2, nested(80, '"x\\u0000y"')],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${POLICY_ADMIN}/policies`,
        headers: { ...partner.auth, 'content-type': 'application/json' },
        payload: policy(n, risk),
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().code, 'validation_failed');
      assert.match(res.json().errors[0].field, /^\/risk\/a\/a\//);
    }
    const fine = await t.app.inject({
      method: 'POST',
      url: `${POLICY_ADMIN}/policies`,
      headers: { ...partner.auth, 'content-type': 'application/json' },
      payload: policy(3, nested(20, '"a bicycle"')),
    });
    assert.equal(fine.statusCode, 201, fine.body);
  });

  it('documents the commission rate of /getPrice/simulate as the server reads it: at most 5 decimals', async () => {
    const doc = (await t.app.inject({ url: `${FLIGHT}/openapi.json` })).json();
    const schema = doc.paths['/getPrice/simulate'].post.requestBody.content['application/json'].schema;
    assert.match(schema.properties.commissionRate.description, /at most 5 decimals/);
    const res = await post(
      t.app,
      `${FLIGHT}/getPrice/simulate`,
      {
        ...trip(30),
        formula: 'cancellation',
        compensation: { cancellation: { amount: 15_000, currency: 'EUR' } },
        commissionRate: 0.1 + 0.2,
      },
      partner.auth,
    );
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [['/commissionRate', 'invalid_format']],
    );
  });

  it("lists in the documents' problem codes none that only the consoles and the CLI answer", async () => {
    const operatorsOnly = [
      'partner_not_found',
      'api_key_not_found',
      'flight_watch_not_found',
      'stop_sale_not_found',
      'agreement_already_signed',
      'agreement_missing',
      'conflict',
    ];
    // each API keeps its own codes (an operation lists only what it answers: openapi.http.test.ts)
    const own: Record<string, string> = {
      [FLIGHT]: 'contract_not_found',
      '/demo/v1': 'zip_code_not_found',
      [POLICY_ADMIN]: 'policy_not_found',
    };
    for (const prefix of [FLIGHT, '/demo/v1', POLICY_ADMIN]) {
      const doc = (await t.app.inject({ url: `${prefix}/openapi.json` })).json();
      const listed = new Set<string>();
      for (const ops of Object.values(doc.paths as Record<string, Record<string, { responses: object }>>))
        for (const op of Object.values(ops))
          for (const response of Object.values(op.responses as Record<string, { 'x-problem-codes'?: string[] }>))
            for (const code of response['x-problem-codes'] ?? []) listed.add(code);
      assert.deepEqual(
        operatorsOnly.filter((code) => listed.has(code)),
        [],
        prefix,
      );
      assert.ok(listed.has(own[prefix]!) && listed.has('validation_failed'), `${prefix}: the partner codes stay`);
    }
  });
});

describe('a server shutting down', () => {
  it('answers a request arriving on a kept-alive connection with a problem+json 503 and closes it', async () => {
    const t = await buildTestApp();
    let closed = false;
    try {
      const partner = await createTestPartner(t.db);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as net.AddressInfo;
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      const ended = new Promise((resolve) => socket.once('close', resolve));
      // a first request in flight (its body not all sent) keeps the connection busy while the app closes
      const firstRequest = new Promise((resolve) => t.app.server.once('request', resolve));
      const body = JSON.stringify({ fromDate: '2026-01-01', toDate: '2026-01-02' });
      const headers = `Host: x\r\nAuthorization: ${partner.auth.authorization}\r\n`;
      socket.write(
        `POST ${FLIGHT}/getclaims HTTP/1.1\r\n${headers}Content-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      await firstRequest;
      const closing = t.app.close();
      closed = true;
      socket.write(`${body.slice(5)}GET ${FLIGHT}/contracts HTTP/1.1\r\n${headers}\r\n`);
      await ended;
      await closing;
      const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
      assert.match(first ?? '', /^HTTP\/1\.1 200 /, received);
      assert.match(second ?? '', /^HTTP\/1\.1 503 /, received);
      assert.match(second!, /\r\ncontent-type: application\/problem\+json/i);
      assert.match(second!, /\r\nconnection: close/i);
      assert.match(second!, /\r\nx-request-id: \S+/i);
      const problem = JSON.parse(second!.slice(second!.indexOf('\r\n\r\n') + 4));
      assert.equal(problem.code, 'service_unavailable');
      assert.equal(problem.status, 503);
      socket.destroy();
    } finally {
      if (!closed) await t.app.close();
      await t.database.close();
    }
  });
});

/** The next day New York leaves daylight saving time (first Sunday of November), at least two days ahead. */
function nextUsFallBack(now: Date): string {
  for (const year of [now.getUTCFullYear(), now.getUTCFullYear() + 1]) {
    const first = new Date(Date.UTC(year, 10, 1));
    const sunday = new Date(first.getTime() + ((7 - first.getUTCDay()) % 7) * 86_400_000);
    if (sunday.getTime() > now.getTime() + 2 * 86_400_000) return sunday.toISOString().slice(0, 10);
  }
  throw new Error('unreachable: a first Sunday of November is always less than a year ahead');
}
