import { sql } from 'kysely';
import { OutboxSmsProvider } from '../notify/outbox.ts';
import { SqlOutboxStore } from '../notify/sql-outbox.ts';
import { renderClaimSms, type ClaimEvent } from '../notify/templates.ts';
import { audit } from '../platform/audit.ts';
import { decrypt, randomToken, sha256Hex, type Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';

export const CLAIM_QUEUES = { notify: 'claims_notify' } as const;

export interface NotifyDeps {
  db: Db;
  keys: Keyring;
  publicUrl: string;
  bankDetailsDays: number;
  now: () => Date;
}

export class SmsProviderMissing extends Error {
  constructor(environment: string) {
    super(`No SMS provider is configured for ${environment}: the claim stays opened and the job is retried.`);
    this.name = 'SmsProviderMissing';
  }
}

/**
 * The job run for each claim opened: gives the claim its bank-details link (a 256-bit token,
 * stored as its SHA-256, valid while the claim waits for bank details), moves it to
 * `awaiting_bank_details` and texts the customer in their language — one transaction, so a retry
 * after a crash finds either nothing done or everything done. Sandbox and preproduction messages
 * go to the SQL outbox the partner can read; production needs the Twilio provider (not wired yet).
 */
export async function notifyClaimOpened(deps: NotifyDeps, claimId: string): Promise<'sent' | 'skipped'> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .innerJoin('contract_legs as l', 'l.id', 'cl.leg_id')
      .select([
        'cl.id',
        'cl.status',
        'cl.event',
        'cl.delay_minutes',
        'cl.compensation_amount',
        'cl.currency',
        'cl.partner_id',
        'cl.environment',
        'cl.claim_number',
        'c.id as contract_id',
        'c.customer_phone_enc',
        'c.customer_language',
        'l.flight_number',
        'l.departure_date',
      ])
      .where('cl.id', '=', claimId)
      .forUpdate('cl')
      .executeTakeFirst();
    if (!row || row.status !== 'opened') return 'skipped'; // already notified (a retried job) or gone further
    if (row.environment === 'production') throw new SmsProviderMissing(row.environment);

    const now = deps.now();
    const dueAt = new Date(now.getTime() + deps.bankDetailsDays * 86_400_000);
    const token = randomToken(32);
    await trx.insertInto('claim_tokens').values({ claim_id: row.id, token_hash: sha256Hex(token), expires_at: dueAt }).execute();
    await trx
      .updateTable('claims')
      .set({ status: 'awaiting_bank_details', bank_details_due_at: dueAt, updated_at: sql`now()` })
      .where('id', '=', row.id)
      .execute();

    const event: ClaimEvent = row.event === 'delayed' ? { kind: 'delayed', arrivalDelayMinutes: row.delay_minutes ?? 0 } : { kind: row.event };
    const sms = renderClaimSms({
      language: row.customer_language,
      flightNumber: row.flight_number,
      departureDate: row.departure_date,
      event,
      amount: Number(row.compensation_amount),
      currency: row.currency,
      publicUrl: deps.publicUrl,
      token,
    });
    const provider = new OutboxSmsProvider({
      store: new SqlOutboxStore(trx, { partnerId: row.partner_id, environment: row.environment, contractId: row.contract_id, claimId: row.id }, deps.keys.encryption),
      now: deps.now,
    });
    await provider.send({ to: decrypt(deps.keys.encryption, row.customer_phone_enc), body: sms.body, link: sms.link, idempotencyKey: `claim:${row.id}:bank-details` });
    await audit(trx, {
      actor: 'system',
      partnerId: row.partner_id,
      environment: row.environment,
      entity: 'claim',
      entityId: row.claim_number,
      action: 'awaiting_bank_details',
      data: { sms: { segments: sms.segments, provider: provider.name }, bankDetailsDueAt: dueAt.toISOString() },
    });
    return 'sent';
  });
}
