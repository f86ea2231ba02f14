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
 * message). A 4xx reply or a network failure is retryable; a 5xx reply is final when it blames the
 * recipient's address or this message, and retryable (`reason` `refused`) when it blames our side —
 * credentials, sender, relay or policy refusals of our server (`smtpBlame`). The Message-ID is
 * derived from the dedupe key: a message sent again after a crash between
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
    if (!EMAIL_ADDRESS.test(msg.to))
      throw new EmailRejectedError(this.name, 'recipient is not an email address', undefined, {
        recipient: true,
        local: true,
      });
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
      if ((info.rejected ?? []).length > 0)
        throw new EmailRejectedError(this.name, 'recipient refused', undefined, { recipient: true });
      return { providerMessageId: info.messageId || messageId };
    } catch (error) {
      throw classifySmtpError(this.name, error);
    }
  }

  /** Closes the transport's connections (tests; the worker keeps it for its life). */
  close(): void {
    this.#transport.close();
  }
}

/**
 * Who a permanent (5xx) SMTP reply blames, by RFC 3463's enhanced status code when the reply has one
 * (`5.1.1 …`), else by its basic code and the step it answered:
 * - `recipient`: the customer's address — 5.1.x (bad mailbox 5.1.1, bad domain 5.1.2, bad syntax
 *   5.1.3, moved 5.1.6, null MX 5.1.10…; but 5.1.7 and 5.1.8 are the sender's address: ours), 5.2.x
 *   but 5.2.2 and 5.2.3 (disabled mailbox 5.2.1), or without an enhanced code 550, 551, 553 answering
 *   RCPT TO only.
 * - `provider`: our configuration or our server's standing — 5.7.x (security, policy: relaying
 *   denied, authentication required), 5.5.x (protocol), 5.3.x but 5.3.4 and 5.4.x (the relay's
 *   system, routing), 5.0.0 and 5.1.7/5.1.8, any reply to AUTH or MAIL FROM, and without an enhanced
 *   code: 530, 535, 554 (transaction failed: usually a policy or relay refusal of our server, not the
 *   address), 521 and 500–504, and any reply to a step of our session (CONN — the greeting, e.g. our
 *   IP blocklisted —, EHLO, HELO, LHLO, STARTTLS, RSET, API) or to no known step. Not the customer's
 *   fault: retried as an outage is.
 * - `message`: this message, not the address nor our server — 5.6.x (content), 5.2.2 (mailbox full:
 *   a lasting state, not a bad address), 5.2.3 and 5.3.4 (too big), without an enhanced code 550,
 *   551, 553 answering DATA, 552 and any other: final, nobody told.
 */
export type SmtpBlame = 'recipient' | 'provider' | 'message';

const OUR_STEPS = /^(AUTH|MAIL)\b/i;
const RECIPIENT_STEP = /^RCPT\b/i;
const DATA_STEP = /^DATA\b/i;
/** The steps before any recipient: our connection (`CONN`, the greeting), our login and our sender. */
const LOGIN_STEPS = /^(CONN|EHLO|HELO|LHLO|STARTTLS|AUTH|MAIL)\b/i;

/** RFC 3463's enhanced status code at the start of a reply (`550 5.1.1 …`, `550-5.1.1 …`), if any. */
interface EnhancedCode {
  readonly klass: number;
  readonly subject: number;
  readonly detail: number;
  /** `5.1.1` */
  readonly text: string;
}

function parseEnhancedCode(response: string | undefined): EnhancedCode | undefined {
  const m = /^\d{3}[ -]([245])\.(\d{1,3})\.(\d{1,3})(?:\s|$)/.exec(response ?? '');
  if (!m) return undefined;
  return { klass: Number(m[1]), subject: Number(m[2]), detail: Number(m[3]), text: `${m[1]}.${m[2]}.${m[3]}` };
}

export function smtpBlame(responseCode: number, response: string | undefined, command: string | undefined): SmtpBlame {
  return blameOf(responseCode, parseEnhancedCode(response), command);
}

