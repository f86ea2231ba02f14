import { readBoundedText } from '../../platform/bounded-body.ts';
import { parseRetryAfter } from '../../platform/retry-after.ts';
import {
  E164,
  SmsPlatformTemporaryError,
  SmsRejectedError,
  SmsRetryableError,
  type SmsMessage,
  type SmsProvider,
  type SmsSendResult,
} from './sms.ts';
import { findLink } from './outbox.ts';

/**
 * Twilio Programmable Messaging over its REST API (no SDK):
 * `POST {baseUrl}/2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded `To`, `From` or
 * `MessagingServiceSid`, `Body`, optional `StatusCallback`; HTTP basic auth AccountSid:AuthToken.
 * Answers `201` with an `api.v2010.account.message`; errors carry `{ code, message, more_info, status }`.
 * A message sent again after an attempt whose answer was lost is first looked up
 * (`GET …/Messages.json?To=…`, `#findAccepted`): Twilio has no idempotency key.
 */
export interface TwilioOptions {
  /** `AC` + 32 hex digits. */
  readonly accountSid: string;
  readonly authToken: string;
  /** Sender: a Twilio number (E.164), short code or alphanumeric sender id. Exactly one of `from` and `messagingServiceSid`. */
  readonly from?: string;
  /** `MG` + 32 hex digits: Twilio picks the sender from the service's pool. */
  readonly messagingServiceSid?: string;
  /** Twilio posts delivery status changes here (`twilioStatusRoutes`); none: no receipts. */
  readonly statusCallbackUrl?: string;
  /** Default `https://api.twilio.com`; tests point it at a local fake. */
  readonly baseUrl?: string;
  /** Whole request, connection to parsed body. Default 10 s. */
  readonly timeoutMs?: number;
  readonly fetch?: typeof globalThis.fetch;
}

const ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;
/**
 * What a Twilio error code is about (https://www.twilio.com/docs/api/errors), one classification for
 * both places a code comes: the answer to a send (an error answer's `code`, a message created already
 * `failed` or `undelivered` with its `error_code`) and a delivery receipt's `ErrorCode`.
 * - `invalid_number`: this number cannot be texted — at send 21211 invalid, 21217 not a phone number,
 *   21401 invalid, 21421 invalid, 21614 not a mobile; the carrier's 30005 unknown handset and 30006
 *   landline or unreachable carrier.
 * - `recipient_refused`: a valid recipient that cannot receive this now — 21610 unsubscribed (replied
 *   STOP), 21612 not reachable by SMS; the carrier's 30003 handset unreachable and 30004 blocked by the
 *   recipient or their carrier.
 * - `platform_temporary`: the platform's own, and passing — 30001 queue overflow (sent faster than the
 *   sender allows: a mass disruption's burst). A receipt with it, and a send answered with it (a message
 *   created already failed, or a 4xx error answer: `SmsPlatformTemporaryError`), send the message again
 *   after a back-off, by one path (delivery.ts; docs/sms.md).
 * - `platform`: the platform's own account, sender or content, every customer alike — 21408 no
 *   permission for that country, 21602 empty body, 21606 sender not SMS-capable; the carrier's 30002
 *   account suspended, 30007 filtered, 30010 price over MaxPrice, 30022 US A2P 10DLC rate limit
 *   exceeded, 30024 numeric sender id not provisioned, 30032 toll-free sender not verified, 30034 US
 *   sender not registered.
 * The carrier codes Twilio's OpenAPI document names (docs reference, `twilio_api_v2010.json`): 30004
 * "Message blocked" and 30007 "Carrier violation", classed above; it defines no other 300xx code —
 * 30018, 30023, 30027 among them are left to the default.
 * **Any other code, or none, is `platform`** (the one default): a failure the platform cannot
 * attribute never blames the customer nor tells the partner they are unreachable; it is logged as an
 * error and audited (`platformFailure`) for the operator, who resends from the claim desk.
 */
