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
