import type { FastifyInstance } from 'fastify';
import { DomainError } from './errors.ts';

/**
 * JSON bodies are UTF-8 (RFC 8259 §8.1), and only UTF-8. Fastify's own parser decodes any body as
 * UTF-8 whatever its `charset`, turning each byte it cannot read into U+FFFD: a name sent in
 * ISO-8859-1 ("Zoë") was stored as "Zo�", silently. Here the body is read as bytes and decoded
 * strictly: a `charset` other than UTF-8 is a 415 `unsupported_media_type`, bytes that are not UTF-8
 * a 400 `malformed_request`; the JSON text then goes to Fastify's parser (empty body, syntax, and
 * `__proto__`/`constructor` keys refused as before).
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      done(
        new DomainError(
          'unsupported_media_type',
          `Send the body as application/json in UTF-8 (charset=utf-8, or no charset), not ${charset}.`,
        ),
        undefined,
      );
      return;
    }
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(new DomainError('malformed_request', 'The body is not valid UTF-8.'), undefined);
      return;
    }
    void parseJson(request, text, done); // synchronous: it calls done itself
  });
}