export type TwilioFailureClass = 'invalid_number' | 'recipient_refused' | 'platform_temporary' | 'platform';
const FAILURE_CLASSES: ReadonlyMap<number, Exclude<TwilioFailureClass, 'platform'>> = new Map([
  ...[21211, 21217, 21401, 21421, 21614, 30005, 30006].map((c) => [c, 'invalid_number'] as const),
  ...[21610, 21612, 30003, 30004].map((c) => [c, 'recipient_refused'] as const),
  [30001, 'platform_temporary'] as const,
]);

/** The class of a Twilio error code (`TwilioFailureClass`): unlisted or absent, `platform`. */
export function twilioFailureClass(code: number | null | undefined): TwilioFailureClass {
  return (code !== null && code !== undefined && FAILURE_CLASSES.get(code)) || 'platform';
}
/** The look-up before a send again (`#findAccepted`): one page of messages to the number, and the clocks' margin. */
const LOOKUP_PAGE_SIZE = 50;
const LOOKUP_CLOCK_MARGIN_MS = 5 * 60_000;
/** Connection failures before any byte of the request was sent (undici's `cause.code`): nothing reached Twilio. */
const CONNECT_FAILURE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/**
 * The longest answer read (1 MiB; a look-up page of 50 messages is some 100 kB): a longer one is read
 * as no answer — `invalid_response` on a 2xx (retried, the look-up first), its status alone otherwise.
 */
const TWILIO_MAX_BODY_BYTES = 1024 * 1024;
/** A message in these never reached the customer: sending again is no duplicate. */
const NOT_RECEIVED_STATUSES = new Set(['failed', 'undelivered', 'canceled']);

export class TwilioSmsProvider implements SmsProvider {
  readonly name = 'twilio';
  readonly #endpoint: string;
  readonly #authorization: string;
  readonly #sender: ['From' | 'MessagingServiceSid', string];
  readonly #statusCallbackUrl: string | undefined;
  readonly #timeoutMs: number;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: TwilioOptions) {
    if (!ACCOUNT_SID.test(options.accountSid))
      throw new TypeError('Twilio accountSid must be "AC" followed by 32 hexadecimal digits');
    if (!options.authToken) throw new TypeError('Twilio authToken is required');
    if ((options.from === undefined) === (options.messagingServiceSid === undefined)) {
      throw new TypeError('Twilio needs exactly one of from and messagingServiceSid');
    }
    if (options.messagingServiceSid !== undefined && !MESSAGING_SERVICE_SID.test(options.messagingServiceSid)) {
      throw new TypeError('Twilio messagingServiceSid must be "MG" followed by 32 hexadecimal digits');
    }
    const timeoutMs = options.timeoutMs ?? 10_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
      throw new TypeError('Twilio timeoutMs must be a positive integer');

    const baseUrl = (options.baseUrl ?? 'https://api.twilio.com').replace(/\/+$/, '');
    this.#endpoint = `${baseUrl}/2010-04-01/Accounts/${options.accountSid}/Messages.json`;
    this.#authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
    this.#sender =
      options.messagingServiceSid !== undefined
        ? ['MessagingServiceSid', options.messagingServiceSid]
        : ['From', options.from ?? ''];
    this.#statusCallbackUrl = options.statusCallbackUrl;
    this.#timeoutMs = timeoutMs;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  async send(msg: SmsMessage): Promise<SmsSendResult> {
    if (!E164.test(msg.to)) throw new SmsRejectedError(this.name, 'invalid_number', 'recipient is not an E.164 number');
    if (msg.body.length === 0) throw new SmsRejectedError(this.name, 'rejected', 'empty body');

