import { t } from '../i18n/index.ts';
import { queueEmail } from '../notify/index.ts';
import { audit } from '../platform/audit.ts';
import { tagClientAddress, type ClientAddressTag } from '../platform/client-address.ts';
import { decrypt, encrypt, hashPassword, randomToken, sha256Hex, type Keyring } from '../platform/crypto.ts';
import { isUniqueViolation, transaction, type Db, type Executor } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { Job, JobQueue } from '../platform/jobs.ts';
import type { Lang } from '../platform/language.ts';
import { typedTooLong } from '../platform/personal-text.ts';
import type { UserRole } from './model.ts';
import * as repo from './partners-repo.ts';
import { can, parseRole, requirePermission, type Permission } from './roles.ts';
import * as users from './users-repo.ts';

/**
 * Partner users: created by an operator (console or CLI) or invited by an admin of the partner,
 * with a role (roles.ts); removed by an admin; their password set through a single-use link, sent
 * by email (an invitation, or a reset asked for on the sign-in page). Only the SHA-256 of a link's
 * token is stored. The last active admin of a partner can be neither removed nor demoted.
 */
export const USER_LINKS = {
  /** How long an invitation's link works. */
  invitationHours: 72,
  /** How long a password reset's link works. */
  resetMinutes: 60,
} as const;

export const MIN_PASSWORD_LENGTH = 10;
/** The longest password accepted (a longer one is refused, never cut). */
export const MAX_PASSWORD_LENGTH = 1024;

export interface UserDeps {
  db: Db;
  jobs: JobQueue;
  keys: Pick<Keyring, 'encryption'>;
  /** Base of the links in the emails. */
  publicUrl: string;
  now: () => Date;
}

/** The signed-in user acting on its partner's users. */
export interface UserCaller {
  actor: string;
  partnerId: string;
  userId: string;
  role: UserRole;
  /** The page's language: an invitation is written in the inviter's. */
  lang: Lang;
}

export type { UserRow } from './users-repo.ts';

function normaliseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  // the length first: the pattern is slow on a long text ("a@a.a.a.…@")
  const tooLong = typedTooLong(email, { field: '/email', typed: 320 });
  if (tooLong) throw new DomainError('validation_failed', 'The email address is too long.', { errors: [tooLong] });
  if (!/^[^@\s<>"]+@[^@\s<>"]+\.[^@\s<>"]+$/.test(email)) {
    throw new DomainError('validation_failed', 'The email address is not valid.', {
      errors: [{ field: '/email', code: 'invalid_format', message: 'must be an email address' }],
    });
  }
  return email;
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('validation_failed', 'The password is too short.', {
      errors: [
        { field: '/password', code: 'too_short', message: `must be at least ${MIN_PASSWORD_LENGTH} characters` },
      ],
    });
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new DomainError('validation_failed', 'The password is too long.', {
      errors: [{ field: '/password', code: 'too_long', message: 'must be at most 1024 characters' }],
    });
  }
}

/** Creates an active portal user of a partner (operators: console and CLI); the password is stored as a scrypt hash. */
export async function createUser(
  db: Db,
  actor: string,
  input: { partnerId: string; email: string; password: string; role?: UserRole },
): Promise<{ id: string; email: string; role: UserRole }> {
  const email = normaliseEmail(input.email);
  checkPassword(input.password);
  const role = input.role ?? 'admin';
  const passwordHash = await hashPassword(input.password);
  return taken(email, () =>
    db.transaction().execute(async (trx) => {
      // an operator sees every partner: an address that signs in anywhere, or known at this partner, is taken
      if (await users.emailTaken(trx, input.partnerId, email, true))
        throw new DomainError('conflict', `A user with email ${email} already exists.`);
      const user = await repo.insertUser(trx, {
        partner_id: input.partnerId,
        email,
        password_hash: passwordHash,
        role,
        activated_at: new Date(),
      });
      await audit(trx, {
        actor,
        partnerId: input.partnerId,
        entity: 'user',
        entityId: user.id,
        action: 'created',
        data: { email, role },
      });
      return { ...user, role };
    }),
  );
}

/**
 * Runs a check-then-insert of a user with `email`: the check reads what is committed, so another
 * transaction inserting the same address at once (two invitations, an operator's user and an
 * acceptance) is met by the insert's unique index — the same 409 as the check's, not a 500.
 */
async function taken<T>(email: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isUniqueViolation(error, 'users_partner_email') || isUniqueViolation(error, 'users_signin_email'))
      throw new DomainError('conflict', `A user with email ${email} already exists.`);
    throw error;
  }
}

