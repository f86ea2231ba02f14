import { sha256Hex } from '../../platform/crypto.ts';
import { E164, SmsRejectedError, type SmsMessage, type SmsProvider, type SmsSendResult } from './sms.ts';

/**
 * The outbox provider: sandbox, preproduction and the embedded default store every message instead
 * of sending it, so a partner can read what its customers would have received
 * (`GET /flight-delay/v1/sandbox/messages`). The store is an interface; the SQL table comes with the
 * jobs. Nothing here keeps messages in process memory except `InMemoryOutboxStore`, for tests.
 */
export interface OutboxMessage {
  /** Deterministic from the idempotency key: the same logical message always has the same id. */
  readonly id: string;
  readonly idempotencyKey: string;
  /** E.164. */
  readonly to: string;
  readonly body: string;
  /** The customer link the body carries (`PARASOL_PUBLIC_URL/c/<token>`), or null when it has none. */
  readonly link: string | null;
  readonly sentAt: Date;
}

export interface OutboxStore {
  /**
   * Stores the message once per `idempotencyKey`: appending a key already stored is a no-op (SQL:
   * a unique constraint and `ON CONFLICT (idempotency_key) DO NOTHING`), so job retries never
   * show a partner the same message twice.
   */
  append(m: OutboxMessage): Promise<void>;
}

/**
 * Twilio's documented test numbers for a refused recipient (https://www.twilio.com/docs/iam/test-credentials):
 * the outbox refuses them as Twilio would, so a sandbox integration can see `claim.customer_unreachable`.
 */
export const REFUSED_TEST_NUMBERS: Readonly<
  Record<string, { reason: 'invalid_number'; code: number; message: string }>
> = {
  '+15005550001': { reason: 'invalid_number', code: 21211, message: 'not a valid phone number (test number)' },
  '+15005550009': { reason: 'invalid_number', code: 21614, message: 'not a mobile number (test number)' },
};

export class OutboxSmsProvider implements SmsProvider {
  readonly name = 'outbox';
  readonly #store: OutboxStore;
  readonly #now: () => Date;

  constructor(options: { store: OutboxStore; now?: () => Date }) {
    this.#store = options.store;
    this.#now = options.now ?? (() => new Date());
  }

  async send(msg: SmsMessage): Promise<SmsSendResult> {
    // Same rules as the real provider, so sandbox integrations fail where production would.
    if (!E164.test(msg.to)) throw new SmsRejectedError(this.name, 'invalid_number', 'recipient is not an E.164 number');
    if (msg.body.length === 0) throw new SmsRejectedError(this.name, 'rejected', 'empty body');
    const refused = REFUSED_TEST_NUMBERS[msg.to];
    if (refused) throw new SmsRejectedError(this.name, refused.reason, refused.message, { providerCode: refused.code });
    const id = outboxMessageId(msg.idempotencyKey);
    await this.#store.append({
      id,
      idempotencyKey: msg.idempotencyKey,
      to: msg.to,
      body: msg.body,
      link: msg.link ?? findLink(msg.body),
      sentAt: this.#now(),
    });
    return { providerMessageId: id, status: 'stored' };
  }
}

export function outboxMessageId(idempotencyKey: string): string {
  return `OB${sha256Hex(`parasol/outbox/v1:${idempotencyKey}`).slice(0, 32)}`;
}

/** The first customer link (`…/c/<token>`) in a body. */
export function findLink(body: string): string | null {
  return /https?:\/\/\S+\/c\/[A-Za-z0-9_-]+/.exec(body)?.[0] ?? null;
}

/** For tests and local experiments: keeps messages in an array, first write wins per key. */
export class InMemoryOutboxStore implements OutboxStore {
  readonly #messages = new Map<string, OutboxMessage>();

  async append(m: OutboxMessage): Promise<void> {
    if (!this.#messages.has(m.idempotencyKey)) this.#messages.set(m.idempotencyKey, Object.freeze({ ...m }));
  }

  /** In the order first appended. */
  messages(filter: { to?: string } = {}): OutboxMessage[] {
    return [...this.#messages.values()].filter((m) => filter.to === undefined || m.to === filter.to);
  }
}
