import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * Checks live answers against the OpenAPI document of their API: the status is documented for the
 * operation, the content type is the documented one (application/json for successes,
 * application/problem+json for errors), the body validates (Ajv, JSON Schema 2020-12, formats
 * checked) against the documented schema, and the documented headers X-Request-Id (every answer),
 * WWW-Authenticate (401, and 403 api_not_subscribed, in RFC 6750's form), Retry-After (429), Location (201) and RateLimit-* (where declared) are sent.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly docs = new Map<string, any>();
  /** Operations checked, `METHOD /path status`. */
  readonly seen = new Set<string>();

  constructor(private readonly app: FastifyInstance) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
  }

  async load(prefix: string): Promise<any> {
    const doc = (await this.app.inject({ method: 'GET', url: `${prefix}/openapi.json` })).json();
    this.ajv.addSchema({ ...doc, $id: `doc:${prefix}` });
    this.docs.set(prefix, doc);
    return doc;
  }

  /** The document of `prefix`, as load() read it. */
  document(prefix: string): any {
    const doc = this.docs.get(prefix);
    assert.ok(doc, `document of ${prefix} loaded`);
    return doc;
  }

  /** The operation of `method url` in the document of `prefix`, with its path template. */
  private operation(prefix: string, method: string, url: string): { template: string; op: any; method?: string } {
    const doc = this.docs.get(prefix);
    assert.ok(doc, `document of ${prefix} loaded`);
    const path = url.split('?')[0]!.slice(prefix.length);
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
      if (pattern.test(path) && ops[method.toLowerCase()]) return { template, op: ops[method.toLowerCase()] };
    }
    // another method on a documented path answers 405, documented on each of that path's operations
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
      const [other] = Object.keys(ops);
      if (pattern.test(path) && other) return { template, op: ops[other], method: other };
    }
    throw new assert.AssertionError({ message: `${method} ${path} is not documented in ${prefix}` });
  }

  /** Asserts that `response` to `method url` is what the document says. */
  check(prefix: string, method: string, url: string, response: LightMyRequestResponse): void {
    const found = this.operation(prefix, method, url);
    const { template, op } = found;
    const documentedMethod = found.method ?? method.toLowerCase();
    const status = String(response.statusCode);
    const where = `${method} ${template} ${status}`;
    const documented = op.responses[status];
    assert.ok(documented, `${where} is documented (documented: ${Object.keys(op.responses).join(', ')})`);
    this.seen.add(where);
    assert.ok(response.headers['x-request-id'], `${where} sends X-Request-Id`);
    if (status === '401') assert.ok(response.headers['www-authenticate'], `${where} sends WWW-Authenticate`);
    if (status === '429') assert.ok(response.headers['retry-after'], `${where} sends Retry-After`);
    if (status === '201') assert.ok(response.headers.location, `${where} sends Location`);
    // a 429 for failed authentications from an address (no key) carries only Retry-After
    if (documented.headers?.['RateLimit-Limit'] && status !== '429')
      for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'])
        assert.ok(response.headers[name] !== undefined, `${where} sends the documented ${name}`);
    const types = Object.keys(documented.content ?? {});
    if (types.length === 0) {
      assert.equal(response.body, '', `${where} has no body`);
      return;
    }
    const type = String(response.headers['content-type'] ?? '').split(';')[0]!;
    assert.ok(types.includes(type), `${where} content type ${type} is documented (${types.join(', ')})`);
    const pointer = ['paths', template, documentedMethod, 'responses', status, 'content', type]
      .map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    const validate = this.ajv.compile({ $ref: `doc:${prefix}#/${pointer}/schema` });
    const body: unknown = JSON.parse(response.body);
    assert.ok(validate(body), `${where} body matches the document: ${this.ajv.errorsText(validate.errors)}`);
    if (type === 'application/problem+json') {
      const code = (body as { code: string }).code;
      // RFC 6750 §3, as the document's WWW-Authenticate says
      if (status === '401')
        assert.match(
          String(response.headers['www-authenticate']),
          /^Bearer realm="parasol"(, error="invalid_token", error_description="[^"\\]*")?$/,
          `${where} challenge`,
        );
      if (code === 'api_not_subscribed')
        assert.match(
          String(response.headers['www-authenticate']),
          /^Bearer realm="parasol", error="insufficient_scope", error_description="[^"\\]*", scope="[a-z-]+"$/,
          `${where} challenge`,
        );
      const listed = documented['x-problem-codes'] as string[];
      assert.ok(listed.includes(code), `${where} code ${code} is listed (${listed.join(', ')})`);
    }
  }

  /** Asserts that a delivered webhook body matches the document's `webhooks` entry of its type. */
  checkWebhook(prefix: string, raw: string): string {
    const body = JSON.parse(raw) as { type: string };
    const doc = this.docs.get(prefix);
    assert.ok(doc.webhooks?.[body.type], `webhook ${body.type} is documented`);
    const esc = body.type.replace(/~/g, '~0').replace(/\//g, '~1');
    const validate = this.ajv.compile({
      $ref: `doc:${prefix}#/webhooks/${esc}/post/requestBody/content/application~1json/schema`,
    });
    assert.ok(validate(body), `webhook ${body.type} matches the document: ${this.ajv.errorsText(validate.errors)}`);
    return body.type;
  }

  /**
   * Every example in the document validates against its schema: those of request bodies, parameters
   * and responses (`example`, and each of `examples`), and every schema's own `examples` wherever the
   * schema is (properties, components, webhooks).
   */
  checkExamples(prefix: string): number {
    const doc = this.docs.get(prefix);
    let count = 0;
    const verify = (pointer: string, example: unknown, where: string) => {
      const validate = this.ajv.compile({ $ref: `doc:${prefix}#/${pointer}` });
      assert.ok(
        validate(example),
        `${where}: example ${JSON.stringify(example)} ${this.ajv.errorsText(validate.errors)}`,
      );
      count++;
    };
    const esc = (p: string) => p.replace(/~/g, '~0').replace(/\//g, '~1');
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>))
      for (const [method, op] of Object.entries(ops)) {
        const base = `paths/${esc(path)}/${method}`;
        for (const [type, content] of Object.entries((op.requestBody?.content ?? {}) as Record<string, any>)) {
          const examples = [
            ...(content.example !== undefined ? [content.example] : []),
            ...Object.values((content.examples ?? {}) as Record<string, { value: unknown }>).map((e) => e.value),
          ];
          for (const example of examples)
            verify(`${base}/requestBody/content/${esc(type)}/schema`, example, `${method} ${path} body`);
        }
        (op.parameters ?? []).forEach((p: any, i: number) => {
          if (p.example !== undefined)
            verify(`${base}/parameters/${i}/schema`, p.example, `${method} ${path} ${p.name}`);
        });
        (op.parameters ?? []).forEach((p: any, i: number) => {
          for (const e of Object.values((p.examples ?? {}) as Record<string, { value: unknown }>))
            verify(`${base}/parameters/${i}/schema`, e.value, `${method} ${path} ${p.name}`);
        });
        for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, any>))
          for (const [type, content] of Object.entries((response.content ?? {}) as Record<string, any>)) {
            const examples = [
              ...(content.example !== undefined ? [content.example] : []),
              ...Object.values((content.examples ?? {}) as Record<string, { value: unknown }>).map((e) => e.value),
            ];
            for (const example of examples)
              verify(`${base}/responses/${status}/content/${esc(type)}/schema`, example, `${method} ${path} ${status}`);
          }
      }
    // a schema's own examples (JSON Schema `examples`: an array), wherever it is
    const walk = (node: unknown, pointer: string[]): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, [...pointer, String(i)]));
      for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
        if (key === 'example') continue;
        if (key === 'examples' && Array.isArray(value)) {
          for (const example of value) verify(pointer.map(esc).join('/'), example, `#/${pointer.join('/')}`);
          continue;
        }
        // a media type's or parameter's named examples, checked above (but a property named examples)
        if (key === 'examples' && pointer.at(-1) !== 'properties') continue;
        walk(value, [...pointer, key]);
      }
    };
    walk(doc, []);
    return count;
  }
}