    // one deadline for the whole call, the look-up included: the job's lease covers one `timeoutMs`
    const signal = AbortSignal.timeout(this.#timeoutMs);
    if (msg.earlierAttemptSince !== undefined) {
      let earlier: SmsSendResult | undefined;
      try {
        earlier = await this.#findAccepted(msg, msg.earlierAttemptSince, signal);
      } catch (error) {
        // the look-up failed before the POST started: whatever its reason, the customer was not texted
        if (error instanceof SmsRetryableError) throw error.beforeSend();
        throw error;
      }
      if (earlier) return earlier;
    }

    const form = new URLSearchParams({ To: msg.to, [this.#sender[0]]: this.#sender[1], Body: msg.body });
    if (this.#statusCallbackUrl !== undefined) form.set('StatusCallback', this.#statusCallbackUrl);
    const { status, retryAfter, text } = await this.#request(this.#endpoint, signal, form);
    const json = parseJson(text);
    if (status === 200 || status === 201) return this.#accepted(status, json);
    throw this.#failure(status, json, retryAfter);
  }

  /**
   * Twilio has no idempotency key: before sending again a message an earlier attempt may have had
   * accepted (its answer lost: a timeout, a dropped connection, a worker stopped before its commit),
   * one page of messages to the same number (`GET Messages.json?To=…`, `LOOKUP_PAGE_SIZE`) is read,
   * and an outbound one created since the message was written (five minutes' clock margin), with the
   * same body — or, for a body carrying a customer link, the same link — whose sid is not already
   * another message's (`msg.isRecordedElsewhere`: two claims' receipts can read alike) is taken as
   * that attempt's: its sid is answered instead of sending again; among several, the earliest created
   * (the page's order is not relied on). One the carrier already failed or Twilio canceled is not: the
   * customer did not get it, and a new send is no duplicate. A look-up that cannot be made now (5xx,
   * 429, network, timeout, an unreadable 200) is retried like a send, and nothing was posted; one
   * Twilio refuses (another 4xx) sends anyway, as before the look-up existed: a duplicate text beats a
   * lost link.
   */
  async #findAccepted(msg: SmsMessage, since: Date, signal: AbortSignal): Promise<SmsSendResult | undefined> {
    const query = new URLSearchParams({ To: msg.to, PageSize: String(LOOKUP_PAGE_SIZE) });
    const { status, retryAfter, text } = await this.#request(`${this.#endpoint}?${query.toString()}`, signal);
    const json = parseJson(text);
    if (status !== 200) {
      const failure = this.#failure(status, json, retryAfter);
      if (
        failure instanceof SmsRetryableError ||
        (failure instanceof SmsRejectedError && failure.reason === 'unauthorized')
      )
        throw failure;
      return undefined;
    }
    if (!isRecord(json) || !Array.isArray(json.messages)) {
      // not a list Twilio writes: "none found" would text the customer again
      throw new SmsRetryableError(this.name, 'invalid_response', 'look-up answered without a list of messages', {
        httpStatus: status,
      });
    }
    const link = findLink(msg.body);
    const from = since.getTime() - LOOKUP_CLOCK_MARGIN_MS;
    const candidates: { sid: string; status: string; created: number }[] = [];
    for (const m of json.messages as unknown[]) {
      if (!isRecord(m) || typeof m.sid !== 'string' || m.sid === '' || typeof m.status !== 'string') continue;
      if (typeof m.direction !== 'string' || !m.direction.startsWith('outbound')) continue;
      if (NOT_RECEIVED_STATUSES.has(m.status)) continue;
      const created = typeof m.date_created === 'string' ? Date.parse(m.date_created) : Number.NaN;
      if (!(created >= from)) continue;
      if (typeof m.body !== 'string' || (m.body !== msg.body && !(link !== null && m.body.includes(link)))) continue;
      candidates.push({ sid: m.sid, status: m.status, created });
    }
    candidates.sort((a, b) => a.created - b.created || (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : 0));
    for (const c of candidates) {
      if (msg.isRecordedElsewhere && (await msg.isRecordedElsewhere(c.sid))) continue;
      return { providerMessageId: c.sid, status: c.status };
    }
    return undefined;
  }

  /** One call to the API (a POST when `form` is given), its answer read whole within `signal`. */
  async #request(
    url: string,
    signal: AbortSignal,
    form?: URLSearchParams,
  ): Promise<{ status: number; retryAfter: string | null; text: string }> {
    try {
      const response = await this.#fetch(url, {
        method: form ? 'POST' : 'GET',
        headers: {
          authorization: this.#authorization,
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          accept: 'application/json',
        },
        ...(form ? { body: form.toString() } : {}),
        signal,
      });
      const retryAfter = response.headers.get('retry-after');
      const text = (await readBoundedText(response, TWILIO_MAX_BODY_BYTES)) ?? '';
      return { status: response.status, retryAfter, text };
    } catch (error) {
      if (signal.aborted) {
        throw new SmsRetryableError(
          this.name,
          'timeout',
          `no answer within ${this.#timeoutMs} ms`,
          {},
          { cause: error },
        );
      }
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      if (typeof code === 'string' && CONNECT_FAILURE_CODES.has(code))
        throw new SmsRetryableError(this.name, 'unreachable', `no connection (${code})`, {}, { cause: error });
      throw new SmsRetryableError(this.name, 'network', 'request failed before an answer', {}, { cause: error });
    }
  }

