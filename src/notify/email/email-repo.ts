import { sql, type Insertable } from 'kysely';
import type { EmailsTable } from '../../platform/db-schema.ts';
import type { Executor } from '../../platform/db.ts';
import { QUEUES } from '../queued-messages-repo.ts';

/** SQL for emails (`emails`): the send queue, and the outbox (the rows sent by the outbox provider). */

/** Writes a message once per dedupe key; answers its id, or undefined when it was already written. */
export async function insertQueuedEmail(trx: Executor, row: Insertable<EmailsTable>): Promise<string | undefined> {
  const inserted = await trx
    .insertInto('emails')
    .values(row)
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}

/** Whether a message of this dedupe key was written (a retried job's, whatever its status). */
export async function emailExists(db: Executor, dedupeKey: string): Promise<boolean> {
  const row = await db.selectFrom('emails').select('id').where('dedupe_key', '=', dedupeKey).executeTakeFirst();
  return row !== undefined;
}

export async function findEmailState(db: Executor, emailId: string) {
  return db.selectFrom('emails').select(['status', 'environment']).where('id', '=', emailId).executeTakeFirst();
}

/**
 * Takes a queued message for a send: one more attempt, a lease of `leaseSeconds` (two jobs never
 * send it at once). Undefined when it is sent, refused, out of attempts or leased by another job.
 */
export async function leaseQueuedEmail(
  db: Executor,
  emailId: string,
  o: { leaseSeconds: number; maxAttempts: number },
) {
  return db
    .updateTable('emails')
    .set({ attempts: sql`attempts + 1`, locked_until: sql`now() + make_interval(secs => ${o.leaseSeconds})` })
    .where('id', '=', emailId)
    .where('status', '=', 'queued')
    .where('attempts', '<', o.maxAttempts)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', sql<Date>`now()`)]))
    .returningAll()
    .executeTakeFirst();
}

export async function markEmailSent(
  db: Executor,
  emailId: string,
  o: { provider: string; providerMessageId: string; at: Date },
): Promise<void> {
  await db
    .updateTable('emails')
    .set({
      status: 'sent',
      provider: o.provider,
      provider_message_id: o.providerMessageId,
      sent_at: o.at,
      last_error: null,
      locked_until: null,
    })
    .where('id', '=', emailId)
    .execute();
}

/** A queued message refused: `rejected` with why. Whether it was (false: already sent or refused). */
export async function markEmailRejected(
  db: Executor,
  emailId: string,
  provider: string,
  error: string,
): Promise<boolean> {
  const row = await db
    .updateTable('emails')
    .set({ status: 'rejected', provider, last_error: error, locked_until: null })
    .where('id', '=', emailId)
    .where('status', '=', 'queued')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A send failed and may be retried: the error kept, the lease released; `notSent`: the server did not
 * take the message (a 4xx reply, no connection), the attempt is given back.
 */
export async function releaseEmail(
  db: Executor,
  emailId: string,
  error: string,
  o: { notSent: boolean },
): Promise<void> {
  await db
    .updateTable('emails')
    .set({
      last_error: error,
      locked_until: null,
      ...(o.notSent ? { attempts: sql<number>`greatest(attempts - 1, 0)` } : {}),
    })
    .where('id', '=', emailId)
    .execute();
}

/**
 * Emails a provider sends for real (a production customer's, the platform's own: `QUEUES.email`,
 * queued-messages-repo.ts) queued for more than `olderThanMinutes`, with attempts left and no live
 * lease, oldest first.
 */
export async function findStaleQueuedEmails(
  db: Executor,
  o: { olderThanMinutes: number; maxAttempts: number; limit: number },
): Promise<string[]> {
  const rows = await db
    .selectFrom('emails')
    .select('id')
    .where('status', '=', 'queued')
    .where(QUEUES.email.sweeps)
    .where('attempts', '<', o.maxAttempts)
    .where('created_at', '<', sql<Date>`now() - make_interval(mins => ${o.olderThanMinutes})`)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', sql<Date>`now()`)]))
    .orderBy('created_at')
    .limit(o.limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Emails newest first, with the partner's slug; sealed columns as stored. */
export async function listEmails(db: Executor, o: { offset: number; limit: number; kind?: string | undefined }) {
  let query = db
    .selectFrom('emails as e')
    .leftJoin('partners as p', 'p.id', 'e.partner_id')
    .select([
      'e.id',
      'e.kind',
      'e.environment',
      'e.status',
      'e.provider',
      'e.attempts',
      'e.last_error',
      'e.created_at',
      'e.sent_at',
      'e.to_enc',
      'e.subject_enc',
      'e.text_enc',
      'p.slug as partner_slug',
    ]);
  if (o.kind !== undefined) query = query.where('e.kind', '=', o.kind);
  return query.orderBy('e.created_at', 'desc').orderBy('e.id').offset(o.offset).limit(o.limit).execute();
}
