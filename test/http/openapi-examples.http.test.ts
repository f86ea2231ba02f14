import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenApiContract } from '../openapi-contract.ts';
import { buildTestApp, createTestPartner, FLIGHT, POLICY_ADMIN, type TestApp, type TestPartner } from '../helper.ts';

/**
 * The examples of the OpenAPI documents are what the API itself accepts and issues, on the day they
 * tell of (the subscribe example's consent is given that morning), priced by the shipped risk model:
 *  - the quote → subscribe → flight change story of the Flight Delay API and the quote → policy story
 *    of the Demo API and the API to manage policies run from the documented bodies; each documented
 *    signed reference (quote, change) carries the very terms the API signs for the documented request,
 *    in the form it issues them (its signature is a deployment's own, so the issued one is sent);
 *  - then every request example of every document (body, path and query parameters) is sent, the
 *    documented contract and policy numbers and references standing for the ones the stories issued:
 *    none is refused as malformed or invalid (400, 422), none names a contract or policy that is not
 *    there, and every answer matches the document (OpenApiContract).
 */

const DEMO = '/demo/v1';
const PREFIXES = [FLIGHT, DEMO, POLICY_ADMIN];
const STORY_DAY = new Date('2026-11-24T09:20:00Z');
/** The app's clock: the story day, but for the operations of AT. */
let clock = STORY_DAY;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The JSON payload of a signed reference (`<prefix>.<payload>.<tag>[.<id>]`), its UUIDs blanked. */
function payloadOf(reference: string, replace: [string, string][] = []): unknown {
  let text = Buffer.from(reference.split('.')[1]!, 'base64url').toString('utf8').replace(UUID, '<uuid>');
  for (const [from, to] of replace) text = text.replaceAll(from, to);
  return JSON.parse(text);
}
/** The length of each part of a signed reference, its prefix as it is. */
const shapeOf = (reference: string) =>
  reference.split('.').map((part, i) => (i === 0 ? part : i === 1 ? 'payload' : part.length));
/** When a documented reference is not the issued one: the issued one, to paste into the schema's example. */
const paste = (documented: string, issued: string) =>
  `the documented reference ${documented} is not what the API issues: paste the issued one into the example: ${issued}`;

