import type { FastifyPluginAsync } from 'fastify';
import {
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  peekPasswordLink,
  requestPasswordReset,
  usePasswordLink,
  type UserDeps,
} from '../partners/index.ts';
import { tagClientAddress } from '../platform/client-address.ts';
import { DomainError } from '../platform/errors.ts';
import { html } from '../platform/html.ts';
import { t } from '../i18n/index.ts';
import { messagePage, page, type PageContext } from './layout.ts';
import { countResetRequest, endUserSessions, sameSecret } from './sessions.ts';
import { loginCsrf } from './sign-in.ts';
import { contextOf, COOKIES, field, sendPage, type FormBody, type WebDeps, WHOLE } from './web-kit.ts';

/**
 * Pages without a session: "forgot password" (/portal/forgot) and the single-use links of invitations
 * and resets (/portal/password/<token>, the token redacted from logs). Their forms' CSRF token is the
 * sign-in form's double-submit cookie. The forgot page answers the same whether the address exists.
 */
export function passwordRoutes(deps: WebDeps): FastifyPluginAsync {
  const users: UserDeps = {
    db: deps.db,
    jobs: deps.flight.jobs,
    keys: deps.flight.keys,
    publicUrl: deps.config.publicUrl,
    now: deps.now,
  };
  return async (app) => {
    app.get('/portal/forgot', async (request, reply) => {
      const ctx = contextOf(request, 'portal');
      return sendPage(reply, 200, forgotPage(ctx, loginCsrf(deps.config, request, reply)));
    });

    app.post<{ Body: FormBody }>('/portal/forgot', async (request, reply) => {
      const ctx = contextOf(request, 'portal');
      const w = t(ctx.lang);
      const csrf = loginCsrf(deps.config, request, reply);
      if (!sameSecret(field(request.body, '_csrf'), request.cookies[COOKIES.login.name]))
        return sendPage(reply, 403, forgotPage(ctx, csrf, { error: w.formExpired }));
      const email = field(request.body, 'email', 320);
      const limit = await countResetRequest(deps, { email, address: request.ip });
      if (limit === 'address_limited')
        return sendPage(reply, 429, forgotPage(ctx, csrf, { error: w.partnerUsers.forgotLimited }));
      // past the address's own limit nothing more is sent, and the page says the same as always
      if (limit === 'ok')
        await requestPasswordReset(users, email, tagClientAddress(deps.flight.keys.lookup, request.ip));
      return sendPage(reply, 200, forgotPage(ctx, csrf, { notice: w.partnerUsers.forgotSent }));
    });

    app.get<{ Params: { token: string } }>('/portal/password/:token', async (request, reply) => {
      const ctx = contextOf(request, 'portal');
      const link = await peekPasswordLink(users, request.params.token);
      if (!link) return sendPage(reply, 404, messagePage(ctx, '404', t(ctx.lang).partnerUsers.linkInvalid));
      if (link.addressTaken)
        return sendPage(reply, 409, messagePage(ctx, '409', t(ctx.lang).partnerUsers.addressTaken));
      const csrf = loginCsrf(deps.config, request, reply);
      return sendPage(reply, 200, setPasswordPage(ctx, request.params.token, link, csrf));
    });

    app.post<{ Params: { token: string }; Body: FormBody }>('/portal/password/:token', async (request, reply) => {
      const ctx = contextOf(request, 'portal');
      const w = t(ctx.lang);
      const token = request.params.token;
      const link = await peekPasswordLink(users, token);
      if (!link) return sendPage(reply, 404, messagePage(ctx, '404', w.partnerUsers.linkInvalid));
      if (link.addressTaken) return sendPage(reply, 409, messagePage(ctx, '409', w.partnerUsers.addressTaken));
      const csrf = loginCsrf(deps.config, request, reply);
      if (!sameSecret(field(request.body, '_csrf'), request.cookies[COOKIES.login.name]))
        return sendPage(reply, 403, setPasswordPage(ctx, token, link, csrf, w.formExpired));
      // read whole (trimmed, as ever): cut to 1024, a longer one was saved as another password;
      // past 1024 characters it is refused (users.ts)
      const password = field(request.body, 'password', WHOLE);
      if (password !== field(request.body, 'confirm', WHOLE))
        return sendPage(reply, 422, setPasswordPage(ctx, token, link, csrf, w.partnerUsers.passwordsDiffer));
      if (password.length < MIN_PASSWORD_LENGTH)
        return sendPage(reply, 422, setPasswordPage(ctx, token, link, csrf, w.partnerUsers.passwordTooShort));
      let used: Awaited<ReturnType<typeof usePasswordLink>>;
      try {
        used = await usePasswordLink(users, token, password, endUserSessions);
      } catch (error) {
        if (!(error instanceof DomainError) || error.status !== 422) throw error;
        const tooLong = password.length > MAX_PASSWORD_LENGTH;
        return sendPage(
          reply,
          422,
          setPasswordPage(
            ctx,
            token,
            link,
            csrf,
            tooLong ? w.partnerUsers.passwordTooLong : w.partnerUsers.passwordTooShort,
          ),
        );
      }
      // used meanwhile by another request: the link no longer works
      if (!used) return sendPage(reply, 404, messagePage(ctx, '404', w.partnerUsers.linkInvalid));
      // accepted meanwhile at another partner that had invited the same address
      if (used === 'address_taken') return sendPage(reply, 409, messagePage(ctx, '409', w.partnerUsers.addressTaken));
      return sendPage(reply, 200, passwordSetPage(ctx));
    });
  };
}

