import crypto from 'node:crypto';
import { audit } from '../platform/audit.ts';
import { tagClientAddress } from '../platform/client-address.ts';
import type { Config } from '../platform/config.ts';
import { hashPassword, randomToken, sha256Hex, verifyPassword, type Keyring } from '../platform/crypto.ts';
import type { Db, Executor } from '../platform/db.ts';
import { recordUserSignIn, type UserRole } from '../partners/index.ts';
import type { Lang } from '../platform/language.ts';
import { addressCounterKeyOf, emailCounterKeyOf } from '../platform/throttle-keys.ts';
import * as repo from './sessions-repo.ts';
import type { SessionKind, SessionRow } from './sessions-repo.ts';

/**
 * Browser sessions of partner users (portal and console) and operators (operator console).
 * The cookie carries 256 random bits; the database keeps only their SHA-256. A session lasts at most
 * SESSION_RULES.absoluteHours and ends after SESSION_RULES.idleMinutes without a request. Each
 * session has its own CSRF synchronizer token, checked on every POST. Sign-in attempts are counted
 * per account and per client address, atomically and before the password is checked; past the
 * threshold the account (or address) is locked for a while, whatever the password. A successful
 * sign-in forgives the account's attempts up to its own (not those of a concurrent burst counted
 * after it) and gives its attempt back to the address, whose counter thus counts failures.
 */
export const SESSION_RULES = {
  absoluteHours: 12,
  idleMinutes: 120,
  /** last_seen_at is written at most this often. */
  touchEverySeconds: 60,
  account: { threshold: 5, windowMinutes: 15, lockMinutes: 15 },
  address: { threshold: 30, windowMinutes: 15, lockMinutes: 15 },
} as const;

export type { SessionKind };

/** What a session cookie holds: 32 random bytes, base64url (randomToken(32)); anything else is no session. */
const SESSION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface WebSession {
  kind: SessionKind;
  accountId: string;
  email: string;
  /** Partner sessions only. */
  partnerId: string | null;
  partnerName: string | null;
  partnerSlug: string | null;
  /** Partner sessions: what the user may do (partners/roles.ts); null for operators. */
  role: UserRole | null;
  csrfToken: string;
  expiresAt: Date;
  /** The hashed token, to sign out. */
  tokenHash: string;
}

export interface SessionDeps {
  db: Db;
  now: () => Date;
  keys: Pick<Keyring, 'lookup'>;
}

export type SignInOutcome =
  | { kind: 'signed_in'; token: string; session: WebSession }
  | { kind: 'invalid' }
  | { kind: 'locked'; retryAfterSeconds: number };

// A hash to verify against when the email is unknown: the answer takes as long either way.
let decoyHash: Promise<string> | undefined;
const decoy = () => (decoyHash ??= hashPassword(randomToken(16)));

const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * The counter of what was typed as an email address: its HMAC, never the text. Whatever is typed is
 * counted — a stranger's address, a typo, a password typed in the wrong field — and none of it is a
 * staff sign-in name to keep in clear.
 */
export const emailCounterKey = (deps: Pick<SessionDeps, 'keys'>, prefix: string, typed: string) =>
  emailCounterKeyOf(deps.keys.lookup, prefix, typed);

/** The counter of a client address: its HMAC (platform/client-address.ts), never the address. */
export const addressCounterKey = (deps: Pick<SessionDeps, 'keys'>, prefix: string, address: string) =>
  addressCounterKeyOf(deps.keys.lookup, prefix, address);

