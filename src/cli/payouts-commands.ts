import { ENVIRONMENTS, requirePartner } from '../partners/index.ts';
import { Option } from 'commander';
import {
  claimNumberFor,
  createPayoutBatches,
  MAX_BATCHES_PER_RUN,
  exportSepaBatch,
  leftOutBicFault,
  MAX_BANK_REPORT_BYTES,
  operatorPayoutsPage,
  PAYOUT_REPORT_BUSINESS_DAYS,
  PAYOUT_STATUSES,
  unreportedDue,
  reconcilePayouts,
  recordSentSepaBatch,
  setPayoutBic,
} from '../payouts/index.ts';
import type { Environment, PayoutStatus } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import { formatMoney } from '../platform/money.ts';
import { deskOptions, deskResult, limitOf, table, when, type CommandKit } from './kit.ts';
import { leftOutFor, leftOutMark } from './payout-output.ts';

const payoutCount = (n: number) => `${n} pending payout${n === 1 ? '' : 's'}`;

/** Operator commands for payouts: listing, the bank files (pain.001 and NACHA), the creditor's BIC and the bank's reconciliation report. */

export function payoutsCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor, services } = kit;
  const names = (pointer: string) =>
    ({
      '/limit': '--limit',
      '/cursor': '--cursor',
      '/executionDate': '--execution-date',
      '/reason': '--reason',
      '/actionToken': '--once',
      '/bic': '<bic>',
    })[pointer];

  const payouts = group(
    'payouts',
    'Pay claims: credit transfer batches (SEPA in EUR, cross-border in other currencies), ACH (NACHA) files to US accounts, the creditor BIC and the bank report',
    'parasol payouts batch',
  );

  leaf(payouts, 'list', 'List payouts, newest first', 'parasol payouts list --status instructed --partner acme-air')
    .addOption(new Option('--status <status>', 'only payouts in this status').choices(PAYOUT_STATUSES))
    .addOption(new Option('--env <environment>', 'only this environment').choices(ENVIRONMENTS))
    .option(
      '--unreported',
      `only payouts still instructed that should be settled: SEPA ones ${PAYOUT_REPORT_BUSINESS_DAYS} TARGET business days after their file (no bank report), ACH ones a business day after their return window`,
    )
    .option(
      '--left-out',
      'only pending payouts a batch left out of its file (no BIC for a cross-border transfer…), longest waiting first',
    )
    .option('--partner <slug-or-id>', 'only this partner (its slug or id; an unknown one is refused)')
    .option('--limit <n>', 'at most this many (default 50)')
    .option('--cursor <cursor>', 'the next page: the cursor the previous page printed (same filters)')
    .action(
      run(
        async (options: {
          status?: PayoutStatus;
          env?: Environment;
          unreported?: boolean;
          leftOut?: boolean;
          partner?: string;
          limit?: string;
          cursor?: string;
        }) => {
          const now = new Date();
          const { rows, nextCursor } = await operatorPayoutsPage(db, services().keys, {
            status: options.status,
            environment: options.env,
            partnerSlug: options.partner === undefined ? undefined : (await requirePartner(db, options.partner)).slug,
            unreported: options.unreported ? unreportedDue(now, services().config.achReturnWindowDays) : undefined,
            leftOut: options.leftOut,
            cursor: options.cursor,
            cursorField: '/cursor',
            limit: limitOf(options.limit, 50),
          });
          const data = rows.map((r) => ({
            claimNumber: r.claim_number,
            partner: r.partner_slug,
            environment: r.environment,
            rail: r.rail,
            status: r.status,
            attempt: r.attempt,
            endToEndId: r.end_to_end_id,
            amount: { amount: Number(r.amount), currency: r.currency },
            batch: r.message_id,
            createdAt: r.created_at,
            instructedAt: r.instructed_at,
            settledAt: r.settled_at,
            failureReason: r.failure_reason,
            leftOut:
              r.status === 'pending' && r.left_out_at
                ? { since: r.left_out_at, code: r.left_out_code, reason: r.left_out_reason }
                : null,
          }));
          const lines = rows.length
            ? table(
                [
                  'CLAIM',
                  'PARTNER',
                  'ENV',
                  'RAIL',
                  'STATUS',
                  'TRY',
                  'END-TO-END ID',
                  'AMOUNT',
                  'BATCH',
                  'SETTLED',
                  'LEFT OUT',
                ],
                rows.map((r) => [
                  r.claim_number,
                  r.partner_slug,
                  r.environment,
                  r.rail,
                  r.status,
                  String(r.attempt),
                  r.end_to_end_id,
                  formatMoney(Number(r.amount), r.currency),
                  r.message_id ?? '-',
                  when(r.settled_at),
                  leftOutMark(r, now) ?? '-',
                ]),
              )
            : ['No payouts match.'];
          if (nextCursor) lines.push(`More: the same command with --cursor ${nextCursor}`);
          return { data: { payouts: data, nextCursor }, lines };
        },
        names,
      ),
    );

  leaf(
    payouts,
    'batch',
    'Gather pending production payouts into credit transfer files (pain.001.001.09), one per currency: EUR SEPA, others cross-border; and USD payouts to US accounts into NACHA (ACH) files',
    'parasol payouts batch --execution-date 2026-12-01',
  )
    .option(
      '--execution-date <date>',
      'requested execution date of the pain.001 files, YYYY-MM-DD (default: today before the cut-off PARASOL_SEPA_CUTOFF on a TARGET business day, else the next one); refused (each pain.001 currency REFUSED, its payouts left pending) when it is before that default (a past day, today after the cut-off), a weekend or TARGET holiday, or more than 30 TARGET business days ahead; not the NACHA file, whose effective entry date is always the next Federal Reserve business day (made all the same)',
    )
    .option('--limit <n>', `at most this many transfers in each file (default and maximum 5000)`)
    .action(
      run(async (options: { executionDate?: string; limit?: string }) => {
        const { config, keys } = services();
        // a non-date is refused by createPayoutBatches (invalid_format, on --execution-date)
        const { batches, refused, skipped, unfiled, achWaiting } = await createPayoutBatches(
          {
            db,
            keys,
            now: () => new Date(),
            debtor: config.sepaDebtor,
            directory: config.payoutsDir,
            cutOff: config.sepaCutOff,
            ach: config.achOriginator,
          },
          // as many files as the schedule makes: one NACHA file past its 12-digit total leaves payouts for the next
          {
            actor,
            executionDate: options.executionDate,
            limit: limitOf(options.limit, 5_000),
            filesPerCurrency: MAX_BATCHES_PER_RUN,
            maxFiles: MAX_BATCHES_PER_RUN,
          },
        );
        // a currency no file can pay is said every time, with why: its payouts stay pending for the operator
        const warnings = refused.map(
          (r) =>
            `REFUSED ${r.currency}: ${r.payouts} pending payout(s) not paid (${r.reason}): ${r.message} (parasol payouts list --status pending).`,
        );
        // a payout its file cannot hold is left out, by end-to-end id: the others of its currency are filed
        const now = new Date();
        for (const s of skipped)
          warnings.push(
            `LEFT OUT ${s.endToEndId} (${s.currency}, claim ${s.claimNumber}, ${s.first ? 'from now' : `for ${leftOutFor(s.leftOutSince, now)}`}): ${s.reason}; it stays pending (${leftOutBicFault(s.code, s.reason) === 'none' ? 'parasol payouts list --left-out' : `parasol payouts set-bic ${s.claimNumber} <BIC> --reason "…"`}).`,
          );
        return {
          data: { batches, refused, skipped },
          lines: [
            // "nothing waiting" only when nothing was left out or refused either: those are waiting, below
            ...(batches.length === 0
              ? [
                  warnings.length === 0
                    ? 'No payout is waiting for a bank file (pain.001 or NACHA).'
                    : `No file written: ${payoutCount(unfiled)} waiting could not be filed (below).`,
                ]
              : []),
            ...batches.flatMap((b) => [
              `Batch ${b.messageId}: ${b.payouts} transfer(s), ${b.controlSum} ${b.currency} (${b.scheme === 'sepa' ? 'SEPA' : b.scheme === 'ach' ? 'ACH, NACHA file' : 'cross-border'}), ${b.scheme === 'ach' ? 'effective entry date' : 'execution'} ${b.executionDate}.`,
              `File: ${b.path}`,
            ]),
            ...(batches.length > 0
              ? [
                  'Send the files to the bank; import its report (camt.054, CSV or NACHA return file) with: parasol payouts reconcile <file>',
                ]
              : []),
            // NACHA files made, ACH payouts still pending: the next run takes them, unless the day's files are all made
            ...(achWaiting > 0
              ? [
                  `${achWaiting} ACH payout${achWaiting === 1 ? '' : 's'} still wait${achWaiting === 1 ? 's' : ''} for a NACHA file: ${
                    refused.some((r) => r.currency === 'USD' && r.reason === 'ach_day_full')
                      ? "the day's 36 files are made, they go in the next day's first file (nothing to do)."
                      : refused.some((r) => r.currency === 'USD')
                        ? 'see REFUSED USD below.'
                        : 'the run made as many files as it may (a NACHA file holds 5,000 entries and $9,999,999,999.99 at most): run parasol payouts batch again.'
                  }`,
                ]
              : []),
            ...warnings,
          ],
        };
      }, names),
    );

  deskOptions(
    leaf(
      payouts,
      'set-bic <payout> <bic>',
      "Give a pending payout the creditor's BIC (by claim number or end-to-end id): a cross-border payout (not EUR) left out of its file for want of one (or for its BIC alone) goes in the next batch; one left out for something else too stays left out. Checked (format, the BIC's country the IBAN's), only while pending (in no file) and paid by bank transfer (not the sandbox), audited with the old and new BIC",
      'parasol payouts set-bic CLM-00000042 NWBKGB2L --reason "BIC confirmed by the customer on the phone"',
    ),
  ).action(
    run(async (payout: string, bic: string, options: { reason?: string; once?: string }) => {
      const { keys } = services();
      const claimNumber = await claimNumberFor(db, payout);
      return deskResult(
        actor,
        options,
        (action) => setPayoutBic({ db, keys, now: () => new Date() }, { ...action, claimNumber, bic }),
        (done) =>
          done.stillLeftOut === undefined
            ? `${done.claimNumber}: payout ${done.endToEndId} has BIC ${done.bic}; the next batch takes it (parasol payouts batch).`
            : `${done.claimNumber}: payout ${done.endToEndId} has BIC ${done.bic}; it stays left out of its file for another fault (${done.stillLeftOut}): parasol payouts list --left-out.`,
      );
    }, names),
  );

  leaf(
    payouts,
    'export <batch>',
    'Write a batch file (pain.001 or NACHA) again from the database, by batch id or message id; --already-sent records one the bank got outside Parasol, writing nothing',
    'parasol payouts export PSL-20261201-0A1B2C3D4E5F6071',
  )
    .option(
      '--already-sent',
      "record the batch's file as sent (the bank got it outside Parasol) without writing it: never a second file the transfer channel could send again",
    )
    .action(
      run(async (batch: string, options: { alreadySent?: boolean }) => {
        const { config, keys } = services();
        if (options.alreadySent) {
          const path = await recordSentSepaBatch(
            { db, directory: config.payoutsDir, now: () => new Date() },
            batch,
            actor,
          );
          return {
            data: { path, written: false },
            lines: [`recorded as sent outside Parasol, no file written: ${path}`],
          };
        }
        const path = await exportSepaBatch(
          { db, keys, directory: config.payoutsDir, now: () => new Date() },
          batch,
          actor,
        );
        return { data: { path }, lines: [`${path.endsWith('.ach') ? 'NACHA file' : 'pain.001 file'}: ${path}`] };
      }),
    );

  leaf(
    payouts,
    'reconcile <file>',
    "Import the bank's report: a camt.054 (XML), a NACHA return file (ACH returns of a NACHA file), or CSV endToEndId,status[,reason] with status paid, failed or returned",
    'parasol payouts reconcile camt054.xml',
  ).action(
    run(async (file: string) => {
      const { config, jobs, keys } = services();
      let text: string;
      try {
        text = await kit.readFile(file, MAX_BANK_REPORT_BYTES);
      } catch (error) {
        if (error instanceof DomainError) throw error;
        throw new DomainError('not_found', `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`);
      }
      const report = await reconcilePayouts(
        { db, jobs, now: () => new Date(), bankDetailsDays: config.bankDetailsDays, encryption: keys.encryption },
        text,
        actor,
      );
      const o = report.outcomes;
      return {
        data: report,
        lines: [
          `${report.format === 'csv' ? 'CSV' : `${report.format}${report.messageId ? ` ${report.messageId}` : ''}`}: ${report.rows} row(s): ${o.paid} paid, ${o.failed} failed, ${o.returned} returned, ${o.unchanged} already known, ${o.unknown} unknown, ${o.superseded} superseded, ${o.conflict} in conflict, ${o.amount_mismatch} amount mismatch, ${o.not_sent} never sent${report.skipped.length ? `; ${report.skipped.length} entr${report.skipped.length === 1 ? 'y' : 'ies'} skipped` : ''}.`,
          ...report.issues.map(
            (i) => `  line ${i.line}: ${i.endToEndId} ${i.outcome}${i.detail ? ` (${i.detail}): left as it was` : ''}`,
          ),
          ...report.skipped.map((s) => `  line ${s.line}: skipped, ${s.reason}`),
          ...report.warnings.map((w) => `  line ${w.line}: ${w.endToEndId} applied; warning: ${w.message}`),
        ],
      };
    }),
  );
}
