import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { audit } from '../platform/audit.ts';
import { decrypt, encrypt, openField, type Keyring } from '../platform/crypto.ts';
import { isUniqueViolation, type Db, type Executor } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { untransferableCurrency } from '../platform/money.ts';
import type { LeftOutCode, SepaBatchesTable } from '../platform/db-schema.ts';
import type { Insertable } from 'kysely';
import { buildNachaFile, FILE_ID_MODIFIERS, fitNachaFile, type AchOriginator, type NachaFile } from './nacha-file.ts';
import { achEffectiveEntryDate } from './fed-calendar.ts';
import {
  countPendingAchPayouts,
  findSepaBatch,
  insertSepaBatch,
  listNachaFileIdModifiers,
  lockNachaFileDay,
  lockPendingAchPayouts,
  markPayoutsLeftOut,
  listPendingSepaCurrencies,
  lockPendingSepaPayouts,
  markPayoutsInstructed,
  setSepaBatchFilePath,
  setSepaBatchFilePathIfNone,
} from './payouts-repo.ts';
import { buildSepaCreditTransferFile, DEBTOR_ADDRESS_FIELD, writeSepaFile, type SepaDebtor } from './sepa-file.ts';
import { executionDateProblem, sepaExecutionDate, type CutOff } from './target-calendar.ts';

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
  /** The insurer as an ACH originator (PARASOL_ACH_*): US accounts' payouts; undefined: they wait, reported. */
  ach?: AchOriginator | undefined;
}

export interface BatchResult {
  batchId: string;
  messageId: string;
  payouts: number;
  controlSum: string;
  currency: string;
  /** `sepa` (EUR), `cross_border` (any other currency), or `ach` (USD to US accounts: a NACHA file). */
  scheme: 'sepa' | 'cross_border' | 'ach';
  executionDate: string;
  path: string;
  /** Payouts of the currency the file cannot hold (an invalid BIC…): left out of it, still pending. */
  skipped: SkippedPayout[];
}

/**
 * A pending payout left out of its currency's file, by end-to-end id, with why (the builder's
 * problems): `no_bic` when only the creditor's BIC is missing (a cross-border transfer; an operator
 * sets it with `parasol payouts set-bic`), `no_debtor_address` when only the insurer's address is (a
 * bank outside the EEA: PARASOL_SEPA_DEBTOR_ADDRESS, then a restart), else `invalid`; since when (the first run that left it out,
 * kept on the payout: migration 0058), and whether this run is that first one.
 */
export interface SkippedPayout {
  endToEndId: string;
  claimNumber: string;
  currency: string;
  code: LeftOutCode;
  reason: string;
  leftOutSince: Date;
  /** Left out for the first time by this run (the worker logs it at `error` then, not every run). */
  first: boolean;
}

/** `/payouts/17/creditorBic` → 17: a problem of one payout of the file, not of the file. */
const PAYOUT_FIELD = /^\/payouts\/(\d+)\/(.+)$/;

/** The file's field of the creditor's BIC: a left-out reason's part about the BIC starts with it. */
const BIC_FIELD = 'creditorBic';

/**
 * How much of a left-out payout's fault is its BIC, read from its mark as `buildLeavingOut` writes it
 * (the reason: the builder's problems, each `<field> <message>`, joined by `; `): `all` — `no_bic`, or
 * an `invalid` reason every part of which is the BIC's (setting the BIC fixes it: the mark is cleared);
 * `some` — the BIC and something else (a name the file refuses…): setting the BIC is worth it, but the
 * payout stays left out, its mark kept; `none` — the BIC is not at fault (the console offers no form).
 */
export function leftOutBicFault(code: LeftOutCode, reason: string | null): 'all' | 'some' | 'none' {
  if (code === 'no_bic') return 'all';
  if (code === 'no_debtor_address') return 'none';
  const parts = (reason ?? '').split('; ');
  const bic = parts.filter((part) => part.startsWith(`${BIC_FIELD} `)).length;
  return bic === 0 ? 'none' : bic === parts.length ? 'all' : 'some';
}

/** At most this many transfers per file (banks take far more; a file stays readable). */
export const MAX_BATCH = 5_000;

