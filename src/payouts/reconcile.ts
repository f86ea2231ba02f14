import type { Db } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { looksLikeXml, parseCamt054, type SkippedEntry } from './camt054.ts';
import { toDecimalString } from '../platform/money.ts';
import { findPayoutByEndToEndId } from './payouts-repo.ts';
import { looksLikeNacha, parseNachaReturns } from './nacha-file.ts';
import { settlePayout, type SettleDeps, type SettleOutcome, type SettleWarning } from './payouts.ts';
import { parseReconciliationCsv, type ReconciliationError, type ReconciliationRow } from './reconciliation.ts';

/**
 * The largest bank report read (bytes of the file): about 20,000 camt.054 transactions. The CLI
 * checks the file's size before reading it, and the import the text's before parsing: a larger file
 * is refused (payload_too_large) — ask the bank for reports per day or per batch.
 */
export const MAX_BANK_REPORT_BYTES = 32 * 1024 * 1024;

/**
 * The rails a bank report settles: transfers sent to a bank (pain.001, NACHA). A sandbox or
 * preproduction payout (`simulated_bank`) named in one — an id pasted into a CSV, a test report — is
 * `unknown`: the simulated bank alone settles it, and a report never pays, fails or returns it.
 */
const BANK_RAILS = ['sepa', 'ach'] as const;

/**
 * The bank's report imported (`parasol payouts reconcile <file>`): the CSV of reconciliation.ts, an
 * ISO 20022 camt.054 notification (camt054.ts), or a NACHA return file (nacha-file.ts: ACH entries to
 * US accounts returned), told apart by content (XML starts with `<`, NACHA with its `101` file header).
 */

export interface ReconciliationReport {
  /** `csv`, `nacha` (a return file), or the camt.054 version read (`camt.054.001.08`). */
  format: string;
  /** camt.054: the notification's GrpHdr/MsgId; null for the CSV. */
  messageId: string | null;
  rows: number;
  outcomes: Record<SettleOutcome, number>;
  /**
   * Rows that changed nothing, with why: unknown ids, reports about superseded attempts, conflicts,
   * amounts or currencies not the payout's (`detail` says both), and a camt.054 or NACHA return about
   * a payout never sent in a written file (`not_sent`: still pending, or its batch's file never written).
   */
  issues: { line: number; endToEndId: string; outcome: SettleOutcome; detail?: string }[];
  /** camt.054 entries not applied, with why (not booked, not ours, no end-to-end id); none for the CSV. */
  skipped: SkippedEntry[];
  /**
   * Rows applied with a warning, by line: the bank's reason masked without the account holder's name
   * (`holder_not_opened`: its key is not among those held). The same warnings the worker logs.
   */
  warnings: ({ line: number } & SettleWarning)[];
}

/**
 * Imports the bank's report. A file with any unreadable line (CSV), or that is not well-formed XML
 * or not a camt.054, is refused whole, every problem listed with its line; a readable file is
 * applied in one transaction, each row through `settlePayout` (paid, failed, returned), and
 * importing it again changes nothing (`unchanged`). A camt.054 or NACHA return row about a payout that
 * no written file carried is refused (`not_sent`: a bank cannot report a transfer it was never sent);
 * a CSV row, written by an operator, may record one paid another way.
 */
