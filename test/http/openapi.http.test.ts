import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helper.ts';
import { CUSTOMER_LANGUAGES } from '../../src/platform/language.ts';

/** Each API's OpenAPI document is its public contract: complete, typed, with examples. */
const APIS = [
  { prefix: '/flight-delay/v1', title: 'Flight Delay and Cancellation API' },
  { prefix: '/demo/v1', title: 'Demo API' },
  { prefix: '/policy-admin/v1', title: 'API to manage policies' },
];

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
}

/** Every property, at every depth, has a type (or is a union/enum of typed schemas). */
function untyped(schema: Schema, at: string): string[] {
  if (schema.anyOf) return schema.anyOf.flatMap((s, i) => untyped(s, `${at}|${i}`));
  const out: string[] = [];
  if (!schema.type && !schema.enum && !schema.$ref) out.push(at);
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    out.push(...untyped(property, `${at}/${name}`));
  if (schema.items) out.push(...untyped(schema.items, `${at}/items`));
  return out;
}

describe('OpenAPI documents', () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp()));
  after(() => t.close());

  for (const api of APIS) {
    describe(api.title, () => {
      let doc: any;
      before(async () => {
        const res = await t.app.inject({ method: 'GET', url: `${api.prefix}/openapi.json` });
        assert.equal(res.statusCode, 200);
        doc = res.json();
      });

      it('is OpenAPI 3.1 with its base path as server and bearer auth', () => {
        assert.equal(doc.openapi, '3.1.0');
        assert.equal(doc.info.title, api.title);
        assert.deepEqual(
          doc.servers.map((s: { url: string }) => s.url),
          [api.prefix],
        );
        assert.equal(doc.components.securitySchemes.apiKey.scheme, 'bearer');
      });

      it('documents every route of the API, and every documented route exists', () => {
        // OpenAPI writes path parameters {name}, Fastify :name
        const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
          Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${api.prefix}${path.replace(/\{(\w+)\}/g, ':$1')}`),
        );
        const registered = t.app.parasol.routes.filter(
          (r) => r.split(' ')[1]!.startsWith(`${api.prefix}/`) && !r.endsWith('/openapi.json'),
        );
        assert.ok(registered.length > 0, `${api.prefix} registers routes`);
        assert.deepEqual([...documented].sort(), [...new Set(registered)].sort());
        for (const route of documented) {
          const [method, url] = route.split(' ');
          assert.ok(t.app.hasRoute({ method: method as 'POST', url: url! }), `${route} answers`);
        }
      });

      it('gives every operation an id, a summary, an example body, typed fields and problem responses', () => {
        for (const [path, ops] of Object.entries(doc.paths)) {
          for (const [method, op] of Object.entries(ops as Record<string, any>)) {
            const where = `${method.toUpperCase()} ${path}`;
            assert.ok(op.operationId, `${where} operationId`);
            assert.ok(op.summary && op.description, `${where} summary and description`);
            const queryOrHeader = (op.parameters ?? []).filter((p: any) => p.in === 'query');
            if (method === 'get' && queryOrHeader.length > 0) {
              // a GET takes its input as documented, typed parameters, with examples
              assert.ok(
                op.parameters.some((p: any) => p.example !== undefined || p.examples !== undefined),
                `${where} has an example`,
              );
              for (const p of op.parameters)
                assert.deepEqual(untyped(p.schema, `${p.in}:${p.name}`), [], `${where}: every parameter is typed`);
            } else if (
              method !== 'get' &&
              method !== 'delete' &&
              !path.endsWith('}') &&
              !/\/\{id\}\/[a-z-]+$/.test(path)
            ) {
              const content = op.requestBody?.content?.['application/json'];
              assert.ok(content, `${where} has a JSON body`);
              assert.ok(content.example ?? content.examples, `${where} has an example`);
              assert.deepEqual(untyped(content.schema, 'body'), [], `${where}: every request field is typed`);
            }
            assert.ok(
              Object.keys(op.responses).some((s) => s.startsWith('2')),
              `${where} success response`,
            );
            for (const status of ['401', '403', '405', '414', '422', '429'])
              assert.ok(op.responses[status], `${where} documents ${status}`);
            for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
              assert.notEqual(response.description, 'Default Response', `${where} ${status} described`);
              assert.ok(response.headers['X-Request-Id'], `${where} ${status} declares X-Request-Id`);
              if (Number(status) >= 400) {
                assert.deepEqual(Object.keys(response.content), ['application/problem+json'], `${where} ${status}`);
                assert.equal(response.content['application/problem+json'].schema.$ref, '#/components/schemas/Problem');
                assert.ok(response['x-problem-codes'].length > 0, `${where} ${status} lists its codes`);
                assert.ok(
                  !response['x-problem-codes'].includes('claim_settled'),
                  `${where} ${status}: the claim desk's codes are the operators' only`,
                );
              } else assert.ok(response.headers['RateLimit-Remaining'], `${where} ${status} declares RateLimit-*`);
              if (status === '201') assert.ok(response.headers.Location, `${where} 201 declares Location`);
            }
            assert.ok(op.responses['401'].headers['WWW-Authenticate'], `${where} 401 declares WWW-Authenticate`);
            assert.ok(op.responses['429'].headers['Retry-After'], `${where} 429 declares Retry-After`);
            // what the platform answers before the route: a body too large or not JSON
            if (op.requestBody)
              for (const status of ['413', '415']) assert.ok(op.responses[status], `${where} documents ${status}`);
          }
        }
      });

      // the other APIs check their own fields in their own tests
      if (api.prefix === '/flight-delay/v1')
        it('documents enums, formats and bounds of request fields', () => {
          const price = doc.paths['/getPrice'].post.requestBody.content['application/json'].schema;
          assert.equal(price.properties.additionalPassengers.maximum, 8);
          assert.ok(price.properties.departureAirport.pattern, 'departureAirport has a pattern');
          const cancel = doc.paths['/cancel'].post.requestBody.content['application/json'].schema;
          assert.ok(cancel.properties.reason.enum.includes('ticket_cancelled'), 'the reasons of /cancel are listed');
          const claims = doc.paths['/getclaims'].post.requestBody.content['application/json'].schema;
          assert.equal(claims.properties.fromDate.format, 'date');
          const subscribe = doc.paths['/subscribe'].post.requestBody.content['application/json'].schema;
          assert.deepEqual(subscribe.properties.customer.properties.language.enum, [...CUSTOMER_LANGUAGES]);
        });

      it('serves the document without an API key', async () => {
        const res = await t.app.inject({ method: 'GET', url: `${api.prefix}/openapi.json` });
        assert.equal(res.statusCode, 200);
        assert.match(String(res.headers['content-type']), /application\/json/);
      });
    });
  }
});

describe("An operation's problem codes", () => {
  let t: TestApp;
  let flight: any;
  before(async () => {
    t = await buildTestApp();
    flight = (await t.app.inject({ url: '/flight-delay/v1/openapi.json' })).json();
  });
  after(() => t.close());

  const codesOf = (path: string, method: string, status: number): string[] =>
    flight.paths[path][method].responses[status]['x-problem-codes'];

  it("are that operation's, not every code of the status in the platform", () => {
    // a partner reading the 409 of /subscribe sees no webhook nor policy code
    assert.deepEqual(codesOf('/subscribe', 'post', 409), [
      'quote_already_used',
      'idempotency_request_in_progress',
      'capacity_exceeded',
      'sales_suspended',
    ]);
    assert.deepEqual(codesOf('/webhooks/deliveries/{id}/redeliver', 'post', 404), ['webhook_delivery_not_found']);
    assert.deepEqual(codesOf('/contracts/{contractNumber}', 'get', 404), ['contract_not_found']);
    const description = flight.paths['/subscribe'].post.responses[409].description as string;
    assert.match(description, /Codes: `quote_already_used`, `idempotency_request_in_progress`/);
    assert.doesNotMatch(description, /webhook|policy/);
  });

  it('name what every operation shares, and the idempotency layer only on idempotent operations', () => {
    for (const [path, method] of [
      ['/subscribe', 'post'],
      ['/contracts', 'get'],
      ['/webhooks/endpoints', 'get'],
    ] as const) {
      assert.deepEqual(codesOf(path, method, 401), ['unauthenticated']);
      assert.deepEqual(codesOf(path, method, 403).slice(0, 2), ['api_not_subscribed', 'agreement_not_signed']);
      assert.ok(codesOf(path, method, 422).includes('validation_failed'), `${method} ${path}`);
      assert.deepEqual(codesOf(path, method, 429), ['rate_limited']);
    }
    assert.ok(
      codesOf('/subscribe', 'post', 422).includes('idempotency_key_reused'),
      '/subscribe takes idempotency keys',
    );
    assert.ok(!codesOf('/getPrice', 'post', 422).includes('idempotency_key_reused'), '/getPrice takes none');
    assert.equal(flight.paths['/getPrice'].post.responses[404], undefined, 'a quote answers no 404');
  });

  it('include the 403 forbidden of /claims with a production key, which no other operation answers', () => {
    assert.deepEqual(codesOf('/claims', 'post', 403), ['api_not_subscribed', 'agreement_not_signed', 'forbidden']);
    assert.deepEqual(codesOf('/subscribe', 'post', 403), ['api_not_subscribed', 'agreement_not_signed']);
  });

  it('include a body too large or not JSON on every operation whose method carries a body', () => {
    // Fastify reads the body of a POST or DELETE even when the route takes none
    assert.deepEqual(codesOf('/webhooks/endpoints/{id}', 'delete', 415), ['unsupported_media_type']);
    assert.deepEqual(codesOf('/webhooks/endpoints/{id}/rotate-secret', 'post', 413), ['payload_too_large']);
    assert.equal(flight.paths['/contracts'].get.responses[415], undefined);
  });
});