/** The partner's users, by email (every role may read it). */
export async function listUsers(db: Executor, partnerId: string): Promise<users.UserRow[]> {
  return users.listUsers(db, partnerId);
}

/** An invitation's address and role as given, checked (400), and the caller's role as its session read it (403). */
function invitation(caller: UserCaller, input: { email: string; role: string }): { email: string; role: UserRole } {
  requirePermission(caller.role, 'users');
  return { email: normaliseEmail(input.email), role: parseRole(input.role) };
}

/**
 * Only the partner's own users count: whether the address has an account at another partner is none
 * of this partner's business (the invitee learns it from the link, docs/portal.md).
 */
async function refuseTaken(db: Executor, partnerId: string, email: string): Promise<void> {
  if (await users.emailTaken(db, partnerId, email, false))
    throw new DomainError('conflict', `A user with email ${email} already exists.`);
}

/**
 * What `inviteUser` would refuse, checked without writing: the address and role, the caller's right
 * as it stands (still an active admin), an address already the partner's. The console checks it
 * before it counts the invitation against its limit, so a refused invitation spends no slot (the
 * counting is one statement, concurrent invitations each counted); `inviteUser` checks all of it
 * again, under the users' lock.
 */
export async function checkInvitation(
  db: Executor,
  caller: UserCaller,
  input: { email: string; role: string },
): Promise<void> {
  const { email } = invitation(caller, input);
  requireCallerRight(await users.listUsers(db, caller.partnerId), caller, 'users');
  await refuseTaken(db, caller.partnerId, email);
}

/**
 * An admin invites someone by email with a role: the user exists at once, invited (no password),
 * and receives a link to choose its password, in the inviter's language.
 */
export async function inviteUser(
  deps: UserDeps,
  caller: UserCaller,
  input: { email: string; role: string },
): Promise<{ id: string; email: string }> {
  const { email, role } = invitation(caller, input);
  const partner = await repo.findPartner(deps.db, caller.partnerId);
  if (!partner) throw new DomainError('partner_not_found', 'No such partner.');
  return taken(email, () =>
    transaction(deps.db, async (trx) => {
      // the caller's right as it stands now, under the users' lock (a demoted or removed admin's
      // request already under way invites no one)
      requireCallerRight(await users.lockPartnerUsers(trx, caller.partnerId), caller, 'users');
      await refuseTaken(trx, caller.partnerId, email);
      const user = await repo.insertUser(trx, {
        partner_id: caller.partnerId,
        email,
        password_hash: null,
        role,
        activated_at: null,
        language: caller.lang,
      });
      await sendInvitation(
        deps,
        trx,
        { partnerId: caller.partnerId, partnerName: partner.name, lang: caller.lang },
        { id: user.id, email, role },
      );
      await audit(trx, {
        actor: caller.actor,
        partnerId: caller.partnerId,
        entity: 'user',
        entityId: user.id,
        action: 'invited',
        data: { email, role },
      });
      return user;
    }),
  );
}

/**
 * An admin sends an invitation again, to a user still invited (its link expired, or the email was
 * lost): a new link valid USER_LINKS.invitationHours, in the admin's language; the earlier links stop
 * working. A user of another partner is no such user (404); an active one is a 409.
 */
export async function resendInvitation(
  deps: UserDeps,
  caller: UserCaller,
  userId: string,
): Promise<{ id: string; email: string }> {
  requirePermission(caller.role, 'users');
  const partner = await repo.findPartner(deps.db, caller.partnerId);
  if (!partner) throw new DomainError('partner_not_found', 'No such partner.');
  return transaction(deps.db, async (trx) => {
    const target = await lockedTarget(trx, caller, userId, undefined);
    if (target.activatedAt !== null)
      throw new DomainError('conflict', 'This user has accepted its invitation already: it can reset its password.');
    await users.retireUserTokens(trx, target.id, 'invitation', deps.now());
    await sendInvitation(
      deps,
      trx,
      { partnerId: caller.partnerId, partnerName: partner.name, lang: caller.lang },
      target,
    );
    await audit(trx, {
      actor: caller.actor,
      partnerId: caller.partnerId,
      entity: 'user',
      entityId: target.id,
      action: 'invitation_resent',
      data: { role: target.role },
    });
    return { id: target.id, email: target.email };
  });
}

