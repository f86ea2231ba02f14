import nodemailer, { type Transporter } from 'nodemailer';
import { sha256Hex } from '../../platform/crypto.ts';
import {
  EMAIL_ADDRESS,
  EmailRejectedError,
  EmailRetryableError,
  type EmailMessage,
  type EmailProvider,
  type EmailSendResult,
} from './email.ts';

/** SMTP settings (PARASOL_SMTP_*, docs/OPERATIONS.md). */
export interface SmtpOptions {
  readonly host: string;
  readonly port: number;
  /** TLS from the start (port 465); false: STARTTLS when the server offers it. */
  readonly secure: boolean;
  readonly user: string | undefined;
  readonly password: string | undefined;
  /** The sender, e.g. `Parasol <no-reply@parasol.example>`. */
  readonly from: string;
  /** Connection, greeting and socket timeouts. Default 10 s. */
  readonly timeoutMs?: number;
  /** Tests against a local server with a self-signed certificate. */
  readonly tlsRejectUnauthorized?: boolean;
}

/** Connection failures nodemailer reports by code: worth trying again later. */
const NETWORK_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPROTOCOL',
]);

/**
 * What the socket's own error was when nodemailer wrapped it (`originalCode`): no connection could be
 * opened, so nothing of the message left.
 */
const NO_CONNECTION_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/**
 * nodemailer's timeouts before the session (`timeoutType`): connecting, the greeting, the STARTTLS
 * upgrade. Its `SOCKET_TIMEOUT` is the idle socket at any step, the end of the data included.
 */
const SETUP_TIMEOUT_TYPES = new Set(['CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT']);

/**
 * Whether a failure without a server reply certainly sent nothing: the name did not resolve (`EDNS`),
 * the connection was refused or had no route, or a timeout before the session started. nodemailer
 * names the step `CONN` for every socket error, timeout or unexpected close, at any step — one after
 * the end of the data may come after the server took the message: it counts (it may have been sent).
 */
function certainlyNotSent(e: { code?: unknown; originalCode?: unknown; timeoutType?: unknown }): boolean {
  if (e.code === 'EDNS') return true;
  if (typeof e.originalCode === 'string' && NO_CONNECTION_CODES.has(e.originalCode)) return true;
  return e.code === 'ETIMEDOUT' && typeof e.timeoutType === 'string' && SETUP_TIMEOUT_TYPES.has(e.timeoutType);
}

/**
 * Email through an SMTP server with nodemailer: one connection per message (no pool: a job sends one
 * message). A 4xx reply or a network failure is retryable, a 5xx reply (or refused credentials) is
 * final. The Message-ID is derived from the dedupe key: a message sent again after a crash between
 * the server's acceptance and our record carries the same id.
 */
export class SmtpEmailProvider implements EmailProvider {
  readonly name = 'smtp';
  readonly #transport: Transporter;
  readonly #from: string;
  readonly #domain: string;

  constructor(options: SmtpOptions) {
    const timeout = options.timeoutMs ?? 10_000;
    this.#transport = nodemailer.createTransport({
      host: options.host,
      port: options.port,
      secure: options.secure,
      ...(options.user !== undefined ? { auth: { user: options.user, pass: options.password ?? '' } } : {}),
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      ...(options.tlsRejectUnauthorized === false ? { tls: { rejectUnauthorized: false } } : {}),
    });
    this.#from = options.from;
    this.#domain = /@([^>\s]+)>?\s*$/.exec(options.from)?.[1] ?? 'parasol.invalid';
  }

  async send(msg: EmailMessage): Promise<EmailSendResult> {
    if (!EMAIL_ADDRESS.test(msg.to)) throw new EmailRejectedError(this.name, 'recipient is not an email address');
    const messageId = `<${sha256Hex(`parasol/email/v1:${msg.dedupeKey}`).slice(0, 32)}@${this.#domain}>`;
    try {
      const info = await this.#transport.sendMail({
        from: this.#from,
        to: msg.to,
        subject: msg.subject,
        text: msg.text,
        ...(msg.html !== undefined ? { html: msg.html } : {}),
        messageId,
      });
      if ((info.rejected ?? []).length > 0) throw new EmailRejectedError(this.name, 'recipient refused');
      return { providerMessageId: info.messageId || messageId };
    } catch (error) {
      throw classify(this.name, error);
    }
  }

  /** Closes the transport's connections (tests; the worker keeps it for its life). */
  close(): void {
    this.#transport.close();
  }
}

function classify(provider: string, error: unknown): EmailRetryableError | EmailRejectedError {
  if (error instanceof EmailRejectedError || error instanceof EmailRetryableError) return error;
  const e = error as {
    responseCode?: unknown;
    code?: unknown;
    command?: unknown;
    originalCode?: unknown;
    timeoutType?: unknown;
  };
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const command = typeof e.command === 'string' ? ` to ${e.command.split(' ')[0]}` : '';
  if (responseCode !== undefined) {
    // the server's text may repeat the address: only its code is kept
    const message = `SMTP ${responseCode}${command}`;
    if (responseCode >= 500) return new EmailRejectedError(provider, message, responseCode, { cause: error });
    // a 4xx reply, at any step up to the end of the data: the server did not take the message
    return new EmailRetryableError(provider, message, responseCode, { cause: error, notSent: true });
  }
  const code = typeof e.code === 'string' ? e.code : 'unknown';
  if (code === 'EAUTH') return new EmailRejectedError(provider, 'authentication refused', undefined, { cause: error });
  if (code === 'EENVELOPE') return new EmailRejectedError(provider, 'envelope refused', undefined, { cause: error });
  return new EmailRetryableError(
    provider,
    NETWORK_CODES.has(code) ? `connection failed (${code})` : `send failed (${code})`,
    undefined,
    // given back only when no connection was opened or the session never started: nothing sent
    { cause: error, notSent: certainlyNotSent(e) },
  );
}
