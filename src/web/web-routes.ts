import fs from 'node:fs';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyPluginAsync } from 'fastify';
import { adminRoutes } from './admin-routes.ts';
import { consoleDataRoutes, consoleRoutes } from './console-routes.ts';
import { LANGUAGES } from '../i18n/index.ts';
import { passwordRoutes } from './password-routes.ts';
import { portalRoutes } from './portal-routes.ts';
import { consoleReports } from './report-routes.ts';
import { userRoutes } from './user-routes.ts';
import { webhookRoutes } from './webhook-routes.ts';
import { seedOperator } from './sessions.ts';
import { signInRoutes } from './sign-in.ts';
import { COOKIES, cookieOptions, htmlErrors, localPath, type WebDeps } from './web-kit.ts';

/** Files served under /assets: our own, and the browser bundles of the libraries (no CDN). */
const ASSETS: Record<string, { file: URL; type: string }> = {
  'web.css': { file: new URL('./assets/web.css', import.meta.url), type: 'text/css; charset=utf-8' },
  'web.js': { file: new URL('./assets/web.js', import.meta.url), type: 'text/javascript; charset=utf-8' },
  'iban.js': { file: new URL('./assets/iban.js', import.meta.url), type: 'text/javascript; charset=utf-8' },
  'htmx.min.js': {
    file: new URL('../../node_modules/htmx.org/dist/htmx.min.js', import.meta.url),
    type: 'text/javascript; charset=utf-8',
  },
  'chart.umd.min.js': {
    file: new URL('../../node_modules/chart.js/dist/chart.umd.min.js', import.meta.url),
    type: 'text/javascript; charset=utf-8',
  },
  'scalar.js': {
    file: new URL('../../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url),
    type: 'text/javascript; charset=utf-8',
  },
};

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Scalar and htmx set inline styles
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

/**
 * The developer portal (/portal), the partner console (/console) and the operator console (/admin):
 * server-rendered HTML from the same app, urlencoded forms and cookies in this scope only.
 */
export function webRoutes(deps: Omit<WebDeps, 'apiDocument'>): FastifyPluginAsync {
  return async (app) => {
    await seedOperator(deps.db, deps.config);
    await app.register(cookie);
    await app.register(formbody, { bodyLimit: 16 * 1024 });
    app.decorateRequest('webSession', null);
    const web: WebDeps = {
      ...deps,
      apiDocument: (decorator) => (app as unknown as Record<string, () => unknown>)[decorator]!.call(app),
    };

    app.addHook('onSend', async (request, reply) => {
      if (request.url.startsWith('/assets/')) return;
      reply
        .header('Cache-Control', 'no-store')
        .header('Referrer-Policy', 'same-origin')
        .header('X-Frame-Options', 'DENY')
        .header('X-Content-Type-Options', 'nosniff');
      reply.header('Content-Security-Policy', CSP);
    });

    const cache = new Map<string, Buffer>();
    app.get<{ Params: { name: string } }>('/assets/:name', { schema: { hide: true } }, async (request, reply) => {
      const spec = Object.hasOwn(ASSETS, request.params.name) ? ASSETS[request.params.name] : undefined;
      if (!spec) return reply.code(404).type('text/plain').send('Not found');
      let body = cache.get(request.params.name);
      if (!body) cache.set(request.params.name, (body = await fs.promises.readFile(spec.file)));
      return reply
        .type(spec.type)
        .header('Cache-Control', 'public, max-age=86400')
        .header('X-Content-Type-Options', 'nosniff')
        .send(body);
    });

    app.get<{ Params: { lang: string }; Querystring: { next?: string } }>(
      '/lang/:lang',
      { schema: { hide: true } },
      async (request, reply) => {
        const lang = (LANGUAGES as readonly string[]).includes(request.params.lang) ? request.params.lang : 'en';
        reply.setCookie(COOKIES.lang.name, lang, {
          ...cookieOptions(deps.config, COOKIES.lang.path, 365 * 86400),
          httpOnly: false,
        });
        return reply.redirect(localPath(request.query.next, '/portal'), 303);
      },
    );

    await app.register(async (scope) => {
      htmlErrors(scope, 'portal');
      await scope.register(signInRoutes(web, 'partner'));
      await scope.register(passwordRoutes(web));
      await scope.register(portalRoutes(web));
    });
    await app.register(async (scope) => {
      htmlErrors(scope, 'console');
      await scope.register(consoleRoutes(web));
      await scope.register(consoleDataRoutes(web));
      await scope.register(webhookRoutes(web));
      await scope.register(consoleReports(web));
      await scope.register(userRoutes(web));
    });
    await app.register(async (scope) => {
      htmlErrors(scope, 'admin');
      await scope.register(adminRoutes(web));
    });
  };
}