  #accepted(status: number, json: unknown): SmsSendResult {
    if (!isRecord(json) || typeof json.sid !== 'string' || json.sid === '' || typeof json.status !== 'string') {
      // Twilio may have queued the message; a retry risks a duplicate, which beats a lost claim link.
      throw new SmsRetryableError(this.name, 'invalid_response', 'answered without a message sid and status', {
        httpStatus: status,
      });
    }
    if ((json.status === 'failed' || json.status === 'undelivered') && typeof json.error_code === 'number') {
      // created, and failed at once: what a receipt with that code would say, read the same way
      if (twilioFailureClass(json.error_code) === 'platform_temporary')
        throw new SmsPlatformTemporaryError(this.name, `message ${json.status} (Twilio ${json.error_code})`, {
          httpStatus: status,
          providerCode: json.error_code,
          providerMessageId: json.sid,
          status: json.status,
        });
      throw new SmsRejectedError(this.name, refusalReason(json.error_code), `message ${json.status}`, {
        httpStatus: status,
        providerCode: json.error_code,
      });
    }
    return { providerMessageId: json.sid, status: json.status };
  }

  #failure(
    status: number,
    json: unknown,
    retryAfter: string | null,
  ): SmsRejectedError | SmsRetryableError | SmsPlatformTemporaryError {
    const body = isRecord(json) ? json : {};
    const details = {
      httpStatus: status,
      providerCode: typeof body.code === 'number' ? body.code : undefined,
      moreInfo: typeof body.more_info === 'string' ? body.more_info : undefined,
    };
    const said = typeof body.message === 'string' ? `: ${maskNumbers(body.message)}` : '';
    const code = details.providerCode !== undefined ? ` (Twilio ${details.providerCode})` : '';
    const message = `HTTP ${status}${code}${said}`;

    if (status === 429)
      return new SmsRetryableError(this.name, 'rate_limited', message, {
        ...details,
        retryAfterMs: parseRetryAfter(retryAfter),
      });
    if (status >= 500 || status === 408)
      return new SmsRetryableError(this.name, 'server_error', message, {
        ...details,
        retryAfterMs: parseRetryAfter(retryAfter),
      });
    if (status === 401 || status === 403) return new SmsRejectedError(this.name, 'unauthorized', message, details);
    // an error answer naming a passing failure of the platform's (30001): as a message created already failed with it
    if (status >= 400 && twilioFailureClass(details.providerCode) === 'platform_temporary')
      return new SmsPlatformTemporaryError(this.name, message, details);
    if (status >= 400) return new SmsRejectedError(this.name, refusalReason(details.providerCode), message, details);
    // 1xx/3xx/other 2xx: not an answer the Messages API gives.
    return new SmsRetryableError(this.name, 'invalid_response', message, details);
  }
}

/** What a refusal is about, by Twilio's code (`twilioFailureClass`): the recipient (someone can fix the contact) or the platform. */
function refusalReason(code: number | undefined): 'invalid_number' | 'recipient_refused' | 'rejected' {
  const failure = twilioFailureClass(code);
  return failure === 'invalid_number' || failure === 'recipient_refused' ? failure : 'rejected';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Twilio repeats the number in its messages ("The 'To' number +1500… is not valid"): never keep it. */
function maskNumbers(text: string): string {
  return text.replace(/\+?\d[\d\s().-]{5,}\d/g, '[number]');
}
