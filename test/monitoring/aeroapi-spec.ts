import { readFileSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { aeroApiDocumentPath } from '../fixtures/reference.ts';

/**
 * Validators built from FlightAware's own AeroAPI 4.17.1 OpenAPI document (test/fixtures/reference,
 * copied into the repository), for operation `get_flight` (GET /flights/{ident}): the fake server's
 * answers and the adapter's query parameters are checked against it, so neither can drift from the
 * real API.
 *
 * The document is OpenAPI 3.1 but still uses the 3.0 `nullable: true`; it is rewritten to
 * `type: [T, 'null']` before compiling with Ajv's JSON Schema 2020-12 dialect. The response schema
 * is also tightened for the fake (no property the document does not declare), since the fake must
 * not invent fields — the adapter itself ignores unknown ones. Ajv runs strict (unknown keywords
 * refused) except for `strictTypes`: the document leaves out `type: object` next to `required`.
 */

// ajv and ajv-formats are CommonJS modules whose default export is on `.default` for TypeScript.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

export { aeroApiDocumentPath };

type Schema = Record<string, unknown>;

/** OpenAPI 3.0 `nullable` → JSON Schema type unions, recursively (returns a copy). */
export function withoutNullable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullable);
  if (!value || typeof value !== 'object') return value;
  const out: Schema = {};
  for (const [k, v] of Object.entries(value)) if (k !== 'nullable') out[k] = withoutNullable(v);
  if ((value as Schema).nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

interface Operation {
  parameters: { name: string; in: string; required?: boolean; schema: Schema }[];
  responses: Record<string, { content: Record<string, { schema: Schema }> }>;
}

function loadOperation(): Operation {
  let text: string;
  try {
    text = readFileSync(aeroApiDocumentPath, 'utf8');
  } catch (error) {
    throw new Error(
      `The AeroAPI OpenAPI document is needed by these tests: ${aeroApiDocumentPath}. ${(error as Error).message}`,
      { cause: error },
    );
  }
  const document = parse(text) as { paths: Record<string, { get: Operation }> };
  const operation = document.paths['/flights/{ident}']?.get;
  if (!operation) throw new Error('GET /flights/{ident} not found in the AeroAPI document');
  return operation;
}

function jsonSchemaOf(operation: Operation, status: string): Schema {
  const content = operation.responses[status]?.content;
  const media = content && Object.values(content)[0];
  if (!media) throw new Error(`No ${status} response schema for GET /flights/{ident}`);
  return withoutNullable(media.schema) as Schema;
}

/** The 200 schema, with undeclared properties refused at every level the document declares. */
function tightened(schema: Schema): Schema {
  const copy = structuredClone(schema) as Schema & { properties: Record<string, Schema> };
  copy.additionalProperties = false;
  const items = copy.properties.flights!.items as Schema & {
    allOf: (Schema & { properties: Record<string, Schema> })[];
  };
  items.unevaluatedProperties = false;
  const base = items.allOf[0]!;
  for (const name of ['origin', 'destination']) base.properties[name]!.additionalProperties = false;
  return copy;
}

export interface AeroApiSpec {
  /** Validates a whole 200 body of GET /flights/{ident}. */
  flightsResponse: ValidateFunction;
  /** Validates an error body (the document's `Error` schema, declared for 400). */
  errorResponse: ValidateFunction;
  /** Query parameters the operation declares, with a validator each (the path's `ident` excluded). */
  queryParameters: Map<string, ValidateFunction>;
}

let cached: AeroApiSpec | undefined;

export function aeroApiSpec(): AeroApiSpec {
  if (cached) return cached;
  const operation = loadOperation();
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true });
  addFormats(ajv);
  for (const keyword of ['example', 'x-fill-example']) ajv.addKeyword(keyword);
  const queryParameters = new Map<string, ValidateFunction>();
  for (const p of operation.parameters) {
    if (p.in === 'query') queryParameters.set(p.name, ajv.compile(withoutNullable(p.schema) as Schema));
  }
  cached = {
    flightsResponse: ajv.compile(tightened(jsonSchemaOf(operation, '200'))),
    errorResponse: ajv.compile(jsonSchemaOf(operation, '400')),
    queryParameters,
  };
  return cached;
}

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('; ');
}
