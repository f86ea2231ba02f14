import type { FastifyPluginAsync } from 'fastify';
import { randomToken } from '../platform/crypto.ts';
import type { Config } from '../platform/config.ts';
import { html } from '../platform/html.ts';
import { t } from '../i18n/index.ts';
import { page, type PageContext } from './layout.ts';
import {
  sameSecret,
  SESSION_RULES,
  sessionFor,
  signIn,
  signOut,
  type SessionDeps,
  type SessionKind,
} from './sessions.ts';
import {
  contextOf,
  COOKIES,
  cookieOptions,
  field,
  localPath,
  requireSession,
  sendPage,
  type FormBody,
  WHOLE,
} from './web-kit.ts';

/**
 * The CSRF token of the forms shown before any session (sign-in, forgot password, set a password):
 * a double-submit cookie, set when missing.
 */
export function loginCsrf(
  config: Pick<Config, 'publicUrl'>,
  request: { cookies: Record<string, string | undefined> },
  reply: { setCookie: (n: string, v: string, o: object) => unknown },
): string {
  const existing = request.cookies[COOKIES.login.name];
  if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return existing;
  const token = randomToken(24);
  reply.setCookie(COOKIES.login.name, token, cookieOptions(config, COOKIES.login.path));
  return token;
}

/**
 * Sign-in and sign-out of one kind of account: partner users at /portal/login, operators at
 * /admin/login. The sign-in form has no session yet, so its CSRF token is a double-submit cookie.
 */
export function signInRoutes(deps: SessionDeps & { config: Config }, kind: SessionKind): FastifyPluginAsync {
  const area = kind === 'operator' ? 'admin' : 'portal';
  const base = kind === 'operator' ? '/admin' : '/portal';
  const cookie = COOKIES[kind];
  return async (app) => {
    const loginToken = (
      request: { cookies: Record<string, string | undefined> },
      reply: { setCookie: (n: string, v: string, o: object) => unknown },
    ) => loginCsrf(deps.config, request, reply);

    app.get<{ Querystring: { next?: string } }>(`${base}/login`, async (request, reply) => {
      if (await sessionFor(deps, kind, request.cookies[cookie.name]))
        return reply.redirect(localPath(request.query.next, base), 303);
      const ctx = contextOf(request, area);
      return sendPage(
        reply,
        200,
        loginPage(ctx, kind, {
          csrf: loginToken(request, reply),
          next: localPath(request.query.next, base),
          email: '',
        }),
      );
    });

    app.post<{ Body: FormBody }>(`${base}/login`, async (request, reply) => {
      const ctx = contextOf(request, area);
      const w = t(ctx.lang);
      const email = field(request.body, 'email', 320);
      const next = localPath(field(request.body, 'next'), base);
      const sent = field(request.body, '_csrf');
      const expected = request.cookies[COOKIES.login.name];
      if (!sameSecret(sent, expected)) {
        return sendPage(
          reply,
          403,
          loginPage(ctx, kind, { csrf: loginToken(request, reply), next, email, error: w.formExpired }),
        );
      }
      const outcome = await signIn(deps, {
        kind,
        email,
        // read whole (trimmed, as ever): signIn refuses past 1024 characters, no cut matches a shorter one
        password: field(request.body, 'password', WHOLE),
        address: request.ip,
        lang: ctx.lang,
        previousToken: request.cookies[cookie.name],
      });
      if (outcome.kind === 'locked') {
        reply.header('Retry-After', String(outcome.retryAfterSeconds));
        return sendPage(
          reply,
          429,
          loginPage(ctx, kind, {
            csrf: expected,
            next,
            email,
            error: w.signInLocked(Math.ceil(outcome.retryAfterSeconds / 60)),
          }),
        );
      }
      if (outcome.kind === 'invalid')
        return sendPage(reply, 401, loginPage(ctx, kind, { csrf: expected, next, email, error: w.signInInvalid }));
      reply.setCookie(
        cookie.name,
        outcome.token,
        cookieOptions(deps.config, cookie.path, SESSION_RULES.absoluteHours * 3600),
      );
      return reply.redirect(next, 303);
    });

    await app.register(async (guarded) => {
      requireSession(guarded, deps, kind, area, `${base}/login`);
      guarded.post(`${base}/logout`, async (request, reply) => {
        await signOut(deps, request.webSession!);
        reply.clearCookie(cookie.name, cookieOptions(deps.config, cookie.path));
        return reply.redirect(`${base}/login`, 303);
      });
    });
  };
}

function loginPage(
  ctx: PageContext,
  kind: SessionKind,
  form: { csrf: string; next: string; email: string; error?: string },
): string {
  const w = t(ctx.lang);
  const title = kind === 'operator' ? w.signInTitle.admin : w.signInTitle.portal;
  return page(
    { ...ctx, session: undefined },
    title,
    html`<div class="card" style="max-width:28rem">
<h1>${title}</h1>
${form.error ? html`<p class="alert" role="alert" id="login-error">${form.error}</p>` : ''}
<form method="post" action="${ctx.area === 'admin' ? '/admin/login' : '/portal/login'}">
<input type="hidden" name="_csrf" value="${form.csrf}">
<input type="hidden" name="next" value="${form.next}">
<label for="email">${w.email}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${form.email}" size="32"${form.error ? html` aria-describedby="login-error"` : ''}>
<label for="password">${w.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required size="32">
<p><button type="submit">${w.signIn}</button></p>
</form>
${kind === 'partner' ? html`<p><a href="/portal/forgot">${w.partnerUsers.forgotLink}</a></p>` : ''}</div>`,
  );
}
