import { sql } from 'kysely';
import { audit } from './audit.ts';
import { randomToken, sha256Hex } from './crypto.ts';
import type { Db } from './db.ts';
import { DomainError } from './errors.ts';

/**
 * API credentials of the insurer's operators: `pso_` + 256 random bits, shown once, stored as
 * SHA-256, revocable. They open `POST /flight-delay/v1/claims` in every environment (a flight event
 * the monitoring could not decide, or a correction); partner APIs never accept them otherwise.
 */

export const OPERATOR_TOKEN_PREFIX = 'pso_';

export interface OperatorCaller {
  tokenId: string;
  name: string;
  /** `operator:<name>`, for the audit trail. */
  actor: string;
}

export interface OperatorTokenInfo {
  id: string;
  name: string;
  createdAt: Date;
  createdBy: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export function isOperatorToken(bearer: string): boolean {
  return bearer.startsWith(OPERATOR_TOKEN_PREFIX);
}

export async function createOperatorToken(
  db: Db,
  actor: string,
  name: string,
): Promise<{ token: OperatorTokenInfo; plaintext: string }> {
  const clean = name.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9 ._@-]{1,63}$/.test(clean)) {
    throw new DomainError(
      'validation_failed',
      'An operator token needs a name: 2 to 64 letters, digits, spaces or . _ @ -.',
      { errors: [{ field: '/name', code: 'invalid_format', message: '2 to 64 characters' }] },
    );
  }
  const plaintext = `${OPERATOR_TOKEN_PREFIX}${randomToken(32)}`;
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('operator_tokens')
      .values({ name: clean, token_hash: sha256Hex(plaintext), created_by: actor })
      .returningAll()
      .executeTakeFirstOrThrow();
    await audit(trx, { actor, entity: 'operator_token', entityId: row.id, action: 'created', data: { name: clean } });
    return { token: info(row), plaintext };
  });
}

export async function listOperatorTokens(db: Db): Promise<OperatorTokenInfo[]> {
  const rows = await db.selectFrom('operator_tokens').selectAll().orderBy('created_at').execute();
  return rows.map(info);
}

export async function revokeOperatorToken(db: Db, actor: string, id: string): Promise<OperatorTokenInfo> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    throw new DomainError('not_found', `No operator token ${id}.`);
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('operator_tokens')
      .select('revoked_at')
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    const row = await trx
      .updateTable('operator_tokens')
      .set({ revoked_at: sql`coalesce(revoked_at, now())` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (!before || !row) throw new DomainError('not_found', `No operator token ${id}.`);
    // revoking a revoked token changes nothing, and audits nothing
    if (before.revoked_at === null)
      await audit(trx, { actor, entity: 'operator_token', entityId: id, action: 'revoked' });
    return info(row);
  });
}

/** The operator behind a presented token, or undefined (unknown or revoked). Records its use. */
export async function authenticateOperator(db: Db, plaintext: string): Promise<OperatorCaller | undefined> {
  const row = await db
    .updateTable('operator_tokens')
    .set({ last_used_at: sql`now()` })
    .where('token_hash', '=', sha256Hex(plaintext))
    .where('revoked_at', 'is', null)
    .returning(['id', 'name'])
    .executeTakeFirst();
  return row ? { tokenId: row.id, name: row.name, actor: `operator:${row.name}` } : undefined;
}

function info(row: {
  id: string;
  name: string;
  created_at: Date;
  created_by: string;
  last_used_at: Date | null;
  revoked_at: Date | null;
}): OperatorTokenInfo {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    createdBy: row.created_by,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
