import crypto from 'node:crypto';
import { DateTime } from 'luxon';
import { audit } from '../platform/audit.ts';
import { decrypt, encrypt, openField, type Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { untransferableCurrency } from '../platform/money.ts';
import {
  findSepaBatch,
  insertSepaBatch,
  listPendingSepaCurrencies,
  lockPendingSepaPayouts,
  markPayoutsInstructed,
  setSepaBatchFilePath,
} from './payouts-repo.ts';
import { buildSepaCreditTransferFile, writeSepaFile, type SepaDebtor } from './sepa-file.ts';
import { sepaExecutionDate, type CutOff } from './target-calendar.ts';

/**
 * Production payouts by credit transfer: `createSepaBatch` gathers the pending payouts of one
 * currency into one pain.001.001.09 file (EUR: a SEPA credit transfer; any other currency: a
 * cross-border one, sepa-file.ts) and marks them `instructed` in the same transaction that stores
 * the file's XML; only after commit is the file written to the payouts directory (and it can be
 * written again from the database: `exportSepaBatch`). A crash therefore never leaves a file whose
 * payouts the database still thinks pending — the one way a transfer could be paid twice.
 * `createPayoutBatches` does it for every currency with pending payouts: `parasol payouts batch` and
 * the scheduled job call it.
 */

/** The insurer's account in another currency than EUR (PARASOL_SEPA_DEBTOR_ACCOUNTS). */
export interface DebtorAccount {
  readonly iban: string;
  readonly bic: string;
}

/** The insurer: its EUR account, and the accounts an operator configured per other currency (else the EUR one pays). */
export type PayoutDebtor = SepaDebtor & { readonly accounts?: Readonly<Record<string, DebtorAccount>> | undefined };

export interface BatchDeps {
  db: Db;
  keys: Keyring;
  now: () => Date;
  debtor: PayoutDebtor | undefined;
  directory: string;
  /** The bank's cut-off for same-day execution (PARASOL_SEPA_CUTOFF); default 14:00 CET. */
  cutOff?: CutOff | undefined;
}

export interface BatchResult {
  batchId: string;
  messageId: string;
  payouts: number;
  controlSum: string;
  currency: string;
  /** `sepa` (EUR) or `cross_border` (any other currency). */
  scheme: 'sepa' | 'cross_border';
  executionDate: string;
  path: string;
}

/** At most this many transfers per file (banks take far more; a file stays readable). */
export const MAX_BATCH = 5_000;

/** The account paying a currency's transfers: the one configured for it, else the EUR account (the bank converts). */
export function debtorFor(debtor: PayoutDebtor, currency: string): SepaDebtor {
  const account = currency === 'EUR' ? undefined : debtor.accounts?.[currency];
  return { name: debtor.name, iban: account?.iban ?? debtor.iban, bic: account?.bic ?? debtor.bic };
}

function requireDebtor(deps: Pick<BatchDeps, 'debtor'>): PayoutDebtor {
  if (!deps.debtor)
    throw new DomainError(
      'conflict',
      'The insurer account is not configured: set PARASOL_SEPA_DEBTOR_NAME, PARASOL_SEPA_DEBTOR_IBAN and PARASOL_SEPA_DEBTOR_BIC.',
    );
  return deps.debtor;
}

export async function createSepaBatch(
  deps: BatchDeps,
  options: {
    actor: string;
    /** Default EUR. */
    currency?: string | undefined;
    executionDate?: string | undefined;
    limit?: number | undefined;
  },
): Promise<BatchResult | undefined> {
  const debtor = requireDebtor(deps);
  const currency = options.currency ?? 'EUR';
  const scheme = currency === 'EUR' ? 'sepa' : 'cross_border';
  const now = deps.now();
  // the TARGET calendar for every currency: the insurer's bank is in the euro area and executes there
  const executionDate = options.executionDate ?? sepaExecutionDate(now, deps.cutOff);
  const limit = Math.min(options.limit ?? MAX_BATCH, MAX_BATCH);

  const built = await deps.db.transaction().execute(async (trx) => {
    const payouts = await lockPendingSepaPayouts(trx, currency, limit);
    if (payouts.length === 0) return undefined;
    const messageId = `PSL-${DateTime.fromJSDate(now, { zone: 'utc' }).toFormat('yyyyLLdd')}-${crypto.randomBytes(8).toString('hex').toUpperCase()}`;
    const file = buildSepaCreditTransferFile({
      messageId,
      paymentInfoId: `${messageId}-1`,
      createdAt: now,
      requestedExecutionDate: executionDate,
      debtor: debtorFor(debtor, currency),
      currency,
      payouts: payouts.map((p) => ({
        endToEndId: p.end_to_end_id,
        amount: Number(p.amount),
        currency: p.currency,
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
      currency,
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
      data: { payouts: payouts.length, controlSum: file.controlSum, currency, scheme, executionDate },
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
    currency,
    scheme,
    executionDate,
    path,
  };
}

/** Pending payouts of a currency no file was made for this time, and why: for the operator, never silent. */
export interface RefusedCurrency {
  currency: string;
  /** How many pending payouts wait in it. */
  payouts: number;
  /** `untransferable`: no bank transfer carries the currency; `invalid`: its file was refused (the details say why). */
  reason: 'untransferable' | 'invalid';
  message: string;
}

export interface PayoutBatches {
  batches: BatchResult[];
  refused: RefusedCurrency[];
}

/**
 * The pending production payouts of every currency into files, EUR first: up to `filesPerCurrency`
 * files per currency, `maxFiles` in all. A currency that cannot be paid (no bank transfer carries it,
 * or its file is refused: a payout the file cannot hold) is skipped and reported in `refused` — it
 * never stops the other currencies' transfers, and never goes unsaid.
 */
export async function createPayoutBatches(
  deps: BatchDeps,
  options: {
    actor: string;
    executionDate?: string | undefined;
    limit?: number | undefined;
    filesPerCurrency?: number | undefined;
    maxFiles?: number | undefined;
  },
): Promise<PayoutBatches> {
  requireDebtor(deps);
  const batches: BatchResult[] = [];
  const refused: RefusedCurrency[] = [];
  const maxFiles = options.maxFiles ?? Number.POSITIVE_INFINITY;
  for (const { currency, payouts } of await listPendingSepaCurrencies(deps.db)) {
    const why = untransferableCurrency(currency);
    if (why) {
      refused.push({ currency, payouts, reason: 'untransferable', message: `${currency} cannot be paid: ${why}` });
      continue;
    }
    for (let files = 0; files < (options.filesPerCurrency ?? 1) && batches.length < maxFiles; files++) {
      let batch: BatchResult | undefined;
      try {
        batch = await createSepaBatch(deps, { ...options, currency });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'validation_failed') throw error;
        const problems = (error.extra.errors ?? []).map((e) => `${e.field} ${e.message}`).join('; ');
        refused.push({ currency, payouts, reason: 'invalid', message: `${error.detail}: ${problems}` });
        break;
      }
      if (!batch) break;
      batches.push(batch);
      if (batch.payouts < Math.min(options.limit ?? MAX_BATCH, MAX_BATCH)) break;
    }
  }
  return { batches, refused };
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
