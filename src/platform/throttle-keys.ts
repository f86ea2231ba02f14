import { clientAddressHmac } from './client-address.ts';
import { hmac } from './crypto.ts';

/**
 * The keys of the sign-in and reset counters (`login_throttle`), never what was typed nor the
 * client's address in clear: `<prefix>:account:<HMAC of the typed email>` and
 * `<prefix>:address:<HMAC of the address>` under the `lookup` key (base64url, 43 characters).
 * Here rather than with the sessions (web/sessions.ts) so that the rewrite of the counters older
 * versions keyed in clear (platform/scrub-old-rows.ts) computes the same keys.
 */

const normaliseTyped = (typed: string) => typed.trim().toLowerCase().slice(0, 320);

/** The counter of what was typed as an email address: its HMAC, never the text. */
export function emailCounterKeyOf(lookupKey: Buffer, prefix: string, typed: string): string {
  return `${prefix}:${hmac(lookupKey, normaliseTyped(typed)).toString('base64url')}`;
}

/** The counter of a client address: its HMAC (platform/client-address.ts), never the address. */
export function addressCounterKeyOf(lookupKey: Buffer, prefix: string, address: string): string {
  return `${prefix}:address:${clientAddressHmac(lookupKey, address)}`;
}

/** What a counter key ends with once hashed. */
export const HASHED_COUNTER = /^[A-Za-z0-9_-]{43}$/;
