import { sql } from 'kysely';
import { audit } from '../platform/audit.ts';
import { decrypt, encrypt, type Keyring } from '../platform/crypto.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Db, Executor } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { SmsRejectedError, SmsRetryableError, type SmsProvider } from './sms.ts';

/**
 * Production SMS: the message is written in the transaction of the change that causes it (to and
 * body encrypted: the body carries the customer's link) with its send job; the job sends it through
 * the configured provider after commit. A provider that cannot be reached is retried with back-off
 * a few times (`SMS_QUEUE_POLICY`); a message the provider refuses is marked `rejected` and left to
 * an operator. Twilio has no idempotency key: a crash between its answer and our update may send
 * a message twice — bounded by the retry limit, never more.
 */

export const SMS_QUEUE = 'sms_send';
export const SMS_SWEEP_QUEUE = 'sms_requeue';
/** 8 retries from 3 s (13 to 25 minutes in all); expiry 15 s: Twilio answers within 10 s or the adapter times out. */
export const SMS_QUEUE_POLICY = { retryLimit: 8, retryDelay: 3, retryBackoff: true, expireInSeconds: 15 } as const;

export class SmsProviderMissing extends Error {
  constructor(environment: string) {
    super(`No SMS provider is configured for ${environment} (set PARASOL_TWILIO_*): the message stays queued; the job is retried a few times, then fails.`);
    this.name = 'SmsProviderMissing';
  }
}

export async function queueSms(
  trx: Executor,
  deps: { jobs: JobQueue; keys: Keyring },
  m: { idempotencyKey: string; partnerId: string; environment: Environment; claimId: string | null; to: string; body: string },
): Promise<void> {
  const row = await trx
    .insertInto('sms_messages')
    .values({
      idempotency_key: m.idempotencyKey,
      partner_id: m.partnerId,
      environment: m.environment,
      claim_id: m.claimId,
      to_enc: encrypt(deps.keys.encryption, m.to),
      body_enc: encrypt(deps.keys.encryption, m.body),
      status: 'queued',
    })
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (row) await deps.jobs.send(SMS_QUEUE, { smsId: row.id }, { trx });
}

/** Whether a message with this idempotency key was already written (sent or not). */
export async function smsExists(db: Executor, idempotencyKey: string): Promise<boolean> {
  const row = await sql<{ one: number }>`
    SELECT 1 AS one FROM sms_messages WHERE idempotency_key = ${idempotencyKey}
    UNION ALL SELECT 1 FROM sms_outbox WHERE idempotency_key = ${idempotencyKey} LIMIT 1`.execute(db);
  return row.rows.length > 0;
}

/** How long a send may hold its message: the job's own expiry (Twilio answers within 10 s, or the adapter times out). */
const SEND_LEASE_SECONDS = SMS_QUEUE_POLICY.expireInSeconds;
/** Sends tried at most per message, whatever the jobs: Twilio has no idempotency key. */
export const MAX_SMS_ATTEMPTS = 8;

/**
 * The send job. Takes the message with a lease (two jobs for one message never send it at once),
 * sends it, records the outcome. Returns what happened; throws to have the queue retry.
 */
export async function sendQueuedSms(deps: { db: Db; keys: Keyring; provider: SmsProvider | undefined }, smsId: string): Promise<'sent' | 'rejected' | 'skipped'> {
  if (!deps.provider) {
    const row = await deps.db.selectFrom('sms_messages').select(['status', 'environment']).where('id', '=', smsId).executeTakeFirst();
    if (!row || row.status !== 'queued') return 'skipped';
    throw new SmsProviderMissing(row.environment);
  }
  const row = await deps.db
    .updateTable('sms_messages')
    .set({ attempts: sql`attempts + 1`, provider: deps.provider.name, locked_until: sql`now() + make_interval(secs => ${SEND_LEASE_SECONDS})` })
    .where('id', '=', smsId)
    .where('status', '=', 'queued')
    .where('attempts', '<', MAX_SMS_ATTEMPTS)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', sql<Date>`now()`)]))
    .returningAll()
    .executeTakeFirst();
  if (!row) return 'skipped'; // sent, refused, or being sent by another job
  try {
    const sent = await deps.provider.send({ to: decrypt(deps.keys.encryption, row.to_enc), body: decrypt(deps.keys.encryption, row.body_enc), idempotencyKey: row.idempotency_key });
    await deps.db
      .updateTable('sms_messages')
      .set({ status: 'sent', provider_message_id: sent.providerMessageId, sent_at: new Date(), last_error: null, locked_until: null })
      .where('id', '=', smsId)
      .execute();
    return 'sent';
  } catch (error) {
    if (error instanceof SmsRejectedError) {
      await deps.db.transaction().execute(async (trx) => {
        await trx.updateTable('sms_messages').set({ status: 'rejected', last_error: error.message, locked_until: null }).where('id', '=', smsId).execute();
        await audit(trx, { actor: 'system', partnerId: row.partner_id, environment: row.environment, entity: 'sms', entityId: smsId, action: 'sms_rejected', data: { reason: error.reason, providerCode: error.providerCode ?? null } });
      });
      return 'rejected';
    }
    const message = error instanceof SmsRetryableError ? error.message : 'unexpected error';
    await deps.db.updateTable('sms_messages').set({ last_error: message, locked_until: null }).where('id', '=', smsId).execute();
    throw error;
  }
}

/**
 * Production messages still queued after their send jobs gave up (the provider was down or not yet
 * configured longer than the retries last): queued again, a batch at a time, while they have
 * attempts left (MAX_SMS_ATTEMPTS) and their claim still waits for the bank details they ask for — a
 * link replaced since (a rejected payment) or a claim expired is not worth a text. The worker runs
 * it every 10 minutes when an SMS provider is configured; each message is sent by one job at a time
 * (the lease above).
 */
export async function requeueStaleSms(deps: { db: Db; jobs: JobQueue }, olderThanMinutes = 30, limit = 1_000): Promise<number> {
  const rows = await deps.db
    .selectFrom('sms_messages as m')
    .leftJoin('claims as cl', 'cl.id', 'm.claim_id')
    .select('m.id')
    .where('m.status', '=', 'queued')
    .where('m.attempts', '<', MAX_SMS_ATTEMPTS)
    .where('m.created_at', '<', sql<Date>`now() - make_interval(mins => ${olderThanMinutes})`)
    .where((eb) => eb.or([eb('m.locked_until', 'is', null), eb('m.locked_until', '<', sql<Date>`now()`)]))
    .where((eb) => eb.or([eb('m.claim_id', 'is', null), eb('cl.status', 'in', ['awaiting_bank_details', 'failed'])]))
    // the newest message of a claim only: an older one carries a link that no longer works
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('sms_messages as newer').select('newer.id').whereRef('newer.claim_id', '=', 'm.claim_id').whereRef('newer.created_at', '>', 'm.created_at'))),
    )
    .orderBy('m.created_at')
    .limit(limit)
    .execute();
  await deps.jobs.sendMany(SMS_QUEUE, rows.map((r) => ({ smsId: r.id })));
  return rows.length;
}