function blameOf(responseCode: number, enhanced: EnhancedCode | undefined, command: string | undefined): SmtpBlame {
  if (command !== undefined && OUR_STEPS.test(command)) return 'provider';
  if (enhanced) {
    const { subject, detail } = enhanced;
    if (subject === 1) return detail === 7 || detail === 8 ? 'provider' : 'recipient';
    if (subject === 2) return detail === 2 || detail === 3 ? 'message' : 'recipient';
    if (subject === 3 && detail === 4) return 'message';
    if (subject === 6) return 'message';
    return 'provider'; // 5.0 other, 5.3 mail system, 5.4 routing, 5.5 protocol, 5.7 security or policy
  }
  if (responseCode === 550 || responseCode === 551 || responseCode === 553) {
    // without an enhanced code, only the step tells whose: the address at RCPT TO, the message at DATA
    if (command !== undefined && RECIPIENT_STEP.test(command)) return 'recipient';
    if (command !== undefined && DATA_STEP.test(command)) return 'message';
    return 'provider'; // the greeting (our IP blocked), EHLO/HELO/LHLO, STARTTLS, RSET, API: ours
  }
  if (responseCode === 530 || responseCode === 535 || responseCode === 554 || responseCode === 521) return 'provider';
  if (responseCode >= 500 && responseCode <= 504) return 'provider';
  return 'message';
}

/** A nodemailer failure as the send job reads it: retryable (with why) or final (with whom it blames). */
export function classifySmtpError(provider: string, error: unknown): EmailRetryableError | EmailRejectedError {
  if (error instanceof EmailRejectedError || error instanceof EmailRetryableError) return error;
  const e = error as {
    responseCode?: unknown;
    response?: unknown;
    code?: unknown;
    command?: unknown;
    originalCode?: unknown;
    timeoutType?: unknown;
    message?: unknown;
  };
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const verb = typeof e.command === 'string' ? e.command : undefined;
  const command = verb !== undefined ? ` to ${verb.split(' ')[0]}` : '';
  if (responseCode !== undefined) {
    // the server's text may repeat the address: only its codes are kept
    const response = typeof e.response === 'string' ? e.response : undefined;
    const enhanced = parseEnhancedCode(response);
    const message = `SMTP ${responseCode}${enhanced ? ` ${enhanced.text}` : ''}${command}`;
    if (responseCode >= 500) {
      const blame = blameOf(responseCode, enhanced, verb);
      if (blame === 'provider')
        // our credentials, sender or standing: nothing was taken; retried, an outage until someone fixes it
        return new EmailRetryableError(provider, message, responseCode, {
          cause: error,
          notSent: true,
          reason: 'refused',
          // the circuit opens for a refusal every message meets, not for one of a recipient or a message
          atLogin: verb !== undefined && LOGIN_STEPS.test(verb),
        });
      return new EmailRejectedError(provider, message, responseCode, {
        cause: error,
        recipient: blame === 'recipient',
      });
    }
    // a 4xx reply, at any step up to the end of the data: the server did not take the message
    return new EmailRetryableError(provider, message, responseCode, { cause: error, notSent: true });
  }
  const code = typeof e.code === 'string' ? e.code : 'unknown';
  // credentials refused or missing without a reply code (nodemailer's own checks): ours to fix
  if (code === 'EAUTH')
    return new EmailRetryableError(provider, 'authentication refused', undefined, {
      cause: error,
      notSent: true,
      reason: 'refused',
      atLogin: true,
    });
  if (code === 'EENVELOPE') {
    // nodemailer's own envelope check, before any command: our sender, or the recipient
    const ours = typeof e.message === 'string' && /sender/i.test(e.message);
    if (ours)
      return new EmailRetryableError(provider, 'sender refused', undefined, {
        cause: error,
        notSent: true,
        reason: 'refused',
        atLogin: true,
      });
    return new EmailRejectedError(provider, 'envelope refused', undefined, {
      cause: error,
      recipient: true,
      local: true,
    });
  }
  return new EmailRetryableError(
    provider,
    NETWORK_CODES.has(code) ? `connection failed (${code})` : `send failed (${code})`,
    undefined,
    // given back only when no connection was opened or the session never started: nothing sent
    { cause: error, notSent: certainlyNotSent(e) },
  );
}