/** The payouts a file left out, as a run reports them (`first`: never left out before). */
function skippedOf(
  left: {
    payout: { end_to_end_id: string; claim_number: string; currency: string; left_out_at: Date | null };
    code: LeftOutCode;
    reason: string;
  }[],
  now: Date,
): SkippedPayout[] {
  return left.map(({ payout, code, reason }) => ({
    endToEndId: payout.end_to_end_id,
    claimNumber: payout.claim_number,
    currency: payout.currency,
    code,
    reason,
    leftOutSince: payout.left_out_at ?? now,
    first: payout.left_out_at === null,
  }));
}

/**
 * In a file's transaction, what a pain.001 and a NACHA file record alike: the payouts the file left out
 * marked (still pending: since when — the first run that left it out — and why), then, when there is a
 * file, its batch stored sealed, its payouts `instructed` and the batch audited as created.
 */
async function recordBatch(
  trx: Executor,
  args: {
    now: Date;
    actor: string;
    included: { id: string }[];
    left: (Parameters<typeof skippedOf>[0][number] & { payout: { id: string } })[];
    file:
      | {
          row: Omit<Insertable<SepaBatchesTable>, 'created_at' | 'created_by' | 'payouts_count'>;
          audit: { controlSum: string; currency: string; scheme: string; executionDate: string };
        }
      | undefined;
  },
): Promise<{ batchId?: string; skipped: SkippedPayout[] }> {
  const { now, actor, included, left, file } = args;
  await markPayoutsLeftOut(
    trx,
    left.map(({ payout, code, reason }) => ({ id: payout.id, code, reason })),
    now,
  );
  const skipped = skippedOf(left, now);
  if (!file) return { skipped };
  const batch = await insertSepaBatch(trx, {
    ...file.row,
    created_at: now,
    created_by: actor,
    payouts_count: included.length,
  });
  await markPayoutsInstructed(
    trx,
    included.map((p) => p.id),
    batch.id,
    now,
  );
  await audit(trx, {
    actor,
    entity: 'sepa_batch',
    entityId: file.row.message_id,
    action: 'created',
    at: now,
    data: {
      payouts: included.length,
      ...file.audit,
      ...(skipped.length ? { skipped: skipped.map((s) => s.endToEndId) } : {}),
    },
  });
  return { batchId: batch.id, skipped };
}

/** The account paying a currency's transfers: the one configured for it, else the EUR account (the bank converts). */
export function debtorFor(debtor: PayoutDebtor, currency: string): SepaDebtor {
  const account = currency === 'EUR' ? undefined : debtor.accounts?.[currency];
  return {
    name: debtor.name,
    iban: account?.iban ?? debtor.iban,
    bic: account?.bic ?? debtor.bic,
    address: debtor.address,
  };
}

/**
 * What a worker says at start of an insurer account configured without its postal address: payouts to
 * a bank outside the EEA will be left out (`no_debtor_address`) until PARASOL_SEPA_DEBTOR_ADDRESS is
 * set — said once, before a customer's Swiss or British bank waits for it. Undefined when nothing to say.
 */
export function debtorAddressWarning(debtor: PayoutDebtor | undefined): string | undefined {
  if (!debtor || debtor.address) return undefined;
  return (
    'PARASOL_SEPA_DEBTOR_ADDRESS is not set: the insurer account (PARASOL_SEPA_DEBTOR_*) has no postal address, ' +
    'so payouts to a bank outside the EEA (IBANs of AD, CH, GB, GI, MC, SM, VA) are left out of their pain.001 files ' +
    '(no_debtor_address) until it is set and the workers restarted; payouts within the EEA are not affected'
  );
}

function requireDebtor(deps: Pick<BatchDeps, 'debtor'>): PayoutDebtor {
  if (!deps.debtor)
    throw new DomainError(
      'conflict',
      'The insurer account is not configured: set PARASOL_SEPA_DEBTOR_NAME, PARASOL_SEPA_DEBTOR_IBAN and PARASOL_SEPA_DEBTOR_BIC.',
    );
  return deps.debtor;
}

/**
 * An operator's requested execution date (`--execution-date`), refused when no bank executes it
 * (`executionDateProblem`: not a date, a past date or today after the cut-off, more than 30 TARGET
 * business days ahead, a weekend, a TARGET holiday): the file would be rejected while its payouts
 * stay `instructed`. The default date (`sepaExecutionDate`) is always one. `formatOnly`: refuse only
 * what is not a date at all (`createPayoutBatches`, which reports the others per pain.001 currency).
 */
