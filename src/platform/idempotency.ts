import { sql } from 'kysely';
import type { Environment } from './db-schema.ts';
import { transaction, type CountedWrite, type Db, type Trx } from './db.ts';
import { decrypt, encrypt, sha256Hex, type EncryptionKeys } from './crypto.ts';
import { DomainError } from './errors.ts';

/**
 * Idempotency-Key handling for creating and state-changing POSTs, persisted per partner and
 * environment:
 * - the operation runs in one transaction that first takes the key (a transaction-scoped advisory lock,
 *   so a concurrent retry gets 409 at once, and the key's stored response read in the same statement)
 *   and last stores the response, so a crash can never leave a committed contract without its
 *   replayable response, and nothing of a crashed request holds the key (its transaction rolls back);
 * - the stored row's primary key is the backstop: of two requests with one key, only one commits (the
 *   other, finding the row at its end, rolls back and replays it);
 * - a retry with the same body replays the stored response (`Idempotent-Replayed: true`); the same
 *   key with another body is a 422; errors store nothing, so a corrected retry runs again;
 * - keys live `KEY_TTL_HOURS`. (`in_flight` rows were committed claims, before 2026-11-25: a separate
 *   transaction and commit per request; one still locked is honoured until its `locked_until`.)
 * - the response is serialized once (by the route's response schema) and those bytes are what the
 *   first answer sends and what is stored, encrypted (AES-256-GCM: the bodies hold customers'
 *   personal data), so a replay sends exactly the bytes of the first answer;
 * - an operation that knows its response before its last statement may hand it to `StoreResponse`: it
 *   gets the write storing it, to send with that statement (one round trip less; subscribe does). An
 *   operation that does not has its response stored after it returns.
 */
export const KEY_TTL_HOURS = 48;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface Outcome {
  status: number;
  /** The serialized JSON body, the same bytes on the first answer and on every replay. */
  payload: string;
  replayed: boolean;
}

export interface IdempotencyDeps {
  db: Db;
  /** The key sealing stored responses (the personal-data key). */
  encryptionKey: EncryptionKeys;
}

/** Serializes a body for a status (the route's response schema: `reply.code(status).serialize(body)`). */
export type Serialize = (status: number, body: unknown) => string;

export interface IdempotencyScope {
  partnerId: string;
  environment: Environment;
  /** The operation name, e.g. "flight.subscribe": a key used for one operation is not valid for another. */
  operation: string;
}

/**
 * Given to an idempotent operation that knows its response before its last statement: call it once with
 * that response and send the write it returns with that statement (`writeTogether`, or a repository's
 * statement taking writes along: platform/db.ts) — one round trip less than storing it after. Undefined
 * when the request has no Idempotency-Key (nothing to store). The response given is the one answered
 * (and replayed) once its write has run: give what the operation returns. Calling it twice is refused.
 */
export type StoreResponse = (status: number, body: unknown) => CountedWrite | undefined;

const nothingToStore: StoreResponse = () => undefined;

/** A response handed to the operation's own statement, and whether that statement stored it. */
interface HandedResponse {
  outcome: Outcome;
  /** undefined until the write has run; false when another request's row held the key. */
  stored: boolean | undefined;
}

/** At most this many turns find the key taken by another request without finding its response. */
const MAX_TAKEN_TURNS = 3;

export async function runIdempotent<T>(
  deps: IdempotencyDeps,
  scope: IdempotencyScope,
  key: string | undefined,
  body: unknown,
  serialize: Serialize,
  run: (trx: Trx, storeResponse: StoreResponse) => Promise<{ status: number; body: T }>,
): Promise<Outcome> {
  const { db } = deps;
  if (key === undefined) {
    const result = await transaction(db, (trx) => run(trx, nothingToStore));
    return { status: result.status, payload: serialize(result.status, result.body), replayed: false };
  }
  if (!KEY_PATTERN.test(key)) {
    throw new DomainError(
      'validation_failed',
      'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      {
        errors: [
          {
            field: 'header:Idempotency-Key',
            code: 'invalid_format',
            message: 'must be 1 to 255 printable ASCII characters',
          },
        ],
      },
    );
  }
  const requestHash = sha256Hex(`${scope.operation}\n${canonicalJson(body)}`);

  for (let turn = 1; ; turn++) {
    const result = await transaction(db, async (trx): Promise<Outcome> => {
      const replay = await takeKey(deps, trx, scope, key, requestHash);
      if (replay) return replay;
      const handed: { response?: HandedResponse } = {};
      const storeResponse: StoreResponse = (status, responseBody) => {
        if (handed.response) throw new Error(`${scope.operation} handed its response to store twice`);
        const response: HandedResponse = {
          outcome: { status, payload: serialize(status, responseBody), replayed: false },
          stored: undefined,
        };
        handed.response = response;
        return {
          write: responseWrite(deps, trx, scope, key, requestHash, response.outcome),
          returned: (rows) => {
            response.stored = rows > 0;
          },
        };
      };
      let result: { status: number; body: T };
      try {
        result = await run(trx, storeResponse);
      } catch (error) {
        // the key was found taken by the operation's own statement: whatever the operation made of
        // that statement's result (a refusal), the other request's response is the answer
        if (handed.response?.stored === false) throw TAKEN;
        throw error;
      }
      const response = handed.response;
      if (response?.stored !== undefined) {
        if (response.outcome.status !== result.status)
          throw new Error(
            `${scope.operation} stored a ${response.outcome.status} response and returned ${result.status}`,
          );
        if (!response.stored) throw TAKEN;
        return response.outcome;
      }
      if (response) throw new Error(`${scope.operation} was handed its response's write and did not send it`);
      const outcome = { status: result.status, payload: serialize(result.status, result.body), replayed: false };
      if ((await responseWrite(deps, trx, scope, key, requestHash, outcome).execute()).length === 0) throw TAKEN;
      return outcome;
    }).catch((error: unknown) => {
      if (error === TAKEN) return undefined;
      throw error;
    });
    // undefined: another request committed this key between our lookup and our response; ours rolled
    // back, the next turn replays theirs (a turn that finds nothing again is a fault, not a race)
    if (result) return result;
    if (turn >= MAX_TAKEN_TURNS)
      throw new Error(`${scope.operation}: the Idempotency-Key was taken ${turn} times with no response to replay`);
  }
}

