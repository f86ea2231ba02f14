import path from 'node:path';
import { audit } from '../platform/audit.ts';
import { openField } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import {
  countPendingSepaEur,
  countPendingSepaNotEur,
  findSepaBatch,
  listSepaBatchesWithoutFile,
  setSepaBatchFilePath,
} from './payouts-repo.ts';
import { createSepaBatch, MAX_BATCH, type BatchDeps, type BatchResult } from './sepa-batch.ts';
import { writeSepaFile } from './sepa-file.ts';
import { targetBusinessDaysBefore } from './target-calendar.ts';

/**
 * Production payment without anyone filing anything: the worker's `payouts_sepa_batch` job (cron
 * PARASOL_SEPA_BATCH_SCHEDULE) first writes the file of any batch committed without one, then gathers
 * the pending EUR `sepa` payouts into new batches through `createSepaBatch` — the code path of
 * `parasol payouts batch`, the same SKIP LOCKED selection (two runs never put one payout in two
 * files), the same file in PARASOL_PAYOUTS_DIR, audited with the schedule as actor.
 */

/** Who the schedule's batches and file writes are audited as. */
export const SCHEDULE_ACTOR = 'schedule:payouts_sepa_batch';

/**
 * A batch younger than this without a file may be a batch whose creator is writing it right now
 * (the write follows its commit by milliseconds): left to that creator.
 */
export const FILE_RECOVERY_GRACE_MS = 5 * 60_000;

/** At most this many files per run (MAX_BATCH transfers each); the rest waits for the next run. */
export const MAX_BATCHES_PER_RUN = 10;

/**
 * TARGET business days a bank has to report a transfer once its file is made (executed the next
 * business day at the latest, reported with the day's statement): a payout still `instructed` after
 * this is unreported (metric parasol_production_payouts_unreported, `parasol payouts list --unreported`).
 */
export const PAYOUT_REPORT_BUSINESS_DAYS = 3;

/** The instant before which a transfer instructed should have been reported by now. */
export function payoutReportDueBefore(now: Date): Date {
  return targetBusinessDaysBefore(now, PAYOUT_REPORT_BUSINESS_DAYS);
}

export type ScheduledBatchOutcome = 'created' | 'nothing_pending' | 'no_debtor';

export interface ScheduledBatchReport {
  outcome: ScheduledBatchOutcome;
  batches: BatchResult[];
  /** Files of earlier batches written by this run (they had none: a crash after their commit). */
  recovered: { messageId: string; path: string }[];
  /** No debtor: the EUR payouts that wait for one (logged for the operator). */
  waiting: number;
  /** Pending production payouts in another currency: no SEPA transfer pays them. */
  notEur: number;
}

export async function runScheduledSepaBatch(deps: BatchDeps): Promise<ScheduledBatchReport> {
  const notEur = await countPendingSepaNotEur(deps.db);
  if (!deps.debtor) {
    // nothing can be paid without the insurer's account: said in the logs every run, never a failure
    // (a failing job would only be retried into the same answer)
    const waiting = await countPendingSepaEur(deps.db);
    return { outcome: 'no_debtor', batches: [], recovered: [], waiting, notEur };
  }
  // Earlier files first: a directory that cannot be written fails the run before any new batch
  // marks more payouts instructed without their file.
  const recovered = await writeMissingSepaFiles(deps);
  const batches: BatchResult[] = [];
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const batch = await createSepaBatch(deps, { actor: SCHEDULE_ACTOR });
    if (!batch) break;
    batches.push(batch);
    if (batch.payouts < MAX_BATCH) break;
  }
  return { outcome: batches.length > 0 ? 'created' : 'nothing_pending', batches, recovered, waiting: 0, notEur };
}

/**
 * Writes the file of every batch committed more than FILE_RECOVERY_GRACE_MS ago whose file was never
 * recorded as written (`file_path` null: the process stopped between the commit and the write, or the
 * directory could not be written then). The file comes from the database, as `parasol payouts
 * export` writes it; one already there under its name (written, then the process stopped before
 * recording it) is recorded as it is. A batch whose file was recorded is never written again here,
 * even if the file has since left the directory (sent to the bank): that is `payouts export`, by hand.
 */
export async function writeMissingSepaFiles(
  deps: Pick<BatchDeps, 'db' | 'keys' | 'directory' | 'now'>,
): Promise<{ messageId: string; path: string }[]> {
  const missing = await listSepaBatchesWithoutFile(deps.db, new Date(deps.now().getTime() - FILE_RECOVERY_GRACE_MS));
  const written: { messageId: string; path: string }[] = [];
  for (const { id } of missing) {
    const batch = await findSepaBatch(deps.db, { id });
    if (!batch || batch.file_path) continue;
    const fileName = `${batch.message_id}.xml`;
    let filePath: string;
    let existing = false;
    try {
      filePath = await writeSepaFile(deps.directory, {
        xml: openField(deps.keys.encryption, batch.xml_enc, batch.xml),
        fileName,
      });
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
      // written before the process stopped, not yet recorded: the same bytes (the name is the batch's message id)
      filePath = path.join(deps.directory, fileName);
      existing = true;
    }
    await recordFile(deps.db, batch.id, batch.message_id, filePath, existing);
    written.push({ messageId: batch.message_id, path: filePath });
  }
  return written;
}

async function recordFile(db: Db, batchId: string, messageId: string, filePath: string, existing: boolean) {
  await db.transaction().execute(async (trx) => {
    await setSepaBatchFilePath(trx, batchId, filePath);
    await audit(trx, {
      actor: SCHEDULE_ACTOR,
      entity: 'sepa_batch',
      entityId: messageId,
      action: 'exported',
      data: { path: filePath, recovered: true, ...(existing ? { alreadyThere: true } : {}) },
    });
  });
}