export async function signIn(
  deps: SessionDeps,
  input: {
    kind: SessionKind;
    email: string;
    password: string;
    address: string;
    lang?: Lang;
    /** The session cookie the browser sent, if any: a sign-in ends that session (a new token replaces it). */
    previousToken?: string | undefined;
  },
): Promise<SignInOutcome> {
  const now = deps.now();
  const email = normaliseEmail(input.email).slice(0, 320);
  const accountKey = emailCounterKey(deps, `${input.kind}:account`, email);
  const addressKey = addressCounterKey(deps, input.kind, input.address);
  // Each attempt is counted before its password is checked, in one statement that answers the count:
  // a burst of concurrent attempts checks at most the allowed number of passwords.
  const windowStart = (rule: { windowMinutes: number }) => new Date(now.getTime() - rule.windowMinutes * 60_000);
  const lockEnd = (rule: { lockMinutes: number }) => new Date(now.getTime() + rule.lockMinutes * 60_000);
  const counted: repo.AttemptCount[] = [];
  for (const [key, rule] of [
    [addressKey, SESSION_RULES.address],
    [accountKey, SESSION_RULES.account],
  ] as const) {
    const count = await repo.countAttempt(deps.db, key, now, windowStart(rule), rule.threshold, lockEnd(rule));
    if (count.attempts > rule.threshold) {
      const until = Math.max(count.lockedUntil?.getTime() ?? 0, now.getTime() + 1000);
      return { kind: 'locked', retryAfterSeconds: Math.ceil((until - now.getTime()) / 1000) };
    }
    counted.push(count);
  }
  const [address, accountCount] = counted as [repo.AttemptCount, repo.AttemptCount];

  const account =
    email && input.password.length <= 1024 ? await repo.findAccount(deps.db, input.kind, email) : undefined;
  const valid = account
    ? await verifyPassword(input.password, account.passwordHash)
    : (await verifyPassword(input.password, await decoy()), false);
  if (!account || !valid) return { kind: 'invalid' };

  const token = randomToken(32);
  const tokenHash = sha256Hex(token);
  const csrfToken = randomToken(32);
  const expiresAt = new Date(now.getTime() + SESSION_RULES.absoluteHours * 3_600_000);
  const opened = await deps.db.transaction().execute(async (trx) => {
    // the password checked is still the account's, under the lock of its row: a reset (or a removal)
    // committed while it was checked ends the sessions it finds, and this one would come after it
    if ((await repo.lockAccountPassword(trx, input.kind, account.id)) !== account.passwordHash) return false;
    await repo.deleteExpiredSessions(trx, now, new Date(now.getTime() - SESSION_RULES.idleMinutes * 60_000));
    // the browser's earlier session (another account's, or one planted in it) does not outlive the sign-in
    // (audited as its holder's sign-out: the account it was may be another one)
    if (input.previousToken && SESSION_TOKEN.test(input.previousToken)) {
      const previousHash = sha256Hex(input.previousToken);
      const ended = await repo.deleteSessionOfKind(trx, input.kind, previousHash);
      const endedActor =
        ended && (ended.userId ? `user:${ended.userId}` : ended.operatorEmail && `operator:${ended.operatorEmail}`);
      if (ended && endedActor)
        await audit(trx, {
          actor: endedActor,
          partnerId: ended.partnerId,
          entity: 'session',
          entityId: previousHash.slice(0, 16),
          action: 'signed_out',
          data: { reason: 'replaced by a new sign-in' },
        });
    }
    await repo.forgiveAttempts(trx, accountKey, accountCount.windowStart, accountCount.attempts);
    await repo.forgiveAttempts(trx, addressKey, address.windowStart, 1);
    await repo.insertSession(trx, {
      tokenHash,
      kind: input.kind,
      accountId: account.id,
      partnerId: account.partnerId,
      csrfToken,
      expiresAt,
      now,
    });
    if (input.kind === 'partner') await recordUserSignIn(trx, account.id, now, input.lang ?? 'en');
    await audit(trx, {
      actor: actorOf(input.kind, account.id, account.email),
      partnerId: account.partnerId,
      entity: 'session',
      entityId: tokenHash.slice(0, 16),
      action: 'signed_in',
      // the client's address by its keyed hash and network, never in clear (platform/client-address.ts)
      data: tagClientAddress(deps.keys.lookup, input.address),
    });
    return true;
  });
  if (!opened) return { kind: 'invalid' };
  const session = await sessionFor(deps, input.kind, token);
  if (!session) throw new Error('session vanished right after sign-in');
  return { kind: 'signed_in', token, session };
}

