import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from './db.ts';
import { DomainError } from './errors.ts';

/**
 * Opaque keyset-pagination cursors: the (timestamp, id) of the last row returned, and which list they
 * were handed out for (`listBinding`). Timestamps used this way are stored at millisecond precision
 * (see the migrations), so they round-trip through a JavaScript Date exactly, and the id breaks ties:
 * no row is skipped or repeated — as long as the cursor goes on the list it came from.
 */
export interface Keyset {
  at: Date;
  id: string;
}

/**
 * Which list a cursor belongs to: a short keyed hash (HMAC-SHA256 under `key`, the keyring's `lookup`
 * key, cut to 48 bits, base64url) of everything that chooses the list's rows and their order — the
 * list's name, the caller's partner and environment, then each filter normalised as the list reads it
 * (trimmed, upper-cased, statuses by `statusFilter`; absent: null), in a fixed order. The page size is
 * not part of it (a keyset continues at any size). Keyed because a filter may be personal data (GET
 * /contracts' booking reference, sealed and keyed-hashed everywhere else: a plain hash of a 6-character
 * reference is reversed by trying them all) and so that no one outside forges a binding. It tells a
 * page of another list (other filters, another key's partner or environment) from one of this list,
 * whose rows a keyset taken elsewhere would skip or repeat. The lookup key derives from the current
 * master key: a master key rotation ends the cursors handed out before it (422, start again). Every
 * public list's cursor carries one (`encodeCursor`, `decodeCursor`); so do the operators' claims and
 * payouts lists (claims/operator-claims.ts, payouts/operator-payouts.ts), and the console's and CLI's
 * exposure list (limits/exposure.ts) binds its cursor with it too.
 */
export function listBinding(key: Buffer, list: readonly unknown[]): string {
  return crypto
    .createHmac('sha256', key)
    .update(`list-binding:${JSON.stringify(list)}`)
    .digest()
    .subarray(0, 6)
    .toString('base64url');
}

/**
 * A list's status filter as asked (one status, several, or none): de-duplicated and sorted, so the
 * same statuses in any order or repeated are one list (`listBinding`) and one query.
 */
export function statusFilter<S extends string>(status: S | readonly S[] | undefined): S[] | undefined {
  if (status === undefined) return undefined;
  return [...new Set(typeof status === 'string' ? [status] : status)].sort();
}

/**
 * Cursors handed out before cursors were bound carry no binding; they keep going on until this
 * instant, the release that binds them (docs/DECISIONS.md "Cursors are bound to their list"). An
 * unbound cursor whose keyset instant is at or after it cannot be one handed out before the release —
 * it is a bound cursor stripped of its binding, which would continue another list — and is refused.
 */
export const UNBOUND_CURSORS_BEFORE = new Date('2026-11-28T00:00:00.000Z');

/** `list`: the `listBinding` of the list the cursor is handed out for (none: an unbound cursor). */
export function encodeCursor(at: Date, id: string, list?: string): string {
  return Buffer.from(
    JSON.stringify(list === undefined ? [at.toISOString(), id] : [at.toISOString(), id, list]),
  ).toString('base64url');
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BINDING = /^[A-Za-z0-9_-]{8}$/;

/**
 * `field` names where the cursor came from, for the 422 (e.g. "/cursor", "querystring:/cursor").
 * `list`, the `listBinding` of the list asked for: a cursor bound to another list is refused
 * (`invalid_cursor`, saying the filters changed). A cursor bound to none — handed out before cursors
 * were bound — still continues the list asked for (the next one handed out is bound), as it did then,
 * when its instant is before `UNBOUND_CURSORS_BEFORE`; from then on it is no cursor this API returned
 * (refused): docs/DECISIONS.md "Cursors are bound to their list". Without `list`, any well-formed
 * cursor is read (every list passes one).
 */
export function decodeCursor(cursor: string, field: string, list?: string): Keyset {
  let read: (Keyset & { list: string | undefined }) | undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && (value.length === 2 || value.length === 3)) {
      const [at, id, bound] = value as unknown[];
      const date = cursorInstant(at);
      if (
        typeof id === 'string' &&
        UUID.test(id) &&
        date &&
        (bound === undefined || (typeof bound === 'string' && BINDING.test(bound)))
      )
        read = { at: date, id, list: bound };
    }
  } catch {
    // not ours: refused below
  }
  // a bound list's unbound cursor is one handed out before the release, or one stripped of its binding
  if (read && list !== undefined && read.list === undefined && read.at >= UNBOUND_CURSORS_BEFORE) read = undefined;
  if (!read)
    throw new DomainError('invalid_cursor', 'The cursor is not one this API returned.', {
      errors: [{ field, code: 'invalid', message: 'invalid cursor' }],
    });
  if (list !== undefined && read.list !== undefined && read.list !== list) throw otherFiltersCursor(field);
  return { at: read.at, id: read.id };
}

/**
 * The `invalid_cursor` refusing a cursor that is the next page of a list with other filters (or of
 * another key); `field` as `decodeCursor`'s. For a list that also reads cursors of its own making
 * (the operators' payouts list's, printed before the binding).
 */
export function otherFiltersCursor(field: string): DomainError {
  return new DomainError(
    'invalid_cursor',
    'The cursor is the next page of a list with other filters (or of another key): the filters changed. Send the filters of the first page, or start again from the first page without a cursor.',
    { errors: [{ field, code: 'invalid', message: 'is the next page of a list with other filters' }] },
  );
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
 * horizon (committed, or maybe not yet: the keyset given again, or the start, when none is before it).
 * `after` is the keyset the page was read after (the cursor given, decoded); `list` the `listBinding`
 * the next cursor is bound to.
 */
export function oldestFirstPage<R>(
  rows: readonly R[],
  keyOf: (row: R) => Keyset,
  horizon: Date,
  limit: number,
  after: Keyset | undefined,
  list?: string,
): { page: R[]; nextCursor: string | null } {
  const page = rows.filter((r) => keyOf(r).at < horizon).slice(0, limit);
  if (rows.length === page.length) return { page, nextCursor: null };
  const last = page.at(-1);
  const next = last ? keyOf(last) : (after ?? START);
  return { page, nextCursor: encodeCursor(next.at, next.id, list) };
}