/** A new invitation link for `user`, emailed in `from.lang`. */
async function sendInvitation(
  deps: UserDeps,
  trx: Executor,
  from: { partnerId: string; partnerName: string; lang: Lang },
  user: { id: string; email: string; role: UserRole },
): Promise<void> {
  const link = await issueLink(deps, trx, user.id, 'invitation');
  const w = t(from.lang).partnerUsers;
  await queueEmail(trx, deps, {
    kind: 'user_invitation',
    dedupeKey: `user:${user.id}:invitation:${link.id}`,
    to: user.email,
    partnerId: from.partnerId,
    subject: w.mail.invitationSubject(from.partnerName),
    text: w.mail.invitationText({
      partner: from.partnerName,
      role: w.roles[user.role],
      link: link.url,
      hours: USER_LINKS.invitationHours,
    }),
  });
}

/** Changes a user's role (admins); the last active admin keeps its role. Takes effect on the user's next request. */
export async function setUserRole(deps: Pick<UserDeps, 'db'>, caller: UserCaller, userId: string, rawRole: string) {
  requirePermission(caller.role, 'users');
  const role = parseRole(rawRole);
  await transaction(deps.db, async (trx) => {
    const target = await lockedTarget(trx, caller, userId, role === 'admin' ? undefined : 'demoted');
    if (target.role === role) return;
    await users.setRole(trx, userId, role);
    await audit(trx, {
      actor: caller.actor,
      partnerId: caller.partnerId,
      entity: 'user',
      entityId: userId,
      action: 'role_changed',
      data: { email: target.email, from: target.role, to: role },
    });
  });
}

/** Removes a user (admins): its sessions and links end with it; the last active admin stays. */
export async function removeUser(deps: Pick<UserDeps, 'db'>, caller: UserCaller, userId: string): Promise<void> {
  requirePermission(caller.role, 'users');
  await transaction(deps.db, async (trx) => {
    const target = await lockedTarget(trx, caller, userId, 'removed');
    await users.deleteUser(trx, userId);
    await audit(trx, {
      actor: caller.actor,
      partnerId: caller.partnerId,
      entity: 'user',
      entityId: userId,
      action: 'removed',
      data: { email: target.email, role: target.role },
    });
  });
}

/** A partner user writing from the portal or the console: the user, and its partner. */
export interface ActingUser {
  userId: string;
  partnerId: string;
}

/**
 * Every write of a partner user (the portal's and the console's: users, API keys, the brand name, the
 * configuration, webhook endpoints) checks the caller again inside the transaction that writes, as
 * its first statement: the caller's own row locked FOR SHARE (`lockUserShared`), the caller must still
 * be an active user whose role grants `permission`. An admin's demotion or removal locks every user
 * row of the partner FOR UPDATE (`lockPartnerUsers`), so it and this write wait for one another; other
 * writes (and sign-ins) of the partner's other users are not held up. Its session's role was read when
 * the request began (the web layer's early `allow`, the cheap first check), and an admin demoting or
 * removing it meanwhile commits before this lock is granted — so a caller no longer allowed is refused
 * (403) here, nothing written, rather than acting on a right taken away (a demoted admin's API key, a
 * removed developer's endpoint). Taken before any other lock of the transaction (the partner's row, an
 * endpoint's): the users-first order every path keeps. The users' own writes (invite, role, removal)
 * take the lock of every row instead (they count or check the partner's other users).
 */
export async function requireActingUser(trx: Executor, user: ActingUser, permission: Permission): Promise<void> {
  const self = await users.lockUserShared(trx, user.partnerId, user.userId);
  requireCallerRight(self ? [self] : [], user, permission);
}

/** The caller among the partner's users `all`: still active, its role granting `permission`, or 403. */
function requireCallerRight(all: readonly users.UserRow[], user: ActingUser, permission: Permission): void {
  const self = all.find((u) => u.id === user.userId);
  if (!self || self.activatedAt === null || !can(self.role, permission))
    throw new DomainError('forbidden', `The ${self?.role ?? 'removed'} user may no longer change ${permission}.`);
}

/**
 * The user of the partner about to change, under the lock of the partner's users, the caller's own
 * right checked again under it (`requireActingUser`'s check): when it is the last active admin and
 * `losing` says it would stop being one, the change is refused (409).
 */
async function lockedTarget(
  trx: Executor,
  caller: UserCaller,
  userId: string,
  losing: 'removed' | 'demoted' | undefined,
): Promise<users.UserRow> {
  const all = await users.lockPartnerUsers(trx, caller.partnerId);
  requireCallerRight(all, caller, 'users');
  const target = all.find((u) => u.id === userId);
  if (!target) throw new DomainError('not_found', 'No such user.');
  const activeAdmins = all.filter((u) => u.role === 'admin' && u.activatedAt !== null);
  if (losing && target.role === 'admin' && target.activatedAt !== null && activeAdmins.length <= 1) {
    throw new DomainError('conflict', `The last admin cannot be ${losing}: make another user admin first.`);
  }
  return target;
}

