import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  inviteUser,
  listUsers,
  removeUser,
  resendInvitation,
  setUserRole,
  type CountInvitation,
  type UserCaller,
  type UserDeps,
} from '../partners/index.ts';
import { DomainError } from '../platform/errors.ts';
import { t } from '../i18n/index.ts';
import { countInvitation, sessionActor } from './sessions.ts';
import { usersPage, type UsersOutcome } from './user-views.ts';
import {
  allow,
  conflictLine,
  contextOf,
  field,
  langOf,
  problemLines,
  requireSession,
  sendPage,
  WHOLE,
  type ConflictSentences,
  type FormBody,
  type WebDeps,
} from './web-kit.ts';

/** The partner console's Users page: admins list, invite, change roles and remove (partners/users.ts). */
export function userRoutes(deps: WebDeps): FastifyPluginAsync {
  const users: UserDeps = {
    db: deps.db,
    jobs: deps.flight.jobs,
    keys: deps.flight.keys,
    publicUrl: deps.config.publicUrl,
    now: deps.now,
  };
  const callerOf = (request: FastifyRequest): UserCaller => {
    const session = request.webSession!;
    return {
      actor: sessionActor(session),
      partnerId: session.partnerId!,
      userId: session.accountId,
      role: session.role ?? 'viewer',
      lang: langOf(request),
    };
  };
  const render = async (request: FastifyRequest, reply: FastifyReply, status: number, outcome?: UsersOutcome) =>
    sendPage(
      reply,
      status,
      usersPage(
        contextOf(request, 'console'),
        await listUsers(deps.db, request.webSession!.partnerId!),
        deps.now(),
        outcome,
      ),
    );

  return async (app) => {
    requireSession(app, deps, 'partner', 'console', '/portal/login');
    // the whole page is the admins': other roles get the 403 page, reading included
    app.addHook('preHandler', async (request) => allow(request, 'users'));

    app.get('/console/users', async (request, reply) => render(request, reply, 200));

    /**
     * What each form's 409 `conflict` means, in the page's words (its use case answers one kind): an address
     * already a user (invitation), a user who signed in already (resend), the last admin (role, removal); another form's is the code's sentence.
     */
    const conflicts: ConflictSentences = {
      '/console/users': (w, body) => w.partnerUsers.conflicts.taken(field(body, 'email', WHOLE).trim().toLowerCase()),
      '/console/users/:id/resend': (w) => w.partnerUsers.conflicts.accepted,
      '/console/users/:id/role': (w) => w.partnerUsers.conflicts.lastAdmin,
      '/console/users/:id/remove': (w) => w.partnerUsers.conflicts.lastAdmin,
    };

    /** Runs a change; a domain error other than 403/404 is shown on the page (422, 409, or 429 past a limit). */
    const change = (
      path: string,
      run: (
        request: FastifyRequest<{ Body: FormBody; Params: { id?: string } }>,
        reply: FastifyReply,
      ) => Promise<string>,
      form?: (body: FormBody) => UsersOutcome,
    ) =>
      app.post<{ Body: FormBody; Params: { id?: string } }>(path, async (request, reply) => {
        try {
          const notice = await run(request, reply);
          return await render(request, reply, 200, { notice });
        } catch (error) {
          if (!(error instanceof DomainError) || [403, 404].includes(error.status) || error.status >= 500) throw error;
          // the limit's message is already in the page's language
          const w = t(langOf(request));
          const labels = { email: w.email, role: w.partnerUsers.role }; // the form's labels, not the API's names
          const conflict = conflictLine(error, langOf(request), path, conflicts, request.body);
          const problems =
            error.code === 'rate_limited'
              ? [error.detail]
              : conflict !== undefined
                ? [conflict]
                : problemLines(error, langOf(request), labels);
          return render(request, reply, error.status, {
            problems,
            ...(form ? form(request.body) : {}),
          });
        }
      });

    /**
     * Counts an invitation email (a resend of `userId`'s) in the invitation's transaction, once it is
     * sure to go (partners/users.ts `CountInvitation`): past INVITATION_RULES, a 429 with Retry-After
     * (a DomainError the page shows) and nothing sent.
     */
    const limitInvitations =
      (request: FastifyRequest, reply: FastifyReply, userId?: string): CountInvitation =>
      async (trx) => {
        const partnerId = request.webSession!.partnerId!;
        const wait = await countInvitation({ ...deps, db: trx }, { partnerId, ...(userId ? { userId } : {}) });
        if (wait === undefined) return;
        reply.header('Retry-After', String(wait));
        throw new DomainError('rate_limited', t(langOf(request)).partnerUsers.inviteLimited(Math.ceil(wait / 60)));
      };

    change(
      '/console/users',
      async (request, reply) => {
        const email = field(request.body, 'email', WHOLE);
        const invitation = { email, role: field(request.body, 'role', WHOLE) };
        // counted in the invitation's transaction, under the users' lock, once everything it could
        // refuse was checked (the address, the role, the caller's right as it stands, an address already
        // a user): a refused one spends no slot, and two at once are each counted, one after the other
        await inviteUser(users, callerOf(request), invitation, limitInvitations(request, reply));
        return t(langOf(request)).partnerUsers.invited(email.toLowerCase());
      },
      (body) => ({ email: field(body, 'email', WHOLE), role: field(body, 'role', WHOLE) }),
    );
    change('/console/users/:id/role', async (request) => {
      await setUserRole(users, callerOf(request), uuidOf(request.params.id), field(request.body, 'role', WHOLE));
      return t(langOf(request)).partnerUsers.roleChanged;
    });
    change('/console/users/:id/resend', async (request, reply) => {
      const userId = uuidOf(request.params.id);
      // counted once the resend is sure to go (a user active meanwhile, a caller demoted: refused, not counted)
      const resent = await resendInvitation(users, callerOf(request), userId, limitInvitations(request, reply, userId));
      return t(langOf(request)).partnerUsers.resent(resent.email);
    });
    change('/console/users/:id/remove', async (request) => {
      await removeUser(users, callerOf(request), uuidOf(request.params.id));
      return t(langOf(request)).partnerUsers.removed;
    });
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A user id from the path: anything else is no such user (404), not a database error. */
function uuidOf(id: string | undefined): string {
  if (!id || !UUID.test(id)) throw new DomainError('not_found', 'No such user.');
  return id.toLowerCase();
}
