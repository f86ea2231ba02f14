/**
 * The SMS provider interface the claim jobs call. Implementations: `OutboxSmsProvider` (sandbox,
 * preproduction and the embedded default: messages are stored, never sent) and `TwilioSmsProvider`
 * (production). A provider sends one message per call and never retries by itself: the job queue
 * retries on `SmsRetryableError` with back-off and gives up on `SmsRejectedError`; a passing failure of
 * the platform's answered at send (`SmsPlatformTemporaryError`) is sent again after a back-off.
 *
 * Phone numbers and bodies are personal data: no error message below carries either.
 */

export interface SmsMessage {
  /** Recipient in E.164 form, e.g. "+33612345678". */
  readonly to: string;
  readonly body: string;
  /**
   * Stable across retries of the same logical message (e.g. `claim:<id>:bank-details`). Stores that
   * can deduplicate do so on it (the outbox); Twilio's Messages API has no idempotency key: see
   * `earlierAttemptSince`.
   */
  readonly idempotencyKey: string;
  /**
   * Set when an earlier attempt of this message may have been accepted without its answer being
   * recorded (a timeout, a dropped connection, a worker stopped before its commit): when the message
   * was written. A provider without idempotency keys looks for that earlier message first and answers
   * it instead of sending again (Twilio: `TwilioSmsProvider`'s look-up by recipient and body).
   */
  readonly earlierAttemptSince?: Date;
  /**
   * Whether a message the provider lists is already recorded as another of ours (its sid on another
   * row): the look-up never takes it for this one — two claims' receipts to one customer can read
   * word for word alike.
   */
  readonly isRecordedElsewhere?: (providerMessageId: string) => Promise<boolean>;
  /** The customer link the body carries, when the caller knows it (kept by the outbox). */
  readonly link?: string;
}

export interface SmsSendResult {
  /** The provider's id of the message (Twilio `SM…` sid, or the outbox id). */
  readonly providerMessageId: string;
  /** The provider's status at acceptance (Twilio: `queued`, `accepted`…; outbox: `stored`). */
  readonly status: string;
}

export interface SmsProvider {
  readonly name: string;
  send(msg: SmsMessage): Promise<SmsSendResult>;
}

export interface SmsErrorDetails {
  /** HTTP status answered by the provider, when there was an answer. */
  readonly httpStatus?: number;
  /** The provider's own error code (Twilio: 21211, 20003…). */
  readonly providerCode?: number;
  /** Link to the provider's documentation of the error. */
  readonly moreInfo?: string;
}

export abstract class SmsError extends Error {
  readonly httpStatus: number | undefined;
  readonly providerCode: number | undefined;
  readonly moreInfo: string | undefined;

  constructor(
    readonly provider: string,
    message: string,
    details: SmsErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${message}`, options);
    this.httpStatus = details.httpStatus;
    this.providerCode = details.providerCode;
    this.moreInfo = details.moreInfo;
  }
}

/** A production message: queued until sent, or refused by the provider (left to an operator). */
export { SMS_STATUSES, type SmsStatus } from './model.ts';

/**
 * `unreachable`: no connection could be opened (refused, DNS, no route): nothing was sent. `network`:
 * the connection failed after it was opened — the request may have reached the provider.
 */
export type SmsRetryReason =
  'server_error' | 'rate_limited' | 'unreachable' | 'network' | 'timeout' | 'invalid_response';

/**
 * The failures after which the customer was not texted: the provider answered an error (429, 5xx,
 * 408: Twilio created no message — a 5xx that created one anyway is found by the look-up before the
 * next send, `earlierAttemptSince`), or was never reached. Such an attempt is not counted against
 * MAX_SMS_ATTEMPTS: a provider outage longer than the job's retries does not use up a message's sends.
 */
export const NOT_SENT_RETRY_REASONS: ReadonlySet<SmsRetryReason> = new Set([
  'server_error',
  'rate_limited',
  'unreachable',
]);

/** Try again later: 5xx, 429, network failure, timeout, unreadable answer. */
export class SmsRetryableError extends SmsError {
  override readonly name = 'SmsRetryableError';
  /** From a `Retry-After` header, when the provider sent one. */
  readonly retryAfterMs: number | undefined;
  /**
   * The customer was not texted by this attempt: its reason is one of `NOT_SENT_RETRY_REASONS`, or it
   * failed before the send's request started (Twilio's look-up: `beforeSend`). Not counted against
   * MAX_SMS_ATTEMPTS.
   */
  readonly notSent: boolean;

  constructor(
    provider: string,
    readonly reason: SmsRetryReason,
    message: string,
    details: SmsErrorDetails & { retryAfterMs?: number; notSent?: boolean } = {},
    options?: { cause?: unknown },
  ) {
    super(provider, message, details, options);
    this.retryAfterMs = details.retryAfterMs;
    this.notSent = details.notSent ?? NOT_SENT_RETRY_REASONS.has(reason);
  }

  /** The same failure, known to have come before any send request: nothing was sent, whatever the reason. */
  beforeSend(): SmsRetryableError {
    const message = this.message.slice(`${this.provider}: `.length);
    return new SmsRetryableError(
      this.provider,
      this.reason,
      message,
      {
        httpStatus: this.httpStatus,
        providerCode: this.providerCode,
        moreInfo: this.moreInfo,
        retryAfterMs: this.retryAfterMs,
        notSent: true,
      },
      { cause: this.cause },
    );
  }
}

/**
 * `invalid_number`: not a number the provider can text (invalid, not a mobile); `recipient_refused`: a
 * valid number whose owner cannot receive it now (unsubscribed with STOP, unreachable by SMS) — both
 * about the recipient, someone can fix the contact; `unauthorized` and `rejected`: the platform's own
 * credentials, sender or content.
 */
export type SmsRejectReason = 'invalid_number' | 'recipient_refused' | 'unauthorized' | 'rejected';

/** Retrying the same message cannot succeed: invalid number, bad credentials, refused content. */
export class SmsRejectedError extends SmsError {
  override readonly name = 'SmsRejectedError';

  constructor(
    provider: string,
    readonly reason: SmsRejectReason,
    message: string,
    details: SmsErrorDetails = {},
  ) {
    super(provider, message, details);
  }
}

/**
 * The provider answered the send with a failure of the platform's own that passes (Twilio's 30001, queue
 * overflow: sent faster than the sender allows — a mass disruption's burst): a message created already
 * `failed` or `undelivered` with that code (`providerMessageId`, `status`), or an error answer naming it
 * (neither). What a delivery receipt with that code says, handled by the same path (`recordSendPlatformFailure`,
 * delivery.ts): the message queued again after a back-off while it has sends left, the partner not told.
 * Neither a refusal (the same message goes once the burst is over) nor a retry by the queue's back-off.
 */
export class SmsPlatformTemporaryError extends SmsError {
  override readonly name = 'SmsPlatformTemporaryError';
  /** The provider's id of the message it created already failed; undefined for an error answer (none created). */
  readonly providerMessageId: string | undefined;
  /** The created message's status (`failed`, `undelivered`); undefined for an error answer. */
  readonly status: 'failed' | 'undelivered' | undefined;

  constructor(
    provider: string,
    message: string,
    details: SmsErrorDetails & { providerMessageId?: string; status?: 'failed' | 'undelivered' } = {},
  ) {
    super(provider, message, details);
    this.providerMessageId = details.providerMessageId;
    this.status = details.status;
  }
}

/** E.164: "+", a country code not starting with 0, at most 15 digits in all. */
export const E164 = /^\+[1-9]\d{1,14}$/;