export async function reconcilePayouts(
  deps: SettleDeps & { db: Db },
  text: string,
  actor: string,
): Promise<ReconciliationReport> {
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_BANK_REPORT_BYTES)
    throw new DomainError(
      'payload_too_large',
      `The bank report is ${size} bytes: at most ${MAX_BANK_REPORT_BYTES} are read; nothing was imported.`,
    );
  let format = 'csv';
  let messageId: string | null = null;
  let rows: ReconciliationRow[];
  let skipped: SkippedEntry[] = [];
  if (looksLikeNacha(text)) {
    // a NACHA return file (ACH entries to US accounts sent back): each return is a `returned` row
    const parsed = parseNachaReturns(text);
    if (parsed.errors.length > 0)
      throw new DomainError('validation_failed', 'The NACHA return file is refused; nothing was imported.', {
        errors: parsed.errors.map(lineError),
      });
    format = 'nacha';
    rows = parsed.rows;
    skipped = parsed.skipped;
  } else if (looksLikeXml(text)) {
    const parsed = parseCamt054(text);
    if (parsed.errors.length > 0)
      throw new DomainError('validation_failed', 'The camt.054 file is refused; nothing was imported.', {
        errors: parsed.errors.map(lineError),
      });
    format = parsed.message ?? 'camt.054';
    messageId = parsed.messageId;
    rows = parsed.rows;
    skipped = parsed.skipped;
  } else {
    const parsed = parseReconciliationCsv(text);
    if (parsed.errors.length > 0)
      throw new DomainError('validation_failed', 'The reconciliation file has errors; nothing was imported.', {
        errors: parsed.errors.map(lineError),
      });
    rows = parsed.rows;
  }
  return deps.db.transaction().execute(async (trx) => {
    const outcomes: Record<SettleOutcome, number> = {
      paid: 0,
      failed: 0,
      returned: 0,
      unchanged: 0,
      superseded: 0,
      conflict: 0,
      amount_mismatch: 0,
      not_sent: 0,
      unknown: 0,
    };
    const issues: ReconciliationReport['issues'] = [];
    const warnings: ReconciliationReport['warnings'] = [];
    let line = 0;
    const settleDeps: SettleDeps = {
      ...deps,
      warn: (warning) => {
        warnings.push({ line, ...warning });
        deps.warn?.(warning);
      },
    };
    for (const row of rows) {
      line = row.line;
      const outcome = await settlePayout(trx, settleDeps, {
        endToEndId: row.endToEndId,
        outcome: row.status,
        reason: row.reason,
        amount: row.amount,
        actor,
        rails: BANK_RAILS,
        // the bank's own report speaks only of transfers it was sent; an operator's CSV may record a
        // payout paid another way (a refused currency's)
        sentInFile: format !== 'csv',
      });
      outcomes[outcome] += 1;
      if (outcome === 'amount_mismatch') {
        const payout = await findPayoutByEndToEndId(trx, row.endToEndId);
        issues.push({
          line: row.line,
          endToEndId: row.endToEndId,
          outcome,
          detail: `reported ${row.status} ${row.amount?.value ?? '?'} ${row.amount?.currency || '(no currency)'}, the payout is ${payout ? `${toDecimalString(payout.amount, payout.currency)} ${payout.currency} ${payout.status}` : 'unknown'}`,
        });
      } else if (outcome === 'unknown') {
        // one of ours that no bank was sent: a sandbox or preproduction payout (the simulated bank)
        const payout = await findPayoutByEndToEndId(trx, row.endToEndId);
        issues.push({
          line: row.line,
          endToEndId: row.endToEndId,
          outcome,
          ...(payout
            ? {
                detail: `a ${payout.environment} payout, settled by the simulated bank only: no bank report settles it`,
              }
            : {}),
        });
      } else if (outcome === 'not_sent') {
        const payout = await findPayoutByEndToEndId(trx, row.endToEndId);
        issues.push({
          line: row.line,
          endToEndId: row.endToEndId,
          outcome,
          detail: `reported ${row.status}, the payout is ${payout?.status ?? 'unknown'}: no written file is recorded for it: check with the bank whether its batch's file went`,
        });
      } else if (outcome === 'superseded' || outcome === 'conflict')
        issues.push({ line: row.line, endToEndId: row.endToEndId, outcome });
    }
    return { format, messageId, rows: rows.length, outcomes, issues, skipped, warnings };
  });
}

function lineError(e: ReconciliationError): FieldError {
  return { field: `line ${e.line}`, code: 'invalid', message: e.message };
}
