import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ENVIRONMENTS,
  requirePermission,
  type Environment,
  type PartnerDirectory,
  type Permission,
} from '../partners/index.ts';
import type { FlightDeps } from '../flight/index.ts';
import type { WebhookDeps } from '../webhooks/index.ts';
import type { Config } from '../platform/config.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { redactUrl } from '../platform/logging.ts';
import { label, languageOf, t, type Lang, type Words } from '../i18n/index.ts';
import { messagePage, type Area, type PageContext } from './layout.ts';
import { csrfMatches, sessionFor, type SessionDeps, type SessionKind, type WebSession } from './sessions.ts';

/** HTTP glue shared by the portal and consoles: their dependencies, cookies, the session guard, CSRF, HTML replies. */

/** What the portal and consoles need; built once by the app. */
export interface WebDeps {
  db: Db;
  config: Config;
  directory: PartnerDirectory;
  /** The Flight Delay use cases' dependencies: the live preview prices with simulatePrice. */
  flight: FlightDeps;
  now: () => Date;
  /** The master key's derived keys (the sign-in counters' lookup key). */
  keys: Keyring;
  /** The OpenAPI document an app decorator renders (platform/openapi.ts). */
  apiDocument: (decorator: string) => unknown;
}

/** What the webhooks domain's use cases need, from the pages' deps (the console's and the operators'). */
export function webhookDepsOf(deps: WebDeps): WebhookDeps {
  return {
    db: deps.db,
    jobs: deps.flight.jobs,
    keys: deps.flight.keys,
    allowPrivate: deps.config.webhooksAllowPrivate,
    now: deps.now,
    endpoints: deps.flight.webhookEndpoints,
  };
}

export const COOKIES = {
  partner: { name: 'psl_portal', path: '/' },
  operator: { name: 'psl_admin', path: '/admin' },
  /** Double-submit token of the sign-in forms (there is no session yet to tie it to). */
  login: { name: 'psl_login', path: '/' },
  lang: { name: 'psl_lang', path: '/' },
} as const;

declare module 'fastify' {
  interface FastifyRequest {
    webSession: WebSession | null;
  }
}

export type FormBody = Record<string, string | string[] | undefined>;

/**
 * Query string schemas of the pages (validated by Fastify's Ajv, like the APIs' bodies): a value
 * outside them answers a 400 page instead of being silently replaced.
 */
export const oneOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
export const EnvironmentQuery = Type.Object({ env: Type.Optional(oneOf<Environment>(ENVIRONMENTS)) });
/** A whole number in a query string (the app's Ajv does not coerce types: query values are strings). */
export const Digits = (max: number) => Type.String({ pattern: `^[0-9]{1,${max}}$` });
/** The offset of a paged listing. */
export const Offset = Digits(7);

/**
 * `max` of a value read whole, for a field whose use case refuses it past its own bound (a name, an email, a
 * slug, an amount, a rate): cut to that bound, a value the use case would have refused became another one it
 * accepts ("0000000000000000001500" read as "00000000000000000015", a 64-character slug as its first 63).
 */
export const WHOLE = Number.POSITIVE_INFINITY;

/**
 * A single form value (the first when repeated), trimmed, cut to `max`: for values the cut cannot turn
 * into another accepted one (a choice among a few, a token); `WHOLE` for those a use case bounds itself.
 */
export function field(body: FormBody | undefined, name: string, max = 500): string {
  const value = body?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first.trim().slice(0, max) : '';
}

