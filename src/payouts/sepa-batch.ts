import crypto from 'node:crypto';
import { DateTime } from 'luxon';
import { audit } from '../platform/audit.ts';
import { decrypt, encrypt, openField, type Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import {
  findSepaBatch,
  insertSepaBatch,
  lockPendingSepaPayouts,
  markPayoutsInstructed,
  setSepaBatchFilePath,
} from './payouts-repo.ts';
import { buildSepaCreditTransferFile, writeSepaFile, type SepaDebtor } from './sepa-file.ts';
import { sepaExecutionDate, type CutOff } from './target-calendar.ts';

/**
 * Production payouts by SEPA credit transfer: `createSepaBatch` gathers the pending payouts into
 * one pain.001.001.09 file and marks them `instructed` in the same transaction that stores the
 * file's XML; only after commit is the file written to the payouts directory (and it can be written
 * again from the database: `exportSepaBatch`). A crash therefore never leaves a file whose payouts
 * the database still thinks pending — the one way a transfer could be paid twice.
 */

export interface BatchDeps {
  db: Db;
  keys: Keyring;
  now: () => Date;
  debtor: SepaDebtor | undefined;
  directory: string;
  /** The bank's cut-off for same-day execution (PARASOL_SEPA_CUTOFF); default 14:00 CET. */
  cutOff?: CutOff | undefined;
}

export interface BatchResult {
  batchId: string;
  messageId: string;
  payouts: number;
  controlSum: string;
  currency: 'EUR';
  executionDate: string;
  path: string;
}

/** At most this many transfers per file (banks take far more; a file stays readable). */
export const MAX_BATCH = 5_000;

export async function createSepaBatch(
  deps: BatchDeps,
  options: { actor: string; executionDate?: string | undefined; limit?: number | undefined },
): Promise<BatchResult | undefined> {
  const debtor = deps.debtor;
  if (!debtor)
    throw new DomainError(
      'conflict',
      'The insurer account is not configured: set PARASOL_SEPA_DEBTOR_NAME, PARASOL_SEPA_DEBTOR_IBAN and PARASOL_SEPA_DEBTOR_BIC.',
    );
  const now = deps.now();
  const executionDate = options.executionDate ?? sepaExecutionDate(now, deps.cutOff);
  const limit = Math.min(options.limit ?? MAX_BATCH, MAX_BATCH);

  const built = await deps.db.transaction().execute(async (trx) => {
    const payouts = await lockPendingSepaPayouts(trx, limit);
    if (payouts.length === 0) return undefined;
    const messageId = `PSL-${DateTime.fromJSDate(now, { zone: 'utc' }).toFormat('yyyyLLdd')}-${crypto.randomBytes(8).toString('hex').toUpperCase()}`;
    const file = buildSepaCreditTransferFile({
      messageId,
      paymentInfoId: `${messageId}-1`,
      createdAt: now,
      requestedExecutionDate: executionDate,
      debtor,
      payouts: payouts.map((p) => ({
        endToEndId: p.end_to_end_id,
        amount: Number(p.amount),
        currency: 'EUR' as const,
        creditorName: openField(deps.keys.encryption, p.account_holder_enc, p.account_holder),
        creditorIban: decrypt(deps.keys.encryption, p.iban_enc),
        creditorBic: p.bic,
        remittanceInformation: `Parasol ${p.claim_number} flight ${p.flight_number} ${p.departure_date}`,
      })),
    });
    const batch = await insertSepaBatch(trx, {
      message_id: messageId,
      created_by: options.actor,
      execution_date: executionDate,
      payouts_count: payouts.length,
      control_sum: Number(file.controlSumMinor),
      xml_enc: encrypt(deps.keys.encryption, file.xml),
    });
    await markPayoutsInstructed(
      trx,
      payouts.map((p) => p.id),
      batch.id,
      now,
    );
    await audit(trx, {
      actor: options.actor,
      entity: 'sepa_batch',
      entityId: messageId,
      action: 'created',
      data: { payouts: payouts.length, controlSum: file.controlSum, executionDate },
    });
    return { batchId: batch.id, file };
  });
  if (!built) return undefined;
  const path = await exportSepaBatch(deps, built.batchId);
  return {
    batchId: built.batchId,
    messageId: built.file.messageId,
    payouts: built.file.numberOfTransactions,
    controlSum: built.file.controlSum,
    currency: 'EUR',
    executionDate,
    path,
  };
}

/** Writes a batch's file from the database (again, e.g. after a crash or onto a new machine). */
export async function exportSepaBatch(
  deps: Pick<BatchDeps, 'db' | 'keys' | 'directory'>,
  batchIdOrMessageId: string,
  /** An operator writing the file again (it holds the customers' IBANs in clear): audited. */
  actor?: string,
): Promise<string> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(batchIdOrMessageId);
  const batch = await findSepaBatch(deps.db, isUuid ? { id: batchIdOrMessageId } : { messageId: batchIdOrMessageId });
  if (!batch) throw new DomainError('not_found', `No SEPA batch ${batchIdOrMessageId}.`);
  let written: string;
  try {
    written = await writeSepaFile(deps.directory, {
      xml: openField(deps.keys.encryption, batch.xml_enc, batch.xml),
      fileName: `${batch.message_id}.xml`,
    });
  } catch (error) {
    // already there from an earlier export: the same bytes, since they come from the database
    if (error instanceof DomainError && error.code === 'conflict' && batch.file_path) return batch.file_path;
    throw error;
  }
  await deps.db.transaction().execute(async (trx) => {
    await setSepaBatchFilePath(trx, batch.id, written);
    if (actor)
      await audit(trx, {
        actor,
        entity: 'sepa_batch',
        entityId: batch.message_id,
        action: 'exported',
        data: { path: written },
      });
  });
  return written;
}
