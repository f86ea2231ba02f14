import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from './errors.ts';

/**
 * Conditional writes (RFC 9110 §13.1.1, If-Match) against lost updates: a resource answers its
 * version as a strong `ETag`, and a write sent with `If-Match` is applied only to the resource still
 * at a version it lists — the domain compares under its lock, and refuses with 412 otherwise.
 */

/** An entity tag: strong `"…"` or weak `W/"…"`, its opaque part printable ASCII without a quote. */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e]*)"$/;

/** A version as its strong ETag. */
export const etagOf = (version: number): string => `"${version}"`;

/**
 * The versions a request's If-Match accepts: undefined without the header or with `*` (any current
 * version); else the versions its strong tags name — a weak tag never matches (the strong comparison
 * If-Match uses), nor a tag that is no version of ours: the list may be empty, and then nothing
 * matches. Empty list elements (`, "3" ,,`) are no elements (RFC 9110 §5.6.1.2). A value that is not a
 * list of entity tags is a 422 on the header (a `validation_failed` DomainError).
 */
export function ifMatchVersions(request: FastifyRequest): number[] | undefined {
  const raw = request.headers['if-match'];
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw.join(',') : raw).trim();
  if (value === '*') return undefined;
  const versions: number[] = [];
  for (const part of value.split(',')) {
    if (part.trim() === '') continue;
    const tag = ENTITY_TAG.exec(part.trim());
    if (!tag) {
      const message = 'must be * or a list of entity tags, e.g. "3" (the ETag of the answer you read)';
      throw new DomainError('validation_failed', `The If-Match header ${message}.`, {
        errors: [{ field: 'header:If-Match', code: 'invalid_format', message }],
      });
    }
    if (!tag[1] && /^[1-9][0-9]{0,9}$/.test(tag[2]!)) versions.push(Number(tag[2]));
  }
  return versions;
}

/** Sends a resource's version as its ETag. */
export function sendEtag(reply: FastifyReply, version: number): FastifyReply {
  return reply.header('ETag', etagOf(version));
}
