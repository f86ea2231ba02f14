import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import type { Config } from './config.ts';
import { maskIbansIn, mayQuoteIban } from './personal-text.ts';

/**
 * Logging: pino, for the API (through Fastify) and the worker alike, with secrets kept out of every
 * line in two layers.
 *
 * 1. Structured, where secrets are known to travel: the request serializer logs the URL with the
 *    bank-details token of `/c/<token>` and every credential-like query parameter replaced by
 *    `[redacted]`; `redact` paths drop credential headers (Authorization, Cookie, Set-Cookie) and
 *    personal fields should anyone log a request body; the error serializer drops the statement
 *    parameters database errors carry.
 * 2. A last pass over each finished line (`scrubSecrets`), whatever logged it — an error message
 *    quoting a URL, a database error's `detail` quoting a value: bank-details links, API keys
 *    (`psl_…`), operator tokens (`pso_…`), webhook secrets (`whsec_…`) and `sk_`/`pk_`-style keys
 *    are replaced first, whole (an IBAN-like tail inside a token cannot cut its redaction short);
 *    then IBANs are masked to their last four by `maskIbansIn` (personal-text.ts, what every free
 *    text kept is masked with: any case, grouped by spaces or dashes or not, also right after a
 *    JSON-escaped `\n`/`\r`/`\t`); then e-mail addresses, phone numbers and what only looks like an
 *    upper-case IBAN (a mistyped one, its check digits wrong) are replaced. Each runs only on lines
 *    where a cheap test finds a candidate — `_` or `/c/` for the tokens, two letters then two digits
 *    starting a word for maskIbansIn (which then reads on only where they name an IBAN country),
 *    `@`, `+`, two capitals then two digits for the rest: most lines cost three `test`s.
 */

export const REDACTED = '[redacted]';

/** Query parameters whose value is a credential or personal data. */
const SECRET_PARAM = /token|key|secret|password|passwd|sig|code|iban|bic|email|phone|session|csrf|auth/i;

/** The URL as logged: the `/c/` and `/portal/password/` tokens and credential-like query values replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  let path = q === -1 ? url : url.slice(0, q);
  if (/^\/c\//i.test(path)) path = `/c/${REDACTED}`;
  if (/^\/portal\/password\/./i.test(path)) path = `/portal/password/${REDACTED}`;
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const name = pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        /* a malformed name is judged as written */
      }
      return SECRET_PARAM.test(decoded) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

/** Where a word begins, for a log line: `\b`, or right after a JSON-escaped `\n`, `\r`, `\t` (as IBAN_START in personal-text.ts). */
const WORD_START = String.raw`(?:\b|(?<=\\[nrt]))`;

/** Tokens that are secret as a whole: replaced before IBANs are masked, so an IBAN-like tail cannot cut one short. */
const TOKENS = new RegExp(
  [
    // a bank-details link, anywhere (path, absolute URL, SMS body)
    String.raw`(?<link>/c/)(?!\[redacted\])[A-Za-z0-9_-]{8,}`,
    // API keys, operator tokens, webhook secrets, and the usual sk_/pk_/rk_ key styles
    String.raw`(?<key>${WORD_START}(?:psl_(?:sbx|pre|live)|pso|whsec|sk|pk|rk)_)(?!\[redacted\])[A-Za-z0-9_+/=-]{8,}`,
  ].join('|'),
  'g',
);
const TOKEN_CANDIDATE = /_|\/c\//;

/** Personal values left once IBANs are masked. */
const PERSONAL = new RegExp(
  [
    // e-mail addresses
    String.raw`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+`,
    // what looks like an upper-case IBAN and is not one (a mistyped account): maskIbansIn masks the valid ones first
    String.raw`${WORD_START}[A-Z]{2}[0-9]{2}(?:[ -]?[A-Z0-9]){11,30}\b`,
    // phone numbers in E.164 or spaced international form
    String.raw`\+[1-9](?:[ .-]?[0-9]){7,14}\b`,
  ].join('|'),
  'g',
);
const PERSONAL_CANDIDATE = /[@+]|[A-Z]{2}[0-9]{2}/;

/**
 * A text (a log line) scrubbed: links and keys replaced (`TOKENS`) first, then every IBAN masked
 * (maskIbansIn, as every free text kept), then e-mails, mistyped IBANs and phones replaced (`PERSONAL`).
 */
export function scrubSecrets(text: string): string {
  const tokensOut = TOKEN_CANDIDATE.test(text)
    ? text.replace(
        TOKENS,
        (_match, link: string | undefined, key: string | undefined) => `${link ?? key ?? ''}${REDACTED}`,
      )
    : text;
  const masked = mayQuoteIban(tokensOut) ? maskIbansIn(tokensOut) : tokensOut;
  return PERSONAL_CANDIDATE.test(masked) ? masked.replace(PERSONAL, REDACTED) : masked;
}

/** A destination that scrubs each line before handing it on (pino writes one line per call). */
export function scrubbingStream(destination: DestinationStream): DestinationStream {
  return {
    write(line: string) {
      return destination.write(scrubSecrets(line));
    },
  };
}

/** Where the API and the worker log: stdout unless a stream is given (tests capture lines). */
export function loggerOptions(
  config: Pick<Config, 'logLevel'>,
  options: { name?: string; stream?: DestinationStream | undefined } = {},
): LoggerOptions & { stream: DestinationStream } {
  return {
    level: config.logLevel,
    ...(options.name ? { name: options.name } : {}),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-api-key"]',
        'res.headers["set-cookie"]',
        'req.body.iban',
        'req.body.bic',
        'req.body.accountHolder',
        'req.body.customer.email',
        'req.body.customer.phone',
      ],
      censor: REDACTED,
    },
    serializers: {
      // database errors carry the statement's parameters (pg and PGlite alike): never log them
      err: (error: Error) => {
        const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
        delete serialized.params;
        delete serialized.parameters;
        return serialized;
      },
      // no client address: an IP address is personal data (platform/client-address.ts keeps its hash)
      req: (request: { method: string; url: string; host?: string }) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
      }),
    },
    stream: scrubbingStream(options.stream ?? pino.destination(1)),
  };
}

/** A standalone logger (the worker process) with the same protections as the API's. */
export function createLogger(
  config: Pick<Config, 'logLevel'>,
  options: { name?: string; stream?: DestinationStream } = {},
): pino.Logger {
  const { stream, ...rest } = loggerOptions(config, options);
  return pino(rest, stream);
}
