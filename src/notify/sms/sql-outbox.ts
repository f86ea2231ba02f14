import { decrypt, encrypt, type EncryptionKeys } from '../../platform/crypto.ts';
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
 * retries never show a partner the same message twice), the phone number encrypted at rest.
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
      body: m.body,
      link: m.link,
      sent_at: m.sentAt,
    });
  }
}

/** What the customers of a sandbox or preproduction contract would have received, oldest first, phone numbers decrypted. */
export async function readOutbox(
  db: Executor,
  encryptionKey: EncryptionKeys,
  scope: { partnerId: string; contractId: string },
): Promise<{ to: string; body: string; link: string | null; sentAt: Date }[]> {
  const rows = await repo.listOutboxMessages(db, scope.partnerId, scope.contractId);
  return rows.map((r) => ({ to: decrypt(encryptionKey, r.to_enc), body: r.body, link: r.link, sentAt: r.sent_at }));
}