/** Thrown inside the transaction (rolling it back) when another request stored the key first. */
const TAKEN = Symbol('idempotency key taken');

/**
 * Takes the key for this transaction: a transaction-scoped advisory lock on (partner, environment,
 * key), so a concurrent request with the same key is refused at once (409) rather than waiting, and
 * the key's live row, read in the same statement. Returns the stored response to replay, if any.
 */
async function takeKey(
  deps: IdempotencyDeps,
  trx: Trx,
  scope: IdempotencyScope,
  key: string,
  requestHash: string,
): Promise<Outcome | undefined> {
  const lockName = `idempotency/${scope.partnerId}/${scope.environment}/${key}`;
  const { rows } = await sql<{
    locked: boolean;
    request_hash: string | null;
    status: 'in_flight' | 'completed' | null;
    locked_until: Date | null;
    response_status: number | null;
    response_enc: string | null;
    response_body: unknown;
  }>`SELECT l.locked, k.request_hash, k.status, k.locked_until, k.response_status, k.response_enc, k.response_body
     FROM (SELECT pg_try_advisory_xact_lock(hashtextextended(${lockName}, 0)) AS locked) l
     LEFT JOIN idempotency_keys k
       ON k.partner_id = ${scope.partnerId} AND k.environment = ${scope.environment} AND k.key = ${key}
      AND k.expires_at > now()`.execute(trx);
  const row = rows[0]!;
  if (!row.locked) throw inProgress();
  if (row.request_hash === null) return undefined;
  if (row.request_hash !== requestHash) {
    throw new DomainError(
      'idempotency_key_reused',
      'This Idempotency-Key was used with a different request; use a new key for a new request.',
    );
  }
  if (row.status === 'completed') {
    // a row written before migration 0010 and not sealed yet holds its body as jsonb
    const payload =
      row.response_enc !== null ? decrypt(deps.encryptionKey, row.response_enc) : JSON.stringify(row.response_body);
    return { status: row.response_status ?? 200, payload, replayed: true };
  }
  // an `in_flight` row: claimed by a process of a version that committed the claim first, still running
  // unless its lock has passed
  if (row.locked_until !== null && row.locked_until.getTime() > Date.now()) throw inProgress();
  return undefined;
}

/**
 * The write storing the response in the operation's transaction, returning the key; it returns no row
 * when another request's row holds the key (committed since our lookup): the caller then rolls back
 * and replays it.
 */
function responseWrite(
  deps: IdempotencyDeps,
  trx: Trx,
  scope: IdempotencyScope,
  key: string,
  requestHash: string,
  outcome: { status: number; payload: string },
) {
  const values = {
    operation: scope.operation,
    request_hash: requestHash,
    status: 'completed' as const,
    locked_until: sql<Date>`now()`,
    response_status: outcome.status,
    response_enc: encrypt(deps.encryptionKey, outcome.payload),
    expires_at: sql<Date>`now() + make_interval(hours => ${KEY_TTL_HOURS})`,
  };
  return trx
    .insertInto('idempotency_keys')
    .values({ partner_id: scope.partnerId, environment: scope.environment, key, ...values })
    .onConflict((oc) =>
      oc
        .columns(['partner_id', 'environment', 'key'])
        .doUpdateSet(values)
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.expires_at', '<=', sql<Date>`now()`),
            eb.and([
              eb('idempotency_keys.status', '=', 'in_flight'),
              eb('idempotency_keys.request_hash', '=', requestHash),
            ]),
          ]),
        ),
    )
    .returning('key');
}

const inProgress = () =>
  new DomainError(
    'idempotency_request_in_progress',
    'The first request with this Idempotency-Key is still running; retry in a moment.',
  );

/** Deletes expired keys; returns how many. */
export async function purgeExpiredKeys(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** JSON with object keys sorted, so the same body always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
