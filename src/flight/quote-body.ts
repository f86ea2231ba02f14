import type { Quote } from './price-quote.ts';

/**
 * The JSON body of a /getPrice answer, serialised by the route's own response serializer once per
 * quote template and reused: every quote of a template shares the template's view (price-quote.ts
 * spreads the memoised `template.view`, immutable), so only `quoteReference` and `expiresAt` differ
 * from one answer to the next. Serialising the whole ~9.5 kB body on every request was a tenth of the
 * route's CPU under load (docs/BENCHMARKS.md); the bytes are the same, since the cached parts are the
 * serializer's own output around the two strings.
 *
 * The parts are found by serialising the quote once with two sentinels in place of the varying
 * strings. They are reused only while every other field of the quote is the very value (===) they
 * were serialised from; anything else serialises the quote afresh.
 */
const REFERENCE_SENTINEL = 'parasol-quote-body-reference-4f1c9a';
const EXPIRES_SENTINEL = 'parasol-quote-body-expires-4f1c9a';

interface Parts {
  /** The quote the parts were serialised from: its other fields must be === the current quote's. */
  source: Quote;
  /** How many fields it has. */
  fields: number;
  head: string;
  middle: string;
  tail: string;
}

/** Keyed by the template's breakdown array, shared by every quote of one template (dropped with it). */
const partsByTemplate = new WeakMap<object, Parts | null>();

function split(quote: Quote, serialize: (quote: Quote) => string): Parts | null {
  const text = serialize({ ...quote, quoteReference: REFERENCE_SENTINEL, expiresAt: EXPIRES_SENTINEL });
  const reference = JSON.stringify(REFERENCE_SENTINEL);
  const expires = JSON.stringify(EXPIRES_SENTINEL);
  const at = text.indexOf(reference);
  const atExpires = text.indexOf(expires);
  // each exactly once, the reference first (the schema's order): otherwise no shortcut
  if (at < 0 || atExpires < at || text.indexOf(reference, at + 1) >= 0 || text.indexOf(expires, atExpires + 1) >= 0)
    return null;
  return {
    source: quote,
    fields: Object.keys(quote).length,
    head: text.slice(0, at),
    middle: text.slice(at + reference.length, atExpires),
    tail: text.slice(atExpires + expires.length),
  };
}

/** Whether every field but the two varying strings is the same value in both quotes (same keys too). */
function sameView(parts: Parts, quote: Quote): boolean {
  let count = 0;
  for (const key in quote) {
    count++;
    if (key === 'quoteReference' || key === 'expiresAt') continue;
    if (parts.source[key as keyof Quote] !== quote[key as keyof Quote]) return false;
  }
  return count === parts.fields;
}

/**
 * The serialised body of `quote`, identical to `serialize(quote)`. `serialize` is the route's
 * response serializer (`reply.serialize`), called only when the template's parts are not cached.
 */
export function quoteBody(quote: Quote, serialize: (quote: Quote) => string): string {
  const key = quote.breakdown;
  let parts = partsByTemplate.get(key);
  if (parts === undefined || (parts !== null && !sameView(parts, quote))) {
    parts = split(quote, serialize);
    partsByTemplate.set(key, parts);
  }
  if (parts === null) return serialize(quote);
  return (
    parts.head + JSON.stringify(quote.quoteReference) + parts.middle + JSON.stringify(quote.expiresAt) + parts.tail
  );
}
