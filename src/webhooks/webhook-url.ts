import dns from 'node:dns';
import type { LookupAddress, LookupOneOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { DomainError } from '../platform/errors.ts';

/**
 * Which URLs a webhook may target. A partner's endpoint must be `https` and reach the public
 * internet: a URL whose host is, or resolves to, a loopback, private, link-local, unique-local,
 * carrier-grade NAT, multicast, unspecified, broadcast or otherwise reserved address (IPv4, IPv6, and
 * IPv6 carrying IPv4 alike, every address read by `normaliseAddress`) is refused, so a webhook can never be turned against the platform's own
 * network (SSRF). The check runs when the endpoint is registered and again at every delivery, on
 * the very addresses the connection uses (`guardedLookup`), so a name re-pointed to a private
 * address after registration (DNS rebinding) is refused too.
 *
 * `PARASOL_WEBHOOKS_ALLOW_PRIVATE=on` (development and tests only) lifts both rules: plain `http`
 * and private addresses are then accepted. It does not admit a host name that resolves to nothing:
 * nothing could ever be delivered there (a placeholder such as `your-receiver.example`), so it is
 * refused at registration (`unresolvable`) whatever the flag.
 */

export interface UrlPolicy {
  allowPrivate: boolean;
  /** Resolves a host name to its addresses; the system resolver by default (tests inject one). */
  resolve?: Resolver | undefined;
}

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Why a URL is refused: stable values, in the problem's `reason` member. */
export type UrlRefusal = 'scheme' | 'credentials' | 'private_address' | 'unresolvable';

export const MAX_URL_LENGTH = 2048;

function refuse(reason: UrlRefusal, message: string): DomainError {
  return new DomainError('webhook_url_not_allowed', `The webhook URL is not allowed: ${message}.`, {
    errors: [{ field: '/url', code: 'not_allowed', message }],
    reason,
  });
}

/**
 * The one normaliser of IP addresses, used on URL literals and on every address a name resolves
 * to: brackets and zone ids dropped, every IPv4 spelling (decimal, octal, hex, one to four parts —
 * `2130706433`, `0x7f.1`, `0177.0.0.1`) read as the address it means, and an IPv6 address that
 * carries an IPv4 address — IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, RFC 4291,
 * deprecated: `::7f00:1` is 127.0.0.1) or NAT64 well-known (`64:ff9b::a.b.c.d`, RFC 6052) —
 * unwrapped to the IPv4 address it carries. Undefined for text that is no IP address.
 */
export function normaliseAddress(
  address: string,
): { ip: ipaddr.IPv4 | ipaddr.IPv6; carrier?: 'ipv4Mapped' | 'ipv4Compatible' | 'nat64' } | undefined {
  const text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(text)) return undefined;
  const ip = ipaddr.parse(text);
  if (ip.kind() === 'ipv4') return { ip };
  const v6 = ip as ipaddr.IPv6;
  const parts = v6.parts;
  const embedded = () =>
    ipaddr.IPv4.parse(`${parts[6]! >> 8}.${parts[6]! & 0xff}.${parts[7]! >> 8}.${parts[7]! & 0xff}`);
  const zeros = (from: number, to: number) => parts.slice(from, to).every((p) => p === 0);
  if (zeros(0, 5) && parts[5] === 0xffff) return { ip: embedded(), carrier: 'ipv4Mapped' };
  // ::/96 minus :: and ::1, which are IPv6's own unspecified and loopback addresses
  if (zeros(0, 6) && !(parts[6] === 0 && parts[7]! <= 1)) return { ip: embedded(), carrier: 'ipv4Compatible' };
  if (parts[0] === 0x64 && parts[1] === 0xff9b && zeros(2, 6)) return { ip: embedded(), carrier: 'nat64' };
  return { ip: v6 };
}

/**
 * The range an address belongs to when it is not a public unicast address ("loopback", "private",
 * "linkLocal", "uniqueLocal", "carrierGradeNat", "multicast", "unspecified", …), else null; "invalid"
 * for text that is no IP address. Every address goes through `normaliseAddress` first, so an IPv6
 * address carrying an IPv4 address is judged as the IPv4 address it carries; an IPv4-compatible
 * address is refused even when the address it carries is public ("ipv4Compatible": deprecated,
 * never a legitimate destination).
 */
export function nonPublicRange(address: string): string | null {
  const normal = normaliseAddress(address);
  if (!normal) return 'invalid';
  const range = normal.ip.range();
  if (range !== 'unicast') return range;
  return normal.carrier === 'ipv4Compatible' ? 'ipv4Compatible' : null;
}

/** The IP literal of a URL host, brackets removed, or undefined for a name. */
function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return normaliseAddress(bare) ? bare : undefined;
}

/** An address as written, followed by the address it means when that differs: `::7f00:1 (127.0.0.1)`. */
export function spell(address: string): string {
  const text = address.replace(/^\[|\]$/g, '');
  const meant = normaliseAddress(text)?.ip.toString();
  return meant && meant !== text.replace(/%.*$/, '') ? `${text} (${meant})` : text;
}