export function fieldList(body: FormBody | undefined, name: string): string[] {
  const value = body?.[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((v) => String(v).trim());
}

export function cookieOptions(config: Pick<Config, 'publicUrl'>, path: string, maxAgeSeconds?: number) {
  return {
    path,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: config.publicUrl.startsWith('https://'),
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

export function langOf(request: FastifyRequest): Lang {
  return languageOf(request.cookies[COOKIES.lang.name], request.headers['accept-language']);
}

export function contextOf(request: FastifyRequest, area: Area): PageContext {
  return {
    lang: langOf(request),
    area,
    path: request.url.split('?')[0] ?? '/',
    session: request.webSession ?? undefined,
  };
}

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

export function sendMessage(
  request: FastifyRequest,
  reply: FastifyReply,
  area: Area,
  status: 403 | 404 | 500,
  message?: string,
): FastifyReply {
  const ctx = contextOf(request, area);
  const w = t(ctx.lang);
  const title = status === 403 ? w.forbidden : status === 404 ? w.notFound : w.error;
  return sendPage(reply, status, messagePage(ctx, String(status), message ?? title));
}

/** The CSRF token a POST carries: the `_csrf` form field, or the X-CSRF-Token header (htmx). */
export function sentCsrf(request: FastifyRequest): unknown {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  return (request.body as FormBody | undefined)?._csrf;
}

/**
 * Guards a scope: loads the session of `kind` from its cookie; without one, GETs go to the sign-in
 * page and other methods answer 401; every non-GET must carry the session's CSRF token (else 403).
 */
export function requireSession(
  app: FastifyInstance,
  deps: SessionDeps,
  kind: SessionKind,
  area: Area,
  loginPath: string,
): void {
  app.addHook('preHandler', async (request, reply) => {
    // an earlier hook of this request may have loaded it already (the operator console's)
    const session =
      request.webSession?.kind === kind
        ? request.webSession
        : await sessionFor(deps, kind, request.cookies[COOKIES[kind].name]);
    if (!session) {
      if (request.method === 'GET') return reply.redirect(`${loginPath}?next=${encodeURIComponent(request.url)}`, 303);
      return sendPage(reply, 401, messagePage(contextOf(request, area), '401', t(langOf(request)).formExpired));
    }
    request.webSession = session;
    if (request.method !== 'GET' && request.method !== 'HEAD' && !csrfMatches(session, sentCsrf(request))) {
      request.log.warn({ path: redactUrl(request.url) }, 'CSRF token missing or wrong');
      return sendPage(reply, 403, messagePage(contextOf(request, area), '403', t(langOf(request)).formExpired));
    }
  });
}

/**
 * The role check of a partner page's write (partners/roles.ts): a role without `permission` gets the
 * 403 page, whatever buttons it was shown. Every POST of the portal and console that changes
 * something calls it first.
 */
export function allow(request: FastifyRequest, permission: Permission): void {
  requirePermission(request.webSession?.role ?? 'viewer', permission);
}

/** A safe local redirect target: a path on this site, never `//host` or a scheme. */
export function localPath(next: unknown, fallback: string): string {
  return typeof next === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) && next.length <= 500 ? next : fallback;
}

/**
 * A form's labels, in the page's language, by the API field each fills (its JSON Pointer without the
 * leading slash: `toDate`, `url`): a field error is told by the label the user reads next to the field,
 * never by the API's name for it. The API's problem+json keeps its pointers and messages.
 */
export type FieldLabels = Readonly<Record<string, string>>;

/**
 * The lines a page shows for a domain error, in the page's language: an English page shows the
 * domain's own words; another language translates each field error by its code and the error by
 * its code (i18n `problems`, complete for every language but English, so no English detail leaks).
 * Each field is named by its label in `labels` (the API's name when the form has none for it); a
 * one-time form's token (`/actionToken`, platform/action-token.ts), a field no one fills, has a
 * sentence of its own: the form is stale.
 */
export function problemLines(error: DomainError, lang: Lang, labels: FieldLabels = {}): string[] {
  const fields = error.extra.errors ?? [];
  const w = t(lang);
  if (fields.length)
    return fields.map((e) => {
      if (e.field === '/actionToken') return w.formStale;
      const name = e.field.replace(/^\//, '');
      return `${label(lang, labels[name] ?? name)} ${fieldErrorText(e, lang, labels)}`;
    });
  return [lang === 'en' ? error.detail : (w.problems[error.code] ?? error.detail)];
}

/**
 * What a form's conflict answer means, in the page's words, by the form's route (`/console/users/:id/role`):
 * the code alone says only "conflict" (a generic sentence), each form knows what its save met — an address
 * already a user, the last admin, a draft another save replaced. `error` tells a form's several answers apart.
 */
export type ConflictSentences = Readonly<Record<string, (words: Words, body: FormBody, error: DomainError) => string>>;

/**
 * The form's own sentence for a conflict answer (a 409 `conflict`, or a lost update's `*_changed`: a save from
 * a state another save replaced), from its table; undefined for another answer or a form without one.
 */
export function conflictLine(
  error: DomainError,
  lang: Lang,
  route: string,
  conflicts: ConflictSentences,
  body: FormBody | undefined,
): string | undefined {
  if (error.status !== 409 || !(error.code === 'conflict' || error.code.endsWith('_changed'))) return undefined;
  return conflicts[route]?.(t(lang), body ?? {}, error);
}

/**
 * A field error's text in the page's language: English, the domain's own message, an API field it
 * names in camelCase ("must be on or after fromDate") told by its label in `labels` ("must be on or after “Opened
 * from”"); another language, its code's words — with the ceiling an `out_of_range` amount names
 * (`atMostIn`), so a French operator is told the cap too ("au plus 11111111,11 USD"), and the bound a
 * `too_long` text names (`charactersAtMostIn`: "au plus 500 caractères").
 */
export function fieldErrorText(e: FieldError, lang: Lang, labels: FieldLabels = {}): string {
  if (lang === 'en')
    // the camelCase names only (`fromDate`, `compensationMin`): `email` or `url` are also English words
    return Object.entries(labels)
      .filter(([name]) => /^[a-z]+[A-Z][A-Za-z]*$/.test(name))
      .reduce(
        (message, [name, text]) => message.replace(new RegExp(`\\b${name}\\b`, 'g'), () => `“${text}”`),
        e.message,
      );
  const w = t(lang);
  const most = e.code === 'out_of_range' ? atMostIn(e.message) : undefined;
  if (most) return w.fieldErrorAtMost(lang === 'fr' ? most.amount.replace('.', ',') : most.amount, most.currency);
  // a range longer than its maximum, in the words of the ledger's `dayRange` only (the exports' "after
  // from", the dashboard's "after the first day"): other "at most N days" rules count otherwise (the
  // claims list's allows N days after the first, N + 1 both included)
  const days =
    e.code === 'out_of_range'
      ? /^must be at most (\d+) days after (?:from|the first day), both included\b/.exec(e.message)
      : null;
  if (days) return w.fieldErrorAtMostDays(Number(days[1]));
  const characters = e.code === 'too_long' ? charactersAtMostIn(e.message) : undefined;
  return characters === undefined ? w.fieldErrors[e.code] : w.fieldErrorAtMostCharacters(characters);
}

/**
 * The most characters a `too_long` message names, as the domain writes it ("must be at most 500
 * characters", `typedTooLong` and `keptTooLong`) or Ajv does ("must NOT have more than 200 characters").
 */
function charactersAtMostIn(message: string): number | undefined {
  const found = /\b(?:at most|more than) (\d+) characters\b/.exec(message);
  return found ? Number(found[1]) : undefined;
}

/**
 * The ceiling an amount's `out_of_range` message names, as the domain writes it: "at most <decimal>
 * <currency>" (partners.ts `checkAgreement`, payouts' `correctClaimCompensation`).
 */
export function atMostIn(message: string): { amount: string; currency: string } | undefined {
  const found = /\bat most (\d+(?:\.\d+)?) ([A-Z]{3})\b/.exec(message);
  return found ? { amount: found[1]!, currency: found[2]! } : undefined;
}

/** HTML error pages for a scope: domain errors with their status, anything else 500 (logged). */
export function htmlErrors(app: FastifyInstance, area: Area): void {
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof DomainError) {
      const status = error.status === 404 ? 404 : error.status === 403 ? 403 : undefined;
      if (status) return sendMessage(request, reply, area, status);
      return sendPage(
        reply,
        error.status,
        messagePage(contextOf(request, area), String(error.status), problemLines(error, langOf(request)).join(' ')),
      );
    }
    if ((error as { validation?: unknown }).validation)
      return sendPage(reply, 400, messagePage(contextOf(request, area), '400', t(langOf(request)).badQuery));
    const status = (error as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500)
      return sendPage(
        reply,
        status,
        messagePage(contextOf(request, area), String(status), t(langOf(request)).formExpired),
      );
    request.log.error({ err: error }, 'unhandled error in a page');
    return sendMessage(request, reply, area, 500);
  });
}