function checkExecutionDate(
  executionDate: string | undefined,
  now: Date,
  cutOff: CutOff | undefined,
  formatOnly = false,
): void {
  if (executionDate === undefined) return;
  const problem = executionDateProblem(executionDate, now, cutOff);
  if (problem && (!formatOnly || problem.code === 'invalid_format'))
    throw new DomainError(
      'validation_failed',
      `The execution date ${executionDate} is refused; no ${formatOnly ? '' : 'pain.001 '}file was made.`,
      { errors: [{ field: '/executionDate', ...problem }] },
    );
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
): Promise<BatchResult | { skipped: SkippedPayout[] } | undefined> {
  const debtor = requireDebtor(deps);
  const currency = options.currency ?? 'EUR';
  const scheme = currency === 'EUR' ? 'sepa' : 'cross_border';
  const now = deps.now();
  checkExecutionDate(options.executionDate, now, deps.cutOff);
  // the TARGET calendar for every currency: the insurer's bank is in the euro area and executes there
  const executionDate = options.executionDate ?? sepaExecutionDate(now, deps.cutOff);
  const limit = Math.min(options.limit ?? MAX_BATCH, MAX_BATCH);

  const built = await deps.db.transaction().execute(async (trx) => {
    const payouts = await lockPendingSepaPayouts(trx, currency, limit);
    if (payouts.length === 0) return undefined;
    const messageId = `PSL-${DateTime.fromJSDate(now, { zone: 'utc' }).toFormat('yyyyLLdd')}-${crypto.randomBytes(8).toString('hex').toUpperCase()}`;
    const build = (items: typeof payouts) =>
      buildSepaCreditTransferFile({
        messageId,
        paymentInfoId: `${messageId}-1`,
        createdAt: now,
        requestedExecutionDate: executionDate,
        debtor: debtorFor(debtor, currency),
        currency,
        payouts: items.map((p) => ({
          endToEndId: p.end_to_end_id,
          amount: Number(p.amount),
          currency: p.currency,
          creditorName: openField(deps.keys.encryption, p.account_holder_enc, p.account_holder),
          creditorIban: decrypt(deps.keys.encryption, p.iban_enc),
          creditorBic: p.bic,
          remittanceInformation: `Parasol ${p.claim_number} flight ${p.flight_number} ${p.departure_date}`,
        })),
      });
    const { file, included, left } = buildLeavingOut(payouts, build);
    const recorded = await recordBatch(trx, {
      now,
      actor: options.actor,
      included,
      left,
      file: file && {
        row: {
          message_id: messageId,
          execution_date: executionDate,
          control_sum: Number(file.controlSumMinor),
          currency,
          xml_enc: encrypt(deps.keys.encryption, file.xml),
        },
        audit: { controlSum: file.controlSum, currency, scheme, executionDate },
      },
    });
    return { ...recorded, file };
  });
  if (!built) return undefined;
  if (!built.batchId || !built.file) return { skipped: built.skipped }; // every payout taken was left out
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
    skipped: built.skipped,
  };
}

/**
 * The file of `payouts`, leaving out those it cannot hold: a problem of one payout (`/payouts/<i>/…`:
 * an invalid BIC, a name with no Latin character…) leaves that payout out — reported by end-to-end id,
 * still pending — and the file is built of the others; a problem of the file itself (its currency,
 * the debtor account) refuses it whole (validation_failed, thrown). No file when every payout is left out.
 */
