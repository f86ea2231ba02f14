import { decrypt, encrypt, openField, type EncryptionKeys } from '../../platform/crypto.ts';
import type { Environment } from '../../platform/db-schema.ts';
import type { Executor } from '../../platform/db.ts';
import type { OutboxMessage, OutboxStore } from './outbox.ts';
import * as repo from './sms-repo.ts';

/** Where an outbox message belongs: the partner reads it back per contract. */
export interface OutboxContext {
  partnerId: string;
  environment: Exclude<Environment, 'production'>;
  contractId: string;
  claimId: string | null;
}

/**
 * The SQL outbox of sandbox and preproduction: each message stored once per idempotency key (job
 * retries never show a partner the same message twice), the phone number, the body and the link
 * encrypted at rest (the body and the link carry the customer's bank-details link: a bearer secret).
 */
export class SqlOutboxStore implements OutboxStore {
  constructor(
    private readonly db: Executor,
    private readonly context: OutboxContext,
    private readonly encryptionKey: EncryptionKeys,
  ) {}

  async append(m: OutboxMessage): Promise<void> {
    await repo.insertOutboxMessage(this.db, {
      id: m.id,
      idempotency_key: m.idempotencyKey,
      partner_id: this.context.partnerId,
      environment: this.context.environment,
      contract_id: this.context.contractId,
      claim_id: this.context.claimId,
      to_enc: encrypt(this.encryptionKey, m.to),
      body_enc: encrypt(this.encryptionKey, m.body),
      link_enc: m.link === null ? null : encrypt(this.encryptionKey, m.link),
      sent_at: m.sentAt,
    });
  }
}

/** What the customers of a sandbox or preproduction contract would have received, oldest first, decrypted. */
export async function readOutbox(
  db: Executor,
  encryptionKey: EncryptionKeys,
  scope: { partnerId: string; contractId: string },
): Promise<{ to: string; body: string; link: string | null; sentAt: Date }[]> {
  const rows = await repo.listOutboxMessages(db, scope.partnerId, scope.contractId);
  return rows.map((r) => ({
    to: decrypt(encryptionKey, r.to_enc),
    body: openField(encryptionKey, r.body_enc, r.body),
    link: r.link_enc === null && r.link === null ? null : openField(encryptionKey, r.link_enc, r.link),
    sentAt: r.sent_at,
  }));
}
