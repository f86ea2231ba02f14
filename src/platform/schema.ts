import { Type, type SchemaOptions, type TUnsafe } from '@sinclair/typebox';

/**
 * A string enum as plain JSON Schema `{ type: string, enum: [...] }`: one clear validation message
 * ("must be one of …") and a clean `enum` in OpenAPI, where a TypeBox union of literals gives anyOf.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * The bounds of a number written in a string (a page size in the query string, where every value is
 * a string): `x-bounds: { minimum, maximum }`. A string of digits outside them fails with Ajv's own
 * `minimum` or `maximum` keyword (an `out_of_range` field error, platform/problem.ts) next to the
 * query's other errors; a string that is not digits is left to the schema's `pattern`.
 */
export const BOUNDS_KEYWORD = {
  keyword: 'x-bounds',
  type: 'string',
  schemaType: 'object',
  errors: true,
  validate: function bounds(schema: { minimum: number; maximum: number }, data: string): boolean {
    if (!/^[0-9]+$/.test(data)) return true;
    const value = Number(data);
    const keyword = value < schema.minimum ? 'minimum' : value > schema.maximum ? 'maximum' : undefined;
    if (!keyword) return true;
    const limit = keyword === 'minimum' ? schema.minimum : schema.maximum;
    (bounds as { errors?: unknown[] }).errors = [
      {
        keyword,
        params: { comparison: keyword === 'minimum' ? '>=' : '<=', limit },
        message: `must be ${schema.minimum} to ${schema.maximum}`,
      },
    ];
    return false;
  },
} as const;

/**
 * `x-alone: false` on a property that cannot be the only one of an object (a change's `reason`, given
 * with what it explains): an object with too few properties (`minProperties`) names only those that
 * can stand alone (platform/problem.ts). An annotation: Ajv checks nothing more.
 */
export const ALONE_KEYWORD = { keyword: 'x-alone', schemaType: 'boolean' } as const;

/**
 * A page size in the query string: digits (else `invalid_format`, the description in words) from
 * `min` to `max` (else `out_of_range`, see BOUNDS_KEYWORD: `limit=1000` is out of range, not too long).
 * Past nine digits it is only `too_long` (platform/problem.ts: the bounds it also fails are implied).
 */
export function PageLimit(bounds: { min: number; max: number }, options: SchemaOptions & { description: string }) {
  return Type.String({
    pattern: '^[0-9]+$',
    maxLength: 9,
    'x-bounds': { minimum: bounds.min, maximum: bounds.max },
    ...options,
  });
}