/** The live session of a cookie token, or undefined (unknown, expired, idle too long, other kind). */
export async function sessionFor(
  deps: SessionDeps,
  kind: SessionKind,
  token: string | undefined,
): Promise<WebSession | undefined> {
  if (!token || !SESSION_TOKEN.test(token)) return undefined;
  const tokenHash = sha256Hex(token);
  const row = await repo.findSession(deps.db, kind, tokenHash);
  if (!row) return undefined;
  const now = deps.now();
  if (row.expiresAt <= now || row.lastSeenAt.getTime() < now.getTime() - SESSION_RULES.idleMinutes * 60_000) {
    await repo.deleteSession(deps.db, tokenHash);
    return undefined;
  }
  if (now.getTime() - row.lastSeenAt.getTime() > SESSION_RULES.touchEverySeconds * 1000)
    await repo.touchSession(deps.db, tokenHash, now);
  return toSession(row);
}

function toSession(row: SessionRow): WebSession {
  return {
    kind: row.kind,
    accountId: row.accountId,
    email: row.email,
    partnerId: row.partnerId,
    partnerName: row.partnerName,
    partnerSlug: row.partnerSlug,
    role: row.role,
    csrfToken: row.csrfToken,
    expiresAt: row.expiresAt,
    tokenHash: row.tokenHash,
  };
}

export async function signOut(deps: SessionDeps, session: WebSession): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    if (await repo.deleteSession(trx, session.tokenHash)) {
      await audit(trx, {
        actor: sessionActor(session),
        partnerId: session.partnerId,
        entity: 'session',
        entityId: session.tokenHash.slice(0, 16),
        action: 'signed_out',
      });
    }
  });
}

/**
 * Ends every session of a partner user, in the caller's transaction `db` (a password set through a
 * link ends them all, in the transaction that sets it: partners' usePasswordLink).
 */
export async function endUserSessions(db: Executor, userId: string): Promise<number> {
  return repo.deleteUserSessions(db, userId);
}

/** The audit actor of a session: `user:<id>` for partner users, `operator:<email>` for operators. */
export function sessionActor(session: WebSession): string {
  return actorOf(session.kind, session.accountId, session.email);
}

const actorOf = (kind: SessionKind, id: string, email: string) =>
  kind === 'operator' ? `operator:${email}` : `user:${id}`;

/** Constant-time comparison of the CSRF token a form sent with the session's. */
export function csrfMatches(session: WebSession, sent: unknown): boolean {
  return sameSecret(sent, session.csrfToken);
}

/** Compares a sent token with the expected one in constant time. */
export function sameSecret(sent: unknown, expected: string | undefined): expected is string {
  if (typeof sent !== 'string' || expected === undefined || sent.length !== expected.length) return false;
  return crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
}

/**
 * Creates the operator of PARASOL_ADMIN_EMAIL/PASSWORD when no operator has that email (an existing
 * operator keeps its password: change it in the database, not by restarting with another one).
 */
export async function seedOperator(db: Db, config: Pick<Config, 'admin'>): Promise<string | undefined> {
  const { email, password } = config.admin;
  if (!email || !password) return undefined;
  const normalised = normaliseEmail(email);
  if (await repo.operatorExists(db, normalised)) return undefined;
  const passwordHash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    const id = await repo.insertOperatorIfMissing(trx, normalised, passwordHash);
    if (id)
      await audit(trx, {
        actor: 'seed',
        entity: 'operator',
        entityId: id,
        action: 'created',
        data: { email: normalised },
      });
    return id;
  });
}

/**
 * The "forgot password" form's limits (counted in the sign-in throttle's table, under keys of their
 * own): per address asked for, a few emails a quarter of an hour (beyond, nothing more is sent, and
 * the page says the same: the limit tells nothing of the address); per client address, more (beyond:
 * 429).
 */
export const RESET_RULES = {
  account: { threshold: 3, windowMinutes: 15, lockMinutes: 15 },
  address: { threshold: 20, windowMinutes: 15, lockMinutes: 15 },
} as const;

