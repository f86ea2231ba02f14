import { DomainError } from './errors.ts';

/**
 * Opaque keyset-pagination cursors: the (timestamp, id) of the last row returned. Timestamps used
 * this way are stored at millisecond precision (see the migrations), so they round-trip through a
 * JavaScript Date exactly, and the id breaks ties: no row is skipped or repeated.
 */
export interface Keyset {
  at: Date;
  id: string;
}

export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
}

/** `field` names where the cursor came from, for the 422 (e.g. "/cursor", "querystring:/cursor"). */
export function decodeCursor(cursor: string, field: string): Keyset {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const date = new Date(at);
    if (
      typeof id === 'string' &&
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) &&
      !Number.isNaN(date.getTime())
    )
      return { at: date, id };
  } catch {
    // not ours: fall through
  }
  throw new DomainError('invalid_cursor', 'The cursor is not one this API returned.', {
    errors: [{ field, code: 'invalid', message: 'invalid cursor' }],
  });
}