function forgotPage(ctx: PageContext, csrf: string, outcome: { notice?: string; error?: string } = {}): string {
  const w = t(ctx.lang);
  const u = w.partnerUsers;
  return page(
    { ...ctx, session: undefined },
    u.forgotTitle,
    html`<div class="card" style="max-width:28rem">
<h1>${u.forgotTitle}</h1>
${outcome.notice ? html`<p class="notice" role="status" id="forgot-notice">${outcome.notice}</p>` : ''}
${outcome.error ? html`<p class="alert" role="alert" id="forgot-error">${outcome.error}</p>` : ''}
<p>${u.forgotIntro}</p>
<form method="post" action="/portal/forgot">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="email">${w.email}</label>
<input id="email" name="email" type="email" autocomplete="username" required size="32" maxlength="320">
<p><button type="submit">${u.sendLink}</button></p>
</form>
<p><a href="/portal/login">${w.signIn}</a></p></div>`,
  );
}

function setPasswordPage(
  ctx: PageContext,
  token: string,
  link: { email: string; purpose: 'invitation' | 'password_reset' },
  csrf: string,
  error?: string,
): string {
  const w = t(ctx.lang);
  const u = w.partnerUsers;
  const title = u.setPasswordTitle[link.purpose];
  return page(
    { ...ctx, session: undefined },
    title,
    html`<div class="card" style="max-width:28rem">
<h1>${title}</h1>
<p>${u.setPasswordIntro(link.email)}</p>
${error ? html`<p class="alert" role="alert" id="password-error">${error}</p>` : ''}
<form method="post" action="/portal/password/${token}">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="username" autocomplete="username" value="${link.email}">
<label for="password">${u.newPassword}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${String(MIN_PASSWORD_LENGTH)}" size="32" aria-describedby="password-rule">
<p id="password-rule" class="muted">${u.passwordRule}</p>
<label for="confirm">${u.confirmPassword}</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required size="32">
<p><button type="submit">${u.savePassword}</button></p>
</form></div>`,
  );
}

function passwordSetPage(ctx: PageContext): string {
  const w = t(ctx.lang);
  return page(
    { ...ctx, session: undefined },
    w.partnerUsers.passwordSet,
    html`<div class="card" style="max-width:28rem"><h1>${w.partnerUsers.passwordSet}</h1>
<p><a href="/portal/login">${w.signIn}</a></p></div>`,
  );
}