export async function countResetRequest(
  deps: SessionDeps,
  input: { email: string; address: string },
): Promise<'ok' | 'address_limited' | 'account_limited'> {
  const now = deps.now();
  const count = (key: string, rule: { threshold: number; windowMinutes: number; lockMinutes: number }) =>
    repo.countAttempt(
      deps.db,
      key,
      now,
      new Date(now.getTime() - rule.windowMinutes * 60_000),
      rule.threshold,
      new Date(now.getTime() + rule.lockMinutes * 60_000),
    );
  const address = await count(addressCounterKey(deps, 'reset', input.address), RESET_RULES.address);
  if (address.attempts > RESET_RULES.address.threshold) return 'address_limited';
  const account = await count(emailCounterKey(deps, 'reset:account', input.email), RESET_RULES.account);
  return account.attempts > RESET_RULES.account.threshold ? 'account_limited' : 'ok';
}

/**
 * The limits of invitation emails an admin sends (counted in the sign-in throttle's table): per
 * partner, invitations and resends together; per invited user, its resends. Beyond either, the
 * Users page answers 429 with Retry-After and sends nothing.
 */
export const INVITATION_RULES = {
  partner: { threshold: 20, windowMinutes: 15, lockMinutes: 15 },
  user: { threshold: 3, windowMinutes: 15, lockMinutes: 15 },
} as const;

/** Counts one invitation email (a resend when `userId` is given): `undefined` when it may go, else the seconds to wait. */
export async function countInvitation(
  deps: Pick<SessionDeps, 'now'> & { db: Executor },
  input: { partnerId: string; userId?: string },
): Promise<number | undefined> {
  const now = deps.now();
  type Rule = { threshold: number; windowMinutes: number; lockMinutes: number };
  const keys: [string, Rule][] = [[`invite:partner:${input.partnerId}`, INVITATION_RULES.partner]];
  // the user's counter is the partner's own: another partner's requests never count against it
  if (input.userId) keys.unshift([`invite:user:${input.partnerId}:${input.userId}`, INVITATION_RULES.user]);
  for (const [key, rule] of keys) {
    const count = await repo.countAttempt(
      deps.db,
      key,
      now,
      new Date(now.getTime() - rule.windowMinutes * 60_000),
      rule.threshold,
      new Date(now.getTime() + rule.lockMinutes * 60_000),
    );
    if (count.attempts > rule.threshold)
      return Math.ceil((Math.max(count.lockedUntil?.getTime() ?? 0, now.getTime() + 1000) - now.getTime()) / 1000);
  }
  return undefined;
}

/**
 * An operator unlocks one account before its lock ends (`parasol users unlock`): its sign-in counter
 * (the HMAC of the address, as sign-in computes it) is deleted, audited. Whether the account exists is
 * not looked up: a counter exists for whatever was typed. Answers whether a counter was there.
 */
export async function unlockAccount(
  deps: Pick<SessionDeps, 'db' | 'keys'>,
  kind: SessionKind,
  email: string,
  actor: string,
): Promise<boolean> {
  const typed = normaliseEmail(email).slice(0, 320);
  const key = emailCounterKey(deps, `${kind}:account`, typed);
  return deps.db.transaction().execute(async (trx) => {
    const removed = await repo.deleteThrottle(trx, key);
    // the account's id when there is one; else the counter's key, never what was typed in clear
    const account = await repo.findAccount(trx, kind, typed);
    await audit(trx, {
      actor,
      partnerId: account?.partnerId ?? null,
      entity: kind === 'operator' ? 'operator' : 'user',
      entityId: account?.id ?? key,
      action: 'sign_in_unlocked',
      data: { counted: removed },
    });
    return removed;
  });
}

/** Hourly chore (a job): expired sessions and stale sign-in failure counters are deleted. */
export async function purgeWebSessions(deps: Pick<SessionDeps, 'db' | 'now'>): Promise<number> {
  const now = deps.now();
  await repo.deleteExpiredSessions(deps.db, now, new Date(now.getTime() - SESSION_RULES.idleMinutes * 60_000));
  const longestWindow = Math.max(SESSION_RULES.account.windowMinutes, SESSION_RULES.address.windowMinutes);
  return repo.deleteStaleThrottles(deps.db, now, new Date(now.getTime() - longestWindow * 60_000));
}
