import { sql } from 'kysely';
import type { Environment } from './db-schema.ts';
import { transaction, type Db, type Trx } from './db.ts';
import { decrypt, encrypt, sha256Hex, type EncryptionKeys } from './crypto.ts';
import { DomainError } from './errors.ts';

/**
 * Idempotency-Key handling for creating and state-changing POSTs, persisted per partner and
 * environment:
 * - the first request claims the key (a committed `in_flight` row), so a concurrent retry gets 409;
 * - the operation runs in one transaction that also stores the response, so a crash can never leave
 *   a committed contract without its replayable response;
 * - a retry with the same body replays the stored response (`Idempotent-Replayed: true`); the same
 *   key with another body is a 422; errors release the key, so a corrected retry runs again;
 * - keys live `KEY_TTL_HOURS`; a claim abandoned by a crashed process frees itself after `LOCK_SECONDS`;
 * - the response is serialized once (by the route's response schema) and those bytes are what the
 *   first answer sends and what is stored, encrypted (AES-256-GCM: the bodies hold customers'
 *   personal data), so a replay sends exactly the bytes of the first answer.
 */
export const KEY_TTL_HOURS = 48;
const LOCK_SECONDS = 60;
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

export async function runIdempotent<T>(
  deps: IdempotencyDeps,
  scope: IdempotencyScope,
  key: string | undefined,
  body: unknown,
  serialize: Serialize,
  run: (trx: Trx) => Promise<{ status: number; body: T }>,
): Promise<Outcome> {
  const { db } = deps;
  if (key === undefined) {
    const result = await transaction(db, run);
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
  const where = { partner_id: scope.partnerId, environment: scope.environment, key };

  const claimed = await claim(db, scope, key, requestHash);
  if (!claimed) {
    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('partner_id', '=', where.partner_id)
      .where('environment', '=', where.environment)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) return runIdempotent(deps, scope, key, body, serialize, run); // released between our insert and select: try again
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
    throw new DomainError(
      'idempotency_request_in_progress',
      'The first request with this Idempotency-Key is still running; retry in a moment.',
    );
  }

  try {
    const result = await transaction(db, async (trx) => {
      const result = await run(trx);
      const outcome = { status: result.status, payload: serialize(result.status, result.body) };
      await trx
        .updateTable('idempotency_keys')
        .set({
          status: 'completed',
          response_status: outcome.status,
          response_enc: encrypt(deps.encryptionKey, outcome.payload),
        })
        .where('partner_id', '=', where.partner_id)
        .where('environment', '=', where.environment)
        .where('key', '=', key)
        .execute();
      return outcome;
    });
    return { ...result, replayed: false };
  } catch (error) {
    await db
      .deleteFrom('idempotency_keys')
      .where('partner_id', '=', where.partner_id)
      .where('environment', '=', where.environment)
      .where('key', '=', key)
      .where('status', '=', 'in_flight')
      .execute();
    throw error;
  }
}

/** Inserts the in-flight row, or takes over an expired or abandoned one. True when this request owns the key. */
async function claim(db: Db, scope: IdempotencyScope, key: string, requestHash: string): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      partner_id: scope.partnerId,
      environment: scope.environment,
      key,
      operation: scope.operation,
      request_hash: requestHash,
      status: 'in_flight',
      locked_until: sql<Date>`now() + make_interval(secs => ${LOCK_SECONDS})`,
      response_status: null,
      response_enc: null,
      expires_at: sql<Date>`now() + make_interval(hours => ${KEY_TTL_HOURS})`,
    })
    .onConflict((oc) =>
      oc
        .columns(['partner_id', 'environment', 'key'])
        .doUpdateSet({
          operation: scope.operation,
          request_hash: requestHash,
          status: 'in_flight',
          locked_until: sql<Date>`now() + make_interval(secs => ${LOCK_SECONDS})`,
          response_status: null,
          response_enc: null,
          expires_at: sql<Date>`now() + make_interval(hours => ${KEY_TTL_HOURS})`,
        })
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.expires_at', '<', sql<Date>`now()`),
            eb.and([
              eb('idempotency_keys.status', '=', 'in_flight'),
              eb('idempotency_keys.locked_until', '<', sql<Date>`now()`),
              eb('idempotency_keys.request_hash', '=', requestHash),
            ]),
          ]),
        ),
    )
    .returning('key')
    .execute();
  return inserted.length > 0;
}

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
