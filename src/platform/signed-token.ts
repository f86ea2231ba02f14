import crypto from 'node:crypto';
import { hmac } from './crypto.ts';

/**
 * Self-contained signed references (quote references): `<prefix>.<JSON array, base64url>.<tag>`,
 * the tag being HMAC-SHA256 of everything before it, truncated to 128 bits. The prefix names the
 * kind and version (`q2` flight quote terms, `h1` home quote) and is signed with the rest, so one kind
 * never passes for another. The payload is not secret, only tamper-proof.
 */
export function sealJson(key: Buffer, prefix: string, payloadJson: string): string {
  const body = `${prefix}.${Buffer.from(payloadJson).toString('base64url')}`;
  return `${body}.${tag(key, body)}`;
}

/** The decoded JSON array, or undefined when the reference is malformed, of another kind, or altered. */
export function openJson(key: Buffer, prefix: string, reference: string): unknown[] | undefined {
  const parts = reference.split('.');
  if (parts.length !== 3 || parts[0] !== prefix) return undefined;
  const body = `${parts[0]}.${parts[1]}`;
  const expected = Buffer.from(tag(key, body));
  const given = Buffer.from(parts[2]!);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return Array.isArray(payload) ? payload : undefined;
  } catch {
    return undefined;
  }
}

function tag(key: Buffer, body: string): string {
  return hmac(key, body).subarray(0, 16).toString('base64url');
}
