import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  claimTrail,
  correctClaimPhone,
  correctVoidCause,
  findClaimForDesk,
  resendClaimLink,
  type DeskAction,
  type DeskOutcome,
} from '../claims/index.ts';
import { claimMessages, maskPhone } from '../notify/index.ts';
import {
  approveManualPayout,
  correctClaimCompensation,
  listClaimPayoutAttempts,
  reviewClaim,
  setPayoutBic,
  voidClaim,
} from '../payouts/index.ts';
import { decrypt, randomToken } from '../platform/crypto.ts';
import { DomainError } from '../platform/errors.ts';
import { claimDeskPage, type ClaimDeskView, type DeskNotice } from './admin-claim-view.ts';
import { sessionActor } from './sessions.ts';
import { contextOf, field, langOf, problemLines, sendPage, WHOLE, type FormBody, type WebDeps } from './web-kit.ts';

/**
 * The operator's claim desk (issue 14 §4, docs/OPERATOR.md): GET /admin/claims/:claimNumber shows
 * the claim, its evidence, messages, payout attempts and audit trail; each action is a POST with a
 * required reason and the page's one-time token (a double submit does it once), through the use
 * cases the CLI's `parasol claims …` runs. Registered inside the operator scope: session and CSRF
 * are checked there. A refusal shows the page again with the problem (409, 422; 404 for no claim).
 * What the operator typed is read whole (`WHOLE`) and refused by the use case past its bound — a phone
 * of 41 characters, a reason of 501 — never cut to one first: cut, a long paste became another value.
 */

const ClaimParams = Type.Object({ claimNumber: Type.String({ pattern: '^[A-Za-z]{3}-[0-9]{8}$', maxLength: 12 }) });
const ClaimQuery = Type.Object({ done: Type.Optional(Type.Union([Type.Literal('done'), Type.Literal('replayed')])) });

export function adminClaimRoutes(deps: WebDeps): FastifyPluginAsync {
  return async (app) => {
    const notifyDeps = () => ({
      db: deps.db,
      jobs: deps.flight.jobs,
      keys: deps.flight.keys,
      publicUrl: deps.config.publicUrl,
      bankDetailsDays: deps.config.bankDetailsDays,
      insurer: deps.config.insurer,
      now: deps.now,
    });

    app.get<{ Params: Static<typeof ClaimParams>; Querystring: Static<typeof ClaimQuery> }>(
      '/admin/claims/:claimNumber',
      { schema: { hide: true, params: ClaimParams, querystring: ClaimQuery } },
      async (request, reply) =>
        sendPage(
          reply,
          200,
          claimDeskPage(
            contextOf(request, 'admin'),
            await loadDesk(deps, request.params.claimNumber),
            request.query.done ? { done: request.query.done } : {},
          ),
        ),
    );

    type ActionRequest = FastifyRequest<{ Params: Static<typeof ClaimParams>; Body: FormBody }>;
    const action = (path: string, run: (input: DeskAction, request: ActionRequest) => Promise<DeskOutcome>) =>
      app.post<{ Params: Static<typeof ClaimParams>; Body: FormBody }>(
        `/admin/claims/:claimNumber/${path}`,
        { schema: { hide: true, params: ClaimParams } },
        async (request, reply) => {
          const input: DeskAction = {
            claimNumber: request.params.claimNumber,
            actor: sessionActor(request.webSession!),
            reason: field(request.body, 'reason', WHOLE),
            actionToken: field(request.body, 'actionToken', 100),
          };
          try {
            const done = await run(input, request);
            return reply.redirect(`/admin/claims/${done.claimNumber}?done=${done.outcome}`, 303);
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
            if (error.code === 'claim_not_found') throw error;
            const notice: DeskNotice = { problems: problemLines(error, langOf(request)) };
            return sendPage(
              reply,
              error.status === 409 ? 409 : 422,
              claimDeskPage(contextOf(request, 'admin'), await loadDesk(deps, request.params.claimNumber), notice),
            );
          }
        },
      );

    action('resend-link', (input) => resendClaimLink(notifyDeps(), input));
    action('phone', (input, request) =>
      correctClaimPhone(notifyDeps(), { ...input, phone: field(request.body, 'phone', WHOLE) }),
    );
    action('review', (input) => reviewClaim(deps, input));
    action('approve', (input) =>
      approveManualPayout({ db: deps.db, jobs: deps.flight.jobs, keys: deps.keys, now: deps.now }, input),
    );
    action('amount', (input, request) =>
      correctClaimCompensation(deps, { ...input, amount: field(request.body, 'amount', WHOLE) }),
    );
    action('void', (input, request) =>
      voidClaim(
        { db: deps.db, jobs: deps.flight.jobs, keys: deps.keys, now: deps.now },
        { ...input, cause: field(request.body, 'cause', WHOLE) },
      ),
    );
    action('void-cause', (input, request) =>
      correctVoidCause(deps, { ...input, cause: field(request.body, 'cause', WHOLE) }),
    );
    action('bic', (input, request) =>
      setPayoutBic(
        { db: deps.db, keys: deps.flight.keys, now: deps.now },
        { ...input, bic: field(request.body, 'bic', WHOLE) },
      ),
    );
  };
}

/** Everything the claim page shows, and a fresh one-time token for its forms. */
async function loadDesk(deps: WebDeps, claimNumber: string): Promise<ClaimDeskView> {
  const claim = await findClaimForDesk(deps.db, claimNumber.toUpperCase());
  if (!claim) throw new DomainError('claim_not_found', `No claim ${claimNumber}.`);
  const key = deps.flight.keys.encryption;
  const [messages, attempts, trail] = await Promise.all([
    claimMessages(deps.db, key, claim.id),
    listClaimPayoutAttempts(deps.db, claim.id),
    claimTrail(deps.db, claim),
  ]);
  return {
    claim,
    phone: maskPhone(decrypt(key, claim.customer_phone_enc)),
    messages,
    attempts,
    trail,
    actionToken: randomToken(24),
  };
}