/**
 * What the `users_password_reset` job carries: the address asked for, sealed (personal data), and
 * the client address it was asked from, by its keyed hash and network (platform/client-address.ts).
 * Jobs queued by earlier versions carry `address`, the client address in clear, instead of `client`.
 */
export interface PasswordResetJob {
  email: string;
  client?: ClientAddressTag;
  /** Earlier versions' jobs only: the client address in clear, tagged when the job runs. */
  address?: string;
}

/**
 * "Forgot password", as the page asks it: whatever the address — an active user's, an invited one's,
 * unknown —, the same work, by construction: one job, carrying the address sealed, and nothing
 * answered. The job (`sendPasswordReset`) looks the address up and emails the link; neither the
 * page's answer nor its time depends on whether the address has an account (the caller also limits
 * the rate).
 */
export async function requestPasswordReset(
  deps: Pick<UserDeps, 'jobs' | 'keys'>,
  rawEmail: string,
  from: ClientAddressTag,
): Promise<void> {
  await deps.jobs.send('users_password_reset', {
    email: encrypt(deps.keys.encryption, rawEmail.slice(0, 320)),
    client: { addressHmac: from.addressHmac, network: from.network },
  });
}

/** Raised inside the transaction to undo it: this job's email exists already (a retry after commit). */
class AlreadyQueued extends Error {}

/** Raised inside the transaction: the user was removed since it was looked up. */
class UserGone extends Error {}

/**
 * The `users_password_reset` job: when the address is an active user's, a reset link (valid
 * USER_LINKS.resetMinutes, replacing any earlier one) is emailed in the user's language; otherwise
 * nothing. Whoever asked had no session: the audit row's actor is `anonymous`, with the client
 * address it asked from (its keyed hash and network, never the address). Idempotent: a retry of a job whose email was written writes nothing more.
 */
export async function sendPasswordReset(
  deps: UserDeps & { keys: Pick<Keyring, 'encryption' | 'lookup'> },
  job: Job<PasswordResetJob>,
): Promise<'sent' | 'no_account'> {
  const email = decrypt(deps.keys.encryption, job.data.email).trim().toLowerCase();
  if (email === '' || email.length > 320) return 'no_account';
  const user = await users.findActiveUserByEmail(deps.db, email);
  if (!user || user.activatedAt === null) return 'no_account';
  try {
    await transaction(deps.db, async (trx) => {
      // the users' rows before their links, as every path does (lock order, users-repo.ts)
      const same = await users.lockUsersByEmail(trx, user.email);
      if (!same.some((u) => u.id === user.id)) throw new UserGone(); // removed meanwhile: nothing to send
      await users.retireUserTokens(trx, user.id, 'password_reset', deps.now());
      const link = await issueLink(deps, trx, user.id, 'password_reset');
      const w = t(user.language ?? 'en').partnerUsers;
      const queued = await queueEmail(trx, deps, {
        kind: 'password_reset',
        dedupeKey: `user:${user.id}:password_reset:${job.id}`,
        to: user.email,
        partnerId: user.partnerId,
        subject: w.mail.resetSubject,
        text: w.mail.resetText({ link: link.url, minutes: USER_LINKS.resetMinutes }),
      });
      // the link of the email already written stays the live one
      if (!queued) throw new AlreadyQueued();
      await audit(trx, {
        actor: 'anonymous',
        partnerId: user.partnerId,
        entity: 'user',
        entityId: user.id,
        action: 'password_reset_requested',
        data: job.data.client ?? (job.data.address ? tagClientAddress(deps.keys.lookup, job.data.address) : {}),
      });
    });
  } catch (error) {
    if (error instanceof UserGone) return 'no_account';
    if (!(error instanceof AlreadyQueued)) throw error;
  }
  return 'sent';
}