/** Names that always mean this machine (RFC 6761), refused without asking DNS. */
function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === 'localhost.localdomain';
}

/**
 * Syntax and scheme: an absolute http(s) URL, https unless private URLs are allowed, no user
 * name or password, no fragment, at most 2048 characters. Returns the normalised URL.
 */
export function parseWebhookUrl(text: string, allowPrivate: boolean): URL {
  const trimmed = text.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new DomainError('validation_failed', 'The webhook URL is not a valid absolute URL.', {
      errors: [
        {
          field: '/url',
          code: 'invalid',
          message: 'must be an absolute URL such as https://example.com/webhooks',
        },
      ],
    });
  }
  // the stored form is the normalised one (percent-encoded): that is the one that must fit
  if (trimmed.length > MAX_URL_LENGTH || url.toString().length > MAX_URL_LENGTH) {
    throw new DomainError('validation_failed', 'The webhook URL is too long.', {
      errors: [{ field: '/url', code: 'too_long', message: `must be at most ${MAX_URL_LENGTH} characters` }],
    });
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw refuse(
      'scheme',
      url.protocol === 'http:' ? 'it must use https' : `it must use https, not ${url.protocol.replace(/:$/, '')}`,
    );
  }
  if (url.username || url.password) throw refuse('credentials', 'it must not carry a user name or password');
  if (url.hash) {
    throw new DomainError('validation_failed', 'The webhook URL must not have a fragment.', {
      errors: [{ field: '/url', code: 'invalid_format', message: 'must not contain a #fragment' }],
    });
  }
  return url;
}

/**
 * The full check done when an endpoint is registered or changed: syntax, scheme, and every address
 * the host resolves to. A host that does not resolve is refused (nothing could be delivered), also
 * when private addresses are allowed (then a name must still resolve, to any address).
 */
export async function checkWebhookUrl(text: string, policy: UrlPolicy): Promise<URL> {
  const url = parseWebhookUrl(text, policy.allowPrivate);
  const resolve = policy.resolve ?? systemResolver;
  if (!policy.allowPrivate) await checkHost(url.hostname, resolve);
  else if (!ipLiteral(url.hostname) && !isLocalName(url.hostname)) await resolveOrRefuse(url.hostname, resolve);
  return url;
}

/** The addresses of a host name; refused `unresolvable` when it has none. */
async function resolveOrRefuse(hostname: string, resolve: Resolver): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = await resolve(hostname);
  } catch {
    throw refuse('unresolvable', `${hostname} does not resolve to any address`);
  }
  if (addresses.length === 0) throw refuse('unresolvable', `${hostname} does not resolve to any address`);
  return addresses;
}

/** Refuses a host that is, or resolves to, a non-public address. Returns the addresses. */
export async function checkHost(hostname: string, resolve: Resolver): Promise<string[]> {
  const literal = ipLiteral(hostname);
  if (literal) {
    const range = nonPublicRange(literal);
    if (range) throw refuse('private_address', `${spell(literal)} is a ${describeRange(range)} address`);
    return [literal];
  }
  if (isLocalName(hostname)) throw refuse('private_address', `${hostname} names this machine (loopback)`);
  const addresses = await resolveOrRefuse(hostname, resolve);
  for (const address of addresses) {
    const range = nonPublicRange(address);
    if (range)
      throw refuse('private_address', `${hostname} resolves to ${spell(address)}, a ${describeRange(range)} address`);
  }
  return addresses;
}

const RANGE_NAMES: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  carrierGradeNat: 'carrier-grade NAT',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  reserved: 'reserved',
  invalid: 'invalid',
  ipv4Compatible: 'deprecated IPv4-compatible IPv6',
  rfc6052: 'NAT64 (non-public)',
  rfc6145: 'IPv4-translated',
  '6to4': '6to4 relay',
  teredo: 'Teredo',
  discard: 'discard-only',
};

export function describeRange(range: string): string {
  return RANGE_NAMES[range] ?? `special-purpose (${range})`;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request / https.request that resolves with `resolve` and refuses non-public
 * addresses (unless allowed): the connection is made to the very addresses checked, so DNS cannot
 * answer one address to the check and another to the connection.
 */
export function guardedLookup(policy: UrlPolicy) {
  const resolve = policy.resolve ?? systemResolver;
  return (hostname: string, options: LookupOneOptions & { all?: boolean }, callback: LookupCallback): void => {
    const run = async (): Promise<string[]> => {
      if (policy.allowPrivate) return resolve(hostname);
      return checkHost(hostname, resolve);
    };
    run().then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const entries = addresses
          .map((address) => ({ address, family: ipaddr.parse(address.replace(/%.*$/, '')).kind() === 'ipv6' ? 6 : 4 }))
          .filter((entry) => family === undefined || entry.family === family);
        if (entries.length === 0) {
          callback(
            Object.assign(new Error(`${hostname} has no address of the requested family`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
        } else if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: unknown) => {
        const wrapped =
          error instanceof DomainError
            ? Object.assign(new Error(error.detail), { code: 'EWEBHOOKURL' })
            : (error as NodeJS.ErrnoException);
        callback(wrapped, '', 0);
      },
    );
  };
}
