import ipaddr from 'ipaddr.js';
import { hmac } from './crypto.ts';

/**
 * A client's IP address as the platform keeps it (docs/DECISIONS.md, "Client addresses"): never in
 * clear. What the security team asks of a sign-in's address is "the same address as before?" and
 * "which network?" (to block a range, to tell a provider's pool from a single machine):
 *
 * - `addressHmac`: the HMAC-SHA256 of the address under the `lookup` key (base64url), equal for
 *   equal addresses, unreadable without the master key — a plain hash of an IPv4 address is undone
 *   by trying the 2^32 of them. The sign-in and reset counters of an address are keyed by it too.
 * - `network`: the /24 of an IPv4 address, the /48 of an IPv6 one (an IPv4-mapped IPv6 address is
 *   its IPv4 address): the network a provider assigns, not the machine.
 *
 * An address that does not parse (none given) is `network: 'unknown'`, its HMAC taken of the text.
 */
export interface ClientAddressTag {
  addressHmac: string;
  network: string;
}

/** The address in one canonical text (IPv4-mapped IPv6 as IPv4, IPv6 compressed), undefined when it is not one. */
function canonical(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const text = address.trim();
  if (!ipaddr.isValid(text)) return undefined;
  return ipaddr.process(text);
}

/** The network of an address: IPv4 /24, IPv6 /48, `unknown` when it is not an address. */
export function clientNetwork(address: string): string {
  const ip = canonical(address);
  if (!ip) return 'unknown';
  if (ip.kind() === 'ipv4') {
    const [a, b, c] = (ip as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0/24`;
  }
  const parts = (ip as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([parts[0]!, parts[1]!, parts[2]!, 0, 0, 0, 0, 0]).toString()}/48`;
}

/** The keyed hash of an address (base64url), the same for every spelling of one address. */
export function clientAddressHmac(lookupKey: Buffer, address: string): string {
  const ip = canonical(address);
  return hmac(lookupKey, `client-address:${ip ? ip.toString() : address.trim()}`).toString('base64url');
}

/** What is kept of a client's address: its keyed hash and its network. */
export function tagClientAddress(lookupKey: Buffer, address: string): ClientAddressTag {
  return { addressHmac: clientAddressHmac(lookupKey, address), network: clientNetwork(address) };
}
