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
      now: () => STORY_DAY,
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
    assert.deepEqual(shapeOf(documentedQuote), shapeOf(quote.body.quoteReference));
    assert.deepEqual(payloadOf(documentedQuote), payloadOf(quote.body.quoteReference));
    assert.equal(subscribeBody.consent.documentsVersion, quote.body.documents.version);
    issued.set(documentedQuote, quote.body.quoteReference);

    const subscribed = await send(FLIGHT, 'post', '/subscribe', subscribeBody);
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
    assert.deepEqual(shapeOf(documentedChange), shapeOf(preview.body.changeReference));
    assert.deepEqual(
      payloadOf(documentedChange),
      payloadOf(preview.body.changeReference, [[subscribed.body.contractNumber, documentedContract]]),
    );
    issued.set(documentedChange, preview.body.changeReference);
    ran.delete(`POST ${FLIGHT}/contracts/{contractNumber}/flight-change`); // confirmed below, with the others
  });

  it('the home quote → policy story of the Demo API and the API to manage policies runs from its examples', async () => {
    const quote = await send(DEMO, 'post', '/getPrice', example(DEMO, 'post', '/getPrice'));
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const policyBody = example(POLICY_ADMIN, 'post', '/policies');
    const documentedQuote: string = policyBody.quoteReference;
    assert.deepEqual(shapeOf(documentedQuote), shapeOf(quote.body.quoteReference));
    // the quote's own random id (first) aside
    assert.deepEqual(
      (payloadOf(documentedQuote) as unknown[]).slice(1),
      (payloadOf(quote.body.quoteReference) as unknown[]).slice(1),
    );
    assert.equal(policyBody.premium.amount, quote.body.monthlyPremium.amount);
    issued.set(documentedQuote, quote.body.quoteReference);
    const policy = await send(POLICY_ADMIN, 'post', '/policies', policyBody);
    assert.equal(policy.status, 201, JSON.stringify(policy.body));
    issued.set(paramExample(POLICY_ADMIN, '/policies/{policyNumber}', 'get', 'policyNumber'), policy.body.policyNumber);
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
      : /partial-cancellation/.test(path)
        ? 1
        : /cancel$/.test(path) || method === 'delete'
          ? 3
          : 2;
  /** What no story issues: the documented claim and delivery ids name nothing here. */
  const NOT_ISSUED = new Set(['claim_not_found', 'webhook_delivery_not_found']);

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
          const res = await send(prefix, method, url, body);
          const where = `${method.toUpperCase()} ${url} ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`;
          // 409: the state of the story's contract or policy, not the example, decides (a home policy
          // has no vehicle to change); anything else but a success means the example is not one
          if (res.status === 404) assert.ok(NOT_ISSUED.has(res.body.code), where);
          else assert.ok(res.status < 300 || res.status === 409, where);
          sent++;
        }
      }
      assert.ok(sent > 0);
    });
});
