import path from 'node:path';
import { audit } from '../platform/audit.ts';
import { openField } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import {
  countPendingAchPayouts,
  findSepaBatch,
  listPendingSepaCurrencies,
  listSepaBatchesWithoutFile,
  setSepaBatchFilePathIfNone,
  type UnreportedDue,
} from './payouts-repo.ts';
import {
  createPayoutBatches,
  isBatchFile,
  type BatchDeps,
  type BatchResult,
  type RefusedCurrency,
  type SkippedPayout,
} from './sepa-batch.ts';
import { achSettlementDue } from './settle-ach.ts';
import { targetBusinessDaysBefore } from './target-calendar.ts';

/**
 * Production payment without anyone filing anything: the worker's `payouts_sepa_batch` job (cron
 * PARASOL_SEPA_BATCH_SCHEDULE) first checks the batches committed without a recorded file, then gathers
 * the pending production payouts into new batches, one file per currency (EUR SEPA, any other
 * cross-border), through `createPayoutBatches` — the code path of `parasol payouts batch`, the same
 * SKIP LOCKED selection (two runs never put one payout in two files), the same files in
 * PARASOL_PAYOUTS_DIR, audited with the schedule as actor.
 */

/** Who the schedule's batches and file writes are audited as. */
export const SCHEDULE_ACTOR = 'schedule:payouts_sepa_batch';

/**
 * A batch younger than this without a file may be a batch whose creator is writing it right now
 * (the write follows its commit by milliseconds): left to that creator.
 */
export const FILE_RECOVERY_GRACE_MS = 5 * 60_000;

/** At most this many files per run, all currencies together (MAX_BATCH transfers each); the rest waits for the next run. */
export const MAX_BATCHES_PER_RUN = 10;

/**
 * TARGET business days a bank has to report a transfer once its file is made (executed the next
 * business day at the latest, reported with the day's statement): a payout still `instructed` after
 * this is unreported (metric parasol_production_payouts_unreported, `parasol payouts list --unreported`).
 */
export const PAYOUT_REPORT_BUSINESS_DAYS = 3;

/**
 * When a payout still instructed is unreported (`parasol payouts list --unreported`, the gauge): a
 * SEPA one instructed before `payoutReportDueBefore`; an ACH one whose return window passed a
 * Federal Reserve business day ago by the settlement's own rule (`achSettlementDue`: counted from its
 * file's effective entry date, or from the file's write when written late; a file never written is
 * not counted) — the hourly settlement job should have settled it paid (settle-ach.ts); never one
 * inside its window.
 */
export function unreportedDue(now: Date, achReturnWindowDays: number): UnreportedDue {
  return {
    instructedBefore: payoutReportDueBefore(now),
    ach: achSettlementDue(now, achReturnWindowDays + 1),
  };
}

/** The instant before which a transfer instructed should have been reported by now. */
export function payoutReportDueBefore(now: Date): Date {
  return targetBusinessDaysBefore(now, PAYOUT_REPORT_BUSINESS_DAYS);
}

/**
 * What a run did: `created` at least one file; `no_debtor` none, the insurer account not configured
 * (its payouts wait, said in the run's `warn`; before any other reason); `refused` none, though payouts
 * wait that no file could take for a fault an operator must fix (a currency refused — untransferable,
 * invalid — or each payout left out of its file: logged at `error`); `waiting` none, the only payouts
 * pending being USD ones the day's NACHA files are full for (`ach_day_full`, logged at `warn`: the next
 * day's first file takes them, nothing to do); `nothing_pending`.
 */
export type ScheduledBatchOutcome = 'created' | 'refused' | 'waiting' | 'nothing_pending' | 'no_debtor';

export interface ScheduledBatchReport {
  outcome: ScheduledBatchOutcome;
  batches: BatchResult[];
  /** Files of earlier batches found in the directory and recorded by this run (written, not recorded). */
  recorded: { messageId: string; path: string }[];
  /**
   * Earlier batches without a file, for an operator (`checkUnrecordedSepaFiles`): never written by the
   * job — nor recorded when a file under the batch's name is not its own (`payouts export` says so).
   */
  unwritten: UnwrittenBatch[];
  /** No debtor: the payouts of pain.001 files (all currencies) that wait for one (logged for the operator); ACH files are made without. */
  waiting: number;
  /** Currencies whose pending payouts no file was made for, and why (logged at `error` for the operator). */
  refused: RefusedCurrency[];
  /** Payouts left out of their currency's file, still pending (logged at `error`, by end-to-end id). */
  skipped: SkippedPayout[];
}

