/**
 * The email provider interface the send job calls. Implementations: `OutboxEmailProvider` (no SMTP
 * configured, and every sandbox or preproduction message: the message stays in the `emails` table,
 * readable in the operator console and by `parasol emails list`, never sent) and `SmtpEmailProvider`
 * (nodemailer). A provider sends one message per call and never retries by itself: the job queue
 * retries on `EmailRetryableError` with back-off and gives up on `EmailRejectedError`.
 *
 * Addresses and bodies are personal data (bodies carry single-use links): no error message below
 * carries either.
 */

export interface EmailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string | undefined;
  /**
   * Stable across retries of the same logical message (the row's dedupe key). SMTP has no
   * idempotency: the SMTP provider derives the Message-ID header from it, so a message sent twice
   * after a crash between the send and its record is the same message for the receiving side.
   */
  readonly dedupeKey: string;
}

export interface EmailSendResult {
  /** The provider's id of the message (the SMTP Message-ID, or the outbox id). */
  readonly providerMessageId: string;
}

export interface EmailProvider {
  readonly name: string;
  send(msg: EmailMessage): Promise<EmailSendResult>;
}

export abstract class EmailError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    /** The SMTP reply code, when the server answered. */
    readonly responseCode?: number,
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${message}`, options);
  }
}

/**
 * Try again later: a 4xx reply, a connection or network failure, a timeout — or a 5xx reply that blames
 * our side (credentials, sender, relay or policy refusal of our server: `refused`), never the customer.
 */
export class EmailRetryableError extends EmailError {
  override readonly name = 'EmailRetryableError';
  /**
   * The server did not take the message: it answered 4xx, or no connection was opened (DNS, refused,
   * no route, a timeout connecting or before the session: `SmtpEmailProvider`). Such an attempt is
   * not counted against MAX_EMAIL_ATTEMPTS (an SMTP outage does not use a message up); a timeout or a
   * connection closed once the session started — after the end of the data too — may have delivered
   * it, and counts.
   */
  readonly notSent: boolean;
  /**
   * For the metrics (`parasol_emails_total{outcome="retry"}`): `deferred`, the server answered 4xx;
   * `unreachable`, no connection (`notSent` without a reply); `network`, the connection failed or timed
   * out once open; `refused`, the server refused us (authentication required or refused, relaying or
   * policy: SMTP 530, 535, 5.7.x, 554 without a recipient's code — `smtpBlame`): ours to fix, an outage
   * until then.
   */
  readonly reason: 'deferred' | 'unreachable' | 'network' | 'refused';
  /**
   * A `refused` that answered our connection, login or sender — the greeting, EHLO/HELO/LHLO, STARTTLS,
   * AUTH (nodemailer's EAUTH), MAIL FROM (its sender check): every message would meet it, so the SMTP
   * circuit opens. A refusal at RCPT TO or DATA (a 5.7.x or 554 policy or spam refusal of this one
   * message) is not: the other messages still go.
   */
  readonly atLogin: boolean;

  constructor(
    provider: string,
    message: string,
    responseCode?: number,
    options: { cause?: unknown; notSent?: boolean; reason?: 'refused'; atLogin?: boolean } = {},
  ) {
    super(provider, message, responseCode, { cause: options.cause });
    this.notSent = options.notSent ?? false;
    this.atLogin = options.reason === 'refused' && options.atLogin === true;
    this.reason =
      options.reason ?? (responseCode !== undefined ? 'deferred' : this.notSent ? 'unreachable' : 'network');
  }
}

/**
 * Retrying the same message cannot succeed: a 5xx reply that blames the recipient's address (unknown or
 * disabled mailbox, bad domain: `recipient`, the partner is told) or this message (its content, its
 * size), or an address that is none.
 */
export class EmailRejectedError extends EmailError {
  override readonly name = 'EmailRejectedError';
  /** The recipient's address is at fault (not our server, not the message): someone must correct it. */
  readonly recipient: boolean;
  /**
   * Refused by our own check before any connection (not an address, nodemailer's envelope check): the
   * server said nothing — the SMTP circuit neither closes nor opens on it.
   */
  readonly local: boolean;

  constructor(
    provider: string,
    message: string,
    responseCode?: number,
    options: { cause?: unknown; recipient?: boolean; local?: boolean } = {},
  ) {
    super(provider, message, responseCode, { cause: options.cause });
    this.recipient = options.recipient ?? false;
    this.local = options.local ?? false;
  }
}

/**
 * A plausible single address (the form's check; the server has the last word). No comma or semicolon:
 * nodemailer reads `a,b@x.com` or `a@x.com;b@y.com` as a list and would write to every one of them.
 */
export const EMAIL_ADDRESS = /^[^@\s<>",;]+@[^@\s<>",;]+\.[^@\s<>",;]+$/;
