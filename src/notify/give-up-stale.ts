import type { Db, Executor } from '../platform/db.ts';
import {
  findExpiredQueuedMessages,
  giveUpQueuedMessage,
  type GivenUpRows,
  type QUEUES,
} from './queued-messages-repo.ts';

/**
 * The give-up sweep both channels run (`giveUpStaleSms`, `giveUpStaleEmails`): the channel's
 * messages still queued `olderThanHours` after they were written and not being sent (which ones:
 * `QUEUES`, queued-messages-repo.ts) are marked `rejected`, `error` their `last_error`, each in its
 * own transaction with what the channel does then (`onGivenUp`: its audit row, and for SMS the
 * partner told). A message sent or leased meanwhile is left alone. Answers how many were given up.
 */
export async function giveUpStaleMessages<C extends keyof typeof QUEUES>(
  deps: { db: Db; now?: () => Date },
  channel: C,
  o: {
    olderThanHours: number;
    limit: number;
    error: string;
    onGivenUp: (trx: Executor, row: GivenUpRows[C], now: Date) => Promise<void>;
  },
): Promise<number> {
  const now = (deps.now ?? (() => new Date()))();
  const ids = await findExpiredQueuedMessages(deps.db, channel, {
    olderThanHours: o.olderThanHours,
    now,
    limit: o.limit,
  });
  let given = 0;
  for (const id of ids) {
    const done = await deps.db.transaction().execute(async (trx) => {
      const row = await giveUpQueuedMessage(trx, channel, id, o.error);
      if (!row) return false; // sent or being sent meanwhile
      await o.onGivenUp(trx, row, now);
      return true;
    });
    if (done) given++;
  }
  return given;
}