function buildLeavingOut<P, F>(
  payouts: P[],
  build: (items: P[]) => F,
): {
  file: F | undefined;
  included: P[];
  left: { payout: P; code: LeftOutCode; reason: string }[];
} {
  try {
    return { file: build(payouts), included: payouts, left: [] };
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'validation_failed') throw error;
    const problems = error.extra.errors ?? [];
    const byPayout = new Map<number, { field: string; code: string; text: string }[]>();
    for (const problem of problems) {
      const match = PAYOUT_FIELD.exec(problem.field);
      if (!match) throw error; // the file's own problem: no file of this currency can be made
      const index = Number(match[1]);
      const found = { field: match[2]!, code: problem.code, text: `${match[2]} ${problem.message}` };
      byPayout.set(index, [...(byPayout.get(index) ?? []), found]);
    }
    const included = payouts.filter((_, i) => !byPayout.has(i));
    const left = [...byPayout].map(([i, found]) => ({
      payout: payouts[i]!,
      // only the creditor's BIC missing: an operator can give it (parasol payouts set-bic); only the
      // insurer's address missing (a bank outside the EEA): PARASOL_SEPA_DEBTOR_ADDRESS, then a restart
      code: leftOutCodeOf(found),
      // read back by leftOutBicFault: keep the two in step
      reason: found.map((f) => f.text).join('; '),
    }));
    // what is left holds no payout the builder refused: a second refusal is the file's, thrown
    return { file: included.length ? build(included) : undefined, included, left };
  }
}

function leftOutCodeOf(found: { field: string; code: string }[]): LeftOutCode {
  if (found.every((f) => f.field === BIC_FIELD && f.code === 'required')) return 'no_bic';
  if (found.every((f) => f.field === DEBTOR_ADDRESS_FIELD)) return 'no_debtor_address';
  return 'invalid';
}

/** Pending payouts of a currency no file was made for this time, and why: for the operator, never silent. */
export interface RefusedCurrency {
  currency: string;
  /** How many pending payouts wait in it. */
  payouts: number;
  /**
   * `untransferable`: no bank transfer carries the currency; `invalid`: its file was refused (the
   * details say why; the operator's `executionDate` refused by the TARGET calendar refuses every
   * pain.001 currency, never the NACHA file); `no_debtor`: no insurer account for its pain.001 (an ACH file was made without one);
   * `ach_day_full`: the day's 36 NACHA files (File ID Modifiers A-Z 0-9) are made — the payouts wait,
   * pending, for the next day's first file, with nothing for an operator to do.
   */
  reason: 'untransferable' | 'invalid' | 'no_debtor' | 'ach_day_full';
  message: string;
}

export interface PayoutBatches {
  batches: BatchResult[];
  refused: RefusedCurrency[];
  /** Payouts left out of their currency's file, still pending (the other payouts of the currency were filed). */
  skipped: SkippedPayout[];
  /**
   * How many pending payouts (counted when the run began, claims under review aside) wait in the
   * currencies no file was written for: those left out, refused, and those a `limit` did not reach.
   */
  unfiled: number;
  /**
   * When the run made a NACHA file: the ACH payouts still pending after it (claims under review and
   * payouts left out of their file aside, those said in `skipped`) — held back by the run's file count
   * or by the last file's 12-digit total, or refused a later file (`refused`, e.g. `ach_day_full`).
   * 0 when the run made no NACHA file (then `refused` or `unfiled` says why they wait).
   */
  achWaiting: number;
}