describe('OpenAPI examples against the API', () => {
  let t: TestApp;
  let contract: OpenApiContract;
  let partner: TestPartner;
  const docs = new Map<string, any>();
  /** Documented value → the one the stories issued. */
  const issued = new Map<string, string>();
  /** `METHOD path` of the operations the stories ran. */
  const ran = new Set<string>();
  before(async () => {
    t = await buildTestApp({
      now: () => clock,
      storedRiskModels: true,
      env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on' },
    });
    contract = new OpenApiContract(t.app);
    for (const prefix of PREFIXES) docs.set(prefix, await contract.load(prefix));
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  const substitute = (text: string) => {
    for (const [documented, real] of issued) text = text.replaceAll(documented, real);
    return text;
  };
  async function send(prefix: string, method: string, url: string, body?: unknown) {
    const response = await t.app.inject({
      method: method.toUpperCase() as 'GET',
      url: substitute(`${prefix}${url}`),
      headers: { ...partner.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: substitute(JSON.stringify(body)) }),
    });
    contract.check(prefix, method, substitute(`${prefix}${url}`), response);
    return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined };
  }
  const bodyExamples = (op: any): any[] => {
    const content = op.requestBody?.content?.['application/json'];
    if (!content) return [];
    return [
      ...(content.example !== undefined ? [content.example] : []),
      ...Object.values((content.examples ?? {}) as Record<string, { value: unknown }>).map((e) => e.value),
    ];
  };
  const example = (prefix: string, method: string, path: string) => {
    ran.add(`${method.toUpperCase()} ${prefix}${path}`);
    return bodyExamples(docs.get(prefix).paths[path][method])[0];
  };
  const paramExample = (prefix: string, path: string, method: string, name: string): string =>
    docs.get(prefix).paths[path][method].parameters.find((p: any) => p.name === name).example;

  it('the quote → subscribe → flight change story of the Flight Delay API runs from its examples', async () => {
    const quote = await send(FLIGHT, 'post', '/getPrice', example(FLIGHT, 'post', '/getPrice'));
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const subscribeBody = example(FLIGHT, 'post', '/subscribe');
    const documentedQuote: string = subscribeBody.quoteReference;
    const pasteQuote = paste(documentedQuote, quote.body.quoteReference);
    assert.deepEqual(shapeOf(documentedQuote), shapeOf(quote.body.quoteReference), pasteQuote);
    assert.deepEqual(payloadOf(documentedQuote), payloadOf(quote.body.quoteReference), pasteQuote);
    assert.equal(subscribeBody.consent.documentsVersion, quote.body.documents.version);
    issued.set(documentedQuote, quote.body.quoteReference);

    // the customer accepts the documents after the quote (consent.acceptedAt), the partner subscribes after that
    clock = new Date('2026-11-24T09:30:00Z');
    assert.ok(
      STORY_DAY < new Date(subscribeBody.consent.acceptedAt) && new Date(subscribeBody.consent.acceptedAt) < clock,
    );
    const subscribed = await send(FLIGHT, 'post', '/subscribe', subscribeBody).finally(() => (clock = STORY_DAY));
    assert.equal(subscribed.status, 201, JSON.stringify(subscribed.body));
    const documentedContract = paramExample(FLIGHT, '/contracts/{contractNumber}', 'get', 'contractNumber');
    issued.set(documentedContract, subscribed.body.contractNumber);

    const preview = await send(
      FLIGHT,
      'post',
      `/contracts/${documentedContract}/flight-change/preview`,
      example(FLIGHT, 'post', '/contracts/{contractNumber}/flight-change/preview'),
    );
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    const documentedChange: string = example(
      FLIGHT,
      'post',
      '/contracts/{contractNumber}/flight-change',
    ).changeReference;
    // the issued reference names the contract the story subscribed, the documented one its documented number
    const pasteChange = paste(documentedChange, preview.body.changeReference);
    assert.deepEqual(shapeOf(documentedChange), shapeOf(preview.body.changeReference), pasteChange);
    assert.deepEqual(
      payloadOf(documentedChange),
      payloadOf(preview.body.changeReference, [[subscribed.body.contractNumber, documentedContract]]),
      pasteChange,
    );
    issued.set(documentedChange, preview.body.changeReference);
    ran.delete(`POST ${FLIGHT}/contracts/{contractNumber}/flight-change`); // confirmed below, with the others
  });

  /** The documented success answer of an operation (its 200's example). */
  const documentedAnswer = (prefix: string, path: string): any => {
    const media = docs.get(prefix).paths[path].post.responses['200'].content['application/json'];
    return media.example ?? Object.values(media.examples as Record<string, { value: any }>)[0]!.value;
  };

  it('the home quote → policy story of the Demo API and the API to manage policies runs from its examples', async () => {
    const cities = await send(DEMO, 'post', '/getCityByZipCode', example(DEMO, 'post', '/getCityByZipCode'));
    assert.equal(cities.status, 200, JSON.stringify(cities.body));
    assert.deepEqual(
      cities.body,
      documentedAnswer(DEMO, '/getCityByZipCode'),
      'the documented answer is what /getCityByZipCode answers to the documented request (src/home/response-examples.ts)',
    );
    const quote = await send(DEMO, 'post', '/getPrice', example(DEMO, 'post', '/getPrice'));
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const answer = documentedAnswer(DEMO, '/getPrice');
    assert.deepEqual(
      { ...quote.body, quoteReference: answer.quoteReference },
      answer,
      'the documented answer is what /getPrice answers to the documented request (src/home/response-examples.ts)',
    );
    const policyBody = example(POLICY_ADMIN, 'post', '/policies');
    const documentedQuote: string = policyBody.quoteReference;
    const pasteQuote = paste(documentedQuote, quote.body.quoteReference);
    assert.deepEqual(shapeOf(documentedQuote), shapeOf(quote.body.quoteReference), pasteQuote);
    // the quote's own random id (first) aside
    assert.deepEqual(
      (payloadOf(documentedQuote) as unknown[]).slice(1),
      (payloadOf(quote.body.quoteReference) as unknown[]).slice(1),
      pasteQuote,
    );
    assert.equal(policyBody.premium.amount, quote.body.monthlyPremium.amount);
    issued.set(documentedQuote, quote.body.quoteReference);
    const policy = await send(POLICY_ADMIN, 'post', '/policies', policyBody);
    assert.equal(policy.status, 201, JSON.stringify(policy.body));
    issued.set(paramExample(POLICY_ADMIN, '/policies/{policyNumber}', 'get', 'policyNumber'), policy.body.policyNumber);
  });

  it("every problem example's instance is a path as asked, its parameters given their examples", () => {
    for (const prefix of PREFIXES)
      for (const [path, ops] of Object.entries(docs.get(prefix).paths as Record<string, Record<string, any>>))
        for (const [method, op] of Object.entries(ops))
          for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
            const instance = response.content?.['application/problem+json']?.example?.instance;
            if (instance === undefined) continue;
            assert.ok(instance.startsWith(prefix), `${method} ${path} ${status}: ${instance}`);
            assert.doesNotMatch(instance, /[{}]/, `${method} ${path} ${status}`);
          }
  });

  it('the webhook endpoint example registers an endpoint (at a local receiver: the host of the example is not resolved offline)', async () => {
    const body = example(FLIGHT, 'post', '/webhooks/endpoints');
    const created = await send(FLIGHT, 'post', '/webhooks/endpoints', {
      ...body,
      url: 'http://127.0.0.1:9/parasol/webhooks',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    issued.set(paramExample(FLIGHT, '/webhooks/endpoints/{id}', 'get', 'id'), created.body.endpoint.id);
  });

  /**
   * The order the examples are sent in: a flight change (confirmed on version 1) before the partial
   * cancellations (the first names version 2), the endings (cancel, delete) last.
   */
  const rank = (method: string, path: string) =>
    /flight-change$/.test(path)
      ? 0
      : /partial-cancellation/.test(path) || /\/test$/.test(path)
        ? 1 // a webhook test before the PATCH example disables the endpoint
        : /cancel$/.test(path) || method === 'delete'
          ? 3
          : 2;
  /** What no story issues: the documented claim and delivery ids name nothing here. */
  const NOT_ISSUED = new Set(['claim_not_found', 'webhook_delivery_not_found']);
  /**
   * The only 409 an example may get, per operation: the code and why. A home policy (the Demo API
   * quotes homes, so the story's policy is one) insures no vehicle to register.
   */
  const ALLOWED_409: Record<string, string> = {
    [`PATCH ${POLICY_ADMIN}/policies/{policyNumber}/vehicle`]: 'policy_not_changeable',
  };
  /**
   * The day an operation's example is sent on, when not the story day: a renewal starts at most a
   * year ahead, so the story's policy (2026-12-01 → 2027-12-01) is renewed on the day it takes effect.
   */
  const AT: Record<string, Date> = {
    [`POST ${POLICY_ADMIN}/policies/{policyNumber}/renew`]: new Date('2026-12-01T09:20:00Z'),
  };

  for (const prefix of PREFIXES)
    it(`every request example of ${prefix} is accepted by the API`, async () => {
      const doc = docs.get(prefix);
      let sent = 0;
      const operations = Object.entries(doc.paths as Record<string, Record<string, any>>)
        .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))
        .sort((a, b) => rank(a.method, a.path) - rank(b.method, b.path));
      for (const { path, method, op } of operations) {
        if (ran.has(`${method.toUpperCase()} ${prefix}${path}`)) continue;
        const params = (op.parameters ?? []) as any[];
        const query = params.filter((p) => p.in === 'query' && p.example !== undefined);
        const url =
          path.replace(/\{(\w+)\}/g, (_, name: string) => {
            const p = params.find((q) => q.in === 'path' && q.name === name);
            assert.ok(p?.example !== undefined, `${method} ${path}: {${name}} has an example`);
            return encodeURIComponent(String(p.example));
          }) + (query.length ? `?${new URLSearchParams(query.map((p) => [p.name, String(p.example)]))}` : '');
        const bodies = bodyExamples(op);
        for (const body of bodies.length ? bodies : [undefined]) {
          const operation = `${method.toUpperCase()} ${prefix}${path}`;
          clock = AT[operation] ?? STORY_DAY;
          const res = await send(prefix, method, url, body).finally(() => (clock = STORY_DAY));
          const where = `${method.toUpperCase()} ${url} ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`;
          // a 404 names what no story issues, a 409 is one ALLOWED_409 lists; anything else but a
          // success means the example is not one
          if (res.status === 404) assert.ok(NOT_ISSUED.has(res.body.code), where);
          else if (res.status === 409) assert.equal(res.body.code, ALLOWED_409[operation], where);
          else assert.ok(res.status < 300, where);
          sent++;
        }
      }
      assert.ok(sent > 0);
    });
});
