import { sql } from 'kysely';
import type { Lang } from '../platform/language.ts';
import type { Executor } from '../platform/db.ts';
import type { UserRole } from './model.ts';

/**
 * SQL for partner users: their list, roles, removal, and the single-use links of invitations and resets.
 *
 * Lock order: a transaction that writes both a user and its links locks the users' rows first
 * (`lockPartnerUsers` or `lockUsersByEmail`, each in id order), then the links (`useToken`,
 * `retireUserTokens`, a delete's cascade). Taking a link first and its user second (as the use of a
 * link once did) deadlocks against an admin's resend or removal on PostgreSQL.
 */

export interface UserRow {
  id: string;
  partnerId: string;
  email: string;
  role: UserRole;
  activatedAt: Date | null;
  lastSignInAt: Date | null;
  createdAt: Date;
  language: Lang | null;
  /** listUsers only: when the user's latest invitation link not used expires (null: none). */
  invitationExpiresAt?: Date | null;
}

const columns = [
  'id',
  'partner_id',
  'email',
  'role',
  'activated_at',
  'last_sign_in_at',
  'created_at',
  'language',
] as const;

function toUser(r: {
  id: string;
  partner_id: string;
  email: string;
  role: UserRole;
  activated_at: Date | null;
  last_sign_in_at: Date | null;
  created_at: Date;
  language: Lang | null;
}): UserRow {
  return {
    id: r.id,
    partnerId: r.partner_id,
    email: r.email,
    role: r.role,
    activatedAt: r.activated_at,
    lastSignInAt: r.last_sign_in_at,
    createdAt: r.created_at,
    language: r.language,
  };
}

export async function listUsers(db: Executor, partnerId: string): Promise<UserRow[]> {
  const rows = await db
    .selectFrom('users')
    .select(columns)
    .select((eb) =>
      eb
        .selectFrom('user_tokens')
        .select((t) => t.fn.max('expires_at').as('at'))
        .whereRef('user_tokens.user_id', '=', 'users.id')
        .where('purpose', '=', 'invitation')
        .where('used_at', 'is', null)
        .as('invitation_expires_at'),
    )
    .where('partner_id', '=', partnerId)
    .orderBy('email')
    .execute();
  return rows.map((r) => ({ ...toUser(r), invitationExpiresAt: r.invitation_expires_at ?? null }));
}

/**
 * The user who signs in with this address: the one with a password (at most one, migration 0039;
 * the same address may be invited, without a password, at other partners).
 */
export async function findActiveUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  const row = await db
    .selectFrom('users')
    .select(columns)
    .where('email', '=', email)
    .where('password_hash', 'is not', null)
    .executeTakeFirst();
  return row && toUser(row);
}

/**
 * Whether the address is taken for a new user of `partnerId`: by a user of that partner (any state),
 * or, when `orActive`, by a user of any partner who can sign in.
 */
export async function emailTaken(db: Executor, partnerId: string, email: string, orActive: boolean): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .where((eb) =>
      orActive
        ? eb.or([eb('partner_id', '=', partnerId), eb('password_hash', 'is not', null)])
        : eb('partner_id', '=', partnerId),
    )
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The users with this address, locked until the transaction ends: two invitations of the same
 * address (at two partners) accepted at once are taken in turn, and the second sees the first.
 */
export async function lockUsersByEmail(trx: Executor, email: string) {
  return trx
    .selectFrom('users')
    .select(['id', 'password_hash'])
    .where('email', '=', email)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** The partner's users, locked until the transaction ends (role changes and removals count the admins under it). */
export async function lockPartnerUsers(trx: Executor, partnerId: string): Promise<UserRow[]> {
  const rows = await trx
    .selectFrom('users')
    .select(columns)
    .where('partner_id', '=', partnerId)
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map(toUser);
}

/**
 * One user of the partner, its row locked FOR SHARE (`requireActingUser`): writes of the same user
 * run side by side, while an admin's demotion or removal (`lockPartnerUsers`, FOR UPDATE on every row,
 * users first as here) waits for them, or they for it. Undefined: no such user of the partner.
 */
export async function lockUserShared(trx: Executor, partnerId: string, userId: string): Promise<UserRow | undefined> {
  const row = await trx
    .selectFrom('users')
    .select(columns)
    .where('partner_id', '=', partnerId)
    .where('id', '=', userId)
    .forShare()
    .executeTakeFirst();
  return row && toUser(row);
}

export async function setRole(trx: Executor, userId: string, role: UserRole): Promise<void> {
  await trx.updateTable('users').set({ role }).where('id', '=', userId).execute();
}

/** Deletes the user: its sessions and links go with it (ON DELETE CASCADE). */
export async function deleteUser(trx: Executor, userId: string): Promise<void> {
  await trx.deleteFrom('users').where('id', '=', userId).execute();
}

export async function insertUserToken(
  trx: Executor,
  t: { tokenHash: string; userId: string; purpose: 'invitation' | 'password_reset'; now: Date; expiresAt: Date },
): Promise<void> {
  await trx
    .insertInto('user_tokens')
    .values({
      token_hash: t.tokenHash,
      user_id: t.userId,
      purpose: t.purpose,
      created_at: t.now,
      expires_at: t.expiresAt,
    })
    .execute();
}

/** The links of `purpose` not yet used of a user are used up (a new one replaces them). */
export async function retireUserTokens(
  trx: Executor,
  userId: string,
  purpose: 'invitation' | 'password_reset',
  now: Date,
): Promise<void> {
  await trx
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

/** A link not used and not expired, with its user (read only: showing the form uses nothing). */
export async function findLiveToken(db: Executor, tokenHash: string, now: Date) {
  return db
    .selectFrom('user_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.user_id', 't.purpose', 'u.email', 'u.partner_id'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.used_at', 'is', null)
    .where('t.expires_at', '>', now)
    .executeTakeFirst();
}

/** Uses a link once: undefined when it is unknown, used or expired (two concurrent uses: one wins). */
export async function useToken(trx: Executor, tokenHash: string, now: Date) {
  return trx
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id', 'purpose'])
    .executeTakeFirst();
}

/** Sets the password; the first time, the user becomes active. */
export async function setPassword(trx: Executor, userId: string, passwordHash: string, now: Date) {
  return trx
    .updateTable('users')
    .set({ password_hash: passwordHash, activated_at: sql<Date>`coalesce(activated_at, ${now})` })
    .where('id', '=', userId)
    .returning(['id', 'email', 'partner_id'])
    .executeTakeFirstOrThrow();
}

/** Written at each sign-in: the users page shows it; the language is that of the user's next emails. */
export async function recordSignIn(db: Executor, userId: string, at: Date, language: Lang): Promise<void> {
  await db.updateTable('users').set({ last_sign_in_at: at, language }).where('id', '=', userId).execute();
}
