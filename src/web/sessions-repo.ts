import type { Executor } from '../platform/db.ts';

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
    const row = await db.selectFrom('users').select(['id', 'email', 'password_hash', 'partner_id']).where('email', '=', email).executeTakeFirst();
    return row && { id: row.id, email: row.email, passwordHash: row.password_hash, partnerId: row.partner_id };
  }
  const row = await db.selectFrom('operators').select(['id', 'email', 'password_hash']).where('email', '=', email).executeTakeFirst();
  return row && { id: row.id, email: row.email, passwordHash: row.password_hash, partnerId: null };
}

export async function insertOperatorIfMissing(db: Executor, email: string, passwordHash: string): Promise<string | undefined> {
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
  s: { tokenHash: string; kind: SessionKind; accountId: string; partnerId: string | null; csrfToken: string; expiresAt: Date; now: Date },
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
    .select(['s.kind', 's.token_hash', 's.user_id', 's.operator_id', 's.partner_id', 's.csrf_token', 's.last_seen_at', 's.expires_at', 'u.email as user_email', 'o.email as operator_email', 'p.name as partner_name', 'p.slug as partner_slug'])
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
    csrfToken: row.csrf_token,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
  };
}

export async function touchSession(db: Executor, tokenHash: string, at: Date): Promise<void> {
  await db.updateTable('web_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Executor, tokenHash: string): Promise<boolean> {
  const rows = await db.deleteFrom('web_sessions').where('token_hash', '=', tokenHash).returning('token_hash').execute();
  return rows.length > 0;
}

export async function deleteExpiredSessions(db: Executor, now: Date, idleSince: Date): Promise<void> {
  await db
    .deleteFrom('web_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleSince)]))
    .execute();
}

export interface ThrottleRow {
  key: string;
  failures: number;
  windowStart: Date;
  lockedUntil: Date | null;
}

export async function findThrottles(db: Executor, keys: string[]): Promise<ThrottleRow[]> {
  if (keys.length === 0) return [];
  const rows = await db.selectFrom('login_throttle').selectAll().where('key', 'in', keys).execute();
  return rows.map((r) => ({ key: r.key, failures: r.failures, windowStart: r.window_start, lockedUntil: r.locked_until }));
}

/**
 * Counts one failure for `key` in one statement (concurrent failures all count): a window older
 * than `windowStartsAfter` starts over; reaching `threshold` sets the lock.
 */
export async function recordFailure(db: Executor, key: string, now: Date, windowStartsAfter: Date, threshold: number, lockedUntil: Date): Promise<void> {
  await db
    .insertInto('login_throttle')
    .values({ key, failures: 1, window_start: now, locked_until: threshold <= 1 ? lockedUntil : null })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => {
        const fresh = eb('login_throttle.window_start', '<=', windowStartsAfter);
        const failures = eb.case().when(fresh).then(1).else(eb('login_throttle.failures', '+', 1)).end();
        return {
          failures,
          window_start: eb.case().when(fresh).then(now).else(eb.ref('login_throttle.window_start')).end(),
          locked_until: eb
            .case()
            .when(eb(failures, '>=', threshold))
            .then(lockedUntil)
            .else(eb.ref('login_throttle.locked_until'))
            .end(),
        };
      }),
    )
    .execute();
}

/** Failure counters whose window has passed and that lock nothing: forgotten (the table stays small). */
export async function deleteStaleThrottles(db: Executor, now: Date, windowStartedBefore: Date): Promise<number> {
  const rows = await db
    .deleteFrom('login_throttle')
    .where('window_start', '<', windowStartedBefore)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning('key')
    .execute();
  return rows.length;
}

export async function clearThrottle(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('key', '=', key).execute();
}
