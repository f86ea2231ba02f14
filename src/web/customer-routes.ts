import type { JobQueue } from '../platform/jobs.ts';
import formbody from '@fastify/formbody';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { claimForLink, submitBankDetails, type BankDetailsOutcome } from '../payouts/index.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { customerLanguageOf } from '../i18n/index.ts';
import { UnsafeTextError, withoutUnsafeText } from '../platform/text-guard.ts';
import { claimPage, closedPage, legalPage, thanksPage, unknownPage, type PageLegal } from './claim-page.ts';

/**
 * The customer pages behind the SMS link, `/c/<token>`: the token is the credential (256 random
 * bits, stored hashed), so there is no session. 404 for a link never issued, 410 for one used,
 * expired or replaced by a newer one (its page says where the claim stands, and sends the customer to
 * the newest message), never another claim. Bodies are HTML; form posts are urlencoded (in this scope only).
 * `/c/<token>/legal` and `/c/<token>/privacy`: the legal and privacy notices in the customer's
 * language, naming the partner's brand (also for a used or expired link).
 */
export function customerRoutes(deps: {
  db: Db;
  jobs: JobQueue;
  keys: Keyring;
  now: () => Date;
  legal: PageLegal;
}): FastifyPluginAsync {
  return async (app) => {
    await app.register(formbody, { bodyLimit: 4096 });
    app.addHook('onSend', async (_request, reply) => {
      reply
        .header('Cache-Control', 'no-store')
        .header('Referrer-Policy', 'no-referrer')
        .header('X-Frame-Options', 'DENY');
      reply.header(
        'Content-Security-Policy',
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'",
      );
    });
    const params = {
      type: 'object',
      properties: { token: { type: 'string', maxLength: 100 } },
      required: ['token'],
    } as const;

    app.get<{ Params: { token: string }; Querystring: { account?: string } }>(
      '/c/:token',
      { schema: { hide: true, params } },
      async (request, reply) => {
        const state = await claimForLink(deps.db, request.params.token, deps.now());
        reply.type('text/html; charset=utf-8');
        if (state.kind === 'unknown')
          return reply.code(404).send(unknownPage(customerLanguageOf(request.headers['accept-language'])));
        if (!state.claim.open) return reply.code(410).send(closedPage(state.claim, deps.legal, request.params.token));
        // a claim in USD asks for a US account; `?account=iban` for an IBAN instead (a customer abroad)
        return claimPage(state.claim, deps.legal, request.params.token, undefined, request.query.account === 'iban');
      },
    );

    for (const kind of ['legal', 'privacy'] as const) {
      app.get<{ Params: { token: string } }>(
        `/c/:token/${kind}`,
        { schema: { hide: true, params } },
        async (request, reply) => {
          const state = await claimForLink(deps.db, request.params.token, deps.now());
          reply.type('text/html; charset=utf-8');
          if (state.kind === 'unknown')
            return reply.code(404).send(unknownPage(customerLanguageOf(request.headers['accept-language'])));
          return legalPage(kind, state.claim, deps.legal, request.params.token);
        },
      );
    }

    // A character no text may hold (U+0000, an unpaired surrogate: platform/text-guard.ts) is refused
    // before the form reaches its handler; the customer gets the form back, the field refused in
    // their language as any other character a field may not hold, rather than a problem+json. Only
    // that rule's refusal (UnsafeTextError) is answered so; any other error goes to the app's handler.
    app.setErrorHandler(async (error, request, reply) => {
      const token = (request.params as { token?: unknown } | undefined)?.token;
      if (!(error instanceof UnsafeTextError) || request.method !== 'POST' || typeof token !== 'string') throw error;
      const issues = (error.extra.errors ?? []).flatMap((f) => {
        const field = f.field.slice(1);
        return Object.hasOwn(UNSAFE_TEXT_ISSUE, field)
          ? [
              {
                field: field as keyof typeof UNSAFE_TEXT_ISSUE,
                code: UNSAFE_TEXT_ISSUE[field as keyof typeof UNSAFE_TEXT_ISSUE],
              },
            ]
          : [];
      });
      // a field the form does not show (accountKind, one it never sends) names no issue: the form comes back as sent
      const state = await claimForLink(deps.db, token, deps.now());
      const outcome: BankDetailsOutcome =
        state.kind === 'unknown'
          ? state
          : state.claim.open
            ? { kind: 'invalid', claim: state.claim, issues }
            : { kind: 'closed', claim: state.claim };
      return sendOutcome(
        request,
        reply,
        token,
        outcome,
        formValues(request.body as Record<string, unknown> | undefined),
      );
    });

    app.post<{ Params: { token: string }; Body: Record<string, string | undefined> }>(
      '/c/:token',
      { schema: { hide: true, params } },
      async (request, reply) => {
        const values = formValues(request.body);
        const outcome = await submitBankDetails(
          deps,
          request.params.token,
          values.accountKind === 'us' ? { ...values, kind: 'us' } : { ...values, kind: 'iban' },
        );
        return sendOutcome(request, reply, request.params.token, outcome, values);
      },
    );

    /** A submitted form's outcome as its page: 404 unknown link, 410 closed claim, 422 the form back with its issues, the thanks page. */
    function sendOutcome(
      request: FastifyRequest,
      reply: FastifyReply,
      token: string,
      outcome: BankDetailsOutcome,
      values: ReturnType<typeof formValues>,
    ) {
      reply.type('text/html; charset=utf-8');
      switch (outcome.kind) {
        case 'unknown':
          return reply.code(404).send(unknownPage(customerLanguageOf(request.headers['accept-language'])));
        case 'closed':
          return reply.code(410).send(closedPage(outcome.claim, deps.legal, token));
        case 'invalid':
          return reply.code(422).send(claimPage(outcome.claim, deps.legal, token, { values, issues: outcome.issues }));
        case 'accepted':
          return reply.send(thanksPage(outcome.claim, deps.legal, token, outcome.ibanLast4));
      }
    }
  };
}

/** The form's fields as sent, each a string (what the page shows back), without what no text may hold. */
function formValues(body: Record<string, unknown> | undefined) {
  const text = (value: unknown) => (typeof value === 'string' ? withoutUnsafeText(value) : '');
  const b = body ?? {};
  return {
    accountKind: b.accountKind === 'us' ? ('us' as const) : ('iban' as const),
    accountHolder: text(b.accountHolder),
    iban: text(b.iban),
    bic: text(b.bic),
    routingNumber: text(b.routingNumber),
    accountNumber: text(b.accountNumber),
    accountType: text(b.accountType),
  };
}

/** What a field holding a character no text may hold is refused as. */
const UNSAFE_TEXT_ISSUE = {
  accountHolder: 'holder_characters',
  iban: 'iban_invalid',
  bic: 'bic_invalid',
  routingNumber: 'routing_invalid',
  accountNumber: 'account_number_invalid',
  accountType: 'account_type_invalid',
} as const;
