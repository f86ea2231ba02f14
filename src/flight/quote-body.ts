import { Memo } from '../platform/memo.ts';
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
 * strings. They are reused only for a quote whose every other field is the very value (===) they were
 * serialised from; any other quote is serialised afresh (and its parts not kept).
 *
 * Memory: the parts of at most BODIES templates are kept (their own bound, the oldest dropped first,
 * whatever the template memo of price-quote.ts holds). The three parts are slices of the one
 * serialised text, which they keep alive (copying them would save only the two sentinels): an entry
 * costs about one body, ~9.5 kB of text for a return trip (twice that in memory if it holds a
 * character beyond Latin-1), so about 19 MB for a full memo, plus the quote it was cut from, whose
 * view is the template's own (docs/BENCHMARKS.md).
 */
const BODIES = 2_000;
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

/**
 * Keyed by the template's breakdown array, shared by every quote of one template; `null` for a
 * template whose serialisation gave no parts (served in full each time).
 */
const partsByTemplate = new Memo<Parts | null, object>(BODIES);

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
  const parts = partsByTemplate.get(quote.breakdown, () => split(quote, serialize));
  if (parts === null || !sameView(parts, quote)) return serialize(quote);
  return (
    parts.head + JSON.stringify(quote.quoteReference) + parts.middle + JSON.stringify(quote.expiresAt) + parts.tail
  );
}
