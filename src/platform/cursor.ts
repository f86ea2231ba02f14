import { sql } from 'kysely';
import type { Executor } from './db.ts';
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

/**
 * A cursor's instant, exactly as `Date.toISOString` writes it, from 1970 to 9999 (a row's, or the
 * start), or undefined: so no date JavaScript reads and PostgreSQL cannot (year 275760, before Christ)
 * reaches SQL. What every keyset cursor reads its instant with.
 */
export function cursorInstant(at: unknown): Date | undefined {
  if (typeof at !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(at)) return undefined;
  const date = new Date(at);
  return date.getTime() >= 0 && date.toISOString() === at ? date : undefined;
}

/** `field` names where the cursor came from, for the 422 (e.g. "/cursor", "querystring:/cursor"). */
export function decodeCursor(cursor: string, field: string): Keyset {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const date = cursorInstant(at);
    if (typeof id === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) && date)
      return { at: date, id };
  } catch {
    // not ours: fall through
  }
  throw new DomainError('invalid_cursor', 'The cursor is not one this API returned.', {
    errors: [{ field, code: 'invalid', message: 'invalid cursor' }],
  });
}

/** Where an oldest-first traversal starts when its first page returned nothing yet (no row is at the epoch). */
const START: Keyset = { at: new Date(0), id: '00000000-0000-0000-0000-000000000000' };

/**
 * The commit horizon of an oldest-first list keyed on a transaction's start time (`now()`): every row
 * committed from now on has a key at or after it. A row's key is its writing transaction's start, so a
 * transaction still open — started at `xact_start` — may yet commit rows keyed from then on, and one
 * starting later keys its rows later than this instant. An oldest-first page therefore returns only
 * rows keyed before the horizon: a row never commits behind a cursor already handed out.
 *
 * Read before the rows (its own statement, so their snapshot is taken after it): a transaction that
 * commits in between is then either visible to the rows' query or still counted here. It sees the
 * transactions of the role it runs as (pg_stat_activity hides other roles' start times unless the role
 * holds pg_read_all_stats): the API and the workers writing these rows share one role. Client backends
 * only (an autovacuum worker's long transaction writes no row of ours); pg_stat_get_activity rather
 * than the pg_stat_activity view and its joins (docs/DECISIONS.md measures it). On PGlite (one
 * connection) it is the clock. Truncated to the millisecond, as the keys are.
 */
export async function commitHorizon(db: Executor): Promise<Date> {
  const { rows } = await sql<{ horizon: Date }>`
    SELECT date_trunc('milliseconds', least(clock_timestamp(), (
      SELECT min(s.xact_start) FROM pg_stat_get_activity(NULL) s
      WHERE s.datid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND s.backend_type = 'client backend' AND s.pid <> pg_backend_pid()))) AS horizon`.execute(db);
  return rows[0]!.horizon;
}

/**
 * One oldest-first page from the rows read after `horizon` (at most limit + 1, in key order): those
 * keyed before the horizon, and the cursor to go on with — also when the only rows left are past the
 * horizon (committed, or maybe not yet: the same cursor again, or the start, when none is before it).
 */
export function oldestFirstPage<R>(
  rows: readonly R[],
  keyOf: (row: R) => Keyset,
  horizon: Date,
  limit: number,
  cursor: string | undefined,
): { page: R[]; nextCursor: string | null } {
  const page = rows.filter((r) => keyOf(r).at < horizon).slice(0, limit);
  if (rows.length === page.length) return { page, nextCursor: null };
  const last = page.at(-1);
  return {
    page,
    nextCursor: last ? encodeKeyset(keyOf(last)) : (cursor ?? encodeKeyset(START)),
  };
}

const encodeKeyset = (k: Keyset) => encodeCursor(k.at, k.id);