/** A new single-use link: its token goes in the email, its SHA-256 in the database. */
async function issueLink(
  deps: Pick<UserDeps, 'publicUrl' | 'now'>,
  trx: Executor,
  userId: string,
  purpose: 'invitation' | 'password_reset',
): Promise<{ id: string; url: string }> {
  const token = randomToken(32);
  const tokenHash = sha256Hex(token);
  const now = deps.now();
  const ttlMs = purpose === 'invitation' ? USER_LINKS.invitationHours * 3_600_000 : USER_LINKS.resetMinutes * 60_000;
  await users.insertUserToken(trx, { tokenHash, userId, purpose, now, expiresAt: new Date(now.getTime() + ttlMs) });
  return { id: tokenHash.slice(0, 16), url: `${deps.publicUrl}/portal/password/${token}` };
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What a link's page shows before it is used: its user's email and purpose, or undefined when it does not work. */
export async function peekPasswordLink(
  deps: Pick<UserDeps, 'db' | 'now'>,
  token: string,
): Promise<{ email: string; purpose: 'invitation' | 'password_reset'; addressTaken: boolean } | undefined> {
  if (!TOKEN.test(token)) return undefined;
  const row = await users.findLiveToken(deps.db, sha256Hex(token), deps.now());
  if (!row) return undefined;
  const active = row.purpose === 'invitation' ? await users.findActiveUserByEmail(deps.db, row.email) : undefined;
  return { email: row.email, purpose: row.purpose, addressTaken: active !== undefined && active.id !== row.user_id };
}

/** An invitation whose address signs in already, at another partner: nothing is written. */
class AddressTaken extends Error {}

/**
 * Uses a link once: sets the password (an invited user becomes active) and answers the user, or
 * undefined when the link is unknown, used, replaced or expired, or `address_taken` when it is an
 * invitation of an address that signs in already (invited by another partner too, and accepted
 * there first: an address has one account) — the link is then left unused. `endSessions` ends the
 * user's sessions in the same transaction, right after the password is set (the web layer's: this
 * domain knows no sessions), so a password set by a link never leaves an old session alive; it runs
 * with the user's row locked, the order sign-in locks them in (users, then web_sessions).
 */
export async function usePasswordLink(
  deps: Pick<UserDeps, 'db' | 'now'>,
  token: string,
  password: string,
  endSessions: EndSessions,
): Promise<
  | { userId: string; email: string; partnerId: string; purpose: 'invitation' | 'password_reset' }
  | 'address_taken'
  | undefined
> {
  checkPassword(password);
  if (!TOKEN.test(token)) return undefined;
  const passwordHash = await hashPassword(password);
  const now = deps.now();
  try {
    return await setPasswordByLink(deps, token, passwordHash, now, endSessions);
  } catch (error) {
    if (error instanceof AddressTaken) return 'address_taken';
    // an account of the address created meanwhile (an operator's user, committed after our lock)
    if (isUniqueViolation(error, 'users_signin_email')) return 'address_taken';
    throw error;
  }
}

/** Ends every session of a user, inside the caller's transaction. */
export type EndSessions = (trx: Executor, userId: string) => Promise<unknown>;

async function setPasswordByLink(
  deps: Pick<UserDeps, 'db'>,
  token: string,
  passwordHash: string,
  now: Date,
  endSessions: EndSessions,
) {
  const tokenHash = sha256Hex(token);
  return transaction(deps.db, async (trx) => {
    // the users' rows first, then the link: the order of every path that locks both (an admin's
    // resend or removal locks the partner's users, then retires or deletes their links), or the two
    // deadlock (users-repo.ts)
    const live = await users.findLiveToken(trx, tokenHash, now);
    if (!live) return undefined;
    // the address's rows in turn: of two invitations accepted at once, the second sees the first
    const same = await users.lockUsersByEmail(trx, live.email);
    // under the lock: a link resent or removed meanwhile is no longer live
    const used = await users.useToken(trx, tokenHash, now);
    if (!used) return undefined;
    if (same.some((u) => u.id !== used.user_id && u.password_hash !== null)) throw new AddressTaken();
    const user = await users.setPassword(trx, used.user_id, passwordHash, now);
    // whoever held a session of this account holds it no more (a reset is asked for when locked out)
    await endSessions(trx, used.user_id);
    await users.retireUserTokens(trx, used.user_id, used.purpose, now);
    await audit(trx, {
      actor: `user:${used.user_id}`,
      partnerId: user.partner_id,
      entity: 'user',
      entityId: used.user_id,
      action: used.purpose === 'invitation' ? 'invitation_accepted' : 'password_reset',
    });
    return { userId: used.user_id, email: user.email, partnerId: user.partner_id, purpose: used.purpose };
  });
}

/** Written at each sign-in: the users page's "last sign-in", and the language of the user's next emails. */
export async function recordUserSignIn(db: Executor, userId: string, at: Date, lang: Lang): Promise<void> {
  await users.recordSignIn(db, userId, at, lang);
}