/**
 * The pending production payouts of every currency into files, EUR first: up to `filesPerCurrency`
 * files per currency, `maxFiles` in all. A currency that cannot be paid (no bank transfer carries it,
 * or its file is refused: the debtor account, the currency's code) is skipped and reported in
 * `refused` — it never stops the other currencies' transfers, and never goes unsaid. A payout its
 * file cannot hold (an invalid BIC…) is left out of the file and reported in `skipped` by end-to-end
 * id, still pending: the other payouts of its currency are filed.
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
  // what is not a date at all refuses the run, before any file; a date TARGET refuses (a past day, a
  // holiday…) refuses each pain.001 currency (createSepaBatch, reported in `refused`): the NACHA file,
  // dated by the Fed calendar and never by `executionDate`, is made all the same
  checkExecutionDate(options.executionDate, deps.now(), deps.cutOff, true);
  const dateProblem =
    options.executionDate === undefined
      ? undefined
      : executionDateProblem(options.executionDate, deps.now(), deps.cutOff);
  const batches: BatchResult[] = [];
  const refused: RefusedCurrency[] = [];
  const skipped = new Map<string, SkippedPayout>();
  const maxFiles = options.maxFiles ?? Number.POSITIVE_INFINITY;
  const pendingAch = await countPendingAchPayouts(deps.db);
  // the ACH payouts a refused NACHA file leaves waiting (kept here: `refused` may hold a USD pain.001 refusal too)
  let achUnfiled = 0;
  // the insurer's account pays the pain.001 files only: ACH files are made without it
  if (pendingAch === 0) requireDebtor(deps);
  if (pendingAch > 0 && !deps.ach) {
    achUnfiled = pendingAch;
    refused.push({
      currency: 'USD',
      payouts: pendingAch,
      reason: 'invalid',
      message:
        'USD payouts to US accounts wait for an ACH file: the insurer is not configured as an ACH originator (set the PARASOL_ACH_* variables)',
    });
  }
  const pending = await listPendingSepaCurrencies(deps.db);
  for (const { currency, payouts } of pending) {
    if (!deps.debtor) {
      refused.push({
        currency,
        payouts,
        reason: 'no_debtor',
        message: `${currency} payouts wait for the insurer account: set PARASOL_SEPA_DEBTOR_NAME, PARASOL_SEPA_DEBTOR_IBAN and PARASOL_SEPA_DEBTOR_BIC`,
      });
      continue;
    }
    const why = untransferableCurrency(currency);
    if (why) {
      refused.push({ currency, payouts, reason: 'untransferable', message: `${currency} cannot be paid: ${why}` });
      continue;
    }
    if (dateProblem) {
      refused.push({
        currency,
        payouts,
        reason: 'invalid',
        message: `no pain.001 file was made: the execution date ${options.executionDate} ${dateProblem.message} (--execution-date dates the pain.001 files only)`,
      });
      continue;
    }
    for (let files = 0; files < (options.filesPerCurrency ?? 1) && batches.length < maxFiles; files++) {
      let batch: Awaited<ReturnType<typeof createSepaBatch>>;
      try {
        batch = await createSepaBatch(deps, { ...options, currency });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'validation_failed') throw error;
        const problems = (error.extra.errors ?? []).map((e) => `${e.field} ${e.message}`).join('; ');
        refused.push({ currency, payouts, reason: 'invalid', message: `${error.detail}: ${problems}` });
        break;
      }
      if (!batch) break;
      // the first file of the run that left a payout out says whether it was the first time
      for (const s of batch.skipped) if (!skipped.has(s.endToEndId)) skipped.set(s.endToEndId, s);
      // every payout taken was left out: the others (a limit held back) are taken first by the next run
      if (!('batchId' in batch)) break;
      batches.push(batch);
      // left out, still pending (marked): the next file of the currency takes the others first
      if (batch.payouts + batch.skipped.length < Math.min(options.limit ?? MAX_BATCH, MAX_BATCH)) break;
    }
  }
  // after the pain.001 files (EUR first): a backlog of NACHA files never takes their slots
  if (pendingAch > 0 && deps.ach)
    // several files when one cannot hold them all (5,000 entries, or $9,999,999,999.99: the controls' 12 digits)
    for (let files = 0; files < (options.filesPerCurrency ?? 1) && batches.length < maxFiles; files++) {
      let batch: Awaited<ReturnType<typeof createAchBatch>>;
      try {
        batch = await createAchBatch(deps, options);
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'validation_failed') throw error;
        const problems = (error.extra.errors ?? []).map((e) => `${e.field} ${e.message}`).join('; ');
        // those still waiting: an earlier file of this run may have taken some
        achUnfiled = files === 0 ? pendingAch : await countPendingAchPayouts(deps.db);
        refused.push({
          currency: 'USD',
          payouts: achUnfiled,
          reason: isAchDayFull(error) ? 'ach_day_full' : 'invalid',
          message: `${error.detail}: ${problems}`,
        });
        break;
      }
      if (!batch) break;
      for (const s of batch.skipped) if (!skipped.has(s.endToEndId)) skipped.set(s.endToEndId, s);
      if (!('batchId' in batch)) break;
      const { heldBack, ...filed } = batch;
      batches.push(filed);
      // more than one file holds: the next takes the others (left-out payouts come last)
      if (heldBack === 0 && batch.payouts + batch.skipped.length < Math.min(options.limit ?? MAX_BATCH, MAX_BATCH))
        break;
    }
  const achFiled = batches.some((b) => b.scheme === 'ach');
  // the pending payouts of every file not written: a pain.001 currency without its file, and the
  // ACH payouts (USD to US accounts) when no NACHA file was made, or those a refused one would have held
  const unfiled =
    pending
      .filter((c) => !batches.some((b) => b.scheme !== 'ach' && b.currency === c.currency))
      .reduce((n, c) => n + c.payouts, 0) + (achFiled ? achUnfiled : pendingAch);
  const achWaiting = achFiled ? await countPendingAchPayouts(deps.db, { leftOut: false }) : 0;
  return { batches, refused, skipped: [...skipped.values()], unfiled, achWaiting };
}

const FILE_ID_MODIFIER_FIELD = '/fileIdModifier';
/** Tries of a NACHA file whose File ID Modifier a file made at the same time took first. */
const FILE_ID_ATTEMPTS = 3;

