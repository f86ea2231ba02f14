import { decrypt, type Keyring } from '../platform/crypto.ts';
import type { QuietHours } from '../platform/config.ts';
import type { Db, Executor } from '../platform/db.ts';
import { findMessageToHold, holdQueuedMessage } from './link-messages-repo.ts';
import { messageKind } from './sms/claim-messages.ts';
import { airportTimeZones, QUIET_HOURS_KINDS, quietHoursHold } from './sms/quiet-hours.ts';

/**
 * The send jobs' quiet-hours hold, one for both channels (the SMS job and the email job): a queued
 * production claim message of a kind quiet hours hold (`QUIET_HOURS_KINDS`: the reminder, the expiry
 * notice — never the claim's first message, a rejected payment's, a resend, the receipt), about to be
 * sent at night where its customer lives — an outage kept it queued (the job's retries, a Retry-After,
 * the requeue sweep) past the hour it was written at — is held until the morning (`locked_until`:
 * neither a job nor the sweep takes it meanwhile; no attempt used, no error written), and its send job
 * queued then (`queueSend`, in the transaction of the hold). The customer's zone is their phone's, on
 * both channels: the SMS's recipient, the email's claim's contract's phone (`quietHoursHold`, as the
 * claim job decides when it writes the message). `held`; `skipped` when another job holds its lease
 * (that job sends it or gives it back); undefined to send it now — another kind (read before anything
 * is decrypted), daytime there, a reminder whose morning comes within an hour of its due date, or a
 * morning that would come within an hour of its give-up (`giveUpHours` after it was written: the
 * sweep counts the hold as queued time; the message goes at night rather than be given up).
 */
export async function holdForQuietHours(
  deps: { db: Db; keys: Pick<Keyring, 'encryption'> },
  channel: 'sms' | 'email',
  messageId: string,
  o: {
    now: Date;
    quiet: QuietHours;
    giveUpHours: number;
    queueSend: (trx: Executor, startAfter: Date) => Promise<void>;
  },
): Promise<'held' | 'skipped' | undefined> {
  const row = await findMessageToHold(deps.db, channel, messageId, QUIET_HOURS_KINDS);
  if (!row) return undefined; // not queued, or sent at any hour: the lease says what becomes of it
  if (row.leased) return 'skipped'; // being sent by another job
  if (row.phone_enc === null) return undefined; // an email of no claim we know: no zone, any hour
  const until = quietHoursHold({
    kind: messageKind(row.key),
    phone: decrypt(deps.keys.encryption, row.phone_enc),
    now: o.now,
    quiet: o.quiet,
    fallbackZones: airportTimeZones(row.trip_departure_airport, row.trip_arrival_airport),
    dueAt: row.bank_details_due_at,
    giveUpAt: new Date(row.created_at.getTime() + o.giveUpHours * 3_600_000),
  });
  if (!until) return undefined;
  // pg-boss and the lease read the real clock: the same wait from it
  const startAfter = new Date(Date.now() + (until.getTime() - o.now.getTime()));
  return deps.db.transaction().execute(async (trx) => {
    if (!(await holdQueuedMessage(trx, channel, messageId, startAfter))) return 'skipped';
    await o.queueSend(trx, startAfter);
    return 'held';
  });
}
