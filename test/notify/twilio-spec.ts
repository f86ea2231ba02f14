import { readFileSync } from 'node:fs';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { twilioDocumentPath } from '../fixtures/reference.ts';

/**
 * Validators built from Twilio's own OpenAPI document (twilio/twilio-oai, copied into
 * test/fixtures/reference), for `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`: the fake
 * server checks the adapter's form against the request schema and every answer it gives against the
 * `api.v2010.account.message` schema, so neither the adapter nor the fake can drift from the real API.
 *
 * The document declares `openapi: 3.0.1`: its schemas are OpenAPI 3.0 Schema Objects (a JSON Schema
 * draft-04/05 subset plus `nullable`). They use no keyword whose meaning changed since draft-04, so
 * they compile with Ajv's default draft-07 dialect; Ajv implements the OpenAPI `nullable` keyword
 * itself. Twilio's own string formats (phone-number, date-time-rfc-2822, currency) and its `x-twilio`
 * / `ignoreFormat` annotations are registered below; `format: uri-map` on an object is dropped (a
 * format constrains strings only, and Ajv's strict mode refuses it there); `#/components/schemas/…`
 * references are moved under `definitions`. The fake's message schema is tightened with `additionalProperties: false`
 * (the fake must not invent fields; the adapter ignores unknown ones).
 *
 * The document describes only the 201 answer. Error bodies follow Twilio's documented exception
 * format (https://www.twilio.com/docs/usage/twilios-response): `{ code, message, more_info, status }`,
 * given as `twilioErrorSchema` below.
 */

// ajv and ajv-formats are CommonJS modules whose default export is on `.default` for TypeScript.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

export { twilioDocumentPath };
export const MESSAGES_PATH = '/2010-04-01/Accounts/{AccountSid}/Messages.json';

type Schema = Record<string, unknown>;

interface TwilioDocument {
  openapi: string;
  paths: Record<
    string,
    {
      post?: { requestBody: { content: Record<string, { schema: Schema }> } };
      get?: {
        parameters: { name: string; in: string }[];
        responses: Record<string, { content: Record<string, { schema: Schema }> }>;
      };
    }
  >;
  components: { schemas: Record<string, Schema> };
}

function loadDocument(): TwilioDocument {
  let text: string;
  try {
    text = readFileSync(twilioDocumentPath, 'utf8');
  } catch (error) {
    throw new Error(
      `The Twilio OpenAPI document is needed by these tests: ${twilioDocumentPath}. ${(error as Error).message}`,
      { cause: error },
    );
  }
  return JSON.parse(text) as TwilioDocument;
}

/** A copy of `schema` with its component references (transitively) under `definitions`. */
function selfContained(document: TwilioDocument, schema: Schema): Schema {
  const definitions: Record<string, Schema> = {};
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!value || typeof value !== 'object') return value;
    const out: Schema = {};
    for (const [key, inner] of Object.entries(value)) {
      // `format: uri-map` sits on an object (subresource_uris); formats only constrain strings.
      if (key === 'format' && (value as Schema).type === 'object') continue;
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')) {
        const name = inner.slice('#/components/schemas/'.length);
        const target = document.components.schemas[name];
        if (!target) throw new Error(`Twilio document: unresolved ${inner}`);
        if (!(name in definitions)) {
          definitions[name] = {};
          definitions[name] = rewrite(target) as Schema;
        }
        out.$ref = `#/definitions/${name}`;
      } else {
        out[key] = rewrite(inner);
      }
    }
    return out;
  };
  const root = rewrite(schema) as Schema;
  return { ...root, definitions };
}

const RFC_2822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;

function newAjv() {
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-twilio' });
  ajv.addKeyword({ keyword: 'ignoreFormat' });
  // E.164, or what else Twilio accepts as an address: short codes, alphanumeric sender ids, channel addresses.
  ajv.addFormat('phone-number', /^(\+[1-9]\d{1,14}|\d{3,8}|[A-Za-z0-9 ]{1,11}|[a-z]+:\+?[\w.@-]+)$/);
  ajv.addFormat('date-time-rfc-2822', (value: string) => RFC_2822.test(value) && !Number.isNaN(Date.parse(value)));
  ajv.addFormat('currency', /^[A-Za-z]{3}$/);
  return ajv;
}

export interface TwilioValidators {
  /** The 201 body: `api.v2010.account.message`, no undeclared property. */
  message: ValidateFunction;
  /** The form the adapter posts: `CreateMessageRequest`, no undeclared field. */
  request: ValidateFunction;
  /** Twilio's exception body. */
  error: ValidateFunction;
  /** The 200 body of `GET …/Messages.json` (`ListMessageResponse`), no undeclared property, its messages as `message`. */
  list: ValidateFunction;
  /** The query parameters `GET …/Messages.json` declares (besides the path's `AccountSid`). */
  listQuery: readonly string[];
  openapiVersion: string;
}

export const twilioErrorSchema = {
  type: 'object',
  required: ['code', 'message', 'more_info', 'status'],
  additionalProperties: false,
  properties: {
    code: { type: 'integer' },
    message: { type: 'string', minLength: 1 },
    more_info: { type: 'string', format: 'uri' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
  },
} as const;

let cached: TwilioValidators | undefined;

export function twilioValidators(): TwilioValidators {
  if (cached) return cached;
  const document = loadDocument();
  const messageSchema = document.components.schemas['api.v2010.account.message'];
  const requestSchema =
    document.paths[MESSAGES_PATH]?.post?.requestBody.content['application/x-www-form-urlencoded']?.schema;
  const list = document.paths[MESSAGES_PATH]?.get;
  const listSchema = list?.responses['200']?.content['application/json']?.schema;
  if (!messageSchema || !requestSchema || !list || !listSchema)
    throw new Error(`Twilio document: ${MESSAGES_PATH} or api.v2010.account.message not found`);
  const ajv = newAjv();
  const strictList = selfContained(document, listSchema);
  (strictList.definitions as Record<string, Schema>)['api.v2010.account.message'] = {
    ...(strictList.definitions as Record<string, Schema>)['api.v2010.account.message'],
    additionalProperties: false,
  };
  cached = {
    list: ajv.compile({ ...strictList, additionalProperties: false }),
    listQuery: list.parameters.filter((p) => p.in === 'query').map((p) => p.name),
    message: ajv.compile({ ...selfContained(document, messageSchema), additionalProperties: false }),
    request: ajv.compile({ ...selfContained(document, requestSchema), additionalProperties: false }),
    error: ajv.compile(twilioErrorSchema),
    openapiVersion: document.openapi,
  };
  return cached;
}

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
}