/** The refusal of a NACHA file because the day's File ID Modifiers are all taken (`createAchBatch`). */
export function isAchDayFull(error: DomainError): boolean {
  return (
    error.code === 'validation_failed' && (error.extra.errors ?? []).some((e) => e.field === FILE_ID_MODIFIER_FIELD)
  );
}

/**
 * What is at `filePath`, a batch's name in the payouts directory, against `text` (its stored file):
 * `same` (the batch's own, byte for byte), `other_bytes` (something else: an operator looks at it) or
 * `missing` (nothing there, or gone between the look and the read). The one test of a file found
 * under a batch's name and never recorded, for `exportSepaBatch` and the schedule's check alike
 * (sepa-schedule.ts `checkUnrecordedSepaFiles`).
 */
export async function isBatchFile(text: string, filePath: string): Promise<'same' | 'other_bytes' | 'missing'> {
  try {
    if (!(await fs.stat(filePath)).isFile()) return 'other_bytes';
    return (await fs.readFile(filePath)).equals(Buffer.from(text, 'utf8')) ? 'same' : 'other_bytes';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
}

/** A batch by its id or its message id; refused (not_found) when there is none. */
async function batchOrRefuse(db: BatchDeps['db'], batchIdOrMessageId: string) {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(batchIdOrMessageId);
  const batch = await findSepaBatch(db, isUuid ? { id: batchIdOrMessageId } : { messageId: batchIdOrMessageId });
  if (!batch)
    throw new DomainError(
      'not_found',
      `No payout file ${batchIdOrMessageId} (neither a pain.001 nor a NACHA file): give a batch id or a message id (parasol payouts list --json shows each payout's).`,
    );
  return batch;
}

/** The name of a batch's file in the payouts directory: `<message id>.xml` (pain.001) or `.ach` (NACHA). */
function batchFileName(batch: { message_id: string; format: string }): string {
  return `${batch.message_id}.${batch.format === 'nacha' ? 'ach' : 'xml'}`;
}

/**
 * Writes a batch's file from the database (again, e.g. after a crash or onto a new machine) and
 * records it (`file_path`, and `file_written_at` unless recorded before: `now`). A file already in the
 * directory under the batch's name but never recorded (written, then the process stopped before
 * recording it) is recorded as it is when its bytes are the stored text's; one with other bytes is
 * refused (conflict), neither recorded nor overwritten: an operator looks at it.
 */
export async function exportSepaBatch(
  deps: Pick<BatchDeps, 'db' | 'keys' | 'directory' | 'now'>,
  batchIdOrMessageId: string,
  /** An operator writing the file again (it holds the customers' IBANs in clear): audited. */
  actor?: string,
): Promise<string> {
  const batch = await batchOrRefuse(deps.db, batchIdOrMessageId);
  const text = openField(deps.keys.encryption, batch.xml_enc, batch.xml);
  const fileName = batchFileName(batch);
  let written: string;
  let found = false;
  try {
    written = await writeSepaFile(deps.directory, { xml: text, fileName });
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'conflict') throw error;
    // already there from an earlier export: the same bytes, since they come from the database
    if (batch.file_path) return batch.file_path;
    // there, never recorded: recorded when it is this batch's file byte for byte, never overwritten
    written = join(deps.directory, fileName);
    const state = await isBatchFile(text, written);
    if (state === 'missing')
      throw new DomainError(
        'conflict',
        `${fileName} was in the payout directory and is gone (moved away meanwhile): nothing was written or recorded; export again.`,
      );
    if (state === 'other_bytes')
      throw new DomainError(
        'conflict',
        `${fileName} is in the payout directory but is not this batch's file (its bytes differ from the stored one): nothing was written or recorded; check it, move it away and export again.`,
      );
    found = true;
  }
  await deps.db.transaction().execute(async (trx) => {
    if (found) {
      // recorded meanwhile (the scheduled job found it): nothing more to record
      if (!(await setSepaBatchFilePathIfNone(trx, batch.id, written, deps.now()))) return;
    } else await setSepaBatchFilePath(trx, batch.id, written, deps.now());
    if (actor || found)
      await audit(trx, {
        actor: actor ?? 'system',
        entity: 'sepa_batch',
        entityId: batch.message_id,
        action: found ? 'file_recorded' : 'exported',
        data: { path: written },
      });
  });
  return written;
}

