import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Twilio's request signature (`X-Twilio-Signature`), https://www.twilio.com/docs/usage/webhooks/webhooks-security:
 * base64 of HMAC-SHA1, keyed with the account's auth token, of the full URL Twilio called followed by
 * every POST parameter sorted by name, each as name + value (a repeated name: its distinct values in
 * order). Checked against Twilio's published examples in test/notify/twilio-signature.unit.test.ts.
 */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>): string {
  const values = new Map<string, Set<string>>();
  for (const [name, value] of params) {
    const set = values.get(name) ?? new Set<string>();
    set.add(value);
    values.set(name, set);
  }
  let data = url;
  for (const name of [...values.keys()].sort(byCodeUnit))
    for (const value of [...values.get(name)!].sort(byCodeUnit)) data += name + value;
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/**
 * Whether `signature` is Twilio's for this request. Twilio may sign the URL with or without its
 * scheme's default port (as its own SDKs accept), so both spellings are tried; constant-time compare.
 */
export function isTwilioSignature(
  authToken: string,
  url: string,
  params: Iterable<[string, string]>,
  signature: string | undefined,
): boolean {
  if (!signature) return false;
  const given = Buffer.from(signature);
  const pairs = [...params];
  return urlSpellings(url).some((candidate) => {
    const expected = Buffer.from(twilioSignature(authToken, candidate, pairs));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

function urlSpellings(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const port = parsed.protocol === 'https:' ? '443' : parsed.protocol === 'http:' ? '80' : undefined;
  if (port === undefined || (parsed.port !== '' && parsed.port !== port)) return [url];
  // `URL` drops a default port: rebuild the other spelling from the text itself
  const authority = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)/i.exec(url)?.[1];
  if (!authority) return [url];
  const hasPort = authority.endsWith(`:${port}`);
  const other = hasPort ? authority.slice(0, -(port.length + 1)) : `${authority}:${port}`;
  return [url, other + url.slice(authority.length)];
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
