import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';
import type { UserRole } from '../partners/index.ts';

/** SQL for operators, browser sessions and the sign-in throttle. */

export type SessionKind = 'partner' | 'operator';

export interface AccountRow {
  id: string;
  email: string;
  passwordHash: string;
  partnerId: string | null;
}

export async function findAccount(db: Executor, kind: SessionKind, email: string): Promise<AccountRow | undefined> {
  if (kind === 'partner') {
    const row = await db
      .selectFrom('users')
      .select(['id', 'email', 'password_hash', 'partner_id'])
      .where('email', '=', email)
      // an invited user has no password yet: it signs in once it has followed its link (the same
      // address may be invited at several partners; one row at most has a password, migration 0039)
      .where('password_hash', 'is not', null)
      .executeTakeFirst();
    if (!row?.password_hash) return undefined;
    return { id: row.id, email: row.email, passwordHash: row.password_hash, partnerId: row.partner_id };
  }
  const row = await db
    .selectFrom('operators')
    .select(['id', 'email', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst();
  return row && { id: row.id, email: row.email, passwordHash: row.password_hash, partnerId: null };
}

/**
 * The account's password hash, its row locked until the transaction ends (undefined: no such account
 * any more, or no password). Sign-in reads it again under the lock before it opens a session: a
 * password set or an account removed since the password was checked is seen.
 */
export async function lockAccountPassword(db: Executor, kind: SessionKind, id: string): Promise<string | undefined> {
  const row =
    kind === 'partner'
      ? await db.selectFrom('users').select('password_hash').where('id', '=', id).forUpdate().executeTakeFirst()
      : await db.selectFrom('operators').select('password_hash').where('id', '=', id).forUpdate().executeTakeFirst();
  return row?.password_hash ?? undefined;
}

export async function insertOperatorIfMissing(
  db: Executor,
  email: string,
  passwordHash: string,
): Promise<string | undefined> {
  const row = await db
    .insertInto('operators')
    .values({ email, password_hash: passwordHash })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function operatorExists(db: Executor, email: string): Promise<boolean> {
  return (await db.selectFrom('operators').select('id').where('email', '=', email).executeTakeFirst()) !== undefined;
}

export async function insertSession(
  db: Executor,
  s: {
    tokenHash: string;
    kind: SessionKind;
    accountId: string;
    partnerId: string | null;
    csrfToken: string;
    expiresAt: Date;
    now: Date;
  },
): Promise<void> {
  await db
    .insertInto('web_sessions')
    .values({
      token_hash: s.tokenHash,
      kind: s.kind,
      user_id: s.kind === 'partner' ? s.accountId : null,
      operator_id: s.kind === 'operator' ? s.accountId : null,
      partner_id: s.partnerId,
      csrf_token: s.csrfToken,
      created_at: s.now,
      last_seen_at: s.now,
      expires_at: s.expiresAt,
    })
    .execute();
}

export interface SessionRow {
  kind: SessionKind;
  tokenHash: string;
  accountId: string;
  email: string;
  partnerId: string | null;
  partnerName: string | null;
  partnerSlug: string | null;
  /** Partner sessions: the user's role, read at each request (a change applies at once). */
  role: UserRole | null;
  csrfToken: string;
  lastSeenAt: Date;
  expiresAt: Date;
}

export async function findSession(db: Executor, kind: SessionKind, tokenHash: string): Promise<SessionRow | undefined> {
  const row = await db
    .selectFrom('web_sessions as s')
    .leftJoin('users as u', 'u.id', 's.user_id')
    .leftJoin('operators as o', 'o.id', 's.operator_id')
    .leftJoin('partners as p', 'p.id', 's.partner_id')
    .select([
      's.kind',
      's.token_hash',
      's.user_id',
      's.operator_id',
      's.partner_id',
      's.csrf_token',
      's.last_seen_at',
      's.expires_at',
      'u.email as user_email',
      'u.role as user_role',
      'o.email as operator_email',
      'p.name as partner_name',
      'p.slug as partner_slug',
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.kind', '=', kind)
    .executeTakeFirst();
  if (!row) return undefined;
  const accountId = row.user_id ?? row.operator_id;
  const email = row.user_email ?? row.operator_email;
  if (!accountId || !email) return undefined;
  return {
    kind: row.kind,
    tokenHash: row.token_hash,
    accountId,
    email,
    partnerId: row.partner_id,
    partnerName: row.partner_name,
    partnerSlug: row.partner_slug,
    role: row.user_role,
    csrfToken: row.csrf_token,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
  };
}

export async function touchSession(db: Executor, tokenHash: string, at: Date): Promise<void> {
  await db.updateTable('web_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Executor, tokenHash: string): Promise<boolean> {
  const rows = await db
    .deleteFrom('web_sessions')
    .where('token_hash', '=', tokenHash)
    .returning('token_hash')
    .execute();
  return rows.length > 0;
}

/** Who held a deleted session: its account (an operator's by its email) and partner. */
export interface DeletedSession {
  userId: string | null;
  operatorId: string | null;
  operatorEmail: string | null;
  partnerId: string | null;
}

/** Deletes a session of `kind` (a sign-in ends the one its browser held); whose it was, if there was one. */
export async function deleteSessionOfKind(
  db: Executor,
  kind: SessionKind,
  tokenHash: string,
): Promise<DeletedSession | undefined> {
  const row = await db
    .deleteFrom('web_sessions')
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .returning((eb) => [
      'user_id',
      'operator_id',
      'partner_id',
      eb
        .selectFrom('operators')
        .select('email')
        .whereRef('operators.id', '=', 'web_sessions.operator_id')
        .as('operator_email'),
    ])
    .executeTakeFirst();
  return (
    row && {
      userId: row.user_id,
      operatorId: row.operator_id,
      operatorEmail: row.operator_email,
      partnerId: row.partner_id,
    }
  );
}

/** Ends every session of a partner user (a password set through a link). */
export async function deleteUserSessions(db: Executor, userId: string): Promise<number> {
  const rows = await db.deleteFrom('web_sessions').where('user_id', '=', userId).returning('token_hash').execute();
  return rows.length;
}

export async function deleteExpiredSessions(db: Executor, now: Date, idleSince: Date): Promise<void> {
  await db
    .deleteFrom('web_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleSince)]))
    .execute();
}

export interface AttemptCount {
  /** Attempts counted in the current window, this one included. */
  attempts: number;
  windowStart: Date;
  lockedUntil: Date | null;
}

/**
 * Counts one sign-in attempt for `key` in one statement, before any password is checked, and answers
 * the count: concurrent attempts each get their own number, so a burst checks at most `threshold`
 * passwords. An attempt during a lock is counted without extending the lock; a window older than
 * `windowStartsAfter`, or an ended lock, starts over at 1; reaching `threshold` sets the lock.
 */
export async function countAttempt(
  db: Executor,
  key: string,
  now: Date,
  windowStartsAfter: Date,
  threshold: number,
  lockedUntil: Date,
): Promise<AttemptCount> {
  const row = await db
    .insertInto('login_throttle')
    .values({ key, attempts: 1, window_start: now, locked_until: threshold <= 1 ? lockedUntil : null })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => {
        const locked = eb.and([
          eb('login_throttle.locked_until', 'is not', null),
          eb('login_throttle.locked_until', '>', now),
        ]);
        const fresh = eb.and([
          eb.not(locked),
          eb.or([
            eb('login_throttle.window_start', '<=', windowStartsAfter),
            eb('login_throttle.locked_until', 'is not', null),
          ]),
        ]);
        const attempts = eb
          .case()
          .when(fresh)
          .then(1)
          .else(eb('login_throttle.attempts', '+', 1))
          .end();
        return {
          attempts,
          window_start: eb.case().when(fresh).then(now).else(eb.ref('login_throttle.window_start')).end(),
          locked_until: eb
            .case()
            .when(locked)
            .then(eb.ref('login_throttle.locked_until'))
            .when(eb(attempts, '>=', threshold))
            .then(lockedUntil)
            .when(fresh)
            .then(null)
            .else(eb.ref('login_throttle.locked_until'))
            .end(),
        };
      }),
    )
    .returning(['attempts', 'window_start', 'locked_until'])
    .executeTakeFirstOrThrow();
  return { attempts: row.attempts, windowStart: row.window_start, lockedUntil: row.locked_until };
}

/**
 * Forgives `count` attempts of the window a successful sign-in was counted in: the account forgives
 * its own attempt and every one counted before it (attempts counted after it, in a burst, still
 * count, and a lock they set stays); the address forgives only the successful attempt, so it counts
 * failures. Nothing happens if the window has started over since.
 */
export async function forgiveAttempts(db: Executor, key: string, windowStart: Date, count: number): Promise<void> {
  await db
    .updateTable('login_throttle')
    .set((eb) => ({ attempts: sql<number>`greatest(${eb.ref('attempts')} - ${count}, 0)` }))
    .where('key', '=', key)
    .where('window_start', '=', windowStart)
    .execute();
}

/** Attempt counters whose window has passed and that lock nothing: forgotten (the table stays small). */
export async function deleteStaleThrottles(db: Executor, now: Date, windowStartedBefore: Date): Promise<number> {
  const rows = await db
    .deleteFrom('login_throttle')
    .where('window_start', '<', windowStartedBefore)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning('key')
    .execute();
  return rows.length;
}

/** Deletes one counter (an operator's unlock); whether there was one. */
export async function deleteThrottle(db: Executor, key: string): Promise<boolean> {
  const rows = await db.deleteFrom('login_throttle').where('key', '=', key).returning('key').execute();
  return rows.length > 0;
}
