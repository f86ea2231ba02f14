import { readBoundedText } from '../platform/bounded-body.ts';
import { parseRetryAfter } from '../platform/retry-after.ts';
import { ProviderError, ProviderRejected } from './flight-status.ts';

/**
 * One GET to a flight-data provider, with a timeout, mapped to the typed errors of
 * flight-status.ts. Shared by the HTTP adapters. Error messages name the provider and the path only:
 * never the query string (FlightStats carries its key there) nor a header.
 */
export interface GetJsonOptions {
  provider: string;
  url: URL;
  headers?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  fetch?: typeof fetch | undefined;
  now?: () => Date;
}

export interface JsonResponse {
  status: number;
  body: unknown;
  /** The answer's headers (a Retry-After beside an error stated in a 200 body). */
  headers: Headers;
}

/**
 * The longest answer read (2 MiB): an AeroAPI page of 15 flights is some 40 kB, a FlightStats answer
 * less. A longer body — a proxy's or a broken provider's stream — is a `bad_response`, its rest unread.
 */
export const PROVIDER_MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Statuses whose answer is worth trying again later. */
function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * Returns the parsed JSON body of a 2xx answer. Throws ProviderError for timeouts (the whole answer,
 * body included, within `timeoutMs`), network errors, 5xx/408/429, unreadable bodies and bodies longer
 * than PROVIDER_MAX_BODY_BYTES (with `retryAfterMs` from a 429's or 503's Retry-After only);
 * ProviderRejected for other 4xx (and 3xx: a redirect we did not
 * follow means a wrong base URL); `errorDetail` extracts a safe message from an error body.
 * When the caller's signal aborts, rejects with its reason unchanged.
 */
export async function getJson(
  options: GetJsonOptions,
  errorDetail: (body: unknown) => string | undefined = () => undefined,
): Promise<JsonResponse> {
  const { provider, url } = options;
  const where = `${provider} GET ${url.pathname}`;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  let text: string | undefined;
  try {
    response = await doFetch(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...options.headers },
      signal,
      redirect: 'manual',
    });
    text = await readBoundedText(response, PROVIDER_MAX_BODY_BYTES);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted)
      throw new ProviderError(provider, 'timeout', `${where}: no answer within ${options.timeoutMs} ms`, {
        cause: error,
      });
    throw new ProviderError(provider, 'network', `${where}: ${(error as Error).message}`, { cause: error });
  }
  const status = response.status;
  if (text === undefined && status >= 200 && status < 300)
    throw new ProviderError(
      provider,
      'bad_response',
      `${where}: ${status} with a body longer than ${PROVIDER_MAX_BODY_BYTES} bytes`,
      { status },
    );
  // an error answer too long to read is told by its status alone
  let body: unknown;
  let parsed = text !== undefined;
  try {
    body = text === undefined || text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = false;
  }
  if (status >= 200 && status < 300) {
    if (!parsed || body === undefined)
      throw new ProviderError(provider, 'bad_response', `${where}: ${status} with a body that is not JSON`, { status });
    return { status, body, headers: response.headers };
  }
  const detail = (parsed ? errorDetail(body) : undefined) ?? response.statusText;
  const message = `${where}: ${status}${detail ? ` ${detail}` : ''}`;
  throw providerFailure(provider, status, message, response.headers, options.now?.() ?? new Date());
}

/**
 * The typed error for a provider's failure status — the HTTP status of the answer, or the status a
 * provider states inside a body (FlightStats' `error.httpStatusCode`, served with a 200): 429 →
 * `rate_limited`, other 5xx / 408 → `http`, with `retryAfterMs` from the answer's Retry-After on a
 * 429 or a 503 only; any other status → ProviderRejected. One classification for both, so a rate
 * limit said in a body throttles (back-off, circuit breaker) exactly as a 429 does.
 */
export function providerFailure(
  provider: string,
  status: number,
  message: string,
  headers: Headers,
  now: Date,
): ProviderError | ProviderRejected {
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'), now);
    return new ProviderError(
      provider,
      'rate_limited',
      message,
      retryAfterMs === undefined ? { status } : { status, retryAfterMs },
    );
  }
  if (retryableStatus(status)) {
    // Retry-After is read on a 503 only (with 429 above): the provider's word on its whole service.
    // On a 500/502/504/408 it is no such thing, and would open the circuit for every watch.
    const retryAfterMs = status === 503 ? parseRetryAfter(headers.get('retry-after'), now) : undefined;
    return new ProviderError(
      provider,
      'http',
      message,
      retryAfterMs === undefined ? { status } : { status, retryAfterMs },
    );
  }
  return new ProviderRejected(provider, message, { status });
}

/** A short, single-line excerpt of a provider-supplied message (it ends up in logs). */
export function excerpt(value: unknown, max = 200): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