/**
 * Records that a batch's file reached the bank by a way other than Parasol's (`parasol payouts export
 * <batch> --already-sent`), WITHOUT writing any file: writing it again would let the transfer channel
 * send it a second time, and every transfer in it would be paid twice. Recorded as `exportSepaBatch`
 * records one (`file_path`: the name it bears in the payouts directory, `file_written_at`: `now`), so
 * the bank's report about its payouts applies and the batch-without-file alarm stops. Audited
 * (`sepa_batch` `recorded_sent`, the operator and the path: no personal data). Refused (conflict) when
 * a file is recorded already.
 */
export async function recordSentSepaBatch(
  deps: Pick<BatchDeps, 'db' | 'directory' | 'now'>,
  batchIdOrMessageId: string,
  actor: string,
): Promise<string> {
  const batch = await batchOrRefuse(deps.db, batchIdOrMessageId);
  const refused = () =>
    new DomainError(
      'conflict',
      `Batch ${batch.message_id} has a written file recorded already (${batch.file_path ?? 'recorded meanwhile'}): nothing was recorded.`,
    );
  if (batch.file_path) throw refused();
  const path = join(deps.directory, batchFileName(batch));
  // a file under the batch's name: `export` compares it with the batch's bytes (records it when it is
  // the batch's, refuses it otherwise); recording it here unread would make a foreign file the batch's
  if ((await fs.stat(path).catch(() => undefined)) !== undefined)
    throw new DomainError(
      'conflict',
      `A file is at ${path} already: parasol payouts export ${batch.message_id} records it if it is the batch's, and refuses it otherwise; --already-sent is for a file that is no longer there. Nothing was recorded.`,
    );
  await deps.db.transaction().execute(async (trx) => {
    if (!(await setSepaBatchFilePathIfNone(trx, batch.id, path, deps.now()))) throw refused();
    await audit(trx, {
      actor,
      entity: 'sepa_batch',
      entityId: batch.message_id,
      action: 'recorded_sent',
      data: { path },
    });
  });
  return path;
}

/**
 * The pending production payouts to US accounts (rail `ach`) in one NACHA file of PPD credits
 * (nacha-file.ts), as `createSepaBatch` does for a currency: in one transaction the file's text is
 * stored sealed in `sepa_batches` (format `nacha`, migration 0062) and the payouts marked
 * `instructed`; the file `<id>.ach` is written to the payouts directory after commit. Effective entry
 * date: the next Federal Reserve business day (`achEffectiveEntryDate`) unless given. A payout the
 * file cannot hold is left out, still pending, as in a pain.001. The file takes the oldest payouts whose
 * total fits the controls' 12 digits (`fitNachaFile`): the others wait, pending, for the next file
 * (`heldBack` of them). The 37th file of a day for one origin is refused (`isAchDayFull`): its
 * payouts stay pending, nothing written, for the next day's file.
 */