export async function runScheduledSepaBatch(deps: BatchDeps): Promise<ScheduledBatchReport> {
  // Earlier batches first, every run (with or without the insurer's account, ACH payouts pending or
  // not): a file found under its name is recorded, one missing is reported.
  const { recorded, unwritten } = await checkUnrecordedSepaFiles(deps);
  if (!deps.debtor && (await countPendingAchPayouts(deps.db)) === 0) {
    // no pain.001 can be paid without the insurer's account: said in the logs every run, never a
    // failure (a failing job would only be retried into the same answer); ACH files need none
    const waiting = (await listPendingSepaCurrencies(deps.db)).reduce((n, c) => n + c.payouts, 0);
    return { outcome: 'no_debtor', batches: [], recorded, unwritten, waiting, refused: [], skipped: [] };
  }
  const { batches, refused, skipped } = await createPayoutBatches(deps, {
    actor: SCHEDULE_ACTOR,
    filesPerCurrency: MAX_BATCHES_PER_RUN,
    maxFiles: MAX_BATCHES_PER_RUN,
  });
  // without the insurer's account (an ACH file made all the same): its payouts wait, as above
  const waiting = refused.filter((r) => r.reason === 'no_debtor').reduce((n, r) => n + r.payouts, 0);
  const unfiled = refused.filter((r) => r.reason !== 'no_debtor');
  const faults = unfiled.filter((r) => r.reason !== 'ach_day_full');
  const outcome: ScheduledBatchOutcome =
    batches.length > 0
      ? 'created'
      : !deps.debtor
        ? 'no_debtor'
        : faults.length > 0 || skipped.length > 0
          ? 'refused'
          : unfiled.length > 0
            ? 'waiting'
            : 'nothing_pending';
  return { outcome, batches, recorded, unwritten, waiting, refused: unfiled, skipped };
}

/**
 * A batch without a recorded file, and why the file under its name was not recorded: `missing` (no
 * file there) or `other_bytes` (a file whose bytes are not the batch's: look at it).
 */
export interface UnwrittenBatch {
  messageId: string;
  createdAt: Date;
  format: 'pain.001' | 'nacha';
  reason: 'missing' | 'other_bytes';
}

/**
 * The batches created more than FILE_RECOVERY_GRACE_MS before `now` (their `created_at`, the batch's
 * clock, read before its transaction) whose file was never recorded as
 * written. One whose file is in the directory under its name (written, then the process stopped or
 * the database failed before recording it) is recorded as it is, when its bytes are the batch's
 * stored file's (`isBatchFile`, the test `parasol payouts export` applies: a file with other bytes is
 * no proof the batch's went anywhere, and is never recorded as it). The others are **reported, never
 * written here**: whether their file reached the bank cannot be known from here (written, then taken
 * by the transfer channel before the write was recorded, or never written at all), and a file sent
 * twice pays every transfer in it twice — paying late is the lesser harm. The job logs them at
 * `error` every run and metric `parasol_sepa_batches_without_file` counts them, until an operator
 * checks with the bank and writes the file with `parasol payouts export` (which records it), or records
 * the file sent outside Parasol with `parasol payouts export --already-sent` (nothing written).
 */
export async function checkUnrecordedSepaFiles(deps: Pick<BatchDeps, 'db' | 'directory' | 'keys' | 'now'>): Promise<{
  recorded: { messageId: string; path: string }[];
  unwritten: UnwrittenBatch[];
}> {
  const missing = await listSepaBatchesWithoutFile(deps.db, new Date(deps.now().getTime() - FILE_RECOVERY_GRACE_MS));
  const recorded: { messageId: string; path: string }[] = [];
  const unwritten: UnwrittenBatch[] = [];
  for (const { id, created_at: createdAt } of missing) {
    const batch = await findSepaBatch(deps.db, { id });
    if (!batch || batch.file_path) continue;
    const filePath = path.join(deps.directory, `${batch.message_id}.${batch.format === 'nacha' ? 'ach' : 'xml'}`);
    const state = await isBatchFile(openField(deps.keys.encryption, batch.xml_enc, batch.xml), filePath);
    if (state === 'same') {
      if (await recordFile(deps.db, batch.id, batch.message_id, filePath, deps.now()))
        recorded.push({ messageId: batch.message_id, path: filePath });
    } else unwritten.push({ messageId: batch.message_id, createdAt, format: batch.format, reason: state });
  }
  return { recorded, unwritten };
}

/** Records the file found under the batch's name, unless one was recorded meanwhile; audited. */
async function recordFile(db: Db, batchId: string, messageId: string, filePath: string, at: Date): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    // when it was written is unknown: now, the latest it can have been (an ACH return window counts from it)
    if (!(await setSepaBatchFilePathIfNone(trx, batchId, filePath, at))) return false;
    await audit(trx, {
      actor: SCHEDULE_ACTOR,
      entity: 'sepa_batch',
      entityId: messageId,
      action: 'file_recorded',
      data: { path: filePath },
    });
    return true;
  });
}