export async function createAchBatch(
  deps: BatchDeps,
  options: { actor: string; effectiveEntryDate?: string | undefined; limit?: number | undefined },
): Promise<(BatchResult & { heldBack: number }) | { skipped: SkippedPayout[] } | undefined> {
  const originator = deps.ach;
  if (!originator)
    throw new DomainError(
      'conflict',
      'The insurer is not configured as an ACH originator: set the PARASOL_ACH_* variables (docs/OPERATOR.md).',
    );
  const now = deps.now();
  const effectiveEntryDate = options.effectiveEntryDate ?? achEffectiveEntryDate(now);
  const limit = Math.min(options.limit ?? MAX_BATCH, MAX_BATCH);
  const fileOnce = () =>
    deps.db.transaction().execute(async (trx) => {
      const locked = await lockPendingAchPayouts(trx, limit);
      if (locked.length === 0) return undefined;
      // what one file's controls can total; the rest, locked here, are free again at commit
      const { file: payouts, rest } = fitNachaFile(locked);
      const fileId = `PSL-${DateTime.fromJSDate(now, { zone: 'utc' }).toFormat('yyyyLLdd')}-${crypto.randomBytes(8).toString('hex').toUpperCase()}`;
      // the next File ID Modifier of the day (the file header's creation date, UTC) for this origin
      const fileDate = DateTime.fromJSDate(now, { zone: 'utc' }).toISODate()!;
      // one run at a time picks the day's next modifier (the unique index catches any other writer)
      await lockNachaFileDay(trx, originator.immediateOrigin, fileDate);
      const used = await listNachaFileIdModifiers(trx, originator.immediateOrigin, fileDate);
      const last = Math.max(-1, ...used.map((m) => FILE_ID_MODIFIERS.indexOf(m)));
      const fileIdModifier = FILE_ID_MODIFIERS[last + 1];
      if (fileIdModifier === undefined)
        throw new DomainError('validation_failed', 'No NACHA file can be made today', {
          errors: [
            {
              field: FILE_ID_MODIFIER_FIELD,
              code: 'not_allowed',
              message: `${FILE_ID_MODIFIERS.length} NACHA files were already made on ${fileDate} (UTC) for immediate origin ${originator.immediateOrigin}, every File ID Modifier A-Z 0-9 taken: the payouts stay pending for the first file from the first run after midnight UTC (earliest ${DateTime.fromISO(fileDate, { zone: 'utc' }).plus({ days: 1 }).toISODate()}, modifier A; the schedule makes no file on weekends); nothing to do`,
            },
          ],
        });
      const build = (items: typeof payouts): NachaFile =>
        buildNachaFile({
          fileId,
          fileIdModifier,
          createdAt: now,
          effectiveEntryDate,
          originator,
          payouts: items.map((p) => ({
            endToEndId: p.end_to_end_id,
            amount: Number(p.amount),
            currency: p.currency,
            holderName: openField(deps.keys.encryption, p.account_holder_enc, p.account_holder),
            routingNumber: p.routing_number,
            accountNumber: decrypt(deps.keys.encryption, p.us_account_enc),
            accountType: p.us_account_type,
          })),
        });
      const { file, included, left } = buildLeavingOut(payouts, build);
      const recorded = await recordBatch(trx, {
        now,
        actor: options.actor,
        included,
        left,
        file: file && {
          row: {
            message_id: fileId,
            execution_date: effectiveEntryDate,
            control_sum: Number(file.totalCreditMinor),
            currency: 'USD',
            format: 'nacha',
            nacha_origin: originator.immediateOrigin,
            nacha_file_date: fileDate,
            nacha_file_id_modifier: fileIdModifier,
            xml_enc: encrypt(deps.keys.encryption, file.text),
          },
          audit: { controlSum: file.totalCredit, currency: 'USD', scheme: 'ach', executionDate: effectiveEntryDate },
        },
      });
      return { ...recorded, file, heldBack: rest.length };
    });
  // a run at the same time took this modifier first (the unique index of migration 0062): the next one
  let built: Awaited<ReturnType<typeof fileOnce>>;
  for (let attempt = 1; ; attempt++)
    try {
      built = await fileOnce();
      break;
    } catch (error) {
      if (!isUniqueViolation(error, 'sepa_batches_nacha_file_id')) throw error;
      if (attempt >= FILE_ID_ATTEMPTS)
        throw new DomainError(
          'conflict',
          `Another process made NACHA files at the same time ${FILE_ID_ATTEMPTS} times, each taking the File ID Modifier this file chose: nothing was filed, the payouts stay pending; run the batch again.`,
        );
    }
  if (!built) return undefined;
  if (!built.batchId || !built.file) return { skipped: built.skipped };
  const path = await exportSepaBatch(deps, built.batchId);
  return {
    batchId: built.batchId,
    messageId: built.file.fileId,
    payouts: built.file.entryCount,
    controlSum: built.file.totalCredit,
    currency: 'USD',
    scheme: 'ach',
    executionDate: effectiveEntryDate,
    path,
    skipped: built.skipped,
    heldBack: built.heldBack,
  };
}
